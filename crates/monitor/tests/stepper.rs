//! The monitor's replay (`stepper`) against the reference (`agentpi_check::replay`): every
//! bundled trace and generated floods give the same findings, event by event, the same
//! report, and the same labels allowed next (what `agentpi test` chooses from).

mod support;

use agentpi_monitor::{Dir, Session, Sessions, trace};
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
