//! Differential tests against `merc_reduction`: on seeded random LTSs with `tau`-cycles our
//! quotients have the sizes merc's have. merc's answers are recorded in oracle/merc.txt by
//! `bench/lts/merc` (merc is not a dependency of the test build: it and its build tools were
//! a fifth of a fresh clone's compile time).

mod common;

use agentpi_lts::{Equivalence, Lts, minimize};

/// Our quotient's size as the oracle writes merc's: `states/transitions`, or `states` for
/// weak (merc removes transitions implied by others in its weak quotient).
fn size(lts: &Lts, equivalence: Equivalence) -> String {
    let q = minimize(lts, equivalence).quotient;
    if equivalence == Equivalence::Weak {
        q.num_states().to_string()
    } else {
        format!("{}/{}", q.num_states(), q.num_transitions())
    }
}

fn to_aut(lts: &Lts) -> String {
    let mut out = Vec::new();
    agentpi_lts::write_aut(lts, &mut out).unwrap();
    String::from_utf8(out).unwrap()
}

/// Every input of `common::quotient_cases` against merc's recorded size.
fn run(equivalence: Equivalence) {
    let name = common::oracle_name(equivalence);
    let cases = common::quotient_cases();
    let merc = common::oracle(&format!("quotient {name}"));
    assert_eq!(merc.len(), cases.len(), "oracle/merc.txt is stale");
    for (i, (lts, theirs)) in cases.iter().zip(&merc).enumerate() {
        assert_eq!(
            &size(lts, equivalence),
            theirs,
            "{name} differs from merc on case {i}:\n{}",
            to_aut(lts)
        );
    }
}

#[test]
fn strong_agrees_with_merc() {
    run(Equivalence::Strong);
}

#[test]
fn branching_agrees_with_merc() {
    run(Equivalence::Branching);
}

#[test]
fn divergence_preserving_branching_agrees_with_merc() {
    run(Equivalence::DivBranching);
}

#[test]
fn weak_agrees_with_merc() {
    run(Equivalence::Weak);
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
