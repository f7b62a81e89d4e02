//! Refinement checks in the traces, failures and failures-divergences models, with pinned
//! shortest counterexamples, and a replay of every counterexample on random pairs.

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

/// Checks `spec [model= implementation` and pins the verdict.
fn check(spec: &str, implementation: &str, model: Model, expected: &str) {
    let result = refines(&aut(spec), &aut(implementation), model);
    assert_eq!(render(&result), expected, "{model:?}");
}

const A_BC: &str = "des (0, 3, 4)\n(0, a, 1)\n(1, b, 2)\n(1, c, 3)\n";
const AB_AC: &str = "des (0, 4, 5)\n(0, a, 1)\n(1, b, 2)\n(0, a, 3)\n(3, c, 4)\n";
const A: &str = "des (0, 1, 2)\n(0, a, 1)\n";
const A_LOOP: &str = "des (0, 2, 2)\n(0, i, 0)\n(0, a, 1)\n";
const A_B: &str = "des (0, 2, 3)\n(0, a, 1)\n(1, \"b\", 2)\n";
const A_PLUS_B: &str = "des (0, 2, 3)\n(0, a, 1)\n(0, b, 2)\n";
const B: &str = "des (0, 1, 2)\n(0, b, 1)\n";

/// Checks `left =model= right` (refinement both ways) and pins the verdict: the failing
/// direction, its counterexample, and whether the other direction fails too.
fn check_eq(left: &str, right: &str, model: Model, expected: &str) {
    let result = refinement_equivalent(&aut(left), &aut(right), model);
    let rendered = match &result.failure {
        None => "equivalent".to_string(),
        Some(f) => {
            let direction = match f.spec {
                Side::Left => "left [= right",
                Side::Right => "right [= left",
            };
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
    let mut violations = 0;
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
        replay(&imp, &t);
        replay(&imp, &f);
        replay(&imp, &refines(&spec, &imp, Model::FailuresDivergences));
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
}
