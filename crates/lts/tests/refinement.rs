//! Refinement checks in the traces, failures and failures-divergences models, with pinned
//! shortest counterexamples, and on random pairs every counterexample replayed and judged
//! from the models' definitions (not by the library's own normal form): the trace is one of
//! the implementation's, and what it does after it the specification cannot do.

mod common;

use agentpi_lts::{
    Counterexample, Lts, Model, RefinementResult, Side, Violation, refinement_equivalent, refines,
};
use common::aut;

fn render(result: &RefinementResult) -> String {
    match &result.counterexample {
        None => "refines".to_string(),
        Some(c) => render_counterexample(c),
    }
}

fn render_counterexample(c: &Counterexample) -> String {
    let what = match &c.violation {
        Violation::Action(a) => format!("performs {a}"),
        Violation::Refusal(x) => format!("refuses {{{}}}", x.join(", ")),
        Violation::Divergence => "diverges".to_string(),
    };
    format!("after [{}] the implementation {what}", c.trace.join(", "))
}

/// Checks `spec [model= implementation`, pins the verdict and judges the counterexample.
fn check(spec: &str, implementation: &str, model: Model, expected: &str) {
    let (spec, imp) = (aut(spec), aut(implementation));
    let result = refines(&spec, &imp, model);
    assert_eq!(render(&result), expected, "{model:?}");
    if let Some(c) = &result.counterexample {
        violation_is_real(&spec, &imp, c, model).unwrap();
    }
}

const A_BC: &str = "des (0, 3, 4)\n(0, a, 1)\n(1, b, 2)\n(1, c, 3)\n";
const AB_AC: &str = "des (0, 4, 5)\n(0, a, 1)\n(1, b, 2)\n(0, a, 3)\n(3, c, 4)\n";
const A: &str = "des (0, 1, 2)\n(0, a, 1)\n";
const A_LOOP: &str = "des (0, 2, 2)\n(0, i, 0)\n(0, a, 1)\n";
const A_B: &str = "des (0, 2, 3)\n(0, a, 1)\n(1, \"b\", 2)\n";
const A_PLUS_B: &str = "des (0, 2, 3)\n(0, a, 1)\n(0, b, 2)\n";
const B: &str = "des (0, 1, 2)\n(0, b, 1)\n";

/// Checks `left =model= right` (refinement both ways) and pins the verdict: the failing
/// direction, its counterexample (judged), and whether the other direction fails too.
fn check_eq(left: &str, right: &str, model: Model, expected: &str) {
    let (left, right) = (aut(left), aut(right));
    let result = refinement_equivalent(&left, &right, model);
    let rendered = match &result.failure {
        None => "equivalent".to_string(),
        Some(f) => {
            let (direction, spec, imp) = match f.spec {
                Side::Left => ("left [= right", &left, &right),
                Side::Right => ("right [= left", &right, &left),
            };
            violation_is_real(spec, imp, &f.counterexample, model).unwrap();
            let other = if f.other_fails { " (both fail)" } else { "" };
            let c = render_counterexample(&f.counterexample);
            format!("{direction} fails{other}: {c}")
        }
    };
    assert_eq!(rendered, expected, "{model:?}");
}

#[test]
fn equivalence_is_refinement_both_ways() {
    check_eq(A_BC, AB_AC, Model::Traces, "equivalent");
    check_eq(
        A_BC,
        AB_AC,
        Model::Failures,
        "left [= right fails: after [a] the implementation refuses {c}",
    );
    check_eq(
        AB_AC,
        A_BC,
        Model::Failures,
        "right [= left fails: after [a] the implementation refuses {c}",
    );
    check_eq(
        A,
        A_PLUS_B,
        Model::Traces,
        "left [= right fails: after [b] the implementation performs b",
    );
    check_eq(
        A_PLUS_B,
        A,
        Model::Traces,
        "right [= left fails: after [b] the implementation performs b",
    );
    // a_loop has no stable state initially, so it has no failure ([], {}), which a has.
    check_eq(
        A,
        A_LOOP,
        Model::Failures,
        "right [= left fails: after [] the implementation refuses {}",
    );
    check_eq(
        A,
        A_LOOP,
        Model::FailuresDivergences,
        "left [= right fails: after [] the implementation diverges",
    );
}

#[test]
fn when_both_directions_fail_the_shorter_counterexample_is_reported() {
    // a+b [T= a.b fails after [a, b]; a.b [T= a+b fails after [b].
    check_eq(
        A_PLUS_B,
        A_B,
        Model::Traces,
        "right [= left fails (both fail): after [b] the implementation performs b",
    );
    check_eq(
        A_B,
        A_PLUS_B,
        Model::Traces,
        "left [= right fails (both fail): after [b] the implementation performs b",
    );
    // A tie: LEFT [= RIGHT is reported.
    check_eq(
        A,
        B,
        Model::Traces,
        "left [= right fails (both fail): after [b] the implementation performs b",
    );
    check_eq(
        B,
        A,
        Model::Traces,
        "left [= right fails (both fail): after [a] the implementation performs a",
    );
}

#[test]
fn failures_tell_a_bc_from_ab_ac() {
    check(A_BC, AB_AC, Model::Traces, "refines");
    check(AB_AC, A_BC, Model::Traces, "refines");
    check(
        A_BC,
        AB_AC,
        Model::Failures,
        "after [a] the implementation refuses {c}",
    );
    check(AB_AC, A_BC, Model::Failures, "refines");
    check(
        A_BC,
        AB_AC,
        Model::FailuresDivergences,
        "after [a] the implementation refuses {c}",
    );
}

#[test]
fn only_failures_divergences_sees_a_divergence() {
    check(A, A_LOOP, Model::Traces, "refines");
    check(A, A_LOOP, Model::Failures, "refines");
    check(
        A,
        A_LOOP,
        Model::FailuresDivergences,
        "after [] the implementation diverges",
    );
    check(A_LOOP, A, Model::FailuresDivergences, "refines");
}

#[test]
fn shortest_trace_violation() {
    check(
        A,
        A_B,
        Model::Traces,
        "after [a, b] the implementation performs b",
    );
    check(A_B, A, Model::Traces, "refines");
    check(
        A_B,
        A,
        Model::Failures,
        "after [a] the implementation refuses {b}",
    );
}

/// Replays a counterexample: its path is a path of the implementation with that trace.
fn replay(imp: &Lts, result: &RefinementResult) {
    let Some(c) = &result.counterexample else {
        return;
    };
    let mut s = imp.initial();
    for step in &c.path {
        let l = if step.label == "tau" {
            Some(0)
        } else {
            imp.label_id(&step.label)
        };
        assert!(
            imp.successors(s)
                .any(|(m, t)| Some(m) == l && t == step.state),
            "path does not replay"
        );
        s = step.state;
    }
    let visible: Vec<&String> = c
        .path
        .iter()
        .map(|s| &s.label)
        .filter(|l| *l != "tau")
        .collect();
    assert_eq!(visible, c.trace.iter().collect::<Vec<_>>());
}

/// Refinement is a preorder: every LTS refines itself; traces is the weakest model.
#[test]
fn random_pairs_replay_and_respect_the_model_hierarchy() {
    let (mut violations, mut judged) = (0, [0; 3]);
    for seed in 0..300u64 {
        let spec = common::random_lts(seed, 1 + (seed % 6) as u32, 3, 2);
        let imp = common::random_lts(seed * 31 + 7, 1 + (seed % 5) as u32, 3, 2);
        for model in [Model::Traces, Model::Failures, Model::FailuresDivergences] {
            assert!(
                refines(&spec, &spec, model).refines,
                "seed {seed}: not self-refining in {model:?}"
            );
        }
        let t = refines(&spec, &imp, Model::Traces);
        let f = refines(&spec, &imp, Model::Failures);
        let fd = refines(&spec, &imp, Model::FailuresDivergences);
        for (model, result) in [
            (Model::Traces, &t),
            (Model::Failures, &f),
            (Model::FailuresDivergences, &fd),
        ] {
            replay(&imp, result);
            if let Some(c) = &result.counterexample {
                if let Err(why) = violation_is_real(&spec, &imp, c, model) {
                    panic!("seed {seed}, {model:?}: {why}");
                }
                judged[model as usize] += 1;
            }
        }
        assert!(
            t.refines || !f.refines,
            "seed {seed}: failures refinement without trace refinement"
        );
        violations += usize::from(!f.refines);
    }
    assert!(
        violations > 30,
        "too few violations ({violations}) to exercise counterexamples"
    );
    // Counterexamples judged, by model (traces, failures, failures-divergences).
    assert_eq!(judged, [126, 204, 192]);
}

/// The `tau`-closure of `states` in `lts`.
fn tau_closure(lts: &Lts, mut states: Vec<bool>) -> Vec<bool> {
    let mut stack: Vec<u32> = (0..lts.num_states() as u32)
        .filter(|&s| states[s as usize])
        .collect();
    while let Some(s) = stack.pop() {
        for t in lts.tau_successors(s) {
            if !std::mem::replace(&mut states[t as usize], true) {
                stack.push(t);
            }
        }
    }
    states
}

/// The states `lts` can be in after performing the visible `trace` (empty when it cannot).
fn after(lts: &Lts, trace: &[String]) -> Vec<bool> {
    let mut now = vec![false; lts.num_states()];
    now[lts.initial() as usize] = true;
    now = tau_closure(lts, now);
    for a in trace {
        let mut next = vec![false; lts.num_states()];
        for (s, l, t) in lts.transitions() {
            if now[s as usize] && lts.label_name(l) == a {
                next[t as usize] = true;
            }
        }
        now = tau_closure(lts, next);
    }
    now
}

/// The states that can perform `tau` forever: they reach a state on a `tau`-cycle.
fn divergent(lts: &Lts) -> Vec<bool> {
    let n = lts.num_states() as u32;
    let single = |s: u32| {
        let mut one = vec![false; n as usize];
        one[s as usize] = true;
        one
    };
    let on_cycle: Vec<bool> = (0..n)
        .map(|s| {
            lts.tau_successors(s)
                .any(|t| tau_closure(lts, single(t))[s as usize])
        })
        .collect();
    (0..n)
        .map(|s| {
            let reach = tau_closure(lts, single(s));
            (0..n as usize).any(|u| reach[u] && on_cycle[u])
        })
        .collect()
}

/// Whether `c` is a counterexample to `spec [model= imp` by the definitions of the models:
/// the trace (but for its last action, for an action violation) is a trace of both; and the
/// implementation's behaviour after it is not one of the specification's: an action it
/// cannot take, a refusal no stable state of it has, or a divergence where it has none. In
/// failures-divergences, a specification that diverges after a prefix of the trace allows
/// everything after it.
fn violation_is_real(
    spec: &Lts,
    imp: &Lts,
    c: &Counterexample,
    model: Model,
) -> Result<(), String> {
    let end = c.path.last().map_or(imp.initial(), |s| s.state);
    let diverges = divergent(spec);
    let spec_diverges_on_a_prefix = (0..=c.trace.len()).any(|k| {
        let states = after(spec, &c.trace[..k]);
        (0..spec.num_states()).any(|s| states[s] && diverges[s])
    });
    if model == Model::FailuresDivergences && spec_diverges_on_a_prefix {
        return Err("the specification diverges on a prefix of the trace".into());
    }
    let offers =
        |lts: &Lts, s: u32, a: &str| lts.successors(s).any(|(l, _)| lts.label_name(l) == a);
    let at = |states: &[bool]| {
        (0..states.len() as u32)
            .filter(|&s| states[s as usize])
            .collect::<Vec<_>>()
    };
    match &c.violation {
        Violation::Action(a) => {
            let (before, last) = c.trace.split_at(c.trace.len().saturating_sub(1));
            if last != [a.clone()] || at(&after(spec, before)).is_empty() {
                return Err(format!(
                    "{:?} does not end in {a} after a trace of the specification",
                    c.trace
                ));
            }
            if !at(&after(spec, &c.trace)).is_empty() {
                return Err(format!("the specification can do {:?}", c.trace));
            }
        }
        Violation::Refusal(refused) => {
            let stable = |lts: &Lts, s: u32| lts.tau_successors(s).next().is_none();
            if !stable(imp, end) || refused.iter().any(|a| offers(imp, end, a)) {
                return Err(format!("the implementation does not refuse {refused:?}"));
            }
            let states = at(&after(spec, &c.trace));
            if states.is_empty() {
                return Err(format!("{:?} is not a trace of the specification", c.trace));
            }
            let refusing = states
                .iter()
                .find(|&&s| stable(spec, s) && !refused.iter().any(|a| offers(spec, s, a)));
            if let Some(s) = refusing {
                return Err(format!(
                    "the specification's state {s} refuses {refused:?} too"
                ));
            }
        }
        Violation::Divergence => {
            if model != Model::FailuresDivergences || !divergent(imp)[end as usize] {
                return Err("the implementation does not diverge there".into());
            }
            if at(&after(spec, &c.trace)).is_empty() {
                return Err(format!("{:?} is not a trace of the specification", c.trace));
            }
        }
    }
    Ok(())
}

/// The judge has teeth: what the specification allows is no counterexample.
#[test]
fn allowed_behaviour_is_no_counterexample() {
    let (a, a_loop) = (aut(A), aut(A_LOOP));
    let fake = |trace: &[&str], violation| Counterexample {
        trace: trace.iter().map(|t| t.to_string()).collect(),
        path: Vec::new(),
        violation,
    };
    let action = fake(&["a"], Violation::Action("a".into()));
    assert!(violation_is_real(&a, &a, &action, Model::Traces).is_err());
    let refusal = fake(&[], Violation::Refusal(vec!["b".into()]));
    assert!(violation_is_real(&a, &a, &refusal, Model::Failures).is_err());
    let divergence = fake(&[], Violation::Divergence);
    let model = Model::FailuresDivergences;
    assert!(violation_is_real(&a_loop, &a_loop, &divergence, model).is_err());
    assert!(violation_is_real(&a, &a_loop, &divergence, model).is_ok());
}
