//! Trace checks, data-driven: each tests/traces/*.jsonl is checked with a fresh `Session`
//! and its report (as `agentpi trace check --format json` prints it) is pinned as a snapshot.
//! File names say which rules the trace breaks (asserted: exactly those); `clean` breaks
//! none. `http_*` traces were
//! recorded by `agentpi monitor --listen` (crates/cli/tests/monitor_http.rs). Each trace is
//! judged as `trace check` judges it: per session (`Sessions`), so that a trace of several
//! clients behind one listener gives each session's findings alone.

mod support;

use agentpi_monitor::{Session, Sessions, trace};
use std::collections::BTreeSet;
use std::path::Path;
use support::trace_files;

/// The report of `file`, judged as `trace check` judges it.
fn report(file: &Path) -> agentpi_monitor::Report {
    let bytes = std::fs::read(file).unwrap();
    let events = trace::parse(&bytes).unwrap();
    let mut sessions = Sessions::new();
    for event in &events {
        sessions.feed(event);
    }
    sessions.finish()
}

fn check(file: &Path) -> String {
    serde_json::to_string_pretty(&report(file).to_json()).unwrap()
}

/// The rules a trace's file name says it breaks: its words that are rule ids (`c3`, `j13`),
/// upper-cased; `None` for a name without `clean` nor a rule id (a name that says nothing).
fn named_rules(name: &str) -> Option<BTreeSet<String>> {
    let words: Vec<&str> = name.split('_').collect();
    let is_rule = |w: &&&str| {
        let mut chars = w.chars();
        chars.next().is_some_and(|c| c.is_ascii_lowercase())
            && !chars.as_str().is_empty()
            && chars.all(|c| c.is_ascii_digit())
    };
    let rules: BTreeSet<String> = words
        .iter()
        .filter(is_rule)
        .map(|w| w.to_uppercase())
        .collect();
    (words.contains(&"clean") || !rules.is_empty()).then_some(rules)
}

#[test]
fn traces() {
    for file in trace_files() {
        let name = file.file_stem().unwrap().to_string_lossy().to_string();
        insta::assert_snapshot!(name, check(&file));
    }
}

/// Each trace breaks exactly the rules its file name says, and a `clean` one none: the
/// names are assertions, not labels.
#[test]
fn every_trace_breaks_exactly_the_rules_its_name_says() {
    for file in trace_files() {
        let name = file.file_stem().unwrap().to_string_lossy().to_string();
        let named = named_rules(&name)
            .unwrap_or_else(|| panic!("{name}: name the rules it breaks, or call it clean"));
        let report = report(&file);
        let found: BTreeSet<String> = report.violations.iter().map(|v| v.rule.clone()).collect();
        assert_eq!(found, named, "{name}: {:#?}", report.violations);
    }
}

/// A flood: 250 pings in flight at once, answered in reverse order. Every request is a
/// component of the model's state; the replay once remembered every successor of every
/// recent state, 24 GB at 400 requests in flight (the monitor of a flooding client was
/// killed). Now it builds only the transitions that take each message.
#[test]
fn many_requests_in_flight_are_checked() {
    let mut lines = vec![
        r#"{"dir":"c2s","jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#.to_string(),
        r#"{"dir":"s2c","jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}"#.to_string(),
        r#"{"dir":"c2s","jsonrpc":"2.0","method":"notifications/initialized"}"#.to_string(),
    ];
    let n = 250;
    for id in 1..=n {
        lines.push(format!(
            r#"{{"dir":"c2s","jsonrpc":"2.0","id":{id},"method":"ping"}}"#
        ));
    }
    for id in (1..=n).rev() {
        lines.push(format!(
            r#"{{"dir":"s2c","jsonrpc":"2.0","id":{id},"result":{{}}}}"#
        ));
    }
    let events = trace::parse((lines.join("\n") + "\n").as_bytes()).unwrap();
    let mut session = Session::new();
    for event in &events {
        session.feed(event);
    }
    let report = session.finish();
    assert_eq!(report.messages, 3 + 2 * n);
    assert_eq!(report.violations, []);
    assert_eq!(report.open_requests, []);
    assert_eq!(report.notes, Vec::<String>::new());
}

/// After events were lost to the checker (it fell behind a flood), nothing that rests on
/// having seen them is claimed: requests in flight then are not listed as open, and a
/// cursor the lost events may have issued is not G2.
#[test]
fn after_a_gap_nothing_rests_on_the_lost_events() {
    let head = [
        r#"{"dir":"c2s","jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#,
        r#"{"dir":"s2c","jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}"#,
        r#"{"dir":"c2s","jsonrpc":"2.0","method":"notifications/initialized"}"#,
        r#"{"dir":"c2s","jsonrpc":"2.0","id":1,"method":"ping"}"#,
    ];
    let tail = [
        r#"{"dir":"c2s","jsonrpc":"2.0","id":3,"method":"tools/list","params":{"cursor":"from-a-lost-page"}}"#,
    ];
    let events = |lines: &[&str]| trace::parse((lines.join("\n") + "\n").as_bytes()).unwrap();
    let mut session = Session::new();
    events(&head).iter().for_each(|e| drop(session.feed(e)));
    session.gap(2);
    events(&tail).iter().for_each(|e| drop(session.feed(e)));
    let report = session.finish();
    assert_eq!(report.violations, []);
    let open: Vec<&str> = report
        .open_requests
        .iter()
        .map(|o| o.method.as_str())
        .collect();
    assert_eq!(open, ["tools/list"]);
    assert!(
        report.notes[0].contains("2 events were relayed unchecked"),
        "{:?}",
        report.notes
    );
}

/// A finding across traces: the trace it is in (by position), its rule and level.
type Finding = (usize, &'static str, &'static str);

/// Several traces of one server judged together (`across`): each set of
/// tests/traces/across/*.jsonl (recorded through `agentpi monitor` from
/// tests/monitor/modern_peer.py, driven by tests/monitor/script_client.py with
/// modern_session.jsonl: discover, tools/list, discover) and what it breaks across its
/// traces, as (file, rule, level).
#[test]
fn across_traces() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/traces/across");
    let cases: &[(&[&str], &[Finding])] = &[
        (&["modern_good", "modern_good2"], &[]),
        // The answer to discover counts the requests before it: the later discover of each
        // process differs from the fresh ones, which agree.
        (
            &["modern_context", "modern_context2"],
            &[(0, "M7", "MUST"), (1, "M7", "MUST")],
        ),
        // One fresh discover per server that counts: not two that agree, nothing judged.
        (&["modern_good", "modern_context"], &[]),
        (
            &["modern_good", "modern_reordered", "modern_other_tools"],
            &[(1, "M8", "SHOULD"), (2, "M8", "MUST")],
        ),
    ];
    for (files, expected) in cases {
        let traces: Vec<Vec<agentpi_monitor::Event>> = files
            .iter()
            .map(|f| trace::parse(&std::fs::read(dir.join(format!("{f}.jsonl"))).unwrap()).unwrap())
            .collect();
        let slices: Vec<&[agentpi_monitor::Event]> = traces.iter().map(Vec::as_slice).collect();
        let found: Vec<Finding> = agentpi_monitor::across::judge(&slices)
            .iter()
            .map(|f| (f.file, f.rule, f.level))
            .collect();
        assert_eq!(found, *expected, "{files:?}");
    }
}
