//! What `agentpi run` prints: the verdicts of the checks (as `agentpi check` prints them),
//! then the path taken as numbered steps (with what each did in the world) and a sequence
//! chart, the calls, each server's session, and how the run ended; or the same as one JSON
//! object. Standard output depends only on the seed and the calls' outcomes: timings and the
//! servers' own words (error messages) are in the JSON and on standard error.

use super::Format;
use super::check::{json_result, text_result};
use crate::model::Model;
use crate::msc;
use crate::output::count_of;
use agentpi_check::{SystemReport, Trace, TraceStep};
use agentpi_mcp::client::Listing;
use agentpi_monitor::Report;
use agentpi_run::{Call, End, Path};
use serde_json::{Value, json};

/// A finished run, for rendering.
pub(super) struct Done<'a> {
    pub(super) model: &'a Model,
    pub(super) system: usize,
    pub(super) seed: u64,
    pub(super) verified: Option<&'a SystemReport>,
    pub(super) path: &'a Path,
    pub(super) calls: &'a [Call],
    pub(super) listings: &'a [Listing],
    pub(super) reports: &'a [(String, Report)],
    pub(super) status: u8,
}

/// A run refused by its checks (or stopped after them, `--verify-only`).
pub(super) fn refused(
    model: &Model,
    verified: Option<&SystemReport>,
    reports: &[(String, Report)],
    format: Format,
) -> String {
    match format {
        Format::Text => {
            let mut out = checks_text(model, verified);
            let violated = verified.is_some_and(|v| {
                v.results
                    .iter()
                    .any(|r| r.outcome != agentpi_check::Outcome::Holds)
            });
            out.push_str(match violated {
                true => "refused: a check of the workflow is violated; nothing was run\n",
                false => "verified; not run (--verify-only)\n",
            });
            out
        }
        Format::Json => {
            let servers: Vec<Value> = reports
                .iter()
                .map(|(n, r)| json!({"name": n, "report": r.to_json()}))
                .collect();
            let out =
                json!({"checks": checks_json(model, verified), "ran": false, "servers": servers});
            serde_json::to_string_pretty(&out).expect("json") + "\n"
        }
    }
}

pub(super) fn render(done: &Done, format: super::Shown) -> String {
    use super::Shown;
    match format {
        Shown::Text => text(done),
        Shown::Json => serde_json::to_string_pretty(&json(done)).expect("json") + "\n",
        Shown::Html => agentpi_report_html::pages::run(&json(done), Some(&chart(done))),
        Shown::Svg => {
            let name = &done.model.program.systems[done.system].name;
            let title = format!("run of {name} (seed {}): {}", done.seed, end_text(done));
            agentpi_report_html::svg::document(&[(title, &chart(done))])
        }
    }
}

fn checks_text(model: &Model, verified: Option<&SystemReport>) -> String {
    let Some(report) = verified else {
        return "not verified (--no-verify): deadlock freedom, every call answered, no \
                overlapping writes and the file's own checks were not checked\n"
            .to_string();
    };
    // A check that holds is one line: its witness (`reachable`) is not what a run is about.
    let line = |r: &agentpi_check::CheckResult| match r.outcome {
        agentpi_check::Outcome::Holds => {
            text_result(model, report, r, false)
                .lines()
                .next()
                .unwrap_or("")
                .to_string()
                + "\n"
        }
        _ => text_result(model, report, r, false),
    };
    report.results.iter().map(line).collect()
}

fn checks_json(model: &Model, verified: Option<&SystemReport>) -> Value {
    match verified {
        Some(report) => Value::Array(
            report
                .results
                .iter()
                .map(|r| json_result(model, report, r))
                .collect(),
        ),
        None => Value::Null,
    }
}

fn text(done: &Done) -> String {
    let mut out = checks_text(done.model, done.verified);
    let name = &done.model.program.systems[done.system].name;
    let steps = &done.path.steps;
    out += &format!(
        "\nrun of {name} (seed {}), {}:\n",
        done.seed,
        count_of(steps.len(), "step")
    );
    out += &steps_text(done);
    if !steps.is_empty() {
        out += "message sequence chart:\n";
        out += &msc::render(&trace(done.path));
    }
    out += &calls_text(done);
    out += &servers_text(done);
    out += &format!("ended: {}\n", end_text(done));
    out
}

/// The run's chart: the text chart's data, with a deadlock or a fault at its end.
fn chart(done: &Done) -> agentpi_report_html::Chart {
    let mut chart = msc::chart(&trace(done.path), &[], &[], None);
    chart.ending = match &done.path.end {
        End::Deadlock => Some(agentpi_report_html::Ending::Deadlock),
        End::Fault(_) => Some(agentpi_report_html::Ending::Fault(end_text(done))),
        End::Valid => None,
        _ => Some(agentpi_report_html::Ending::Said(end_text(done))),
    };
    chart
}

fn steps_text(done: &Done) -> String {
    let steps = &done.path.steps;
    let width = |f: &dyn Fn(&agentpi_run::Step) -> usize| steps.iter().map(f).max().unwrap_or(0);
    let label_width = width(&|s| s.label.chars().count());
    let actors = |s: &agentpi_run::Step| s.actors.join(" -> ");
    let actor_width = width(&|s| actors(s).chars().count());
    let mut out = String::new();
    for (i, step) in steps.iter().enumerate() {
        let line = format!(
            "  {:>3}. {:<label_width$}   {:<actor_width$}   {}",
            i + 1,
            step.label,
            actors(step),
            step.note
        );
        out += line.trim_end();
        out.push('\n');
    }
    out
}

fn trace(path: &Path) -> Trace {
    let steps = path
        .steps
        .iter()
        .map(|s| TraceStep {
            label: s.label.clone(),
            actors: s.actors.clone(),
        })
        .collect();
    Trace {
        steps,
        loop_start: None,
        states: Vec::new(),
    }
}

fn calls_text(done: &Done) -> String {
    let mut out = format!("{}:\n", count_of(done.calls.len(), "call"));
    for (k, call) in done.calls.iter().enumerate() {
        let server = &done.reports[call.server].0;
        let outcome = match &call.settled {
            Some(s) if call.cancelled => format!("{}, cancelled", s.kind.name()),
            Some(s) => s.kind.name().to_string(),
            None => "unanswered".to_string(),
        };
        out += &format!(
            "  {}. {} -> {server}.{}: {outcome}\n",
            k + 1,
            call.chan,
            call.tool
        );
    }
    let open = done.calls.iter().filter(|c| c.settled.is_none()).count();
    if open == 0 && !done.calls.is_empty() {
        out += "  every call was answered or cancelled\n";
    }
    out
}

fn servers_text(done: &Done) -> String {
    let mut out = String::from("servers:\n");
    for ((name, report), listing) in done.reports.iter().zip(done.listings) {
        let mut found = match report.violations.len() {
            0 => "no protocol violation".to_string(),
            n => format!("{} (on standard error)", count_of(n, "protocol violation")),
        };
        if !report.open_requests.is_empty() {
            let open = count_of(report.open_requests.len(), "request");
            found += &format!(", {open} unanswered when the session ended");
        }
        out += &format!(
            "  {name}: {} era, protocol {}, {}, {found}\n",
            report.era.as_str(),
            listing.protocol_version,
            count_of(report.messages, "message"),
        );
    }
    out
}

fn end_text(done: &Done) -> String {
    let steps = count_of(done.path.steps.len(), "step");
    match &done.path.end {
        End::Valid if done.status == 4 => {
            format!("a valid end after {steps}, but a server broke the protocol")
        }
        End::Valid => format!("a valid end after {steps}"),
        End::Deadlock => {
            format!("DEADLOCK after {steps}: no step is possible and this is not a valid end")
        }
        End::Fault(f) => format!(
            "a failing step after {steps}: {}: {}",
            done.model.sources.position(f.span),
            f.kind
        ),
        End::Limit(n) => format!("stopped after {n} steps (--max-steps)"),
        End::Unmodeled(why) => format!("stopped after {steps}: {why}"),
    }
}

fn end_word(end: &End) -> &'static str {
    match end {
        End::Valid => "valid",
        End::Deadlock => "deadlock",
        End::Fault(_) => "fault",
        End::Limit(_) => "limit",
        End::Unmodeled(_) => "unmodeled",
    }
}

fn json(done: &Done) -> Value {
    let steps: Vec<Value> = done
        .path
        .steps
        .iter()
        .map(|s| json!({"label": s.label, "actors": s.actors, "note": s.note, "call": s.call.map(|c| c + 1), "restricted": s.restricted}))
        .collect();
    let calls: Vec<Value> = done.calls.iter().map(|c| call_json(done, c)).collect();
    let servers: Vec<Value> = done
        .reports
        .iter()
        .zip(done.listings)
        .map(|((n, r), l)| json!({"name": n, "protocol_version": l.protocol_version, "tools": l.tools.len(), "report": r.to_json()}))
        .collect();
    json!({
        "system": done.model.program.systems[done.system].name,
        "seed": done.seed,
        "checks": checks_json(done.model, done.verified),
        "ran": true,
        "path": steps,
        "calls": calls,
        "servers": servers,
        "end": end_word(&done.path.end),
        "end_text": end_text(done),
        "status": done.status,
    })
}

fn call_json(done: &Done, call: &Call) -> Value {
    let settled = call.settled.as_ref();
    json!({
        "chan": call.chan,
        "server": done.reports[call.server].0,
        "tool": call.tool,
        "arguments": call.arguments,
        "id": call.id,
        "outcome": settled.map(|s| s.kind.name()),
        "detail": settled.map(|s| s.detail.clone()),
        "seconds": settled.map(|s| s.after.as_secs_f64()),
        "cancelled": call.cancelled,
    })
}
