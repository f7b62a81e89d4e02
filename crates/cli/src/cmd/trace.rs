//! `agentpi trace check FILE`: checks a recorded trace offline with the monitor's checks.

use super::Format;
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
    /// The trace file
    file: String,
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
}

/// The exit statuses, for `--help`.
pub const EXIT_STATUS: &str = "Exit status: 0 no violation, 1 at least one violation, 2 the \
file cannot be read (with FILE:LINE: and why) or the output could not be written.";

pub fn run(args: Args) -> u8 {
    let Action::Check(args) = args.action;
    let bytes = match std::fs::read(&args.file) {
        Ok(b) => b,
        Err(e) => {
            output::errln!("error: cannot read `{}`: {e}", args.file);
            return 2;
        }
    };
    let events = match trace::parse(&bytes) {
        Ok(events) => events,
        Err(e) => {
            output::errln!("error: {}:{}: {}", args.file, e.line, e.why);
            return 2;
        }
    };
    let mut sessions = Sessions::new();
    for event in &events {
        sessions.feed(event);
    }
    let mut report = sessions.finish();
    tested(&events, &mut report);
    let status = u8::from(!report.violations.is_empty());
    let text = match args.format {
        Format::Json => report.to_json().to_string() + "\n",
        Format::Text => {
            let chart_of = |i: usize| {
                let session = report.session_at(i);
                let keep = |e: &Event| session.is_none() || sessions.session_of(e) == session;
                wire::chart_of_session(&events, 0, i, session, &keep)
            };
            wire::text(&args.file, &report, &chart_of)
        }
    };
    output::finish(&text, status)
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
