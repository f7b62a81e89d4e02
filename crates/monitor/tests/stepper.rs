//! The monitor's replay (`stepper`) against the reference (`agentpi_check::replay`): every
//! bundled trace and generated floods give the same findings, event by event, the same
//! report, and the same labels allowed next (what `agentpi test` chooses from).

mod support;

use agentpi_check::replay::parse_observation;
use agentpi_monitor::follow::Follow;
use agentpi_monitor::{Dir, Session, Sessions, model, trace};
use support::{legacy_opening, trace_files};

/// Feeds `lines` to both sessions; compares what each event reveals and, when `allowed`,
/// what each side may send next; then the reports.
fn same_findings(name: &str, text: &str, allowed: bool) {
    let events = trace::parse(text.as_bytes()).unwrap();
    let mut fast = Session::new();
    let mut reference = Session::with_reference();
    for (i, event) in events.iter().enumerate() {
        assert_eq!(fast.feed(event), reference.feed(event), "{name}: event {i}");
        if allowed {
            for dir in [Dir::C2s, Dir::S2c] {
                let (a, b) = (fast.allowed(dir), reference.allowed(dir));
                assert_eq!(a, b, "{name}: allowed after event {i}");
            }
        }
    }
    let (a, b) = (fast.finish().to_json(), reference.finish().to_json());
    assert_eq!(a, b, "{name}: reports");
    // The same, each session of the trace on its own (`trace check`'s way).
    let (mut fast, mut reference) = (Sessions::new(), Sessions::with_reference());
    for (i, event) in events.iter().enumerate() {
        assert_eq!(fast.feed(event), reference.feed(event), "{name}: event {i}");
    }
    let (a, b) = (fast.finish().to_json(), reference.finish().to_json());
    assert_eq!(a, b, "{name}: reports of its sessions");
}

#[test]
fn bundled_traces() {
    let files = trace_files();
    assert!(files.len() > 20, "the traces are where they were");
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        same_findings(&file.display().to_string(), &text, true);
    }
}

/// A deterministic source of choices (SplitMix64).
struct Choices(u64);

impl Choices {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        (z ^ (z >> 31)) % n
    }
}

/// A legacy session with many requests in flight and everything that can befall them:
/// answers in any order, errors, progress, cancellations answered within and after the race
/// window, and strays (unknown ids, second answers, unknown tokens).
fn flood(seed: u64, requests: u64, peak: usize) -> String {
    let mut c = Choices(seed);
    let mut t = 0.0;
    let mut lines: Vec<String> = Vec::new();
    let mut line = |t: f64, dir: &str, raw: String| {
        let raw = serde_json::to_string(&raw).unwrap();
        lines.push(format!(r#"{{"t":{t:.3},"dir":"{dir}","raw":{raw}}}"#));
    };
    for (dir, raw) in legacy_opening("f", r#"{"tools":{}}"#) {
        line(t, dir, raw);
    }
    let mut open: Vec<u64> = Vec::new();
    let mut progress = 0;
    let result = |id: u64| match id % 3 {
        0 => "{}",
        _ => r#"{"content":[]}"#,
    };
    let mut next = 1;
    while next <= requests || !open.is_empty() {
        t += 0.01 * c.below(30) as f64;
        let send = next <= requests && (open.len() < peak && c.below(3) > 0 || open.is_empty());
        if send {
            let id = next;
            next += 1;
            let raw = match id % 3 {
                0 => format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#),
                _ => format!(
                    r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"e","arguments":{{}},"_meta":{{"progressToken":"p{id}"}}}}}}"#
                ),
            };
            line(t, "c2s", raw);
            open.push(id);
            continue;
        }
        let at = c.below(open.len() as u64) as usize;
        let id = open[at];
        match c.below(12) {
            0 => {
                progress += 1;
                line(t, "s2c", format!(r#"{{"jsonrpc":"2.0","method":"notifications/progress","params":{{"progressToken":"p{id}","progress":{progress}}}}}"#));
            }
            1 => {
                line(t, "c2s", format!(r#"{{"jsonrpc":"2.0","method":"notifications/cancelled","params":{{"requestId":{id}}}}}"#));
                let late = if c.below(2) == 0 { 0.1 } else { 2.0 };
                if c.below(2) == 0 {
                    let r = result(id);
                    line(t + late, "s2c", format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{r}}}"#));
                    t += late;
                }
                open.swap_remove(at);
            }
            2 => line(t, "s2c", format!(r#"{{"jsonrpc":"2.0","id":{},"result":{{}}}}"#, id + 1_000_000)),
            3 => {
                line(t, "s2c", format!(r#"{{"jsonrpc":"2.0","id":{id},"error":{{"code":-32000,"message":"no"}}}}"#));
                open.swap_remove(at);
            }
            4 => line(t, "s2c", r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"nobody","progress":1}}"#.into()),
            _ => {
                let r = result(id);
                line(t, "s2c", format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{r}}}"#));
                if c.below(20) == 0 {
                    line(t, "s2c", format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{r}}}"#));
                }
                open.swap_remove(at);
            }
        }
    }
    lines.join("\n") + "\n"
}

#[test]
fn floods_with_everything_in_them() {
    for seed in 0..4 {
        let text = flood(seed, 40, 10);
        same_findings(&format!("small flood {seed}"), &text, true);
    }
    let text = flood(10, 200, 80);
    same_findings("flood", &text, false);
}

/// The findings of a flood are pinned too (not only equal): how many violations of each rule.
#[test]
fn a_flood_is_checked_whole() {
    let events = trace::parse(flood(7, 150, 60).as_bytes()).unwrap();
    let mut session = Session::new();
    events.iter().for_each(|e| drop(session.feed(e)));
    let report = session.finish();
    let mut counts = std::collections::BTreeMap::new();
    for v in &report.violations {
        *counts.entry(v.rule.as_str()).or_insert(0) += 1;
    }
    assert!(report.notes.is_empty(), "{:?}", report.notes);
    assert_eq!(report.open_requests, []);
    insta::assert_snapshot!(format!("{counts:?}"));
}

/// The trace of `bench/monitor/flood_trace.py N PEAK`: a legacy handshake, then N pings with
/// up to PEAK in flight (the server answers ping i - PEAK after ping i), then the rest of the
/// answers.
fn ping_flood(n: usize, peak: usize) -> String {
    let mut lines = Vec::new();
    let mut t = 0.0;
    let mut line = |dir: &str, raw: String| {
        t += 0.00001;
        let raw = serde_json::to_string(&raw).unwrap();
        lines.push(format!(r#"{{"t":{t:.6},"dir":"{dir}","raw":{raw}}}"#));
    };
    for (dir, raw) in legacy_opening("flood", "{}") {
        line(dir, raw);
    }
    let answer = |id: usize| format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{}}}}"#);
    for i in 1..=n {
        line(
            "c2s",
            format!(r#"{{"jsonrpc":"2.0","id":{i},"method":"ping"}}"#),
        );
        if i > peak {
            line("s2c", answer(i - peak));
        }
    }
    for i in n.saturating_sub(peak) + 1..=n {
        line("s2c", answer(i));
    }
    lines.join("\n") + "\n"
}

/// A flood with every request in flight at once (the case whose cost once grew with the
/// requests in flight: docs/monitor.md, Performance) is checked whole, with the findings of
/// the reference where the reference is affordable: no violation, no request left open, every
/// message counted, no note.
#[test]
fn a_flood_of_requests_all_in_flight_is_checked_whole() {
    same_findings("300 pings in flight", &ping_flood(300, 300), false);
    for (n, peak) in [(5000, 5000), (6000, 1200)] {
        let events = trace::parse(ping_flood(n, peak).as_bytes()).unwrap();
        let mut sessions = Sessions::new();
        events.iter().for_each(|e| drop(sessions.feed(e)));
        let report = sessions.finish();
        let counts = (report.messages, report.violations.len());
        assert_eq!(counts, (2 * n + 3, 0), "{n} pings, {peak} in flight");
        assert_eq!(report.open_requests, [], "{n} pings, {peak} in flight");
        assert!(report.notes.is_empty(), "{:?}", report.notes);
    }
}

/// The stepper and the reference stepped along `labels` (the legacy model's, as text): the
/// same verdict and expected labels at each, and the same answer to whether each of `keys`
/// is bound.
fn same_label_steps(name: &str, labels: &[String], keys: &[String]) {
    let model = model::legacy().unwrap();
    let (mut fast, mut reference) = (model.start(false).unwrap(), model.start(true).unwrap());
    assert!(
        matches!(fast, Follow::Stepper(_)),
        "the monitor's own stepper"
    );
    for (i, text) in labels.iter().enumerate() {
        let obs = parse_observation(model.sem.program, text).unwrap();
        let at = format!("{name}: label {i}, {text}");
        let want = reference.step_explained(&obs);
        assert_eq!(fast.step_explained(&obs), want, "{at}");
        if i % 8 == 7 || i + 1 == labels.len() {
            assert_eq!(fast.expected(), reference.expected(), "{at}: expected");
        }
        for key in keys {
            assert_eq!(
                fast.is_bound(key),
                reference.is_bound(key),
                "{at}: {key} bound"
            );
        }
    }
}

/// A request in flight in a generated label sequence: its key, and the sides it was sent
/// and is answered on.
struct InFlight {
    key: String,
    mine: &'static str,
    theirs: &'static str,
}

/// Labels of the legacy model that the wire never gives (a session observes a progress for
/// a token no key names as `stray_prog`): after the opening, requests of both sides with
/// their progress tokens absent or named, progress for tokens no key names yet (each walks
/// the requests in flight that may offer it, and when more than one may, the explanation is
/// shared by two and then copied), progress for keys named before, answers and
/// cancellations. So the requests a walk took gain and lose groups between two walks of
/// the same shape, with no class listed or unlisted in between: what a remembered walk must
/// not outlive (docs/monitor.md, *walks remembered by an epoch*).
fn unnamed_progress(seed: u64, length: usize) -> (Vec<String>, Vec<String>) {
    let mut c = Choices(seed);
    let mut labels: Vec<String> = ["c2s(req(a, initialize, _))", "s2c(res(a, true))"]
        .map(String::from)
        .into();
    labels.push("c2s(note(initialized))".into());
    let (mut open, mut keys, mut tokens): (Vec<InFlight>, Vec<String>, Vec<String>) =
        (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..length {
        let choice = c.below(10);
        let (mine, theirs) = match c.below(4) {
            0 => ("s2c", "c2s"),
            _ => ("c2s", "s2c"),
        };
        let label = match choice {
            0..=3 if open.len() < 4 => {
                let key = fresh("k", &mut keys);
                let kind = ["ping", "plain"][c.below(2) as usize];
                let token = match c.below(2) {
                    0 => fresh("t", &mut keys),
                    _ => "_".to_string(),
                };
                tokens.extend((token != "_").then(|| token.clone()));
                open.push(InFlight {
                    key: key.clone(),
                    mine,
                    theirs,
                });
                format!("{mine}(req({key}, {kind}, {token}))")
            }
            0..=5 => {
                // Mostly on the side that answers a request in flight.
                let theirs = match open.is_empty() {
                    true => theirs,
                    false => open[c.below(open.len() as u64) as usize].theirs,
                };
                let token = fresh("x", &mut keys);
                tokens.push(token.clone());
                format!("{theirs}(prog({token}))")
            }
            6 if !tokens.is_empty() => {
                let token = &tokens[c.below(tokens.len() as u64) as usize];
                format!("{theirs}(prog({token}))")
            }
            _ if open.is_empty() => continue,
            7 | 8 => {
                let done = open.swap_remove(c.below(open.len() as u64) as usize);
                let ok = c.below(3) > 0;
                format!("{}(res({}, {ok}))", done.theirs, done.key)
            }
            _ => {
                let done = open.swap_remove(c.below(open.len() as u64) as usize);
                format!("{}(cancel({}))", done.mine, done.key)
            }
        };
        labels.push(label);
    }
    (labels, keys)
}

/// A key no label named yet, kept in `keys`.
fn fresh(prefix: &str, keys: &mut Vec<String>) -> String {
    let key = format!("{prefix}{}", keys.len());
    keys.push(key.clone());
    key
}

/// Generated label sequences in which what a remembered walk took changes alone (see
/// [`unnamed_progress`]), and explanations are shared and copied: the stepper's verdicts,
/// expected labels and bindings are the reference's.
#[test]
fn progress_for_unnamed_tokens() {
    for seed in 0..SEQUENCES {
        let (labels, keys) = unnamed_progress(seed, 30);
        same_label_steps(&format!("sequence {seed}"), &labels, &keys);
    }
}

/// How many sequences `progress_for_unnamed_tokens` steps.
const SEQUENCES: u64 = 40;
