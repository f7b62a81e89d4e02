//! The HTML pages and SVG charts of the monitor's findings (`trace check`, `test`): each
//! finding with the chart of the messages before it (those of its session), its row marked.
//! The charts are the text charts' data (`wire::session_chart`), with more messages shown.

use agentpi_monitor::session::Era;
use agentpi_monitor::{Event, Report, Violation};
use agentpi_report_html::pages::{Finding, RuleRow};
use agentpi_report_html::{Chart, Ending, svg};
use agentpi_tester::catalogue;

/// How many messages a finding's chart shows in a page (the text shows fewer).
const WINDOW: usize = 40;

/// The chart of `v` over `events` (those `keep` takes), the finding's row marked.
pub fn finding_chart(events: &[Event], v: &Violation, keep: &dyn Fn(&Event) -> bool) -> Chart {
    let mut chart = crate::wire::session_chart(events, 0, v.index, keep, WINDOW);
    let said = format!("{} {}: {}", v.rule, v.level, v.message);
    let at = chart.rows.iter_mut().find(|r| r.number == v.index);
    match at {
        Some(row) => row.mark = Some(said),
        // Not a message (a deadline passed, a stream ended): said where the chart ends.
        None => chart.ending = Some(Ending::Said(format!("! event {}: {said}", v.index))),
    }
    chart
}

/// A finding as the page shows it.
pub fn finding(v: &Violation, session: Option<&str>, chart: Chart) -> Finding {
    let of = session.map_or(String::new(), |s| format!(" in session {s}"));
    let expected = match v.expected.as_slice() {
        [] => String::new(),
        all => format!("the model would accept: {}", all.join(", ")),
    };
    Finding {
        head: format!(
            "{} {} at message {} ({}){of}: {} [{}]",
            v.rule,
            v.level,
            v.index,
            v.dir.as_str(),
            v.message,
            v.spec
        ),
        message: String::from_utf8_lossy(&v.raw).into_owned(),
        expected,
        chart: Some(chart),
    }
}

/// The rule table of a trace: each rule a finding broke (failed), then every other rule of
/// the catalogue: not exercised when it is of the other era or transport than the trace's,
/// else "no finding" (a trace alone cannot say that a rule was put to the test, as
/// `agentpi test` can of its own runs).
pub fn trace_rules(report: &Report, events: &[Event]) -> Vec<RuleRow> {
    let mut failed: Vec<RuleRow> = Vec::new();
    for v in &report.violations {
        match failed.iter_mut().find(|r| r.rule == v.rule) {
            Some(row) => row.why = format!("{} [{}]", output_count(count(report, &v.rule)), v.spec),
            None => failed.push(RuleRow {
                rule: v.rule.clone(),
                level: v.level.to_string(),
                status: "failed".to_string(),
                why: format!("{} [{}]", output_count(1), v.spec),
            }),
        }
    }
    let http = events.iter().any(|e| e.kind() == Some("http"));
    let rest = catalogue::RULES
        .iter()
        .filter(|r| count(report, r.id) == 0)
        .map(|r| {
            let (status, why) = match outside(r, report.era, http) {
                Some(why) => ("not exercised", why.to_string()),
                None => ("no finding", catalogue::says(r.id).to_string()),
            };
            RuleRow {
                rule: r.id.to_string(),
                level: r.level.to_string(),
                status: status.to_string(),
                why,
            }
        });
    failed.into_iter().chain(rest).collect()
}

/// Why rule `r` has nothing to say of a trace of `era`, over HTTP or not.
fn outside(r: &catalogue::Entry, era: Era, http: bool) -> Option<&'static str> {
    match (r.era, era, r.over, http) {
        (catalogue::Era::Modern, Era::Legacy, _, _) => {
            Some("a rule of the modern era; the trace is legacy")
        }
        (catalogue::Era::Legacy, Era::Modern, _, _) => {
            Some("a rule of the legacy era; the trace is modern")
        }
        (_, _, catalogue::Over::Http, false) => {
            Some("a rule of Streamable HTTP; the trace has no HTTP exchange")
        }
        (_, _, catalogue::Over::Stdio, true) => Some("a rule of stdio; the trace is over HTTP"),
        _ => None,
    }
}

fn count(report: &Report, rule: &str) -> usize {
    report.violations.iter().filter(|v| v.rule == rule).count()
}

fn output_count(n: usize) -> String {
    crate::output::count_of(n, "finding")
}

/// `--format svg` of findings: each one's chart, titled with what it found.
pub fn findings_svg(findings: &[Finding]) -> String {
    let charts: Vec<(String, &Chart)> = findings
        .iter()
        .filter_map(|f| f.chart.as_ref().map(|c| (f.head.clone(), c)))
        .collect();
    svg::document(&charts)
}
