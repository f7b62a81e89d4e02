//! `agentpi check`: explores a system's state space and decides its properties, with the
//! shortest counterexample (or witness) for each.
//!
//! Safety properties (`deadlock free`, `never`, assertions) and `reachable` are read off the
//! breadth-first graph; liveness (`eventually`, `always eventually`, `leads to`, each optionally
//! `fair`) is decided on the product with a monitor (see [`product`]), and `ltl` formulas on
//! the product with a Büchi automaton of their negation. No JSON, no MCP, no
//! printing: results are data for the binary to render.

pub mod accept;
pub mod edges;
mod engine;
pub mod explore;
pub mod graph;
mod intern;
mod lasso;
mod lean;
mod ltl;
pub mod parts;
pub mod pattern;
mod por;
mod prefetch;
pub mod product;
mod props;
#[cfg(test)]
mod random;
#[doc(hidden)]
pub mod reference;
pub mod replay;
pub mod state;
mod store;
mod strong;
pub mod stuck;
mod symmetry;
pub mod trace;

pub use engine::Cached;
pub use explore::{Goals, Options, Progress, explore};
pub use graph::{End, Graph, Limit};
pub use stuck::Blocked;
pub use trace::{Trace, TraceStep};

use agentpi_ir::core::{Prefix, Program, Property, StateCheck, Term};
use agentpi_semantics::{Fault, Semantics};
use product::Step;

/// The verdict of one property.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    Holds,
    Violated,
    /// A resource bound stopped exploration before the property was decided.
    Unknown(Limit),
}

/// One property's result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckResult {
    /// The property as written (`deadlock free`, ...), or `assertions` for the implicit check.
    pub property: String,
    pub outcome: Outcome,
    /// The counterexample, or the witness of `reachable`.
    pub trace: Option<Trace>,
    /// For a run-time error: what failed and where.
    pub fault: Option<Fault>,
    /// For a deadlock: the stuck state's components, by term.
    pub stuck: bool,
    /// For a deadlock: who waits where in the stuck state, and for what.
    pub blocked: Vec<Blocked>,
}

/// All results for one system, with the size of its state space.
#[derive(Clone, Debug)]
pub struct SystemReport {
    pub system: String,
    pub states: usize,
    pub transitions: usize,
    pub depth: usize,
    /// The bytes exploration kept (what `--max-memory` bounds: [`Graph::bytes`]).
    pub bytes: u64,
    /// The states expanded, how many of them by the engine's fast path, and how many of
    /// those by a stubborn set (partial-order reduction).
    pub expanded: usize,
    pub fast: usize,
    pub reduced: usize,
    /// The states merged while the workers read the store (the others the merge refused
    /// then, see docs/check.md, "The engine").
    pub alongside: usize,
    /// Whether partial-order or symmetry reduction was asked for but is off: a property it
    /// does not keep.
    pub por_off: bool,
    /// Whether partial-order reduction was asked for but is off: a property reads states.
    pub por_off_states: bool,
    /// With `--symmetry`: the classes of interchangeable instances found.
    pub symmetric_classes: usize,
    /// Whether exploration was depth first: its traces are real runs, not always shortest.
    pub depth_first: bool,
    pub limit: Option<Limit>,
    /// Set when fewer threads than asked could be started (the output is the same).
    pub threads_note: Option<String>,
    /// How exploration ended: the whole state space, or early (every check decided, or a
    /// bound), in which case `states` and `transitions` count what was explored.
    pub end: End,
    pub results: Vec<CheckResult>,
}

/// Explores system `system` of `sem`'s program, all of it.
pub fn explore_system(
    sem: &Semantics<'_>,
    system: usize,
    options: &Options,
    progress: &Progress,
) -> Result<Graph, Fault> {
    explore_until(sem, system, options, &Goals::default(), progress)
}

/// Explores system `system` until `goals` are met (see [`Goals`]).
pub fn explore_until(
    sem: &Semantics<'_>,
    system: usize,
    options: &Options,
    goals: &Goals<'_>,
    progress: &Progress,
) -> Result<Graph, Fault> {
    let (initial, instances) = sem.initial_with_instances(system)?;
    let start = (initial, &instances[..]);
    let mut graph = explore::explore_named(sem, start, options, goals, progress);
    graph.instances = instances;
    Ok(graph)
}

/// What exploring for these checks must watch for: violations of safety properties and
/// witnesses of `reachable` end it early; liveness needs the whole state space.
fn goals_of<'a>(
    sem: &'a Semantics<'a>,
    checks: &[&'a agentpi_ir::core::CheckDef],
    instances: &[String],
) -> Goals<'a> {
    let mut goals = Goals {
        fault: has_assertions(sem.program),
        ..Goals::default()
    };
    for &check in checks {
        match &check.property {
            Property::DeadlockFree => goals.deadlock = true,
            Property::Never(p) | Property::Reachable(p) => goals.labels.push(Box::new(move |l| {
                pattern::match_label(sem, p, l, &Vec::new()).is_some()
            })),
            Property::State(check, p) => {
                let pred = state::Compiled::new(sem, p, instances);
                let wanted = *check != StateCheck::Always;
                goals
                    .states
                    .push(Box::new(move |s| pred.holds(s) == wanted));
            }
            _ => goals.whole = true,
        }
    }
    goals
}

/// Checks the properties `checks` (indices into `Program::checks`) of system `system`.
/// Relations (`refines`, `equivalent`, `deterministic`) are about whole state spaces and are
/// left to the caller (`agentpi_lts` decides them): they are skipped here.
pub fn check_system(
    program: &Program,
    system: usize,
    checks: &[usize],
    options: &Options,
    progress: &Progress,
) -> SystemReport {
    let explore = |sem: &Semantics<'_>, options: &Options, goals: &Goals<'_>| {
        explore_until(sem, system, options, goals, progress)
    };
    check_system_with(program, system, checks, options, &explore)
}

/// Explores a system for its checks, by the single-process engine or another.
pub type Explorer<'e> = dyn Fn(&Semantics<'_>, &Options, &Goals<'_>) -> Result<Graph, Fault> + 'e;

/// [`check_system`], exploring with `explore` (given the options and goals the checks need):
/// how a distributed exploration (`crates/cluster`) reports, from a graph of its
/// counterexample paths (see [`parts::graph_of`]).
pub fn check_system_with(
    program: &Program,
    system: usize,
    checks: &[usize],
    options: &Options,
    explore: &Explorer<'_>,
) -> SystemReport {
    let checks: Vec<usize> = checks
        .iter()
        .copied()
        .filter(|&c| !matches!(program.checks[c].property, Property::Relation(_)))
        .collect();
    let checks = &checks[..];
    let sem = Semantics::new(program);
    let name = program.systems[system].name.clone();
    // `leads to` and formulas with `A -> f` follow bound fresh channels across steps.
    let leads_to = checks.iter().any(|&c| match &program.checks[c].property {
        Property::LeadsTo(..) => true,
        Property::Ltl(f) => agentpi_ir::ltl::binds_values(f),
        _ => false,
    });
    // Deadlocks, assertions, `never`, `reachable` and `always` are decided while exploring:
    // no edges.
    let safety = checks.iter().all(|&c| {
        matches!(
            program.checks[c].property,
            Property::DeadlockFree
                | Property::Never(_)
                | Property::Reachable(_)
                | Property::State(..)
        )
    });
    // Stubborn sets keep labels, not states: a property that reads states turns them off.
    let reads_state = checks
        .iter()
        .any(|&c| reads_state(&program.checks[c].property));
    let asked = options.por || options.symmetry;
    let por_off_states = options.por && safety && reads_state;
    // Depth first numbers states as it reaches them and expands them in another order, so
    // it keeps no edges (they are stored in the order of expansion) and so no reduction,
    // whose counterexamples need the edges the stubborn set kept.
    let depth_first = options.depth_first && safety && !reads_state;
    let (por, symmetry) = (
        options.por && safety && !depth_first && !reads_state,
        options.symmetry && safety && !depth_first,
    );
    let options = Options {
        keep_renamings: options.keep_renamings || leads_to,
        // A reduced graph keeps its edges: the semantics alone cannot tell which of a
        // state's transitions the stubborn set kept, for printing a counterexample.
        drop_edges: options.drop_edges || (safety && !por && !symmetry),
        por,
        symmetry,
        // Liveness needs the whole graph with its edges: breadth first (the command line
        // refuses to mix them).
        depth_first,
        ..options.clone()
    };
    let defs: Vec<&agentpi_ir::core::CheckDef> =
        checks.iter().map(|&c| &program.checks[c]).collect();
    let instances = match reads_state {
        true => sem
            .initial_with_instances(system)
            .map(|(_, i)| i)
            .unwrap_or_default(),
        false => Vec::new(),
    };
    let goals = goals_of(&sem, &defs, &instances);
    let explored = explore(&sem, &options, &goals);
    drop(goals);
    let graph = match explored {
        Ok(graph) => graph,
        Err(fault) if fault.kind.is_limit() => return initial_limit(name, program, &defs, fault),
        Err(fault) => return initial_fault(name, fault),
    };
    let mut results = Vec::new();
    if !graph.faults.is_empty() || has_assertions(program) {
        results.push(assertions(&sem, &graph, &name));
    }
    let (mut goal, mut state_goal) = (0, 0);
    for &c in checks {
        let check = &program.checks[c];
        let found = match &check.property {
            Property::Never(_) | Property::Reachable(_) => {
                goal += 1;
                graph.first_matches[goal - 1]
            }
            Property::State(..) => {
                state_goal += 1;
                // A state is reached by the path into it: no step of its own.
                graph.first_states[state_goal - 1].map(|s| (s, u32::MAX))
            }
            _ => None,
        };
        let property = (&check.property, found);
        let selection = strong::Selection::of(&sem, &graph.instances, &check.strong_on);
        let fair = match (check.strong, check.fair) {
            (true, _) => product::Fairness::Strong(selection.as_ref()),
            (false, true) => product::Fairness::Weak,
            (false, false) => product::Fairness::None,
        };
        results.push(decide(
            &sem,
            &graph,
            &name,
            property,
            props::Search {
                fair,
                room: options.max_memory.map(|m| m.saturating_sub(graph.bytes())),
                threads: options.threads,
            },
            options.max_memory.unwrap_or(0),
            check.text.clone(),
        ));
    }
    SystemReport {
        system: name,
        states: graph.reported_states(),
        transitions: graph.transition_count(),
        depth: graph.max_depth,
        bytes: graph.reported_bytes(),
        expanded: graph.expanded,
        fast: graph.fast,
        reduced: graph.reduced,
        alongside: graph.alongside,
        por_off: asked && (!safety || depth_first),
        por_off_states,
        symmetric_classes: graph.symmetric_classes(),
        depth_first: options.depth_first,
        limit: graph.limit.clone(),
        threads_note: graph.threads_note.clone(),
        end: graph.end.clone(),
        results,
    }
}

/// The initial state itself lies past a bound of the semantics (process calls nested deeper
/// than it follows): every check is unknown, none is violated.
fn initial_limit(
    system: String,
    program: &Program,
    checks: &[&agentpi_ir::core::CheckDef],
    fault: Fault,
) -> SystemReport {
    let limit = Limit::Model(fault);
    let asserts = has_assertions(program).then(|| "assertions".to_string());
    let texts = asserts
        .into_iter()
        .chain(checks.iter().map(|c| c.text.clone()));
    let results = texts
        .map(|text| result(text, Outcome::Unknown(limit.clone()), None))
        .collect();
    SystemReport {
        states: 0,
        limit: Some(limit.clone()),
        end: End::Limit(limit),
        results,
        ..unexplored(system)
    }
}

/// The report of a system whose exploration never started.
fn unexplored(system: String) -> SystemReport {
    SystemReport {
        system,
        states: 1,
        transitions: 0,
        depth: 0,
        bytes: 0,
        expanded: 0,
        fast: 0,
        reduced: 0,
        alongside: 0,
        por_off: false,
        por_off_states: false,
        symmetric_classes: 0,
        depth_first: false,
        limit: None,
        threads_note: None,
        end: End::Decided,
        results: Vec::new(),
    }
}

fn initial_fault(system: String, fault: Fault) -> SystemReport {
    let result = CheckResult {
        property: "assertions".into(),
        outcome: Outcome::Violated,
        trace: Some(Trace {
            steps: Vec::new(),
            loop_start: None,
            states: Vec::new(),
        }),
        fault: Some(fault),
        stuck: false,
        blocked: Vec::new(),
    };
    SystemReport {
        results: vec![result],
        ..unexplored(system)
    }
}

fn has_assertions(program: &Program) -> bool {
    program
        .terms
        .iter()
        .any(|t| matches!(t, Term::Prefix(Prefix::Assert(_), _)))
}

fn result(property: String, outcome: Outcome, trace: Option<Trace>) -> CheckResult {
    CheckResult {
        property,
        outcome,
        trace,
        fault: None,
        stuck: false,
        blocked: Vec::new(),
    }
}

/// The implicit check: no assertion fails and no value leaves its range.
fn assertions(sem: &Semantics<'_>, graph: &Graph, system: &str) -> CheckResult {
    let Some(first) = graph.faults.first() else {
        return result("assertions".into(), unknown_or(graph, Outcome::Holds), None);
    };
    let steps = steps_to(sem, graph, first.source);
    let trace = trace::render(sem, graph, system, &steps, Some(first), None);
    CheckResult {
        fault: Some(first.fault.clone()),
        ..result("assertions".into(), Outcome::Violated, Some(trace))
    }
}

/// `outcome` when the whole state space was seen; unknown when a bound stopped exploration.
/// (Exploration that stopped because every property was decided never asks.)
fn unknown_or(graph: &Graph, outcome: Outcome) -> Outcome {
    match &graph.end {
        End::Complete => outcome,
        End::Limit(limit) => Outcome::Unknown(limit.clone()),
        End::Decided => unreachable!("every property was decided by what was explored"),
    }
}

fn steps_to(sem: &Semantics<'_>, graph: &Graph, state: u32) -> Vec<Step> {
    graph
        .path_to(sem, state)
        .into_iter()
        .map(|(s, e)| Step { state: s, edge: e })
        .collect()
}

/// Decides one property; `first` is, for `never` and `reachable`, the first edge in
/// breadth-first order that matches (found while exploring).
fn decide(
    sem: &Semantics<'_>,
    graph: &Graph,
    system: &str,
    (property, first): (&Property, Option<(u32, u32)>),
    how: props::Search,
    max_memory: u64,
    text: String,
) -> CheckResult {
    let first = first.map(|(state, edge)| Step { state, edge });
    let render = |steps: &[Step], loop_start| {
        Some(trace::render(sem, graph, system, steps, None, loop_start))
    };
    let with_step = |step: Step| {
        let mut steps = steps_to(sem, graph, step.state);
        steps.push(step);
        steps
    };
    let lasso = |found: props::Found| match found {
        Ok(Some(l)) => result(
            text.clone(),
            Outcome::Violated,
            render(&l.steps, l.loop_start),
        ),
        Ok(None) => result(text.clone(), unknown_or(graph, Outcome::Holds), None),
        // The product and its search would pass `--max-memory`.
        Err(props::OverMemory) => {
            let limit = Limit::Memory(max_memory);
            result(text.clone(), Outcome::Unknown(limit), None)
        }
    };
    match property {
        Property::DeadlockFree => match graph.first_deadlock {
            Some(s) => {
                let steps = steps_to(sem, graph, s);
                let (trace, end) = trace::render_to_end(sem, graph, system, &steps, None, None);
                CheckResult {
                    stuck: true,
                    blocked: stuck::blocked(sem, graph, system, &end),
                    ..result(text, Outcome::Violated, Some(trace))
                }
            }
            None => result(text, unknown_or(graph, Outcome::Holds), None),
        },
        Property::Never(_) => match first {
            Some(step) => result(text, Outcome::Violated, render(&with_step(step), None)),
            None => result(text, unknown_or(graph, Outcome::Holds), None),
        },
        Property::Reachable(_) => match first {
            Some(step) => result(text, Outcome::Holds, render(&with_step(step), None)),
            None => result(text, unknown_or(graph, Outcome::Violated), None),
        },
        Property::Eventually(p) => lasso(props::eventually(sem, graph, p, how)),
        Property::AlwaysEventually(p) => lasso(props::always_eventually(sem, graph, p, how)),
        Property::LeadsTo(l, r) => lasso(props::leads_to(sem, graph, (l, r), how)),
        Property::Ltl(f) => lasso(ltl::violation(sem, graph, f, how)),
        Property::State(check, _) => {
            let (hit, miss) = match check {
                StateCheck::Reachable => (Outcome::Holds, Outcome::Violated),
                _ => (Outcome::Violated, Outcome::Holds),
            };
            match first {
                Some(step) => result(text, hit, render(&steps_to(sem, graph, step.state), None)),
                None => result(text, unknown_or(graph, miss), None),
            }
        }
        Property::Relation(_) => unreachable!("relations are skipped by check_system"),
    }
}

/// Whether a property reads states (`at`, `len`, `contains`).
fn reads_state(property: &Property) -> bool {
    fn ltl_reads(f: &agentpi_ir::ltl::Ltl) -> bool {
        use agentpi_ir::ltl::Ltl as L;
        match f {
            L::State(_) => true,
            L::True | L::False | L::Atom(_) => false,
            L::Not(a) | L::Always(a) | L::Eventually(a) | L::Next(a) => ltl_reads(a),
            L::And(a, b)
            | L::Or(a, b)
            | L::Implies(a, b)
            | L::Until(a, b)
            | L::Release(a, b)
            | L::WeakUntil(a, b) => ltl_reads(a) || ltl_reads(b),
        }
    }
    match property {
        Property::State(..) => true,
        Property::Ltl(f) => ltl_reads(f),
        _ => false,
    }
}
