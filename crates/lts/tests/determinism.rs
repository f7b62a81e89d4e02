//! `deterministic` (FDR's `:[deterministic [F]]` and `[FD]`) on small LTSs worked by hand:
//! the verdict, the shortest trace, and what the counterexample says the process can both do
//! and refuse after it.

use agentpi_lts::{Lts, LtsBuilder, Model, Violation, deterministic};

fn lts(edges: &[(u32, &str, u32)]) -> Lts {
    let mut b = LtsBuilder::new();
    for &(s, l, t) in edges {
        b.add_transition(s, l, t);
    }
    b.finish(0)
}

/// (trace, violation) of the counterexample, or `None` when deterministic.
fn verdict(l: &Lts, model: Model) -> Option<(Vec<String>, Violation)> {
    let c = deterministic(l, model).counterexample?;
    Some((c.trace, c.violation))
}

#[test]
fn external_choice_and_inert_tau_are_deterministic() {
    // a.(b + c), with an inert tau before c's state.
    let l = lts(&[(0, "a", 1), (1, "b", 2), (1, "tau", 3), (3, "b", 2)]);
    // After [a] state 1 is unstable, state 3 offers b: no stable state refuses b.
    assert_eq!(verdict(&l, Model::FailuresDivergences), None);
    let choice = lts(&[(0, "a", 1), (0, "b", 2)]);
    assert_eq!(verdict(&choice, Model::Failures), None);
}

#[test]
fn internal_choice_is_not() {
    // a.(tau.b + tau.c): after [a], the stable state that offers b refuses c, which the
    // process can also do after [a].
    let l = lts(&[
        (0, "a", 1),
        (1, "tau", 2),
        (1, "tau", 3),
        (2, "b", 4),
        (3, "c", 4),
    ]);
    let want = (
        vec!["a".to_string()],
        Violation::Refusal(vec!["c".to_string()]),
    );
    assert_eq!(verdict(&l, Model::Failures), Some(want));
}

#[test]
fn divergence_counts_in_fd_only() {
    // a.(tau loop + b): diverges after [a]; stable nowhere after it, so no refusal.
    let l = lts(&[(0, "a", 1), (1, "tau", 1), (1, "b", 2)]);
    let want = (vec!["a".to_string()], Violation::Divergence);
    assert_eq!(verdict(&l, Model::FailuresDivergences), Some(want));
    assert_eq!(verdict(&l, Model::Failures), None);
}
