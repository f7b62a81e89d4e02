//! `agentpi compare`: decide bisimilarity, refinement or equivalence in a CSP model of two
//! state spaces, with evidence: a checked distinguishing formula and a path, or a shortest
//! refinement counterexample (of the failing direction, for an equivalence).

use super::{Format, Shown};
use crate::output;
use crate::state_space::{self, error_report, located_report};
use agentpi_lts::{
    BisimResult, Counterexample, Equivalence, Lts, Mapping, Model, MutualResult, Side, Step,
    Violation, compare_bisim, refinement_equivalent, refines,
};
use serde_json::{Value, json};
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// The first state space (the specification, for refinement checks): an Aldebaran `.aut`
    /// file, or a system of a model as `FILE.pi:System` (`model:System` for a bundled model).
    pub left: PathBuf,
    /// The second state space (the implementation, for refinement checks), as LEFT.
    pub right: PathBuf,
    /// The equivalence, or the refinement model (`trace`, `failures`, `fd`: does RIGHT refine
    /// LEFT?); `trace-eq`, `failures-eq`, `fd-eq` check refinement both ways.
    #[arg(long, value_enum, default_value = "strong")]
    pub equiv: CompareEquiv,
    /// Hide the actions matching PATTERN (they become `tau`); repeatable.
    #[arg(long, value_name = "PATTERN")]
    pub hide: Vec<String>,
    /// Rename the actions matching FROM to TO; repeatable.
    #[arg(long, value_name = "FROM=TO")]
    pub rename: Vec<String>,
    /// A mapping file of `hide PATTERN` and `rename FROM=TO` lines, applied after the flags.
    #[arg(long, value_name = "FILE")]
    pub map: Option<PathBuf>,
    /// Output format (html: one self-contained page; svg: the evidence's path as a chart).
    #[arg(long, value_enum, default_value = "text")]
    pub format: Shown,
    /// Set a constant of the models compared: `-D N=6` (repeatable; both sides).
    #[arg(short = 'D', value_name = "NAME=VALUE")]
    pub define: Vec<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum CompareEquiv {
    Strong,
    Branching,
    /// Divergence-preserving branching bisimulation.
    Dpbranching,
    Weak,
    /// Trace refinement (LEFT [T= RIGHT).
    Trace,
    /// Stable-failures refinement (LEFT [F= RIGHT).
    Failures,
    /// Failures-divergences refinement (LEFT [FD= RIGHT).
    Fd,
    /// Trace equivalence (LEFT [T= RIGHT and RIGHT [T= LEFT).
    TraceEq,
    /// Stable-failures equivalence (both ways `[F=`).
    FailuresEq,
    /// Failures-divergences equivalence (both ways `[FD=`).
    FdEq,
}

/// The exit statuses, for `--help`.
pub const EXIT_STATUS: &str = "Exit status: 0 equivalent (or RIGHT refines LEFT), 1 not, with \
    evidence, 2 an input error (reported as FILE:LINE:COL) or an output that could not be \
    written.";

/// What was decided, ready to print.
enum Outcome {
    Bisim(Equivalence, BisimResult),
    Refinement(Model, Option<Counterexample>),
    Mutual(Model, MutualResult),
}

pub fn run(args: Args) -> u8 {
    let (left, right) = match inputs(&args) {
        Ok(pair) => pair,
        Err(report) => {
            output::stderr(&report);
            return 2;
        }
    };
    let outcome = decide(&left, &right, args.equiv);
    let holds = match &outcome {
        Outcome::Bisim(_, r) => r.equivalent,
        Outcome::Refinement(_, c) => c.is_none(),
        Outcome::Mutual(_, r) => r.equivalent(),
    };
    let report = match args.format.data() {
        Format::Text => text(&args, &outcome),
        Format::Json if args.format == Shown::Html => {
            let chart = chart(&args, &outcome);
            agentpi_report_html::pages::compare(&json_report(&args, &outcome), chart.as_ref())
        }
        Format::Json if args.format == Shown::Svg => {
            let title = text(&args, &outcome)
                .lines()
                .next()
                .unwrap_or("")
                .to_string();
            let chart = chart(&args, &outcome).unwrap_or_default();
            agentpi_report_html::svg::document(&[(title, &chart)])
        }
        Format::Json => {
            let json = json_report(&args, &outcome);
            serde_json::to_string_pretty(&json).expect("a JSON value prints") + "\n"
        }
    };
    output::finish(&report, if holds { 0 } else { 1 })
}

/// Loads both inputs and applies the action mapping to each.
fn inputs(args: &Args) -> Result<(Lts, Lts), String> {
    let mapping = mapping(args)?;
    let (left, right) = (
        state_space::load(&args.left, &args.define)?,
        state_space::load(&args.right, &args.define)?,
    );
    if mapping.is_empty() {
        return Ok((left, right));
    }
    Ok((mapping.apply(&left), mapping.apply(&right)))
}

fn mapping(args: &Args) -> Result<Mapping, String> {
    let mut mapping = Mapping::default();
    for p in &args.hide {
        mapping
            .hide(p)
            .map_err(|e| error_report("E0702", format!("--hide {p:?}: {e}"), None))?;
    }
    for r in &args.rename {
        mapping
            .rename(r)
            .map_err(|e| error_report("E0702", format!("--rename {r:?}: {e}"), None))?;
    }
    if let Some(path) = &args.map {
        let text = crate::loader::read_named(&path.display().to_string())
            .map_err(|message| error_report("E0703", message, None))?;
        let file = Mapping::parse(&text)
            .map_err(|e| located_report("E0702", path, (e.line, e.column), &e.text, &e.message))?;
        mapping.extend(file);
    }
    Ok(mapping)
}

fn decide(left: &Lts, right: &Lts, equiv: CompareEquiv) -> Outcome {
    let bisim = |e| Outcome::Bisim(e, compare_bisim(left, right, e));
    let refinement = |m| Outcome::Refinement(m, refines(left, right, m).counterexample);
    let mutual = |m| Outcome::Mutual(m, refinement_equivalent(left, right, m));
    match equiv {
        CompareEquiv::Strong => bisim(Equivalence::Strong),
        CompareEquiv::Branching => bisim(Equivalence::Branching),
        CompareEquiv::Dpbranching => bisim(Equivalence::DivBranching),
        CompareEquiv::Weak => bisim(Equivalence::Weak),
        CompareEquiv::Trace => refinement(Model::Traces),
        CompareEquiv::Failures => refinement(Model::Failures),
        CompareEquiv::Fd => refinement(Model::FailuresDivergences),
        CompareEquiv::TraceEq => mutual(Model::Traces),
        CompareEquiv::FailuresEq => mutual(Model::Failures),
        CompareEquiv::FdEq => mutual(Model::FailuresDivergences),
    }
}

pub(crate) fn adverb(e: Equivalence) -> &'static str {
    match e {
        Equivalence::Strong => "strongly",
        Equivalence::Branching => "branching",
        Equivalence::DivBranching => "divergence-preserving branching",
        Equivalence::Weak => "weakly",
    }
}

pub(crate) fn model_name(model: Model) -> (&'static str, &'static str) {
    match model {
        Model::Traces => ("traces", "[T="),
        Model::Failures => ("failures", "[F="),
        Model::FailuresDivergences => ("failures-divergences", "[FD="),
    }
}

fn text(args: &Args, outcome: &Outcome) -> String {
    let (l, r) = (args.left.display(), args.right.display());
    match outcome {
        Outcome::Bisim(e, result) => match &result.distinction {
            None if result.equivalent => {
                format!("equivalent: {l} and {r} are {} bisimilar\n", adverb(*e))
            }
            None => format!(
                "not equivalent: {l} and {r} are not {} bisimilar\n\nno distinguishing formula: it would nest more than {} modalities (docs/limits.md)\n",
                adverb(*e),
                agentpi_lts::MAX_EVIDENCE_DEPTH
            ),
            Some(d) => {
                let mut out = format!(
                    "not equivalent: {l} and {r} are not {} bisimilar\n\n",
                    adverb(*e)
                );
                out += &format!(
                    "distinguishing formula (holds in {l}, fails in {r}):\n  {}\n",
                    d.formula
                );
                if !d.checked {
                    out += "  warning: re-evaluating the formula did not confirm it\n";
                }
                let (side, what) = match d.side {
                    Side::Left => (&args.left, "the formula".to_string()),
                    Side::Right => (&args.right, "its negation".to_string()),
                };
                out += &format!(
                    "\npath in {} realising {what}:\n{}",
                    side.display(),
                    steps(&d.path)
                );
                out
            }
        },
        Outcome::Refinement(m, c) => {
            let (name, op) = model_name(*m);
            match c {
                None => format!("refines: {l} {op} {r} holds ({name} refinement)\n"),
                Some(c) => {
                    let head = format!("does not refine: {l} {op} {r} fails ({name} refinement)");
                    format!(
                        "{head}\n\n{}",
                        counterexample_text(args.sides(Side::Left), c)
                    )
                }
            }
        }
        Outcome::Mutual(m, result) => mutual_text(args, *m, result),
    }
}

impl Args {
    /// The (specification, implementation) file names when `spec` is the specification.
    fn sides(&self, spec: Side) -> (String, String) {
        let (l, r) = (self.left.display(), self.right.display());
        match spec {
            Side::Left => (l.to_string(), r.to_string()),
            Side::Right => (r.to_string(), l.to_string()),
        }
    }
}

/// An equivalence in a CSP model: both directions, and the counterexample of a failing one.
fn mutual_text(args: &Args, model: Model, result: &MutualResult) -> String {
    let (l, r) = (args.left.display(), args.right.display());
    let (name, op) = model_name(model);
    // "trace equivalent", but "traces refinement" (the model's name).
    let adjective = if model == Model::Traces {
        "trace"
    } else {
        name
    };
    let Some(f) = &result.failure else {
        return format!(
            "equivalent: {l} and {r} are {adjective} equivalent ({l} {op} {r} and {r} {op} {l} hold)\n"
        );
    };
    let (spec, imp) = args.sides(f.spec);
    let other = if f.other_fails { "fails too" } else { "holds" };
    let mut out = format!("not equivalent: {l} and {r} are not {adjective} equivalent\n");
    out += &format!("{spec} {op} {imp} fails ({name} refinement); {imp} {op} {spec} {other}\n\n");
    out + &counterexample_text((spec, imp), &f.counterexample)
}

/// The path of the implementation and what the specification cannot match.
pub(crate) fn counterexample_text((l, r): (String, String), c: &Counterexample) -> String {
    let mut out = format!("counterexample, a path of {r}:\n{}", steps(&c.path));
    let trace = c.trace.join(", ");
    out += &match &c.violation {
        Violation::Action(a) => {
            let before = c.trace[..c.trace.len() - 1].join(", ");
            format!("{l} cannot perform `{a}` after [{before}]\n")
        }
        Violation::Refusal(x) => format!(
            "then {r} is stable and refuses {{{}}}, which {l} cannot refuse after [{trace}]\n",
            x.join(", ")
        ),
        Violation::Divergence => {
            format!("then {r} can perform tau forever, and {l} cannot diverge after [{trace}]\n")
        }
    };
    out
}

/// Numbered steps, one a line.
pub(crate) fn steps(path: &[Step]) -> String {
    if path.is_empty() {
        return "  (the initial state)\n".to_string();
    }
    path.iter()
        .enumerate()
        .map(|(i, s)| format!("  {}. {}  -> state {}\n", i + 1, s.label, s.state))
        .collect()
}

fn json_steps(path: &[Step]) -> Value {
    path.iter()
        .enumerate()
        .map(|(i, s)| json!({"step": i + 1, "label": s.label, "state": s.state}))
        .collect()
}

fn json_report(args: &Args, outcome: &Outcome) -> Value {
    let files =
        json!({"left": args.left.display().to_string(), "right": args.right.display().to_string()});
    match outcome {
        Outcome::Bisim(e, result) => {
            let evidence = result.distinction.as_ref().map(json_distinction);
            json!({"check": "bisimulation", "equivalence": e.name(), "inputs": files,
                   "verdict": if result.equivalent { "equivalent" } else { "not-equivalent" }, "evidence": evidence})
        }
        Outcome::Refinement(m, c) => {
            json!({"check": "refinement", "model": model_name(*m).0, "inputs": files,
                   "verdict": if c.is_none() { "refines" } else { "does-not-refine" },
                   "counterexample": c.as_ref().map(json_counterexample)})
        }
        Outcome::Mutual(m, result) => json_mutual(*m, result, files),
    }
}

/// A distinguishing formula (it holds in the left side) and the path that realises it.
pub(crate) fn json_distinction(d: &agentpi_lts::Distinction) -> Value {
    let side = if d.side == Side::Left {
        "left"
    } else {
        "right"
    };
    json!({"formula": d.formula.to_string(), "checked": d.checked, "holds_in": "left",
           "path": {"side": side, "realises": if side == "left" { "formula" } else { "negation" },
                    "steps": json_steps(&d.path)}})
}

/// `direction` names the failing check by role (`spec`, `impl`: `left` or `right`);
/// `other_direction` says whether the reverse check `holds` or `fails`.
pub(crate) fn json_mutual(model: Model, result: &MutualResult, files: Value) -> Value {
    let f = result.failure.as_ref();
    let direction = f.map(|f| match f.spec {
        Side::Left => json!({"spec": "left", "impl": "right"}),
        Side::Right => json!({"spec": "right", "impl": "left"}),
    });
    let other = f.map(|f| if f.other_fails { "fails" } else { "holds" });
    json!({"check": "refinement-equivalence", "model": model_name(model).0, "inputs": files,
           "verdict": if result.equivalent() { "equivalent" } else { "not-equivalent" },
           "direction": direction, "other_direction": other,
           "counterexample": f.map(|f| json_counterexample(&f.counterexample))})
}

pub(crate) fn json_counterexample(c: &Counterexample) -> Value {
    let violation = match &c.violation {
        Violation::Action(a) => json!({"kind": "action", "action": a}),
        Violation::Refusal(x) => json!({"kind": "refusal", "refused": x}),
        Violation::Divergence => json!({"kind": "divergence"}),
    };
    json!({"trace": c.trace, "steps": json_steps(&c.path), "violation": violation})
}

/// The evidence as a chart of both sides: a lifeline per input, each step of the path an
/// event on the side it is a path of, and what the other side cannot match at the end.
fn chart(args: &Args, outcome: &Outcome) -> Option<agentpi_report_html::Chart> {
    let (path, side, end) = match outcome {
        Outcome::Bisim(_, r) => {
            let d = r.distinction.as_ref()?;
            let what = match d.side {
                Side::Left => "the formula",
                Side::Right => "its negation",
            };
            (
                &d.path,
                d.side,
                format!("this path realises {what}: {}", d.formula),
            )
        }
        Outcome::Refinement(_, c) => {
            let c = c.as_ref()?;
            (&c.path, Side::Right, cannot(args.sides(Side::Left), c))
        }
        Outcome::Mutual(_, r) => {
            let f = r.failure.as_ref()?;
            let imp = if f.spec == Side::Left {
                Side::Right
            } else {
                Side::Left
            };
            (
                &f.counterexample.path,
                imp,
                cannot(args.sides(f.spec), &f.counterexample),
            )
        }
    };
    let lane = usize::from(side == Side::Right);
    let rows = path
        .iter()
        .enumerate()
        .map(|(i, s)| agentpi_report_html::Row {
            number: i + 1,
            from: lane,
            to: lane,
            label: format!("{} \u{2192} state {}", s.label, s.state),
            mark: None,
            message: None,
        })
        .collect();
    Some(agentpi_report_html::Chart {
        lifelines: vec![
            args.left.display().to_string(),
            args.right.display().to_string(),
        ],
        rows,
        loop_start: None,
        notes: Vec::new(),
        ending: Some(agentpi_report_html::Ending::Said(end)),
    })
}

/// What the specification cannot match, in a line.
fn cannot((spec, imp): (String, String), c: &Counterexample) -> String {
    match &c.violation {
        Violation::Action(a) => format!("{spec} cannot perform `{a}` here"),
        Violation::Refusal(x) => {
            format!(
                "{imp} is stable and refuses {{{}}}, which {spec} cannot refuse",
                x.join(", ")
            )
        }
        Violation::Divergence => format!("{imp} can perform tau forever, {spec} cannot"),
    }
}
