//! Shared test helpers: the seeded random inputs (random.rs), a tiny `.aut` text loader, and
//! merc's recorded answers on those inputs (oracle/merc.txt, written by `bench/lts/merc`).

#![allow(dead_code, unused_imports)]

mod random;

pub use random::*;

use agentpi_lts::{Equivalence, Lts, read_aut};

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
