//! Differential tests against `merc_reduction`: on seeded random LTSs with `tau`-cycles both
//! implementations must produce quotients of the same size.

mod common;

use agentpi_lts::{Equivalence, Lts, minimize, reachable_part};
use merc_lts::{LTS, LabelledTransitionSystem};
use merc_reduction::{Equivalence as MercEq, reduce_lts};

/// The reachable part of `lts` as a merc LTS.
fn to_merc(lts: &Lts) -> LabelledTransitionSystem<String> {
    let (copy, _) = reachable_part(lts);
    common::to_merc(copy.as_ref().unwrap_or(lts))
}

/// (states, transitions) of our quotient and merc's; weak compares states only because merc
/// removes transitions implied by others in its weak quotient.
fn check(lts: &Lts, ours: Equivalence, theirs: MercEq) {
    let q = minimize(lts, ours).quotient;
    let m = reduce_lts(to_merc(lts), theirs, false, &merc_utilities::Timing::new());
    let with_transitions = ours != Equivalence::Weak;
    let our_size = (
        q.num_states(),
        if with_transitions {
            q.num_transitions()
        } else {
            0
        },
    );
    let merc_size = (
        m.num_of_states(),
        if with_transitions {
            m.num_of_transitions()
        } else {
            0
        },
    );
    assert_eq!(
        our_size,
        merc_size,
        "{ours:?} differs from merc on\n{}",
        to_aut(lts)
    );
}

fn to_aut(lts: &Lts) -> String {
    let mut out = Vec::new();
    agentpi_lts::write_aut(lts, &mut out).unwrap();
    String::from_utf8(out).unwrap()
}

/// 1000 small LTSs (1 to 14 states) and 100 larger ones (up to 400 states, sparse so
/// that the quotients stay non-trivial).
fn run(equivalence: Equivalence, theirs: MercEq, cases: u64) {
    for seed in 0..cases {
        let states = 1 + (seed % 14) as u32;
        let lts = common::random_lts(seed, states, 3 + (seed % 2) as u32, 3);
        check(&lts, equivalence, theirs);
    }
    for seed in 0..cases / 10 {
        let lts = common::random_lts(1_000_000 + seed, 20 + (seed * 37 % 380) as u32, 4, 2);
        check(&lts, equivalence, theirs);
    }
}

#[test]
fn strong_agrees_with_merc() {
    run(Equivalence::Strong, MercEq::StrongBisim, 1000);
}

#[test]
fn branching_agrees_with_merc() {
    run(Equivalence::Branching, MercEq::BranchingBisim, 1000);
}

#[test]
fn divergence_preserving_branching_agrees_with_merc() {
    run(
        Equivalence::DivBranching,
        MercEq::BranchingBisimDivergencePreserving,
        1000,
    );
}

#[test]
fn weak_agrees_with_merc() {
    run(Equivalence::Weak, MercEq::WeakBisim, 1000);
}

/// Deep `tau`-chains and long visible chains: no recursion depth limit, exact sizes.
#[test]
fn long_chains() {
    let mut b = agentpi_lts::LtsBuilder::new();
    for s in 0..50_000u32 {
        b.add_transition(s, if s % 1000 == 999 { "a" } else { "tau" }, s + 1);
    }
    let lts = b.finish(0);
    let size = |e| {
        let q = minimize(&lts, e).quotient;
        (q.num_states(), q.num_transitions())
    };
    assert_eq!(size(Equivalence::Strong), (50_001, 50_000));
    assert_eq!(size(Equivalence::Branching), (51, 50));
    assert_eq!(size(Equivalence::Weak), (51, 50));
}
