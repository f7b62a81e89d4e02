//! `agentpi trace check FILE...`: checks recorded traces offline with the monitor's checks,
//! each alone and, when there are several (of one server), together (`trace_across`).

use super::Format;
use super::trace_across::{self, Checked};
use crate::{output, wire};
use agentpi_monitor::{Event, Sessions, trace};

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
    format: Format,
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
            Format::Json => one.report.to_json().to_string() + "\n",
            Format::Text => text_of(one),
        };
        return output::finish(&text, status);
    }
    let (text, status) = trace_across::render(&checked, args.format, &text_of);
    output::finish(&text, status)
}

/// Reads and checks one trace; on failure, says why and gives the exit status.
fn check(file: &str) -> Result<Checked, u8> {
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
