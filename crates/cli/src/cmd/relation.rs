//! `check Impl: refines Spec`, `check A: equivalent B`, `check S: deterministic`: relations
//! between state spaces, decided by `agentpi check` as `agentpi compare` decides them (the
//! systems explored as `agentpi lts` explores them, restricted channels as `tau`), with the
//! same evidence: a shortest counterexample or a checked distinguishing formula.

use super::compare::{
    adverb, counterexample_text, json_counterexample, json_distinction, json_mutual, model_name,
    steps,
};
use crate::model::Model;
use crate::output::count_of;
use agentpi_ir::core::{Property, Relation};
use agentpi_lts::{
    BisimResult, Counterexample, Equivalence, Lts, Model as CspModel, MutualResult, Side,
    Violation, compare_bisim, deterministic, refinement_equivalent, refines,
};
use agentpi_syntax::ast::{self, RelationKind};
use serde_json::{Value, json};

/// The verdict of one relation check, with what it was decided on.
pub(crate) struct RelationReport {
    /// The check's system.
    pub system: String,
    /// The other system (`None` for `deterministic`).
    pub other: Option<String>,
    pub property: String,
    pub decided: Option<Decided>,
    /// The sizes of the state spaces compared: (system, states, transitions).
    pub sizes: Vec<(String, usize, usize)>,
    /// What stopped exploring a side before the relation was decided (the verdict is
    /// unknown).
    pub limit: Option<String>,
}

/// What was decided, ready to print.
pub(crate) enum Decided {
    Refinement(CspModel, Option<Counterexample>),
    Bisim(Equivalence, BisimResult),
    Mutual(CspModel, MutualResult),
    Deterministic(CspModel, Option<Counterexample>),
}

impl RelationReport {
    /// "holds", "violated" or "unknown".
    pub fn verdict(&self) -> &'static str {
        match &self.decided {
            None => "unknown",
            Some(d) if d.holds() => "holds",
            Some(_) => "violated",
        }
    }
}

impl Decided {
    fn holds(&self) -> bool {
        match self {
            Decided::Refinement(_, c) | Decided::Deterministic(_, c) => c.is_none(),
            Decided::Bisim(_, r) => r.equivalent,
            Decided::Mutual(_, r) => r.equivalent(),
        }
    }
}

/// Decides check `check` of `model` (a relation), each side explored within `limits`
/// (`--max-states`, `--max-memory`). An error (a fault in a system's initial state, no
/// thread to explore with) is rendered for standard error.
pub(crate) fn decide(
    model: &Model,
    check: usize,
    limits: (Option<usize>, Option<u64>),
) -> Result<RelationReport, String> {
    let def = &model.program.checks[check];
    let Property::Relation(relation) = &def.property else {
        return Err(format!("check {} is not a relation", check + 1));
    };
    let name = |s: usize| model.program.systems[s].name.clone();
    let mut report = RelationReport {
        system: name(def.system),
        other: relation.other.map(name),
        property: def.text.clone(),
        decided: None,
        sizes: Vec::new(),
        limit: None,
    };
    let mut sides = vec![def.system];
    sides.extend(relation.other);
    let mut lts = Vec::new();
    for s in sides {
        match crate::cmd::lts::build_within(model, s, false, limits) {
            Ok(built) => {
                report
                    .sizes
                    .push((name(s), built.num_states(), built.num_transitions()));
                lts.push(built);
            }
            Err(crate::cmd::lts::Refused::Limit(why)) => {
                report.limit = Some(format!("{}: {why}", name(s)));
                return Ok(report);
            }
            Err(crate::cmd::lts::Refused::Fault(why)) => return Err(why),
        }
    }
    report.decided = Some(relate(relation, &lts));
    Ok(report)
}

/// `lts[0]` is the check's system, `lts[1]` the other one (if any).
fn relate(relation: &Relation, lts: &[Lts]) -> Decided {
    let this = &lts[0];
    let other = lts.get(1).unwrap_or(this);
    match relation.kind {
        RelationKind::Refines(m) => {
            let m = csp(m);
            Decided::Refinement(m, refines(other, this, m).counterexample)
        }
        RelationKind::EquivalentIn(m) => {
            let m = csp(m);
            Decided::Mutual(m, refinement_equivalent(this, other, m))
        }
        RelationKind::Bisimilar(b) => {
            let e = bisimulation(b);
            Decided::Bisim(e, compare_bisim(this, other, e))
        }
        RelationKind::Deterministic(m) => {
            let m = csp(m);
            Decided::Deterministic(m, deterministic(this, m).counterexample)
        }
    }
}

fn csp(m: ast::CspModel) -> CspModel {
    match m {
        ast::CspModel::Traces => CspModel::Traces,
        ast::CspModel::Failures => CspModel::Failures,
        ast::CspModel::FailuresDivergences => CspModel::FailuresDivergences,
    }
}

fn bisimulation(b: ast::Bisimulation) -> Equivalence {
    match b {
        ast::Bisimulation::Strong => Equivalence::Strong,
        ast::Bisimulation::Branching => Equivalence::Branching,
        ast::Bisimulation::DivBranching => Equivalence::DivBranching,
        ast::Bisimulation::Weak => Equivalence::Weak,
    }
}

/// The verdict line and the evidence, as `agentpi check` prints a check.
pub(crate) fn text(report: &RelationReport) -> String {
    let sizes: Vec<String> = report
        .sizes
        .iter()
        .map(|(s, n, t)| {
            let counts = format!("{}, {}", count_of(*n, "state"), count_of(*t, "transition"));
            match report.sizes.len() {
                1 => counts,
                _ => format!("{s}: {counts}"),
            }
        })
        .collect();
    let sizes = match sizes.is_empty() {
        true => String::new(),
        false => format!(" ({})", sizes.join("; ")),
    };
    let mut out = format!(
        "{}: {} ... {}{sizes}\n",
        report.system,
        report.property,
        report.verdict(),
    );
    if let Some(limit) = &report.limit {
        out += &format!("  exploration stopped before this was decided: {limit}\n");
    }
    if let Some(d) = &report.decided {
        let body = evidence_text(report, d);
        out.extend(body.lines().map(|l| match l {
            "" => "\n".to_string(),
            l => format!("  {l}\n"),
        }));
    }
    out
}

fn evidence_text(report: &RelationReport, decided: &Decided) -> String {
    let this = report.system.clone();
    let other = report.other.clone().unwrap_or_else(|| this.clone());
    match decided {
        Decided::Refinement(m, c) => {
            let (name, op) = model_name(*m);
            match c {
                None => format!("{other} {op} {this} holds ({name} refinement)\n"),
                Some(c) => format!(
                    "{other} {op} {this} fails ({name} refinement)\n{}",
                    counterexample_text((other.clone(), this.clone()), c)
                ),
            }
        }
        Decided::Mutual(m, r) => mutual_text(&this, &other, *m, r),
        Decided::Bisim(e, r) => bisim_text(&this, &other, *e, r),
        Decided::Deterministic(_, c) => determinism_text(&this, c.as_ref()),
    }
}

fn mutual_text(this: &str, other: &str, m: CspModel, r: &MutualResult) -> String {
    let (name, op) = model_name(m);
    let Some(f) = &r.failure else {
        return format!("{this} {op} {other} and {other} {op} {this} hold\n");
    };
    let (spec, imp) = match f.spec {
        Side::Left => (this.to_string(), other.to_string()),
        Side::Right => (other.to_string(), this.to_string()),
    };
    let then = if f.other_fails { "fails too" } else { "holds" };
    format!(
        "{spec} {op} {imp} fails ({name} refinement); {imp} {op} {spec} {then}\n{}",
        counterexample_text((spec.clone(), imp.clone()), &f.counterexample)
    )
}

fn bisim_text(this: &str, other: &str, e: Equivalence, r: &BisimResult) -> String {
    let adverb = adverb(e);
    if r.equivalent {
        return format!("{this} and {other} are {adverb} bisimilar\n");
    }
    let Some(d) = &r.distinction else {
        return format!(
            "{this} and {other} are not {adverb} bisimilar; no distinguishing formula: it would nest more than {} modalities (docs/limits.md)\n",
            agentpi_lts::MAX_EVIDENCE_DEPTH
        );
    };
    let mut out = format!(
        "{this} and {other} are not {adverb} bisimilar\ndistinguishing formula (holds in {this}, fails in {other}):\n  {}\n",
        d.formula
    );
    if !d.checked {
        out += "  warning: re-evaluating the formula did not confirm it\n";
    }
    let (side, what) = match d.side {
        Side::Left => (this, "the formula"),
        Side::Right => (other, "its negation"),
    };
    out + &format!("path in {side} realising {what}:\n{}", steps(&d.path))
}

fn determinism_text(this: &str, c: Option<&Counterexample>) -> String {
    let Some(c) = c else {
        return format!("{this} is deterministic\n");
    };
    let trace = c.trace.join(", ");
    let why = match &c.violation {
        Violation::Refusal(actions) => {
            let actions: Vec<String> = actions.iter().map(|a| format!("`{a}`")).collect();
            format!(
                "then {this} is stable and refuses {}, which it can also perform after [{trace}]\n",
                actions.join(", ")
            )
        }
        Violation::Divergence => {
            format!("then {this} can perform tau forever (it diverges) after [{trace}]\n")
        }
        Violation::Action(a) => format!("then {this} performs `{a}`\n"),
    };
    format!(
        "{this} is not deterministic\ncounterexample, a path of {this}:\n{}{why}",
        steps(&c.path)
    )
}

/// The check as one object of `agentpi check --format json`'s `checks`, with the fields of
/// the other checks (`trace`: the labels of the counterexample's path) and `relation`: what
/// `agentpi compare --format json` says, by system.
pub(crate) fn json(report: &RelationReport) -> Value {
    let (states, transitions) = report.sizes.first().map_or((0, 0), |(_, n, t)| (*n, *t));
    let path: Vec<Value> = path_of(report)
        .iter()
        .map(|s| json!({"label": s.label, "actors": []}))
        .collect();
    json!({
        "system": report.system,
        "property": report.property,
        "verdict": report.verdict(),
        "states": states,
        "transitions": transitions,
        "explored": if report.limit.is_some() { "until a limit" } else { "all" },
        "trace": path,
        "loop_start": null,
        "deadlock": false,
        "stuck": [],
        "fault": null,
        "limit": report.limit,
        "relation": relation_json(report),
    })
}

/// The path the evidence shows, in whichever system it runs.
fn path_of(report: &RelationReport) -> &[agentpi_lts::Step] {
    match &report.decided {
        Some(Decided::Refinement(_, Some(c)) | Decided::Deterministic(_, Some(c))) => &c.path,
        Some(Decided::Mutual(_, r)) => r.failure.as_ref().map_or(&[], |f| &f.counterexample.path),
        Some(Decided::Bisim(_, r)) => r.distinction.as_ref().map_or(&[], |d| &d.path),
        _ => &[],
    }
}

fn relation_json(report: &RelationReport) -> Value {
    let sizes: Vec<Value> = report
        .sizes
        .iter()
        .map(|(s, n, t)| json!({"system": s, "states": n, "transitions": t}))
        .collect();
    let other = report
        .other
        .clone()
        .unwrap_or_else(|| report.system.clone());
    let files = json!({"left": report.system, "right": other});
    let decided = match &report.decided {
        None => json!(null),
        Some(Decided::Refinement(m, c)) => json!({
            "check": "refinement", "model": model_name(*m).0,
            "spec": other, "impl": report.system,
            "counterexample": c.as_ref().map(json_counterexample)}),
        Some(Decided::Mutual(m, r)) => json_mutual(*m, r, files),
        Some(Decided::Bisim(e, r)) => json!({
            "check": "bisimulation", "equivalence": e.name(), "inputs": files,
            "evidence": r.distinction.as_ref().map(json_distinction)}),
        Some(Decided::Deterministic(m, c)) => json!({
            "check": "determinism", "model": model_name(*m).0,
            "counterexample": c.as_ref().map(json_counterexample)}),
    };
    json!({"sizes": sizes, "decided": decided})
}
