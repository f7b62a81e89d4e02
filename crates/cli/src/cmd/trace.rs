//! `agentpi trace check FILE...`: checks recorded traces offline with the monitor's checks,
//! each alone and, when there are several (of one server), together (`trace_across`).

use super::trace_across;
pub(super) use super::trace_across::Checked;
use super::{Format, Shown};
use crate::{output, pictures, wire};
use agentpi_monitor::{Event, Sessions, trace};
use agentpi_report_html::pages::Finding;

#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    action: Action,
}

#[derive(clap::Subcommand)]
enum Action {
    /// Check a trace (JSON Lines, as `agentpi monitor --record` writes) against the protocol.
    Check(CheckArgs),
}

#[derive(clap::Args)]
struct CheckArgs {
    /// The trace files; several traces of one server are also judged together (M7, M8)
    #[arg(required = true)]
    files: Vec<String>,
    #[arg(long, value_enum, default_value = "text")]
    format: Shown,
}

/// The exit statuses, for `--help`.
pub const EXIT_STATUS: &str = "Exit status: 0 no violation, 1 at least one violation (in a \
trace, or across the traces), 2 a file cannot be read (with FILE:LINE: and why) or the output \
could not be written.";

pub fn run(args: Args) -> u8 {
    let Action::Check(args) = args.action;
    let mut checked = Vec::new();
    for file in &args.files {
        match check(file) {
            Ok(c) => checked.push(c),
            Err(status) => return status,
        }
    }
    if let [one] = checked.as_slice() {
        let status = u8::from(!one.report.violations.is_empty());
        let text = match args.format {
            Shown::Json => one.report.to_json().to_string() + "\n",
            Shown::Text => text_of(one),
            Shown::Html => page_of(one),
            Shown::Svg => pictures::findings_svg(&findings_of(one)),
        };
        return output::finish(&text, status);
    }
    if args.format.data() == Format::Json && args.format != Shown::Json {
        output::errln!(
            "error: --format html and svg take one trace (checking several judges them together; use text or json)"
        );
        return 2;
    }
    let (text, status) = trace_across::render(&checked, args.format.data(), &text_of);
    output::finish(&text, status)
}

/// Reads and checks one trace; on failure, says why and gives the exit status.
pub(super) fn check(file: &str) -> Result<Checked, u8> {
    let bytes = std::fs::read(file).map_err(|e| {
        output::errln!("error: cannot read `{file}`: {e}");
        2
    })?;
    let events = trace::parse(&bytes).map_err(|e| {
        output::errln!("error: {file}:{}: {}", e.line, e.why);
        2
    })?;
    let mut sessions = Sessions::new();
    for event in &events {
        sessions.feed(event);
    }
    let mut report = sessions.finish();
    tested(&events, &mut report);
    Ok(Checked {
        file: file.to_string(),
        events,
        sessions,
        report,
    })
}

/// The report of one trace as text, each chart of its finding's session.
fn text_of(c: &Checked) -> String {
    let owners = c.report.owners();
    let chart_of = |i: usize| {
        let session = owners.get(&i).copied();
        let keep = |e: &Event| session.is_none() || c.sessions.session_of(e) == session;
        wire::chart_of_session(&c.events, 0, i, session, &keep)
    };
    wire::text(&c.file, &c.report, &chart_of)
}

/// Each finding of one trace with its chart (of its session's messages).
fn findings_of(c: &Checked) -> Vec<Finding> {
    let owners = c.report.owners();
    c.report
        .violations
        .iter()
        .map(|v| {
            let session = owners.get(&v.index).copied();
            let keep = |e: &Event| session.is_none() || c.sessions.session_of(e) == session;
            pictures::finding(v, session, pictures::finding_chart(&c.events, v, &keep))
        })
        .collect()
}

/// `--format html`: the summary, the rule table, each finding with its chart.
fn page_of(c: &Checked) -> String {
    let text = text_of(c);
    // The summary is the text's last line (of a trace with several sessions, its last lines).
    let prefix = format!("{}: ", c.file);
    let summary: Vec<String> = text
        .lines()
        .filter(|l| l.starts_with(&prefix) && !l.contains("): "))
        .map(str::to_string)
        .collect();
    let title = format!("agentpi trace check {}", c.file);
    let rules = pictures::trace_rules(&c.report, &c.events);
    agentpi_report_html::pages::trace(&title, &summary, &rules, &findings_of(c))
}

/// A trace that `agentpi test` recorded (it opens with a `test` event, which carries the
/// deadlines) is also judged as the tester judges its probes, so that a saved failure is
/// reported here as `agentpi test` reported it.
fn tested(events: &[trace::Event], report: &mut agentpi_monitor::Report) {
    if !events.iter().any(|e| e.kind() == Some("test")) {
        return;
    }
    let judged = agentpi_tester::judge::judge(events).violations;
    for v in judged {
        if !report
            .violations
            .iter()
            .any(|o| o.index == v.index && o.rule == v.rule)
        {
            report.violations.push(v);
        }
    }
    report.violations.sort_by_key(|v| v.index);
}
