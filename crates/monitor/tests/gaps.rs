//! A gap never makes a finding (MONITOR.md: what the checker did not see is unchecked, not
//! wrong): each trace of tests/traces is fed to `Sessions` with a run of its events dropped
//! the way the live monitor drops them (relayed, never queued: `Sessions::gap` with how many),
//! at every place and for runs of 1 to 3 events; no violation may be reported that the whole
//! trace does not report (at the same event, for the same rule).

mod support;

use agentpi_monitor::trace::{self, Event};
use agentpi_monitor::{Report, Sessions};
use std::collections::BTreeSet;
use std::path::Path;
use support::trace_files;

/// The violations of a report (every session's), by (event index, rule).
fn findings(report: &Report) -> BTreeSet<(usize, String)> {
    let all = report.violations.iter();
    all.map(|v| (v.index, v.rule.clone())).collect()
}

/// The report of `events` with `drop` (the range of events lost) given to the checker as a
/// gap, as the checker thread does when the relay could not queue them.
fn judge(events: &[Event], drop: std::ops::Range<usize>) -> Report {
    let mut sessions = Sessions::new();
    for (i, event) in events.iter().enumerate() {
        if i == drop.start && !drop.is_empty() {
            sessions.gap(drop.len());
        }
        if !drop.contains(&i) {
            sessions.feed(event);
        }
    }
    sessions.finish()
}

/// Every finding after a gap that the whole trace does not make, as
/// "trace: events a..b dropped: rule at index".
fn false_findings(file: &Path) -> Vec<String> {
    let name = file.file_stem().unwrap().to_string_lossy().to_string();
    let events = trace::parse(&std::fs::read(file).unwrap()).unwrap();
    let whole = findings(&judge(&events, 0..0));
    let mut wrong = Vec::new();
    for len in 1..=3 {
        for start in 0..events.len().saturating_sub(len - 1) {
            let gapped = findings(&judge(&events, start..start + len));
            for (index, rule) in gapped.difference(&whole) {
                let end = start + len;
                wrong.push(format!(
                    "{name}: events {start}..{end} dropped: {rule} at {index}"
                ));
            }
        }
    }
    wrong
}

#[test]
fn a_gap_gives_no_finding_the_whole_trace_does_not() {
    let wrong: Vec<String> = trace_files()
        .iter()
        .flat_map(|f| false_findings(f))
        .collect();
    assert!(
        wrong.is_empty(),
        "{} false findings:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

/// A report that did not check everything never reads as one that did: it counts what went
/// unchecked (`unchecked` in the JSON, with the note saying why), and a report of a whole
/// trace has no such field. Each trace with its events 3..5 dropped (a gap of 2); one of
/// several sessions counts each gap once.
#[test]
fn a_gap_is_counted_unchecked_in_the_report() {
    for file in trace_files() {
        let events = trace::parse(&std::fs::read(&file).unwrap()).unwrap();
        let whole = judge(&events, 0..0);
        assert_eq!(whole.unchecked, 0, "{}", file.display());
        assert!(whole.to_json().get("unchecked").is_none());
        if events.len() < 5 {
            continue;
        }
        let gapped = judge(&events, 3..5);
        assert_eq!(gapped.unchecked, 2, "{}", file.display());
        assert_eq!(gapped.to_json()["unchecked"], 2, "{}", file.display());
        assert!(
            gapped
                .notes
                .iter()
                .any(|n| n.contains("2 events were relayed unchecked"))
        );
    }
}
