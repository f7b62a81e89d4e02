//! Distinguishing formulas are evidence (issues 33 and 37). Every formula `compare_bisim`
//! shows for strong, weak, branching and divergence-preserving branching bisimilarity is read
//! back from its printed text, must be a formula of that equivalence's characterising logic,
//! and is evaluated by `common::logic` (written from the logics' definitions, sharing no code
//! with the library; the library's own `checked` flag is not relied on): it must hold on the
//! left side and on LTSs equivalent to it, and fail on the right side and on LTSs equivalent
//! to it (`common::third`, each confirmed equivalent by the library here and, on the inputs
//! merc answered, by merc's recorded quotient sizes).

mod common;

use agentpi_lts::{Equivalence, Lts, compare_bisim, minimize};
use common::Rng;
use common::graph;
use common::logic::{self, Act, Logic, Phi};
use common::third::equivalent_variant;

/// Third LTSs drawn per side of each distinguished pair.
const VARIANTS: u64 = 2;

fn logic_of(equivalence: Equivalence) -> Logic {
    Logic::named(common::oracle_name(equivalence))
}

/// Whether `text` is evidence that `left` and `right` differ modulo `equivalence`: a formula
/// of its logic, true on `left` and on LTSs equivalent to it, false on `right` and on LTSs
/// equivalent to it (drawn from `seed`). Returns what went wrong otherwise.
fn judge(
    text: &str,
    left: &Lts,
    right: &Lts,
    equivalence: Equivalence,
    seed: u64,
) -> Result<(), String> {
    common::distinguishes(text, left, right, equivalence)?;
    let phi = logic::parse(text)?;
    for (i, (side, expected, name)) in [(left, true, "left"), (right, false, "right")]
        .into_iter()
        .enumerate()
    {
        for k in 0..VARIANTS {
            let draw = (seed * 2 + i as u64) * VARIANTS + k;
            let third = equivalent_variant(side, equivalence, draw);
            assert!(
                compare_bisim(side, &third, equivalence).equivalent,
                "seed {seed}: the third LTS is not equivalent to the {name} side"
            );
            if logic::holds(&graph(&third), &phi) != expected {
                let aut = common::to_aut(&third);
                return Err(format!(
                    "wrong on an LTS equivalent to the {name} side:\n{aut}"
                ));
            }
        }
    }
    Ok(())
}

/// The random pairs: `common::pair_cases` (merc's pairs) and LTSs against themselves with one
/// transition redirected.
fn random_pairs() -> Vec<(Lts, Lts)> {
    let perturbed = (0..1000u64).map(|seed| {
        let left = common::random_lts(seed, 4 + (seed % 12) as u32, 3 + (seed % 2) as u32, 3);
        // A seed of its own: with `seed` the redirection often repeats a drawn target.
        let right = common::perturb(&left, seed.wrapping_mul(0x2545_F491) + 1);
        (left, right)
    });
    common::pair_cases().into_iter().chain(perturbed).collect()
}

/// Judges the shown formula of every distinguished random pair, and the formula read off the
/// refinement history when it is small enough to print; returns how many pairs were judged.
fn random_evidence(equivalence: Equivalence) -> usize {
    let mut judged = 0;
    for (seed, (left, right)) in random_pairs().iter().enumerate() {
        let Some(d) = compare_bisim(left, right, equivalence).distinction else {
            continue;
        };
        let seed = seed as u64;
        let shown = d.formula.to_string();
        if let Err(why) = judge(&shown, left, right, equivalence, seed) {
            panic!("{equivalence:?}, pair {seed}: `{shown}` is not evidence: {why}");
        }
        if d.original.size() <= 200 {
            let original = d.original.to_string();
            if let Err(why) = judge(&original, left, right, equivalence, seed) {
                panic!("{equivalence:?}, pair {seed}: original `{original}`: {why}");
            }
        }
        judged += 1;
    }
    println!("{equivalence:?}: {judged} distinguished pairs judged");
    judged
}

#[test]
fn strong_evidence_holds_on_equivalent_lts() {
    assert_eq!(random_evidence(Equivalence::Strong), 682);
}

#[test]
fn branching_evidence_holds_on_equivalent_lts() {
    assert_eq!(random_evidence(Equivalence::Branching), 580);
}

#[test]
fn divergence_preserving_branching_evidence_holds_on_equivalent_lts() {
    assert_eq!(random_evidence(Equivalence::DivBranching), 638);
}

#[test]
fn weak_evidence_holds_on_equivalent_lts() {
    assert_eq!(random_evidence(Equivalence::Weak), 558);
}

/// The third LTSs are equivalent to their originals: the library says so, and their quotients
/// have the size merc recorded for the original (quotients are unique up to isomorphism).
/// They are not trivially so: most are not equivalent modulo the next finer equivalence.
#[test]
fn third_lts_are_equivalent_by_library_and_merc() {
    let cases = common::quotient_cases();
    let finer = [
        (Equivalence::Strong, None),
        (Equivalence::DivBranching, Some(Equivalence::Strong)),
        (Equivalence::Branching, Some(Equivalence::DivBranching)),
        (Equivalence::Weak, Some(Equivalence::Branching)),
    ];
    for (equivalence, finer) in finer {
        let name = common::oracle_name(equivalence);
        let merc = common::oracle(&format!("quotient {name}"));
        let mut coarser_only = 0;
        for (i, (lts, theirs)) in cases.iter().zip(&merc).enumerate() {
            let third = equivalent_variant(lts, equivalence, i as u64);
            assert!(
                compare_bisim(lts, &third, equivalence).equivalent,
                "{name}, case {i}"
            );
            let q = minimize(&third, equivalence).quotient;
            let size = match equivalence {
                Equivalence::Weak => q.num_states().to_string(),
                _ => format!("{}/{}", q.num_states(), q.num_transitions()),
            };
            assert_eq!(
                &size, theirs,
                "{name}, case {i}: merc's quotient has another size"
            );
            let differs = finer.is_some_and(|f| !compare_bisim(lts, &third, f).equivalent);
            coarser_only += usize::from(differs);
        }
        println!(
            "{name}: {coarser_only} of {} third LTSs only {name}-equivalent",
            cases.len()
        );
        assert!(
            finer.is_none() || coarser_only > cases.len() / 5,
            "{name}: {coarser_only}"
        );
    }
}

/// The evaluator on textbook cases, one per printed form (holds in the first LTS, fails in
/// the second).
#[test]
fn the_evaluator_reads_every_printed_form() {
    let a_bc = "des (0, 3, 4)\n(0, a, 1)\n(1, b, 2)\n(1, c, 3)\n";
    let ab_ac = "des (0, 4, 5)\n(0, a, 1)\n(1, b, 2)\n(0, a, 3)\n(3, c, 4)\n";
    let a = "des (0, 1, 2)\n(0, a, 1)\n";
    let tau_a = "des (0, 2, 3)\n(0, tau, 1)\n(1, a, 2)\n";
    let a_or_tau = "des (0, 2, 3)\n(0, a, 1)\n(0, tau, 2)\n";
    let diverge_a = "des (0, 2, 2)\n(0, i, 0)\n(0, a, 1)\n";
    let quoted = "des (0, 2, 3)\n(0, \"DRAWER !CHOIX1\", 1)\n(1, \"call(1, ok)\", 2)\n";
    let cases = [
        ("[a]<c>true", a_bc, ab_ac),
        ("<a>[c]false", ab_ac, a_bc),
        ("<a>(<b>true && <c>true)", a_bc, ab_ac),
        ("<a>[b]false || <a>[c]false", ab_ac, a_bc),
        ("!<a>true", tau_a, a),
        ("<tau>true", tau_a, a),
        ("[[a]]<<c>>true", a_bc, ab_ac),
        ("<<tau>><<a>>true", tau_a, "des (0, 1, 2)\n(0, b, 1)\n"),
        ("<tau* a>true", tau_a, "des (0, 0, 1)\n"),
        ("<tau*>[tau* a]false", a_or_tau, tau_a),
        ("[tau*]<tau* a>true", tau_a, a_or_tau),
        ("<{<tau* a>true}(tau)>[tau* a]false", a_or_tau, tau_a),
        ("[{<tau* a>true}(tau)]<tau* a>true", a, a_or_tau),
        ("[{<tau* a>true}a]false", "des (0, 0, 1)\n", a),
        ("<tau* tau>true", tau_a, a),
        ("div{true}", diverge_a, a),
        ("div{<tau* a>true}", diverge_a, "des (0, 1, 1)\n(0, i, 0)\n"),
        ("<\"DRAWER !CHOIX1\"><call(1, ok)>true", quoted, a),
    ];
    for (text, yes, no) in cases {
        let phi = logic::parse(text).unwrap();
        let (yes, no) = (logic::Graph::from_aut(yes), logic::Graph::from_aut(no));
        assert!(
            logic::holds(&yes, &phi) && !logic::holds(&no, &phi),
            "{text}"
        );
    }
    for bad in [
        "<a>",
        "<a true",
        "[{true}a]",
        "div{true",
        "<tau* tau",
        "true &&",
        "<{true}>true",
    ] {
        assert!(logic::parse(bad).is_err(), "{bad}");
    }
}

/// Builds a modality from a random draw, a guard and a target.
type Modality = dyn Fn(&mut Rng, Phi, Phi) -> Phi;

/// A random formula of `depth` over `tau`, `a` and `b`, built from the operators `modality`
/// draws (so of one logic, or deliberately of none).
fn random_phi(rng: &mut Rng, depth: u32, modality: &Modality) -> Phi {
    if depth == 0 {
        return Phi::True;
    }
    let sub = |rng: &mut Rng| random_phi(rng, depth - 1, modality);
    match rng.below(4) {
        0 => Phi::Not(Box::new(sub(rng))),
        1 => Phi::And(vec![sub(rng), sub(rng)]),
        _ => {
            let (g, f) = (sub(rng), sub(rng));
            modality(rng, g, f)
        }
    }
}

fn random_act(rng: &mut Rng) -> Act {
    match rng.below(3) {
        0 => Act::Tau,
        1 => Act::Visible("a".into()),
        _ => Act::Visible("b".into()),
    }
}

/// The modalities of each logic, drawn at random (`g` is the until guard, else unused).
fn logic_modality(logic: Logic) -> impl Fn(&mut Rng, Phi, Phi) -> Phi {
    move |rng, g, f| {
        let (a, g, f) = (random_act(rng), Box::new(g), Box::new(f));
        match logic {
            Logic::Strong => Phi::Diamond(a, f),
            Logic::Weak => Phi::WeakDiamond(a, f),
            Logic::Branching => Phi::Until(g, a, f),
            Logic::DivBranching if rng.below(4) == 0 => Phi::Diverge(g),
            Logic::DivBranching => Phi::Until(g, a, f),
        }
    }
}

/// How many of `formulas` random formulas per small random LTS tell it apart from an LTS
/// equivalent to it modulo `equivalence`.
fn disagreements(equivalence: Equivalence, modality: &Modality) -> usize {
    let mut rng = Rng(7);
    let mut count = 0;
    for (i, lts) in common::quotient_cases().iter().take(1000).enumerate() {
        let third = graph(&equivalent_variant(lts, equivalence, i as u64));
        let lts = graph(lts);
        for _ in 0..5 {
            let phi = random_phi(&mut rng, 4, modality);
            count += usize::from(logic::holds(&lts, &phi) != logic::holds(&third, &phi));
        }
    }
    count
}

/// The evaluator and the third LTSs agree with the theory: no formula of an equivalence's
/// logic tells an LTS from one equivalent to it. And the check has teeth: formulas outside
/// the logic do (`<tau>` and a required `tau`-step under branching, `div` under branching,
/// `<tau>` and branching's until under weak).
#[test]
fn formulas_of_the_logic_cannot_tell_equivalent_lts_apart() {
    for equivalence in [
        Equivalence::Strong,
        Equivalence::Weak,
        Equivalence::Branching,
        Equivalence::DivBranching,
    ] {
        let own = logic_modality(logic_of(equivalence));
        assert_eq!(disagreements(equivalence, &own), 0, "{equivalence:?}");
    }
    let strong = logic_modality(Logic::Strong);
    let required_tau = |rng: &mut Rng, g: Phi, f: Phi| match random_act(rng) {
        Act::Tau => Phi::TauStepUntil(Box::new(g), Box::new(f)),
        a => Phi::Until(Box::new(g), a, Box::new(f)),
    };
    let foreign: [(Equivalence, &Modality); 5] = [
        (Equivalence::Branching, &strong),
        (Equivalence::Weak, &strong),
        (Equivalence::Branching, &required_tau),
        (Equivalence::Branching, &logic_modality(Logic::DivBranching)),
        (Equivalence::Weak, &logic_modality(Logic::Branching)),
    ];
    for (equivalence, modality) in foreign {
        let count = disagreements(equivalence, modality);
        println!("{equivalence:?}: {count} foreign formulas tell equivalent LTSs apart");
        assert!(
            count > 0,
            "{equivalence:?}: no foreign formula told equivalent LTSs apart"
        );
    }
}

/// The user's case of issue 33 (`crates/cli/tests/compare/buffers.pi`, written by
/// `agentpi lts buffers.pi:Spec` and so on): a 2-place buffer, a chain of two 1-place cells
/// (branching bisimilar to it) and a chain whose first cell may lose what it took.
const SPEC: &str = "des (0, 12, 7)\n(0, \"inp(0)\", 1)\n(0, \"inp(1)\", 2)\n(1, \"inp(0)\", 3)\n\
    (1, \"inp(1)\", 4)\n(1, \"out(0)\", 0)\n(2, \"inp(0)\", 5)\n(2, \"inp(1)\", 6)\n\
    (2, \"out(1)\", 0)\n(3, \"out(0)\", 1)\n(4, \"out(0)\", 2)\n(5, \"out(1)\", 1)\n\
    (6, \"out(1)\", 2)\n";
const CHAIN: &str = "des (0, 14, 9)\n(0, \"inp(0)\", 1)\n(0, \"inp(1)\", 2)\n(1, tau, 3)\n\
    (2, tau, 4)\n(3, \"inp(0)\", 5)\n(3, \"inp(1)\", 6)\n(3, \"out(0)\", 0)\n(4, \"inp(0)\", 7)\n\
    (4, \"inp(1)\", 8)\n(4, \"out(1)\", 0)\n(5, \"out(0)\", 1)\n(6, \"out(0)\", 2)\n\
    (7, \"out(1)\", 1)\n(8, \"out(1)\", 2)\n";
const LOSSY: &str = "des (0, 20, 9)\n(0, \"inp(0)\", 1)\n(0, \"inp(1)\", 2)\n(1, tau, 0)\n\
    (1, tau, 3)\n(2, tau, 0)\n(2, tau, 4)\n(3, \"inp(0)\", 5)\n(3, \"inp(1)\", 6)\n\
    (3, \"out(0)\", 0)\n(4, \"inp(0)\", 7)\n(4, \"inp(1)\", 8)\n(4, \"out(1)\", 0)\n(5, tau, 3)\n\
    (5, \"out(0)\", 1)\n(6, tau, 3)\n(6, \"out(0)\", 2)\n(7, tau, 4)\n(7, \"out(1)\", 1)\n\
    (8, tau, 4)\n(8, \"out(1)\", 2)\n";

/// `compare Spec Lossy` printed `<tau* inp(0)>[tau* tau]false` for branching, which fails on
/// Chain too. Now the formula of each equivalence holds on Chain (where Chain is equivalent
/// to Spec) and on generated LTSs equivalent to Spec, and fails on Lossy and on LTSs
/// equivalent to it.
#[test]
fn buffer_evidence_holds_on_the_chain() {
    let (spec, chain, lossy) = (common::aut(SPEC), common::aut(CHAIN), common::aut(LOSSY));
    let cases = [
        (Equivalence::Strong, "<inp(0)><inp(0)>true"),
        (
            Equivalence::Branching,
            "<tau* inp(0)>[tau*]<tau* out(0)>true",
        ),
        (
            Equivalence::DivBranching,
            "<tau* inp(0)>[tau*]<tau* out(0)>true",
        ),
        (Equivalence::Weak, "[[inp(0)]]<<out(0)>>true"),
    ];
    for (equivalence, expected) in cases {
        let d = compare_bisim(&spec, &lossy, equivalence)
            .distinction
            .unwrap();
        let shown = d.formula.to_string();
        judge(&shown, &spec, &lossy, equivalence, 0).unwrap();
        if compare_bisim(&spec, &chain, equivalence).equivalent {
            let phi = logic::parse(&shown).unwrap();
            assert!(
                logic::holds(&graph(&chain), &phi),
                "{equivalence:?}: {shown}"
            );
        }
        assert_eq!(shown, expected, "{equivalence:?}");
    }
}

/// What was printed before the fix: `[tau* tau]` demands a `tau`-step, which is not an
/// operator of the branching logic, and the formula is false on Chain, equivalent to Spec.
#[test]
fn a_required_tau_step_is_not_branching_evidence() {
    let old = logic::parse("<tau* inp(0)>[tau* tau]false").unwrap();
    assert!(logic::belongs(&old, Logic::Branching).is_err());
    let (spec, chain) = (graph(&common::aut(SPEC)), graph(&common::aut(CHAIN)));
    assert!(logic::holds(&spec, &old) && !logic::holds(&chain, &old));
    let new = logic::parse("<tau* inp(0)>[tau*]<tau* out(0)>true").unwrap();
    assert!(logic::belongs(&new, Logic::Branching).is_ok());
    assert!(logic::holds(&spec, &new) && logic::holds(&chain, &new));
}
