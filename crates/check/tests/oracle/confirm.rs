//! A checker's result re-checked as evidence: its trace must be a run of the semantics
//! ([`walk`](super::walk)) on which the property fails by its definition (docs/semantics.md,
//! *Properties*; docs/check.md for `ltl`), or, for `reachable`, on which the label is done.
//! A lasso's loop of a `fair` check must be weakly fair: every instance enabled in all the
//! loop's states moves in the loop.

use super::formula::{Atom, Env, Formula, REFUSED, matches, rename};
use super::walk::{Run, runs};
use agentpi_check::{CheckResult, Outcome};
use agentpi_ir::core::Property;
use agentpi_semantics::{Label, Semantics};
use std::collections::{HashMap, HashSet};

/// What a result claims, read from the property.
#[derive(Clone, Debug)]
pub enum Claim {
    Deadlock,
    Never(Atom),
    Reachable(Atom),
    /// The implicit check: no assertion fails, no value leaves its range.
    Assertions,
    Eventually(Atom),
    AlwaysEventually(Atom),
    LeadsTo(Atom, Atom),
    Ltl(Formula),
}

impl Claim {
    /// The claim of `property`; an error, [`REFUSED`], for a property over states.
    pub fn of(property: &Property) -> Result<Claim, String> {
        let atom = |p: &agentpi_ir::core::LabelPattern| Atom::Pattern(p.clone());
        Ok(match property {
            Property::DeadlockFree => Claim::Deadlock,
            Property::Never(p) => Claim::Never(atom(p)),
            Property::Reachable(p) => Claim::Reachable(atom(p)),
            Property::Eventually(p) => Claim::Eventually(atom(p)),
            Property::AlwaysEventually(p) => Claim::AlwaysEventually(atom(p)),
            Property::LeadsTo(l, r) => Claim::LeadsTo(atom(l), atom(r)),
            Property::Ltl(f) => Claim::Ltl(Formula::from_ltl(f)?),
            Property::Relation(_) => {
                panic!("a relation is decided on two state spaces by agentpi_lts, not here")
            }
            Property::State(..) => return Err(REFUSED.to_string()),
        })
    }
}

/// What was confirmed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Evidence {
    /// A path whose last step is the witness of `reachable`.
    Witness,
    /// A safety counterexample: a path into a deadlock, a forbidden step or a fault.
    Path,
    /// A finite maximal path (it ends in a state without transitions) that violates.
    Stuck,
    /// A lasso that violates; `fair` when its loop was held to weak fairness.
    Loop { fair: bool },
    /// An `ltl` trace after which every continuation violates.
    BadPrefix,
}

/// Confirms `result` of `claim` on system `system`: `None` when it carries no evidence (a
/// property that holds, `reachable` violated), else what its trace was confirmed as; an
/// error says why the trace is no evidence.
pub fn confirm(
    sem: &Semantics<'_>,
    system: usize,
    (claim, fair): (&Claim, bool),
    result: &CheckResult,
) -> Result<Option<Evidence>, String> {
    let wants_trace = match (&result.outcome, claim) {
        (Outcome::Holds, Claim::Reachable(_)) => true,
        (Outcome::Holds, _) | (Outcome::Violated, Claim::Reachable(_)) => false,
        (Outcome::Violated, _) => true,
        (Outcome::Unknown(limit), _) => return Err(format!("unknown ({limit:?})")),
    };
    if !wants_trace {
        return Ok(None);
    }
    let trace = result.trace.as_ref().ok_or("a verdict with no trace")?;
    let candidates = runs(sem, system, trace, matches!(claim, Claim::Assertions))?;
    let instances = sem
        .initial_with_instances(system)
        .map(|(_, names)| names)
        .unwrap_or_default();
    let mut why = Vec::new();
    for run in &candidates {
        match judge(sem, (claim, fair), run).map_err(|e| e.name(&instances)) {
            Ok(evidence) => return Ok(Some(evidence)),
            Err(e) => why.push(e),
        }
    }
    why.dedup();
    Err(why.join("; "))
}

/// Why a run is no evidence.
enum Rejection {
    Why(String),
    /// A fair check's loop on which these instances are enabled all along and never move.
    Starved(Vec<u32>),
}

impl Rejection {
    fn name(self, instances: &[String]) -> String {
        match self {
            Rejection::Why(why) => why,
            Rejection::Starved(starved) => {
                let names: Vec<&str> = starved
                    .iter()
                    .map(|&i| instances.get(i as usize).map_or("?", |n| n.as_str()))
                    .collect();
                format!(
                    "the loop is not fair: {} enabled in every state of it and never moving",
                    names.join(", ")
                )
            }
        }
    }
}

impl From<String> for Rejection {
    fn from(why: String) -> Rejection {
        Rejection::Why(why)
    }
}

/// Whether the run is evidence for the result of `claim`.
fn judge(
    sem: &Semantics<'_>,
    (claim, fair): (&Claim, bool),
    run: &Run,
) -> Result<Evidence, Rejection> {
    let last_label = run.steps.last().map(|t| &t.label);
    let last_matches = |a: &Atom| matches(sem, a, last_label, &Env::new()).is_some();
    match claim {
        Claim::Deadlock => deadlock(sem, run)?,
        Claim::Never(a) => ensure(last_matches(a), "its last step does not match the pattern")?,
        Claim::Reachable(a) => {
            ensure(last_matches(a), "its last step does not match the pattern")?;
            return Ok(Evidence::Witness);
        }
        Claim::Assertions => {
            let faulty = run.steps.last().is_some_and(|t| t.fault.is_some());
            ensure(faulty, "its last step does not fault")?;
        }
        Claim::Ltl(f) if !maximal(sem, run) => {
            bad_prefix(sem, f, run)?;
            return Ok(Evidence::BadPrefix);
        }
        _ => return liveness(sem, (claim, fair), run),
    }
    Ok(Evidence::Path)
}

fn ensure(ok: bool, why: &str) -> Result<(), String> {
    if ok { Ok(()) } else { Err(why.to_string()) }
}

/// The last state has no transition at all and is not a valid end (rules *Deadlock* and
/// *Valid-End*, decided by the semantics).
fn deadlock(sem: &Semantics<'_>, run: &Run) -> Result<(), String> {
    let last = run.states.last().expect("a run has a state");
    ensure(run.loop_start.is_none(), "a deadlock trace has no loop")?;
    ensure(
        sem.successors(last).is_empty(),
        "its last state has a transition",
    )?;
    ensure(!sem.is_valid_end(last), "its last state is a valid end")
}

/// A lasso (the walk checked that its loop closes), or a path into a state without any
/// transition (one whose only steps fault is no end of a maximal path).
fn maximal(sem: &Semantics<'_>, run: &Run) -> bool {
    run.loop_start.is_some()
        || sem
            .successors(run.states.last().expect("a state"))
            .is_empty()
}

/// The liveness shapes and `ltl` on a maximal run.
fn liveness(
    sem: &Semantics<'_>,
    (claim, fair): (&Claim, bool),
    run: &Run,
) -> Result<Evidence, Rejection> {
    ensure(
        maximal(sem, run),
        "the run is not maximal: no loop, and its last state can move",
    )?;
    let word = Word::of(run);
    let mut eval = Eval {
        sem,
        word: &word,
        memo: HashMap::new(),
    };
    let falsified = match claim {
        Claim::Eventually(p) => !eval.somewhere(p, 0..word.next.len()),
        Claim::AlwaysEventually(p) => !eval.somewhere(p, word.recurring()),
        Claim::LeadsTo(l, r) => eval.unanswered(l, r),
        Claim::Ltl(f) => !eval.holds(f, 0, &Env::new()),
        _ => unreachable!("safety claims are judged on their last step"),
    };
    ensure(falsified, "the property holds on the run")?;
    match run.loop_start {
        Some(start) if fair => fair_loop(sem, run, start).map(|()| Evidence::Loop { fair: true }),
        Some(_) => Ok(Evidence::Loop { fair: false }),
        None => Ok(Evidence::Stuck),
    }
}

/// Weak fairness per instance (docs/semantics.md): an instance enabled (one of its
/// components can take a transition) in every state of the loop moves on one of its steps.
fn fair_loop(sem: &Semantics<'_>, run: &Run, start: usize) -> Result<(), Rejection> {
    let enabled = |s: &agentpi_semantics::State| -> HashSet<u32> {
        let moves = sem.successors(s).into_iter().filter(|t| t.fault.is_none());
        moves.flat_map(|t| t.actors).collect()
    };
    let states = &run.states[start..run.steps.len()];
    let mut always = enabled(&states[0]);
    for s in &states[1..] {
        always = always.intersection(&enabled(s)).copied().collect();
    }
    let moved: HashSet<u32> = run.steps[start..]
        .iter()
        .flat_map(|t| t.actors.iter().copied())
        .collect();
    let mut starved: Vec<u32> = always.difference(&moved).copied().collect();
    starved.sort_unstable();
    match starved.is_empty() {
        true => Ok(()),
        false => Err(Rejection::Starved(starved)),
    }
}

/// The run as a formula reads it: position `i` does `labels[i]` (`None`: the stutter step)
/// and is followed by position `next[i]`, fresh channels renumbered by `renamings[i]`.
struct Word<'r> {
    labels: Vec<Option<&'r Label>>,
    renamings: Vec<Option<&'r [u32]>>,
    next: Vec<usize>,
    loop_start: usize,
}

impl<'r> Word<'r> {
    /// A lasso repeats its loop; a path into a stuck state stutters there forever.
    fn of(run: &'r Run) -> Word<'r> {
        let mut labels: Vec<Option<&Label>> = run.steps.iter().map(|t| Some(&t.label)).collect();
        let mut renamings: Vec<_> = run.steps.iter().map(|t| Some(&t.renaming[..])).collect();
        let loop_start = run.loop_start.unwrap_or_else(|| {
            labels.push(None);
            renamings.push(None);
            labels.len() - 1
        });
        let mut next: Vec<usize> = (1..labels.len()).collect();
        next.push(loop_start);
        Word {
            labels,
            renamings,
            next,
            loop_start,
        }
    }

    /// The positions visited infinitely often.
    fn recurring(&self) -> std::ops::Range<usize> {
        self.loop_start..self.next.len()
    }
}

/// Truth of formulas at (position, values of the bound variables). From a position the run
/// is one sequence of such pairs, finitely many, so `U` and `R` are decided by following it
/// until it repeats.
struct Eval<'a, 'r> {
    sem: &'a Semantics<'a>,
    word: &'a Word<'r>,
    memo: HashMap<(usize, usize, Env), bool>,
}

impl Eval<'_, '_> {
    fn step(&self, at: usize, env: &Env) -> (usize, Env) {
        (self.word.next[at], rename(env, self.word.renamings[at]))
    }

    fn matches(&self, atom: &Atom, at: usize, env: &Env) -> Option<Env> {
        matches(self.sem, atom, self.word.labels[at], env)
    }

    fn somewhere(&self, atom: &Atom, mut positions: impl Iterator<Item = usize>) -> bool {
        positions.any(|at| self.matches(atom, at, &Env::new()).is_some())
    }

    /// `L leads to R` fails: some step matches `L`, and no later step matches `R` with the
    /// values `L` bound.
    fn unanswered(&self, left: &Atom, right: &Atom) -> bool {
        (0..self.word.next.len()).any(|at| {
            let Some(bound) = self.matches(left, at, &Env::new()) else {
                return false;
            };
            let (mut at, mut env) = self.step(at, &bound);
            let mut seen = HashSet::new();
            while seen.insert((at, env.clone())) {
                if self.matches(right, at, &env).is_some() {
                    return false;
                }
                (at, env) = self.step(at, &env);
            }
            true
        })
    }

    fn holds(&mut self, f: &Formula, at: usize, env: &Env) -> bool {
        let key = (f as *const Formula as usize, at, env.clone());
        if let Some(&known) = self.memo.get(&key) {
            return known;
        }
        let value = match f {
            Formula::Const(b) => *b,
            Formula::Atom(a) => self.matches(a, at, env).is_some(),
            Formula::Not(a) => !self.holds(a, at, env),
            Formula::And(a, b) => self.holds(a, at, env) && self.holds(b, at, env),
            Formula::Or(a, b) => self.holds(a, at, env) || self.holds(b, at, env),
            Formula::Bind(a, g) => match self.matches(a, at, env) {
                Some(bound) => self.holds(g, at, &bound),
                None => true,
            },
            Formula::Next(a) => {
                let (next, env) = self.step(at, env);
                self.holds(a, next, &env)
            }
            Formula::Until(a, b) => self.until(a, b, at, env, true),
            Formula::Release(a, b) => self.until(a, b, at, env, false),
        };
        self.memo.insert(key, value);
        value
    }

    /// `a U b` (`until`: `b` at some point, `a` before it) or `a R b` (`b` up to and
    /// including the first point where `a` holds, or forever).
    fn until(&mut self, a: &Formula, b: &Formula, at: usize, env: &Env, until: bool) -> bool {
        let (mut at, mut env) = (at, env.clone());
        let mut seen = HashSet::new();
        loop {
            let b_here = self.holds(b, at, &env);
            if until && b_here || !until && !b_here {
                return until;
            }
            if self.holds(a, at, &env) != until || !seen.insert((at, env.clone())) {
                return !until;
            }
            (at, env) = self.step(at, &env);
        }
    }
}

/// A run without loop whose last state can still move: every continuation must violate the
/// formula, which is so when the formula progressed through the run's steps is `false`.
fn bad_prefix(sem: &Semantics<'_>, f: &Formula, run: &Run) -> Result<(), String> {
    ensure(
        !run.steps.is_empty(),
        "an empty trace that is not a maximal run",
    )?;
    let mut residual = Residual::Later(f, Env::new());
    let mut renaming = None;
    for t in &run.steps {
        residual = residual.advance(sem, renaming, &t.label);
        renaming = Some(&t.renaming[..]);
    }
    ensure(
        matches!(residual, Residual::Known(false)),
        "the run is not maximal and the formula is not false after it (a continuation may \
         satisfy it)",
    )
}

/// What remains of a formula after some steps: a boolean combination of obligations on the
/// rest of the run, folded where it is known.
#[derive(Clone, Debug)]
enum Residual<'f> {
    Known(bool),
    /// `f` must hold from the next step on, with these values (numbered as the state before
    /// that step numbers them once renamed).
    Later(&'f Formula, Env),
    Not(Box<Residual<'f>>),
    And(Box<Residual<'f>>, Box<Residual<'f>>),
    Or(Box<Residual<'f>>, Box<Residual<'f>>),
}

impl<'f> Residual<'f> {
    fn not(self) -> Self {
        match self {
            Residual::Known(b) => Residual::Known(!b),
            r => Residual::Not(Box::new(r)),
        }
    }

    fn and(self, other: Self) -> Self {
        match (self, other) {
            (Residual::Known(false), _) | (_, Residual::Known(false)) => Residual::Known(false),
            (Residual::Known(true), r) | (r, Residual::Known(true)) => r,
            (a, b) => Residual::And(Box::new(a), Box::new(b)),
        }
    }

    fn or(self, other: Self) -> Self {
        match (self, other) {
            (Residual::Known(true), _) | (_, Residual::Known(true)) => Residual::Known(true),
            (Residual::Known(false), r) | (r, Residual::Known(false)) => r,
            (a, b) => Residual::Or(Box::new(a), Box::new(b)),
        }
    }

    /// The obligations read at the next step, `label`, after `renaming` (the previous step's).
    fn advance(self, sem: &Semantics<'_>, renaming: Option<&[u32]>, label: &Label) -> Self {
        match self {
            Residual::Known(b) => Residual::Known(b),
            Residual::Later(f, env) => progress(sem, f, &rename(&env, renaming), label),
            Residual::Not(r) => r.advance(sem, renaming, label).not(),
            Residual::And(a, b) => a
                .advance(sem, renaming, label)
                .and(b.advance(sem, renaming, label)),
            Residual::Or(a, b) => a
                .advance(sem, renaming, label)
                .or(b.advance(sem, renaming, label)),
        }
    }
}

/// `f` at a step labelled `label`: what it says of this step, and of the rest.
fn progress<'f>(sem: &Semantics<'_>, f: &'f Formula, env: &Env, label: &Label) -> Residual<'f> {
    let here = |g: &'f Formula| progress(sem, g, env, label);
    match f {
        Formula::Const(b) => Residual::Known(*b),
        Formula::Atom(a) => Residual::Known(matches(sem, a, Some(label), env).is_some()),
        Formula::Not(a) => here(a).not(),
        Formula::And(a, b) => here(a).and(here(b)),
        Formula::Or(a, b) => here(a).or(here(b)),
        Formula::Bind(a, g) => match matches(sem, a, Some(label), env) {
            Some(bound) => progress(sem, g, &bound, label),
            None => Residual::Known(true),
        },
        Formula::Next(a) => Residual::Later(a, env.clone()),
        Formula::Until(a, b) => here(b).or(here(a).and(Residual::Later(f, env.clone()))),
        Formula::Release(a, b) => here(b).and(here(a).or(Residual::Later(f, env.clone()))),
    }
}
