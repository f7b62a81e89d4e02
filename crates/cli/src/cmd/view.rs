//! `agentpi view TRACE.jsonl [-o FILE]`: a self-contained HTML traffic viewer of a recorded
//! trace. The trace is checked as `agentpi trace check` checks it (the same code), and every
//! event goes into the page as JSON: its direction, its label in a few words (the charts'),
//! the request it answers or the answer it got, its session, its findings, its raw bytes and,
//! for an HTTP exchange, the heads. The page's script draws only the rows on screen.

use super::trace::{Checked, check};
use crate::{output, wire};
use agentpi_monitor::{Dir, Event};
use serde_json::{Value, json};
use std::collections::HashMap;

#[derive(clap::Args)]
pub struct Args {
    /// The trace (JSON Lines, as `agentpi monitor --record`, `test --record`, `run --record`
    /// and `bridge` write it).
    pub file: String,
    /// Write the page here (default: standard output).
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<String>,
}

/// The exit statuses, for `--help`.
pub const EXIT_STATUS: &str = "Exit status: 0 the page was written (whatever the trace's \
findings), 2 the trace cannot be read (with FILE:LINE: and why) or the page cannot be written.";

pub fn run(args: Args) -> u8 {
    let checked = match check(&args.file) {
        Ok(c) => c,
        Err(status) => return status,
    };
    let data = data(&checked);
    let summary = data["summary"].as_str().unwrap_or("").to_string();
    let page = agentpi_report_html::view::page(&args.file, &summary, &data);
    let status = output::write(args.output.as_deref(), page.as_bytes());
    if status == 0 && args.output.is_some() {
        output::errln!(
            "{}: {} events, {} findings, page {} bytes",
            args.file,
            checked.events.len(),
            checked.report.violations.len(),
            page.len()
        );
    }
    status
}

/// What the page shows, as JSON.
fn data(c: &Checked) -> Value {
    let pairs = pairs(c);
    let mut found: HashMap<usize, Vec<usize>> = HashMap::new();
    for (k, v) in c.report.violations.iter().enumerate() {
        found.entry(v.index).or_default().push(k);
    }
    let events: Vec<Value> = c
        .events
        .iter()
        .enumerate()
        .map(|(i, e)| event(c, i, e, pairs.get(&i), found.get(&i)))
        .collect();
    let report = c.report.to_json();
    let text = wire::text(&c.file, &c.report, &|_| String::new());
    json!({
        "file": c.file,
        "summary": text.lines().last().unwrap_or(""),
        "events": events,
        "findings": report["violations"],
    })
}

fn event(
    c: &Checked,
    i: usize,
    e: &Event,
    pair: Option<&usize>,
    found: Option<&Vec<usize>>,
) -> Value {
    let mut row = json!({"i": i, "t": e.t, "d": e.dir.as_str(), "m": label(e)});
    let fields = json!(e.fields);
    if e.dir == Dir::Event {
        row["r"] = fields;
    } else {
        row["r"] = json!(String::from_utf8_lossy(&e.raw));
        if !e.fields.is_empty() {
            row["x"] = fields;
        }
    }
    if let Some(p) = pair {
        row["p"] = json!(p);
    }
    if let Some(f) = found {
        row["f"] = json!(f);
    }
    if let Some(s) = c.sessions.session_of(e) {
        row["s"] = json!(s);
    }
    row
}

/// A row's words: the message as the charts name it, an event by its kind (an HTTP head by
/// its method, path and status).
fn label(e: &Event) -> String {
    match e.dir {
        Dir::C2s | Dir::S2c => wire::summary(e),
        Dir::Event => match e.kind() {
            Some("http") => {
                let f = |k: &str| {
                    e.fields.get(k).map_or(String::new(), |v| {
                        v.as_str().map_or(v.to_string(), str::to_string)
                    })
                };
                format!(
                    "HTTP {} {} \u{2192} {}",
                    f("method"),
                    f("path"),
                    f("status")
                )
            }
            Some(kind) => format!("({kind})"),
            None => "(event)".to_string(),
        },
        _ => String::from_utf8_lossy(&e.raw).chars().take(80).collect(),
    }
}

/// Each request's answer and each answer's request, by event index: a response answers the
/// last request with its id from the other side of the same session.
fn pairs(c: &Checked) -> HashMap<usize, usize> {
    let mut open: HashMap<(Option<&str>, Dir, String), usize> = HashMap::new();
    let mut pairs = HashMap::new();
    for (i, e) in c.events.iter().enumerate() {
        if !e.is_message() {
            continue;
        }
        let Ok(Value::Object(m)) = serde_json::from_slice::<Value>(&e.raw) else {
            continue;
        };
        let Some(id) = m.get("id").filter(|id| !id.is_null()) else {
            continue;
        };
        let session = c.sessions.session_of(e);
        if m.contains_key("method") {
            open.insert((session, e.dir, id.to_string()), i);
        } else {
            let asker = if e.dir == Dir::C2s {
                Dir::S2c
            } else {
                Dir::C2s
            };
            if let Some(q) = open.remove(&(session, asker, id.to_string())) {
                pairs.insert(q, i);
                pairs.insert(i, q);
            }
        }
    }
    pairs
}
