//! A whole test: the first run learns the server (era, declarations, listings), the runs
//! after it play their focus, every failed rule is shrunk and saved, and the report says per
//! rule what became of it.

use crate::catalogue::{self, Cover, Era as RuleEra, Over};
use crate::conn::Target;
use crate::focus::{self, Focus, Opening, Scope};
use crate::know::{Knowledge, LISTS};
use crate::moves::{Move, Speech};
use crate::report::{Failure, Outcome, RuleReport, Status};
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
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Which era the test speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EraChoice {
    /// Modern if the server answers a `server/discover` probe, else legacy.
    Auto,
    Legacy,
    Modern,
}

/// What to test and how.
#[derive(Clone, Debug)]
pub struct Config {
    pub target: Target,
    pub seed: u64,
    /// How many runs (each a fresh server).
    pub budget: usize,
    /// How long a request may go unanswered.
    pub timeout: Duration,
    /// How long the server has to exit once its input is closed (S5).
    pub exit_grace: Duration,
    pub allow_writes: bool,
    pub era: EraChoice,
    /// Where traces are saved: the shrunk trace of each failed rule as `RULE.jsonl`, and
    /// with `keep_runs` every run's trace as `run-N.jsonl`.
    pub dir: PathBuf,
    pub keep_runs: bool,
    pub shrink: bool,
}

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

/// A run's verdict and what it was.
struct Done {
    verdict: Verdict,
    focus: Focus,
    header: Map<String, Value>,
}

/// Tests the server; `progress` hears a line per run and per shrink.
pub fn test(config: &Config, progress: &dyn Fn(String)) -> Result<Outcome, TestError> {
    let limits = Limits::new(config.timeout, config.exit_grace);
    let (first, know) = first_run(config, limits)?;
    progress(format!(
        "run 1/{} (lists): {}",
        config.budget.max(1),
        summary(&first.verdict)
    ));
    let mut done = vec![first];
    for run in 1..config.budget {
        let d = later_run(config, limits, &know, run)?;
        progress(format!(
            "run {}/{} ({}): {}",
            run + 1,
            config.budget,
            d.focus.name(),
            summary(&d.verdict)
        ));
        done.push(d);
    }
    save_runs(config, &done)?;
    let failures = failures(config, limits, &done, "", progress)?;
    Ok(outcome(config, &know, &done, failures))
}

fn summary(v: &Verdict) -> String {
    let rules: BTreeSet<&str> = v.failures.iter().map(|f| f.rule.as_str()).collect();
    if rules.is_empty() {
        format!("{} client messages, no finding", v.client_messages())
    } else {
        let rules: Vec<&str> = rules.into_iter().collect();
        format!(
            "{} client messages, failed {}",
            v.client_messages(),
            rules.join(", ")
        )
    }
}

fn header(config: &Config, run: usize, focus: Focus) -> Map<String, Value> {
    Map::from_iter([
        ("seed".into(), json!(config.seed)),
        ("run".into(), json!(run)),
        ("focus".into(), json!(focus.name())),
        ("server".into(), json!(config.target.name())),
    ])
}

fn start(config: &Config, limits: Limits, header: &Map<String, Value>) -> Result<Run, TestError> {
    Run::start(&config.target, header.clone(), limits).map_err(unreachable)
}

fn unreachable(e: ClientError) -> TestError {
    TestError::Unreachable(e.to_string())
}

/// Run 1: opens in the era asked (probing with `server/discover` when asked to choose),
/// reads every list, and learns the server.
fn first_run(config: &Config, limits: Limits) -> Result<(Done, Knowledge), TestError> {
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
    limits: Limits,
    know: &Knowledge,
    run: usize,
) -> Result<Done, TestError> {
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
    })
}

fn write_trace(path: &Path, events: &[Event]) -> Result<(), TestError> {
    let text: String = events.iter().map(|e| e.to_line() + "\n").collect();
    std::fs::create_dir_all(path.parent().unwrap_or(Path::new(".")))
        .and_then(|()| std::fs::write(path, text))
        .map_err(|e| TestError::Write(format!("cannot write `{}`: {e}", path.display())))
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

/// The first failure of each failed rule, shrunk and saved.
/// `prefix` names the saved traces (a replay's never overwrite the trace it replays).
fn failures(
    config: &Config,
    limits: Limits,
    done: &[Done],
    prefix: &str,
    progress: &dyn Fn(String),
) -> Result<Vec<(String, Failure, PathBuf)>, TestError> {
    let mut rules: Vec<(String, usize)> = Vec::new();
    for (run, d) in done.iter().enumerate() {
        for v in &d.verdict.failures {
            if !rules.iter().any(|(r, _)| *r == v.rule) {
                rules.push((v.rule.clone(), run));
            }
        }
    }
    let mut out = Vec::new();
    for (rule, run) in rules {
        let failure = shrunk(config, limits, &done[run], &rule, run, progress);
        let path = config.dir.join(format!("{prefix}{rule}.jsonl"));
        write_trace(&path, &failure.events)?;
        out.push((rule, failure, path));
    }
    Ok(out)
}

fn shrunk(
    config: &Config,
    limits: Limits,
    d: &Done,
    rule: &str,
    run: usize,
    progress: &dyn Fn(String),
) -> Failure {
    let original = &d.verdict;
    let from_messages = original.client_messages();
    let found = original.failure(rule).cloned();
    let mut header = d.header.clone();
    header.insert("shrunk".into(), json!(rule));
    let small = config
        .shrink
        .then(|| shrink::shrink(&config.target, limits, &header, original, rule))
        .flatten();
    let (verdict, shrunk) = match small {
        Some(s) => {
            progress(format!(
                "{rule}: shrunk from {from_messages} to {} client messages in {} replays",
                s.verdict.client_messages(),
                s.tries
            ));
            (s.verdict, true)
        }
        None => (original.clone(), false),
    };
    let violation = verdict
        .failure(rule)
        .cloned()
        .or(found)
        .unwrap_or_else(|| unreachable_violation(rule));
    Failure {
        messages: verdict.client_messages(),
        violation,
        events: verdict.events,
        run,
        from_messages,
        shrunk,
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

fn outcome(
    config: &Config,
    know: &Knowledge,
    done: &[Done],
    failures: Vec<(String, Failure, PathBuf)>,
) -> Outcome {
    let mut notes = Vec::new();
    if let Target::Url(url) = &config.target {
        notes.push(shared_server_note(url));
    }
    let withheld = know.withheld(config.allow_writes);
    if !withheld.is_empty() {
        notes.push(format!(
            "not called, they may write (--allow-writes calls them): {}",
            withheld.join(", ")
        ));
    }
    for (i, d) in done.iter().enumerate() {
        for v in &d.verdict.client {
            notes.push(format!(
                "run {}: a finding against the tester's own message {} ({} {}): {}",
                i + 1,
                v.index,
                v.rule,
                v.level,
                v.message
            ));
        }
        for n in &d.verdict.notes {
            notes.push(format!("run {}: {n}", i + 1));
        }
    }
    let http = config.target.is_http();
    let rules = catalogue::RULES
        .iter()
        .map(|entry| rule_report(entry, know, done, &failures, http, &withheld))
        .collect();
    Outcome {
        server: know.server.clone().unwrap_or_else(|| config.target.name()),
        era: if know.modern { "modern" } else { "legacy" },
        protocol_version: Some(know.version.clone()),
        runs: done.len(),
        seed: config.seed,
        rules,
        notes,
    }
}

/// What a test of a server the user started cannot promise: its runs were not independent.
fn shared_server_note(url: &str) -> String {
    format!(
        "every run and shrinking try was a session of the one server process at {url}, which \
         agentpi did not start: what one run left in it (state, a slow handler) was there for \
         the next; `--url URL -- CMD` starts a fresh process for each"
    )
}

fn rule_report(
    entry: &catalogue::Entry,
    know: &Knowledge,
    done: &[Done],
    failures: &[(String, Failure, PathBuf)],
    http: bool,
    withheld: &[String],
) -> RuleReport {
    let not = |why: String| RuleReport {
        rule: entry.id,
        status: Status::NotExercised,
        why,
        trace: None,
        failure: None,
    };
    if let Some(why) = static_reason(entry, know.modern, http) {
        return not(why);
    }
    if let Some((_, failure, path)) = failures.iter().find(|(r, _, _)| r == entry.id) {
        return RuleReport {
            rule: entry.id,
            status: Status::Failed,
            why: failed_why(failure, done),
            trace: Some(path.clone()),
            failure: Some(failure.clone()),
        };
    }
    let runs = done
        .iter()
        .filter(|d| d.verdict.exercised.contains(entry.id))
        .count();
    if runs == 0 {
        return not(dynamic_reason(entry.id, withheld));
    }
    let mut why = format!("held in {runs} of {} runs", done.len());
    if matches!(entry.id, "T10" | "T4") && !withheld.is_empty() {
        why += &format!("; not called, they may write: {}", withheld.join(", "));
    }
    RuleReport {
        rule: entry.id,
        status: Status::Passed,
        why,
        trace: None,
        failure: None,
    }
}

fn failed_why(f: &Failure, done: &[Done]) -> String {
    let focus = done.get(f.run).map_or("", |d| d.focus.name());
    let shrunk = if f.shrunk {
        format!(
            "shrunk from {} to {} client messages",
            f.from_messages, f.messages
        )
    } else {
        format!("{} client messages, not shrunk", f.messages)
    };
    format!(
        "{} (run {}, {focus}; {shrunk})",
        f.violation.message,
        f.run + 1
    )
}

/// Why a rule cannot be exercised in this test at all.
fn static_reason(entry: &catalogue::Entry, modern: bool, http: bool) -> Option<String> {
    match entry.cover {
        Cover::Not(why) => return Some(why.to_string()),
        Cover::Client => {
            return Some("a duty of the client: agentpi test keeps it (a finding against its own messages is reported as a note)".into());
        }
        _ => {}
    }
    match (entry.era, modern) {
        (RuleEra::Modern, false) => {
            return Some(
                "a rule of the modern era (2026-07-28); the server was tested in the legacy era"
                    .into(),
            );
        }
        (RuleEra::Legacy, true) => {
            return Some(
                "a rule of the legacy era; the server was tested in the modern era (2026-07-28)"
                    .into(),
            );
        }
        _ => {}
    }
    match (entry.over, http) {
        (Over::Http, false) => {
            Some("a Streamable HTTP rule: test a server over HTTP with --url".into())
        }
        (Over::Stdio, true) => {
            Some("a stdio rule; the server was tested over Streamable HTTP".into())
        }
        _ => None,
    }
}

/// Why a rule the test could have exercised was not.
fn dynamic_reason(rule: &str, withheld: &[String]) -> String {
    let base = match rule {
        "J2" | "J3" | "J4" => "the server sent no request",
        "P2" | "P3" | "P4" => "the server sent no progress notification",
        "C3" | "C4" | "C5" => "no call was still in flight when the tester cancelled it",
        "T4" => "no tool with an outputSchema was called",
        "T10" => "no callable tool has an inputSchema that arguments can break",
        "T1" | "T2" => "the server declares no tools",
        "G3" | "M10" => "the server declares no list",
        "G1" => "the server declares no list (runs with focus `lists` try an invalid cursor)",
        "T5" => "no call of an unknown tool (runs with focus `invalid` make one)",
        "C7" => "the tester cancelled no request after its answer (focus `cancel`)",
        "L4" => {
            "no initialize asked for a version that does not exist (focus `lifecycle` picks it at random among its openings)"
        }
        "S5" => "the server's input was never closed with the session open",
        "M13" => {
            "no listen was acknowledged (runs with focus `concurrent` open one when the server declares list changes or resource subscriptions)"
        }
        "M15" => "the server ended no listen (the tester ends its own by cancelling it)",
        "X4" => "the server asked for no sampling",
        "X5" => "the server asked for no elicitation",
        "M11" => "no answer was an input-required result (the server asked for no input)",
        "C6" => {
            "no dropped stream was resumed (over legacy HTTP the cancellation run drops a slow call's stream; a server whose SSE events carry no id cannot be resumed)"
        }
        "T8" | "X7" => {
            "no call with a task (the server declares no `tasks.requests.tools.call`, or no callable tool has `execution.taskSupport` optional or required)"
        }
        "M8" => {
            "no list was read twice in a run (runs with focus `calls` read the first page of tools/list before and after their calls)"
        }
        _ => "nothing in the runs exercised it (--budget 8 or more gives every focus a run)",
    };
    if withheld.is_empty()
        || !matches!(
            rule,
            "T4" | "T10" | "P2" | "P3" | "P4" | "C3" | "C4" | "T8" | "X7"
        )
    {
        base.to_string()
    } else {
        format!(
            "{base}; not called, they may write (--allow-writes calls them): {}",
            withheld.join(", ")
        )
    }
}

/// Replays a saved trace's client messages against the server once, and reports it.
pub fn replay(
    config: &Config,
    events: &[Event],
    progress: &dyn Fn(String),
) -> Result<Outcome, TestError> {
    let limits = Limits::new(config.timeout, config.exit_grace);
    let steps = script::steps(events);
    let mut header = header(config, 0, Focus::Random);
    header.insert("replay".into(), json!(true));
    let (new_events, report) =
        script::replay(&config.target, header.clone(), limits, &steps, false)
            .map_err(unreachable)?;
    let verdict = Verdict::of(new_events, report);
    progress(format!("replay: {}", summary(&verdict)));
    let done = vec![Done {
        verdict,
        focus: Focus::Random,
        header,
    }];
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
    let failures = failures(&config, limits, &done, "replay-", progress)?;
    Ok(outcome(&config, &know, &done, failures))
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
