//! Bisimulation checking: textbook cases with pinned evidence, and on random pairs the
//! verdicts agree with merc's (recorded in oracle/merc.txt by `bench/lts/merc`) while every
//! formula is confirmed by the independent evaluator of `common::logic` and every path
//! replayed; the path of a deep formula is found in linear time. (evidence.rs also judges
//! the formulas on LTSs equivalent to each side.)

mod common;

use agentpi_lts::{BisimResult, Equivalence, Lts, Side, compare_bisim};
use common::aut;

/// Renders a verdict the way the tests pin it.
fn render(left: &Lts, right: &Lts, result: &BisimResult) -> String {
    let Some(d) = &result.distinction else {
        return "equivalent".to_string();
    };
    let (lts, side) = match d.side {
        Side::Left => (left, "left"),
        Side::Right => (right, "right"),
    };
    let steps: Vec<String> = d
        .path
        .iter()
        .map(|s| format!("{} {}", s.label, s.state))
        .collect();
    assert!(replays(lts, &d.path), "path does not replay");
    format!(
        "{} checked={} path({side})={}",
        d.formula,
        d.checked,
        steps.join(", ")
    )
}

/// Whether each step of `path` is a transition, starting at the initial state.
fn replays(lts: &Lts, path: &[agentpi_lts::Step]) -> bool {
    let mut s = lts.initial();
    for step in path {
        let label = if step.label == "tau" {
            Some(0)
        } else {
            lts.label_id(&step.label)
        };
        if !lts
            .successors(s)
            .any(|(l, t)| Some(l) == label && t == step.state)
        {
            return false;
        }
        s = step.state;
    }
    true
}

/// Pins the verdict and evidence, and has the independent evaluator (`common::logic`) confirm
/// the formula.
fn check(left: &str, right: &str, equivalence: Equivalence, expected: &str) {
    let (l, r) = (aut(left), aut(right));
    let result = compare_bisim(&l, &r, equivalence);
    if let Some(d) = &result.distinction {
        common::distinguishes(&d.formula.to_string(), &l, &r, equivalence).unwrap();
    }
    assert_eq!(render(&l, &r, &result), expected, "{equivalence:?}");
}

const A_BC: &str = "des (0, 3, 4)\n(0, a, 1)\n(1, b, 2)\n(1, c, 3)\n";
const AB_AC: &str = "des (0, 4, 5)\n(0, a, 1)\n(1, b, 2)\n(0, a, 3)\n(3, c, 4)\n";
const TAU_A: &str = "des (0, 2, 3)\n(0, tau, 1)\n(1, a, 2)\n";
const A: &str = "des (0, 1, 2)\n(0, a, 1)\n";
const DIVERGE_A: &str = "des (0, 2, 2)\n(0, i, 0)\n(0, a, 1)\n";
/// `a + tau.b` against `a + tau.b + b`: weakly bisimilar, not branching bisimilar.
const A_TAU_B: &str = "des (0, 3, 4)\n(0, a, 1)\n(0, tau, 2)\n(2, b, 3)\n";
const A_TAU_B_B: &str = "des (0, 4, 4)\n(0, a, 1)\n(0, tau, 2)\n(2, b, 3)\n(0, b, 3)\n";

#[test]
fn choice_after_a_is_not_bisimilar() {
    check(
        A_BC,
        AB_AC,
        Equivalence::Strong,
        "[a]<c>true checked=true path(right)=a 1",
    );
    check(
        AB_AC,
        A_BC,
        Equivalence::Strong,
        "<a>[c]false checked=true path(left)=a 1",
    );
    check(
        A_BC,
        AB_AC,
        Equivalence::Branching,
        "[tau* a]<tau* c>true checked=true path(right)=a 1",
    );
    check(
        A_BC,
        AB_AC,
        Equivalence::Weak,
        "[[a]]<<c>>true checked=true path(right)=a 1",
    );
}

/// A label holding formula syntax (VLTS has `DRAWER !CHOIX1`) is quoted in the formula, so
/// that its `!` cannot be read as a negation; plain labels with arguments stay as they are.
#[test]
fn labels_with_formula_syntax_are_quoted() {
    let left = "des (0, 2, 3)\n(0, \"DRAWER !CHOIX1\", 1)\n(1, \"call(1, ok)\", 2)\n";
    let right = "des (0, 1, 2)\n(0, \"DRAWER !CHOIX1\", 1)\n";
    check(
        left,
        right,
        Equivalence::Strong,
        "<\"DRAWER !CHOIX1\"><call(1, ok)>true checked=true path(left)=DRAWER !CHOIX1 1, call(1, ok) 2",
    );
}

#[test]
fn tau_a_against_a() {
    check(
        TAU_A,
        A,
        Equivalence::Strong,
        "<tau>true checked=true path(left)=tau 1",
    );
    check(TAU_A, A, Equivalence::Branching, "equivalent");
    check(TAU_A, A, Equivalence::DivBranching, "equivalent");
    check(TAU_A, A, Equivalence::Weak, "equivalent");
}

#[test]
fn divergence_is_seen_only_by_divergence_preserving_branching() {
    check(DIVERGE_A, A, Equivalence::Branching, "equivalent");
    check(DIVERGE_A, A, Equivalence::Weak, "equivalent");
    check(
        DIVERGE_A,
        A,
        Equivalence::DivBranching,
        "div{true} checked=true path(left)=tau 0",
    );
}

#[test]
fn branching_is_finer_than_weak() {
    check(A_TAU_B, A_TAU_B_B, Equivalence::Weak, "equivalent");
    check(
        A_TAU_B,
        A_TAU_B_B,
        Equivalence::Branching,
        "[{<tau* a>true}b]false checked=true path(right)=b 3",
    );
}

/// Random pairs (`common::pair_cases`): the verdict is merc's, every formula is confirmed by
/// the independent evaluator and every path replays.
fn random_pairs(equivalence: Equivalence) {
    let name = common::oracle_name(equivalence);
    let merc = common::oracle(&format!("pairs {name}"));
    let pairs = common::pair_cases();
    assert_eq!(merc.len(), 1, "oracle/merc.txt: one word per equivalence");
    assert_eq!(merc[0].len(), pairs.len(), "oracle/merc.txt is stale");
    let mut distinguished = 0;
    for (seed, ((left, right), theirs)) in pairs.iter().zip(merc[0].chars()).enumerate() {
        let result = compare_bisim(left, right, equivalence);
        assert_eq!(
            result.equivalent,
            theirs == '=',
            "{equivalence:?} verdict differs from merc, seed {seed}"
        );
        if let Some(d) = &result.distinction {
            let text = d.formula.to_string();
            if let Err(why) = common::distinguishes(&text, left, right, equivalence) {
                panic!("{equivalence:?}, seed {seed}: {why}");
            }
            let side = if d.side == Side::Left { left } else { right };
            assert!(replays(side, &d.path), "seed {seed}: path does not replay");
            distinguished += 1;
        }
    }
    assert!(
        distinguished > 50,
        "too few inequivalent pairs ({distinguished}) to exercise evidence"
    );
}

#[test]
fn random_strong_evidence_is_checked() {
    random_pairs(Equivalence::Strong);
}

#[test]
fn random_branching_evidence_is_checked() {
    random_pairs(Equivalence::Branching);
}

#[test]
fn random_divergence_preserving_branching_evidence_is_checked() {
    random_pairs(Equivalence::DivBranching);
}

#[test]
fn random_weak_evidence_is_checked() {
    random_pairs(Equivalence::Weak);
}

/// A formula as deep as a long chain: the path realising it is found in time linear in its
/// depth (each subformula is evaluated once, not once per level above it).
#[test]
fn deep_formula_has_a_path() {
    use agentpi_lts::{Checker, Formula, LtsBuilder};
    use std::rc::Rc;
    let depth = 1000;
    let mut b = LtsBuilder::new();
    for s in 0..depth {
        b.add_transition(s, "a", s + 1);
    }
    let chain = b.finish(0);
    let formula = (0..depth).fold(Rc::new(Formula::True), |f, _| {
        Rc::new(Formula::Diamond("a".to_string(), f))
    });
    let path = Checker::new(&chain).witness(&formula, 0);
    assert_eq!(path.len(), depth as usize);
    assert!(replays(&chain, &path));
}
