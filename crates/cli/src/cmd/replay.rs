//! `agentpi replay MODEL:System TRACE`: is this trace a run of this model? Every channel and
//! event of the model is observed except those `--hide` names; `tau`, restricted channels and
//! hidden names are taken freely between the labels of the trace.

use super::Format;
use crate::model;
use crate::output::{self, errln};
use agentpi_check::accept::{Acceptance, accepts};
use agentpi_check::replay::parse_observation_at;
use agentpi_ir::core::Program;
use serde_json::{Value, json};

#[derive(clap::Args)]
pub struct Args {
    /// The model and system: `FILE.pi:System`, `model:System` for a bundled model, or a model
    /// with one system.
    pub model: String,
    /// The trace: a file of labels one a line (`#` starts a comment line), or a JSON list of
    /// labels. Labels are written as `agentpi lts` prints them: `invoke(book(true, false))`.
    pub trace: String,
    /// Do not observe this channel or event (its steps are taken freely); repeatable.
    #[arg(long, value_name = "NAME")]
    pub hide: Vec<String>,
    /// The most states the set of explanations may hold at one step.
    #[arg(long, default_value_t = 200_000)]
    pub max_states: usize,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
    /// Set a constant of the model: `-D N=6` (repeatable).
    #[arg(short = 'D', value_name = "NAME=VALUE")]
    pub define: Vec<String>,
}

/// The exit statuses, for `--help`.
pub const EXIT_STATUS: &str = "Exit status: 0 the trace is a run of the model, 1 a step is \
    refused (the step, and what the model could do there, are shown), 2 an input error (the \
    model, the system, the trace file or a label in it that does not read, as FILE:LINE:COL; a \
    hidden name unknown to the model, too many states) or an output that could not be written.";

pub fn run(args: Args) -> u8 {
    let (file, system) = match model::split_system(&args.model) {
        Some((f, s)) if !std::path::Path::new(&args.model).exists() => (f, Some(s)),
        _ => (args.model.as_str(), None),
    };
    let loaded = match model::load_defined(file, &args.define, "nothing was replayed") {
        Ok(m) => m,
        Err(status) => return status,
    };
    let index = match model::system(&loaded.program, system) {
        Ok(i) => i,
        Err(status) => return status,
    };
    let labels = match read_trace(&args.trace) {
        Ok(l) => l,
        Err(e) => {
            errln!("error: {e}");
            return 2;
        }
    };
    if let Some(error) = unreadable(&loaded.program, &args.trace, &labels) {
        errln!("error: {error}; nothing was replayed");
        return 2;
    }
    let labels: Vec<String> = labels.into_iter().map(|l| l.text).collect();
    let hidden: Vec<&str> = args.hide.iter().map(String::as_str).collect();
    let outcome = match accepts(&loaded.program, index, &hidden, &labels, args.max_states) {
        Ok(o) => o,
        Err(e) => {
            errln!("error: {e}");
            return 2;
        }
    };
    let name = &loaded.program.systems[index].name;
    let status = u8::from(matches!(outcome, Acceptance::Refused { .. }));
    let report = match args.format {
        Format::Text => text(file, name, labels.len(), &outcome),
        Format::Json => {
            let value = json_report(file, name, labels.len(), &outcome);
            serde_json::to_string_pretty(&value).expect("JSON prints") + "\n"
        }
    };
    output::finish(&report, status)
}

/// One label of a trace file and where it is: its line (from 1) in a file of labels, or
/// its index (from 1) in a JSON list.
pub struct TraceLabel {
    pub text: String,
    pub line: Option<usize>,
    pub index: usize,
}

/// The labels of a trace file: a JSON list of strings, or one label a line.
pub fn read_trace(path: &str) -> Result<Vec<TraceLabel>, String> {
    let text = crate::loader::read_named(path)?;
    if text.trim_start().starts_with('[') {
        let labels: Vec<String> = serde_json::from_str(&text)
            .map_err(|e| format!("{path}: not a JSON list of labels: {e}"))?;
        let labels = labels.into_iter().enumerate();
        return Ok(labels
            .map(|(i, text)| TraceLabel {
                text,
                line: None,
                index: i + 1,
            })
            .collect());
    }
    let lines = text.lines().enumerate();
    let labels = lines.filter(|(_, l)| !l.trim().is_empty() && !l.trim_start().starts_with('#'));
    Ok(labels
        .enumerate()
        .map(|(i, (line, text))| TraceLabel {
            text: text.trim_end().to_string(),
            line: Some(line + 1),
            index: i + 1,
        })
        .collect())
}

/// The first label that does not read as a label of `program`, as `FILE:LINE:COL: ...` (or
/// `FILE: label N of the JSON list, column COL: ...`): a trace that cannot be read is an
/// input error, not a refusal.
fn unreadable(program: &Program, path: &str, labels: &[TraceLabel]) -> Option<String> {
    labels.iter().find_map(|label| {
        let (column, why) = parse_observation_at(program, &label.text).err()?;
        let text = label.text.trim();
        Some(match label.line {
            Some(line) => format!("{path}:{line}:{column}: `{text}` is not a label: {why}"),
            None => format!(
                "{path}: label {} of the JSON list, column {column}: `{text}` is not a label: {why}",
                label.index
            ),
        })
    })
}

fn text(file: &str, system: &str, n: usize, outcome: &Acceptance) -> String {
    match outcome {
        Acceptance::Accepted { at_end } => {
            let end = if *at_end {
                "it ends in a valid end state"
            } else {
                "it does not end in a valid end state (a component can still act or is blocked)"
            };
            format!(
                "accepted: the {} are a run of {file}:{system}; {end}\n",
                output::count_of(n, "label")
            )
        }
        Acceptance::Refused {
            step,
            label,
            reason,
            expected,
        } => {
            let mut out = format!(
                "refused: step {} of {n}, `{label}`, is not a step of {file}:{system}\n  {reason}\n",
                step + 1
            );
            out += &match expected.as_slice() {
                [] => "  the model could take no observed step there\n".to_string(),
                some => format!("  possible there: {}\n", some.join(", ")),
            };
            out
        }
    }
}

fn json_report(file: &str, system: &str, n: usize, outcome: &Acceptance) -> Value {
    let base = json!({"model": file, "system": system, "labels": n});
    let mut map = base.as_object().cloned().unwrap_or_default();
    match outcome {
        Acceptance::Accepted { at_end } => {
            map.insert("verdict".into(), json!("accepted"));
            map.insert("at_valid_end".into(), json!(at_end));
        }
        Acceptance::Refused {
            step,
            label,
            reason,
            expected,
        } => {
            map.insert("verdict".into(), json!("refused"));
            map.insert(
                "refused".into(),
                json!({"step": step + 1, "label": label, "reason": reason, "possible": expected}),
            );
        }
    }
    Value::Object(map)
}
