//! A whole test: the first run learns the server (era, declarations, listings), the runs
//! after it play their focus, every failed rule is shrunk (the rules side by side for a
//! stdio server, each replay a process of its own) and saved, and the report says per rule
//! what became of it (`entries`).

use crate::config::{Config, EraChoice};
use crate::conn::Target;
use crate::entries::{self, Done, Saved};
use crate::focus::{self, Focus, Opening, Scope};
use crate::know::{Knowledge, LISTS};
use crate::moves::{Move, Speech};
use crate::report::{Failure, Outcome};
use crate::rng::Rng;
use crate::run::{Limits, Run};
use crate::script;
use crate::shrink;
use crate::verdict::Verdict;
use crate::walk::{Wait, Walk};
use agentpi_mcp::jsonrpc::{LEGACY_VERSION, MODERN_VERSION};
use agentpi_mcp::transport::ClientError;
use agentpi_monitor::Event;
use serde_json::{Map, Value, json};
use std::collections::BTreeSet;
use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

/// Where progress lines go (from the threads that shrink, too).
pub type Progress<'a> = &'a (dyn Fn(String) + Sync);

/// Why a test could not be done (exit status 2).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TestError {
    /// The server could not be started or reached, or said nothing a client can use.
    Unreachable(String),
    /// A trace could not be written.
    Write(String),
}

impl std::fmt::Display for TestError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TestError::Unreachable(why) | TestError::Write(why) => f.write_str(why),
        }
    }
}

/// Tests the server; `progress` hears a line per run and per shrink.
pub fn test(config: &Config, progress: Progress) -> Result<Outcome, TestError> {
    let began = Instant::now();
    let limits = config.limits();
    let (first, know) = first_run(config, &limits)?;
    progress(format!(
        "run 1/{} (lists): {}",
        config.budget.max(1),
        summary(&first)
    ));
    // The runs after the first are independent (each a fresh server, its client messages
    // from the seed, the first run's knowledge and its own answers): a stdio server's run
    // side by side, as its failures are shrunk.
    let runs: Vec<usize> = (1..config.budget).collect();
    let later = side_by_side(jobs(config), &runs, |&run| {
        let d = later_run(config, &limits, &know, run)?;
        progress(format!(
            "run {}/{} ({}): {}",
            run + 1,
            config.budget,
            d.focus.name(),
            summary(&d)
        ));
        Ok(d)
    });
    let mut done = vec![first];
    for d in later {
        done.push(d?);
    }
    save_runs(config, &done)?;
    let shrinking = Instant::now();
    let failures = failures(config, &limits, &done, "", progress)?;
    let mut outcome = entries::outcome(config, &know, &done, failures);
    // Wall-clock times: the rules are shrunk side by side.
    outcome.shrink_seconds = shrinking.elapsed().as_secs_f64();
    outcome.seconds = began.elapsed().as_secs_f64();
    Ok(outcome)
}

fn summary(d: &Done) -> String {
    let v = &d.verdict;
    let rules: BTreeSet<&str> = v.failures.iter().map(|f| f.rule.as_str()).collect();
    let found = if rules.is_empty() {
        "no finding".to_string()
    } else {
        let rules: Vec<&str> = rules.into_iter().collect();
        format!("failed {}", rules.join(", "))
    };
    let timeouts = match v.timeouts.len() {
        0 => String::new(),
        n => format!(", {n} timed out"),
    };
    format!(
        "{} client messages, {found}{timeouts}, {:.1} s",
        v.client_messages(),
        d.seconds
    )
}

fn header(config: &Config, run: usize, focus: Focus) -> Map<String, Value> {
    Map::from_iter([
        ("seed".into(), json!(config.seed)),
        ("run".into(), json!(run)),
        ("focus".into(), json!(focus.name())),
        ("server".into(), json!(config.target.name())),
        ("cwd".into(), json!(working_dir())),
    ])
}

/// The directory the server is started in (agentpi's own).
fn working_dir() -> String {
    std::env::current_dir().map_or(String::new(), |d| d.display().to_string())
}

fn start(config: &Config, limits: &Limits, header: &Map<String, Value>) -> Result<Run, TestError> {
    Run::start(&config.target, header.clone(), limits.clone()).map_err(unreachable)
}

fn unreachable(e: ClientError) -> TestError {
    TestError::Unreachable(e.to_string())
}

/// Run 1: opens in the era asked (probing with `server/discover` when asked to choose),
/// reads every list, and learns the server.
fn first_run(config: &Config, limits: &Limits) -> Result<(Done, Knowledge), TestError> {
    let began = Instant::now();
    let header = header(config, 0, Focus::Lists);
    let run = start(config, limits, &header)?;
    let speech = Speech {
        modern: config.era == EraChoice::Modern,
        version: if config.era == EraChoice::Modern {
            MODERN_VERSION
        } else {
            LEGACY_VERSION
        }
        .into(),
        http: config.target.is_http(),
    };
    let mut walk = Walk::new(run, Rng::for_run(config.seed, 0), speech);
    let mut know = Knowledge::default();
    let opened = open_first(config, &mut walk, &mut know);
    let scope = Scope {
        know: &know,
        allow_writes: config.allow_writes,
    };
    if opened {
        focus::body(&mut walk, Focus::Lists, &scope);
    }
    let silent = !walk
        .run
        .events
        .iter()
        .any(|e| e.dir == agentpi_monitor::Dir::S2c);
    let stderr = walk.run.stderr();
    learn(&mut know, &walk);
    let (events, report) = walk.run.end(false);
    if silent {
        let mut said = stderr;
        said.extend(transport_trouble(&events));
        let tail = said.join("\n  ");
        let why = format!(
            "the server `{}` sent nothing a client can use (no message){}",
            config.target.name(),
            if tail.is_empty() {
                String::new()
            } else {
                format!("; what it said:\n  {tail}")
            }
        );
        return Err(TestError::Unreachable(why));
    }
    if config.era == EraChoice::Modern && !know.modern {
        return Err(TestError::Unreachable(format!(
            "the server `{}` does not answer server/discover: it does not speak 2026-07-28 (try --era legacy)",
            config.target.name()
        )));
    }
    let verdict = Verdict::of(events, report);
    Ok((
        Done {
            verdict,
            focus: Focus::Lists,
            header,
            seconds: began.elapsed().as_secs_f64(),
        },
        know,
    ))
}

/// What the transport said went wrong (HTTP statuses, failed exchanges), for the error of
/// a server that said nothing.
fn transport_trouble(events: &[Event]) -> Vec<String> {
    let mut out = Vec::new();
    for e in events {
        let field = |k: &str| e.fields.get(k).map(|v| v.to_string()).unwrap_or_default();
        match e.kind() {
            Some("http") => out.push(format!(
                "HTTP {} {} answered {}",
                field("method"),
                field("path"),
                field("status")
            )),
            Some("aborted") => out.push(field("reason")),
            _ => {}
        }
    }
    out.dedup();
    out
}

/// Opens the first run's session; whether it is open.
fn open_first(config: &Config, walk: &mut Walk, know: &mut Knowledge) -> bool {
    if config.era == EraChoice::Auto {
        walk.go(Move::Discover, Wait::Answer);
        let discovered = walk
            .result_of("server/discover")
            .is_some_and(|r| r.get("supportedVersions").is_some());
        if discovered {
            walk.speech = Speech {
                modern: true,
                version: MODERN_VERSION.into(),
                http: config.target.is_http(),
            };
            know.modern = true;
            return true;
        }
        know.refuses_discover = walk
            .awaited
            .iter()
            .any(|(_, m, r)| *m == "server/discover" && r.is_none());
        return focus::open(walk, Opening::Standard);
    }
    let opened = focus::open(walk, Opening::Standard);
    know.modern = opened && walk.speech.modern;
    opened
}

/// What the first run's answers tell: declarations, version, and every listed item (the
/// invalid-cursor probe's answer may repeat a page: items are kept once).
fn learn(know: &mut Knowledge, walk: &Walk) {
    let items = |method: &str, key: &str| -> Vec<Value> {
        let mut out: Vec<Value> = Vec::new();
        for (_, m, result) in &walk.awaited {
            let got = result
                .as_ref()
                .filter(|_| *m == method)
                .and_then(|r| r.get(key))
                .and_then(Value::as_array);
            for item in got.into_iter().flatten() {
                if !out.contains(item) {
                    out.push(item.clone());
                }
            }
        }
        out
    };
    let [tools, resources, _, prompts] = LISTS.map(|(method, _, key)| items(method, key));
    know.learn(walk, tools, resources, prompts);
    if know.modern {
        know.version = MODERN_VERSION.into();
    } else if know.version.is_empty() {
        know.version = LEGACY_VERSION.into();
    }
}

fn later_run(
    config: &Config,
    limits: &Limits,
    know: &Knowledge,
    run: usize,
) -> Result<Done, TestError> {
    let began = Instant::now();
    let focus = Focus::of_run(run);
    let header = header(config, run, focus);
    let started = start(config, limits, &header)?;
    let speech = Speech {
        modern: know.modern,
        version: if know.modern {
            MODERN_VERSION
        } else {
            LEGACY_VERSION
        }
        .into(),
        http: config.target.is_http(),
    };
    let mut walk = Walk::new(started, Rng::for_run(config.seed, run), speech);
    let scope = Scope {
        know,
        allow_writes: config.allow_writes,
    };
    let abrupt = focus::play(&mut walk, focus, &scope);
    let (events, report) = walk.run.end(abrupt);
    Ok(Done {
        verdict: Verdict::of(events, report),
        focus,
        header,
        seconds: began.elapsed().as_secs_f64(),
    })
}

/// Writes a trace to `path`, unless the file there is not a trace of a test of this same
/// server (command or URL, and working directory): another server's traces are never
/// overwritten (exit status 2).
fn write_trace(path: &Path, events: &[Event]) -> Result<(), TestError> {
    if let Some(other) = foreign(path, events) {
        return Err(TestError::Write(format!(
            "`{}` holds {other}: agentpi test does not overwrite it (give another --record folder, or remove the file)",
            path.display()
        )));
    }
    let text: String = events.iter().map(|e| e.to_line() + "\n").collect();
    std::fs::create_dir_all(path.parent().unwrap_or(Path::new(".")))
        .and_then(|()| std::fs::write(path, text))
        .map_err(|e| TestError::Write(format!("cannot write `{}`: {e}", path.display())))
}

/// The server a trace tested: its `spawn` event's command and URL, and the working directory
/// its `test` event names.
fn tested_server(events: &[Event]) -> (Option<Value>, Option<Value>, Option<Value>) {
    let field = |kind: &str, key: &str| {
        let e = events.iter().find(|e| e.kind() == Some(kind))?;
        e.fields.get(key).cloned()
    };
    (
        field("spawn", "command"),
        field("spawn", "url"),
        field("test", "cwd"),
    )
}

/// What the file at `path` holds, when it is not a trace of this server's test.
fn foreign(path: &Path, ours: &[Event]) -> Option<String> {
    let bytes = std::fs::read(path).ok()?;
    let Ok(theirs) = agentpi_monitor::trace::parse(&bytes) else {
        return Some("a file that is not a trace".into());
    };
    let (command, url, cwd) = tested_server(&theirs);
    if (command.clone(), url.clone(), cwd.clone()) == tested_server(ours) {
        return None;
    }
    let what = command.or(url).map_or("?".to_string(), |v| v.to_string());
    let cwd = cwd.map(|c| format!(", in {c}")).unwrap_or_default();
    Some(format!("a trace of another server's test ({what}{cwd})"))
}

fn save_runs(config: &Config, done: &[Done]) -> Result<(), TestError> {
    if !config.keep_runs {
        return Ok(());
    }
    for (i, d) in done.iter().enumerate() {
        write_trace(
            &config.dir.join(format!("run-{}.jsonl", i + 1)),
            &d.verdict.events,
        )?;
    }
    Ok(())
}

/// The first failure of each failed rule, shrunk and saved. A stdio server's rules are
/// shrunk side by side (every replay starts a process of its own; most of a replay is
/// waiting); an HTTP server's one after the other (the URL's port takes one at a time). Each
/// rule's replays stay in their order, so the same seed saves the same shrunk traces.
/// `prefix` names the saved traces (a replay's never overwrite the trace it replays).
fn failures(
    config: &Config,
    limits: &Limits,
    done: &[Done],
    prefix: &str,
    progress: Progress,
) -> Result<Vec<Saved>, TestError> {
    let mut rules: Vec<(String, usize)> = Vec::new();
    for (run, d) in done.iter().enumerate() {
        for v in &d.verdict.failures {
            if !rules.iter().any(|(r, _)| *r == v.rule) {
                rules.push((v.rule.clone(), run));
            }
        }
    }
    let shrunk = side_by_side(jobs(config), &rules, |(rule, run)| {
        shrunk(config, limits, &done[*run], rule, *run, progress)
    });
    let mut out = Vec::new();
    for ((rule, _), failure) in rules.into_iter().zip(shrunk) {
        let path = config.dir.join(format!("{prefix}{rule}.jsonl"));
        write_trace(&path, &failure.events)?;
        out.push((rule, failure, path));
    }
    Ok(out)
}

/// How many runs, or rules being shrunk, go at once: a stdio server's are independent
/// processes, mostly waiting (for the server's start, answers, the watch after a
/// cancellation, the exit); an HTTP server's URL takes one at a time.
fn jobs(config: &Config) -> usize {
    match config.target {
        Target::Command(_) => config.jobs.unwrap_or_else(idle_jobs).max(1),
        Target::Url(_) | Target::Served { .. } => 1,
    }
}

/// One more than the cores the machine leaves idle (by its load average over the last
/// minute), 1 to 4: a server that starts slowly uses a core for seconds, and started beside
/// others on busy cores it misses deadlines and exit graces it would keep alone (FastMCP 4
/// took 11 s a run, three at a time under a load of 11 on two cores, and 2.1 s to exit).
fn idle_jobs() -> usize {
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    let load = std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|l| l.split_whitespace().next()?.parse::<f64>().ok())
        .unwrap_or(0.0);
    let busy = load.floor() as usize;
    (cores + 1).saturating_sub(busy).clamp(1, 4)
}

/// `work` of each item, `jobs` at a time; the results in the items' order.
fn side_by_side<T: Sync, R: Send>(
    jobs: usize,
    items: &[T],
    work: impl Fn(&T) -> R + Sync,
) -> Vec<R> {
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<R>>> = Mutex::new(items.iter().map(|_| None).collect());
    let worker = || {
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some(item) = items.get(i) else { break };
            let r = work(item);
            if let Ok(mut results) = results.lock() {
                results[i] = Some(r);
            }
        }
    };
    std::thread::scope(|scope| {
        // The calling thread is one of the jobs: when the system starts no more threads
        // (too many, no address space left), the items are still all worked, by fewer.
        for _ in 1..jobs.min(items.len()) {
            let _ = std::thread::Builder::new().spawn_scoped(scope, worker);
        }
        worker();
    });
    let results = results.into_inner().unwrap_or_default();
    results.into_iter().flatten().collect()
}

fn shrunk(
    config: &Config,
    limits: &Limits,
    d: &Done,
    rule: &str,
    run: usize,
    progress: Progress,
) -> Failure {
    let began = Instant::now();
    let original = &d.verdict;
    let from_messages = original.client_messages();
    let found = original.failure(rule).cloned();
    let mut header = d.header.clone();
    header.insert("shrunk".into(), json!(rule));
    let small = config
        .shrink
        .then(|| shrink::shrink(&config.target, limits, &header, original, rule))
        .flatten();
    let seconds = began.elapsed().as_secs_f64();
    let (verdict, shrunk, replays) = match small {
        Some(s) => {
            progress(format!(
                "{rule}: shrunk from {from_messages} to {} client messages in {} replays, {seconds:.1} s",
                s.verdict.client_messages(),
                s.tries
            ));
            (s.verdict, true, s.tries)
        }
        None => (original.clone(), false, 0),
    };
    let violation = verdict
        .failure(rule)
        .cloned()
        .or(found)
        .unwrap_or_else(|| unreachable_violation(rule));
    let checked = crate::verdict::checked(&verdict.events, rule);
    if !checked {
        progress(format!(
            "{rule}: `agentpi trace check` does not report it from the saved trace"
        ));
    }
    Failure {
        messages: verdict.client_messages(),
        violation,
        events: verdict.events,
        run,
        from_messages,
        shrunk,
        replays,
        seconds,
        checked,
    }
}

/// A placeholder finding (a rule that failed has a finding; this keeps types total).
fn unreachable_violation(rule: &str) -> agentpi_monitor::Violation {
    agentpi_monitor::Violation {
        rule: rule.to_string(),
        level: String::new(),
        index: 0,
        dir: agentpi_monitor::Dir::Event,
        message: String::new(),
        spec: String::new(),
        expected: Vec::new(),
        raw: Vec::new(),
    }
}

/// Replays a saved trace's client messages against the server once, and reports it.
pub fn replay(config: &Config, events: &[Event], progress: Progress) -> Result<Outcome, TestError> {
    let began = Instant::now();
    let limits = config.limits();
    let steps = script::steps(events);
    let mut header = header(config, 0, Focus::Random);
    header.insert("replay".into(), json!(true));
    let (new_events, report) = script::replay(
        &config.target,
        header.clone(),
        limits.clone(),
        &steps,
        false,
    )
    .map_err(unreachable)?;
    let done = vec![Done {
        verdict: Verdict::of(new_events, report),
        focus: Focus::Random,
        header,
        seconds: began.elapsed().as_secs_f64(),
    }];
    progress(format!("replay: {}", summary(&done[0])));
    let mut know = Knowledge::default();
    know.modern = judge_modern(&done[0].verdict.events);
    know.version = if know.modern {
        MODERN_VERSION
    } else {
        LEGACY_VERSION
    }
    .into();
    let config = Config {
        shrink: false,
        ..config.clone()
    };
    let failures = failures(&config, &limits, &done, "replay-", progress)?;
    Ok(entries::outcome(&config, &know, &done, failures))
}

fn judge_modern(events: &[Event]) -> bool {
    events.iter().any(|e| {
        e.dir == agentpi_monitor::Dir::C2s
            && serde_json::from_slice::<Value>(&e.raw).is_ok_and(|m| {
                m.get("method").and_then(Value::as_str) != Some("server/discover")
                    && m.pointer("/params/_meta/io.modelcontextprotocol~1protocolVersion")
                        .is_some()
            })
    })
}
