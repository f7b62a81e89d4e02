//! Shared test helpers: the seeded random inputs (random.rs), a tiny `.aut` text loader,
//! merc's recorded answers on those inputs (oracle/merc.txt, written by `bench/lts/merc`),
//! the characterising logics written from their definitions (logic.rs) and LTSs equivalent
//! to a given one by construction (third.rs).

#![allow(dead_code, unused_imports)]

pub mod logic;
mod random;
pub mod third;

pub use random::*;

use agentpi_lts::{Equivalence, Lts, LtsBuilder, read_aut};

/// Parses `.aut` text (panics on malformed test data).
pub fn aut(text: &str) -> Lts {
    read_aut(text.as_bytes()).unwrap()
}

/// The oracle file's name for `equivalence`.
pub fn oracle_name(equivalence: Equivalence) -> &'static str {
    match equivalence {
        Equivalence::Strong => "strong",
        Equivalence::Branching => "branching",
        Equivalence::DivBranching => "dpbranching",
        Equivalence::Weak => "weak",
    }
}

/// The words of the oracle line that starts with `key` (as `quotient strong`), in order.
/// merc_reduction 2.0.0 answered these on the inputs of random.rs; `bench/lts/merc`
/// re-derives them (`bench/lts/run.sh` fails when they differ).
pub fn oracle(key: &str) -> Vec<String> {
    let text = include_str!("../oracle/merc.txt");
    let line = text
        .lines()
        .find_map(|l| l.strip_prefix(key)?.strip_prefix(": "))
        .unwrap_or_else(|| panic!("oracle/merc.txt has no line `{key}: ...`"));
    line.split_whitespace().map(str::to_string).collect()
}

/// `lts` with one transition redirected: often only subtly different.
pub fn perturb(lts: &Lts, seed: u64) -> Lts {
    let mut rng = Rng(seed);
    let transitions: Vec<(u32, u32, u32)> = lts.transitions().collect();
    let pick = rng.below(transitions.len().max(1) as u64) as usize;
    let mut b = LtsBuilder::new();
    b.require_states(lts.num_states());
    for (i, &(s, l, t)) in transitions.iter().enumerate() {
        let t = if i == pick {
            rng.below(lts.num_states() as u64) as u32
        } else {
            t
        };
        b.add_transition(s, lts.label_name(l), t);
    }
    b.finish(lts.initial())
}

/// `lts` as `.aut` text, for failure messages.
pub fn to_aut(lts: &Lts) -> String {
    let mut out = Vec::new();
    agentpi_lts::write_aut(lts, &mut out).unwrap();
    String::from_utf8(out).unwrap()
}

/// The library's LTS as the independent evaluator's own graph.
pub fn graph(lts: &Lts) -> logic::Graph {
    let transitions = lts
        .transitions()
        .map(|(s, l, t)| (s as usize, lts.label_name(l), t as usize));
    logic::Graph::new(lts.initial() as usize, lts.num_states(), transitions)
}

/// `Ok` when the printed formula `text` is, by the independent evaluator of logic.rs, a
/// formula of the characterising logic of `equivalence` that holds in `left`'s initial state
/// and fails in `right`'s; otherwise what is wrong.
pub fn distinguishes(
    text: &str,
    left: &Lts,
    right: &Lts,
    equivalence: Equivalence,
) -> Result<(), String> {
    let phi = logic::parse(text)?;
    logic::belongs(&phi, logic::Logic::named(oracle_name(equivalence)))?;
    match (
        logic::holds(&graph(left), &phi),
        logic::holds(&graph(right), &phi),
    ) {
        (true, false) => Ok(()),
        (false, _) => Err(format!("`{text}` fails on the left")),
        (true, true) => Err(format!("`{text}` holds on the right")),
    }
}
