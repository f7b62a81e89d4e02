//! Simplified distinguishing formulas: the algebraic rules, small formulas for cases where the
//! refinement history gives a large one, and on random pairs every simplified formula is no
//! larger than the original, still distinguishes (by the independent evaluator of
//! `common::logic`) and cannot be shrunk further by the same edits.

mod common;

use agentpi_lts::{Checker, Equivalence, Formula, Lts, compare_bisim, normalise, shrink};
use common::aut;
use std::rc::Rc;

/// Whether `f` holds in the left initial state and fails in the right one.
fn distinguishes(left: &Lts, right: &Lts, f: &Formula) -> bool {
    Checker::new(left).holds(f, left.initial()) && !Checker::new(right).holds(f, right.initial())
}

fn t() -> Rc<Formula> {
    Rc::new(Formula::True)
}

fn not(f: Rc<Formula>) -> Rc<Formula> {
    Rc::new(Formula::Not(f))
}

fn dia(a: &str, f: Rc<Formula>) -> Rc<Formula> {
    Rc::new(Formula::Diamond(a.to_string(), f))
}

fn and(parts: &[Rc<Formula>]) -> Rc<Formula> {
    Rc::new(Formula::And(parts.to_vec()))
}

#[test]
fn algebraic_rules() {
    let f = || not(t());
    let a = || dia("a", t());
    let cases: Vec<(Rc<Formula>, &str)> = vec![
        (and(&[t(), a(), t()]), "<a>true"),
        (and(&[a(), a()]), "<a>true"),
        (not(not(a())), "<a>true"),
        (dia("a", f()), "false"),
        (not(dia("a", f())), "true"),
        (dia("b", and(&[a(), not(a())])), "false"),
        (and(&[dia("b", t()), not(not(t()))]), "<b>true"),
        (and(&[a(), dia("a", dia("b", t()))]), "<a><b>true"),
        (Rc::new(Formula::WeakDiamond("tau".into(), t())), "true"),
        (Rc::new(Formula::WeakDiamond("a".into(), f())), "false"),
        (Rc::new(Formula::Until(f(), "a".into(), t())), "false"),
        (Rc::new(Formula::Until(t(), "a".into(), f())), "false"),
        (Rc::new(Formula::Diverge(f())), "false"),
        (Rc::new(Formula::Diverge(and(&[t(), t()]))), "div{true}"),
    ];
    for (formula, expected) in cases {
        assert_eq!(normalise(&formula).to_string(), expected, "{formula}");
    }
}

/// Compares two `.aut` texts and pins the original and the simplified formula.
fn check(left: &str, right: &str, equivalence: Equivalence, original: &str, simplified: &str) {
    let (l, r) = (aut(left), aut(right));
    let d = compare_bisim(&l, &r, equivalence).distinction.unwrap();
    assert_eq!(d.original.to_string(), original, "{equivalence:?}");
    assert_eq!(d.formula.to_string(), simplified, "{equivalence:?}");
    common::distinguishes(&d.formula.to_string(), &l, &r, equivalence).unwrap();
    let again = shrink(&d.formula, |f| distinguishes(&l, &r, f), 1, u64::MAX);
    assert_eq!(again, d.formula, "not 1-minimal");
}

const A_BC: &str = "des (0, 3, 4)\n(0, a, 1)\n(1, b, 2)\n(1, c, 3)\n";
const AB_AC: &str = "des (0, 4, 5)\n(0, a, 1)\n(1, b, 2)\n(0, a, 3)\n(3, c, 4)\n";

#[test]
fn textbook_formulas_are_already_minimal() {
    let (a_bc, ab_ac) = (A_BC, AB_AC);
    check(a_bc, ab_ac, Equivalence::Strong, "[a]<c>true", "[a]<c>true");
    check(
        ab_ac,
        a_bc,
        Equivalence::Strong,
        "<a>[c]false",
        "<a>[c]false",
    );
    check(
        a_bc,
        ab_ac,
        Equivalence::Weak,
        "[[a]]<<c>>true",
        "[[a]]<<c>>true",
    );
}

#[test]
fn redundant_conjuncts_and_guards_are_dropped() {
    // Found among random pairs: two LTSs differing in the target of one transition.
    check(
        "des (0, 6, 5)\n(0, b, 0)\n(0, b, 1)\n(1, b, 3)\n(1, b, 4)\n(2, tau, 3)\n(4, a, 2)\n",
        "des (0, 6, 5)\n(0, b, 0)\n(0, b, 1)\n(1, b, 3)\n(1, b, 4)\n(2, tau, 3)\n(4, a, 1)\n",
        Equivalence::Strong,
        "<b>(<b>[b]false && <b><a><tau>true)",
        "<b><b><a><tau>true",
    );
    check(
        "des (0, 4, 3)\n(0, tau, 1)\n(0, tau, 2)\n(1, a, 2)\n(2, b, 0)\n",
        "des (0, 4, 3)\n(0, tau, 1)\n(0, tau, 2)\n(1, a, 2)\n(2, b, 1)\n",
        Equivalence::Branching,
        "<{<tau* b>true && <tau* a>true}(tau)>(<tau* b><tau* b>true && [tau* a]false)",
        "<tau* b><tau* b>true",
    );
}

#[test]
fn shrinking_is_bounded_and_checked() {
    let (l, r) = (aut(A_BC), aut(AB_AC));
    // [a](<c>true && <b>true && true): one of the conjuncts is enough; the first goes first.
    let f = not(dia("a", not(and(&[dia("c", t()), dia("b", t()), t()]))));
    let check = |g: &Formula| distinguishes(&l, &r, g);
    assert_eq!(shrink(&f, check, 1, u64::MAX).to_string(), "[a]<b>true");
    // No budget: only the sound rewriting.
    assert_eq!(
        shrink(&f, check, 1, 0).to_string(),
        "[a](<c>true && <b>true)"
    );
    // A check that refuses everything: the formula comes back untouched.
    assert_eq!(shrink(&f, |_| false, 1, u64::MAX), f);
}

#[test]
fn deep_formulas_shrink() {
    // `<a><a>...<a>true`, 1500 deep, against a state without `a`: one `<a>` is enough.
    let (l, r) = (aut("des (0, 1, 1)\n(0, a, 0)\n"), aut("des (0, 0, 1)\n"));
    let deep = (0..1500).fold(t(), |f, _| dia("a", f));
    let small = shrink(&deep, |g| distinguishes(&l, &r, g), 1, u64::MAX);
    assert_eq!(small.to_string(), "<a>true");
}

/// On random pairs, every simplified formula distinguishes, is no larger than the original
/// and is 1-minimal; in total simplification must gain at least `gain` operators.
fn random_pairs(equivalence: Equivalence, gain: usize) {
    let (mut before, mut after, mut pairs) = (0, 0, 0);
    for seed in 0..300u64 {
        let states = 4 + (seed % 12) as u32;
        let left = common::random_lts(seed, states, 3, 2);
        let right = common::perturb(&left, seed);
        let Some(d) = compare_bisim(&left, &right, equivalence).distinction else {
            continue;
        };
        let text = d.formula.to_string();
        if let Err(why) = common::distinguishes(&text, &left, &right, equivalence) {
            panic!("seed {seed}: {why}");
        }
        assert!(d.formula.size() <= d.original.size(), "seed {seed}");
        let again = shrink(&d.formula, |f| distinguishes(&left, &right, f), 1, u64::MAX);
        assert_eq!(again, d.formula, "seed {seed}: not 1-minimal");
        (before, after, pairs) = (
            before + d.original.size(),
            after + d.formula.size(),
            pairs + 1,
        );
    }
    println!("{equivalence:?}: {pairs} pairs, total size {before} -> {after}");
    assert!(pairs > 30, "too few inequivalent pairs: {pairs}");
    assert!(after + gain <= before, "{before} -> {after}");
}

#[test]
fn random_strong_formulas_shrink() {
    random_pairs(Equivalence::Strong, 20);
}

#[test]
fn random_branching_formulas_shrink() {
    random_pairs(Equivalence::Branching, 100);
}

#[test]
fn random_divergence_preserving_branching_formulas_shrink() {
    random_pairs(Equivalence::DivBranching, 100);
}

#[test]
fn random_weak_formulas_shrink() {
    random_pairs(Equivalence::Weak, 15);
}
