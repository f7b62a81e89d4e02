//! `LtsBuilder` given its transitions out of source order (grouped by source range, then put in
//! order range by range: `ranges.rs`) builds the LTS that the set of those transitions defines,
//! whatever the order, the duplicates, the spread of the sources or the size of a range.

mod common;

use agentpi_lts::{Lts, LtsBuilder};
use common::Rng;
use std::collections::BTreeSet;

const LABELS: [&str; 5] = ["tau", "a", "b", "c", "d"];

/// Builds from `transitions` in the order given, with `states` states at least.
fn build(transitions: &[(u32, u32, u32)], states: usize, initial: u32) -> Lts {
    let mut b = LtsBuilder::new();
    for l in LABELS {
        // Label ids in one order, whatever order the transitions come in.
        b.intern(l);
    }
    b.require_states(states);
    for &(s, l, t) in transitions {
        b.add_transition(s, LABELS[l as usize], t);
    }
    b.finish(initial)
}

/// The LTS must hold exactly the distinct transitions, rows sorted by (label, target).
fn check(transitions: &[(u32, u32, u32)], states: usize) {
    let lts = build(transitions, states, 0);
    let largest = transitions.iter().map(|&(s, _, t)| s.max(t) as usize + 1);
    assert_eq!(lts.num_states(), largest.max().unwrap_or(1).max(states));
    // Label ids are given in order of first appearance: compare by text.
    let name = |l: u32| lts.label_name(l).to_string();
    let got: Vec<_> = lts.transitions().map(|(s, l, t)| (s, name(l), t)).collect();
    let set: BTreeSet<_> = transitions
        .iter()
        .map(|&(s, l, t)| (s, LABELS[l as usize].to_string(), t))
        .collect();
    assert_eq!(got.len(), set.len(), "distinct transitions");
    let got_set: BTreeSet<_> = got.iter().cloned().collect();
    assert_eq!(got_set, set);
    for s in 0..lts.num_states() as u32 {
        let row: Vec<_> = lts.successors(s).collect();
        assert!(row.windows(2).all(|w| w[0] < w[1]), "row of {s} sorted");
    }
}

fn random(seed: u64, count: usize, sources: u64, targets: u64) -> Vec<(u32, u32, u32)> {
    let mut rng = Rng(seed);
    (0..count)
        .map(|_| {
            let s = rng.below(sources) as u32;
            (s, rng.below(5) as u32, rng.below(targets) as u32)
        })
        .collect()
}

/// Sources spread over millions of states, drawn below a bound that grows as they come: the
/// ranges widen many times while they hold transitions.
#[test]
fn sparse_sources_over_many_ranges() {
    let mut rng = Rng(1);
    let transitions: Vec<_> = (0..200_000u64)
        .map(|i| {
            let s = rng.below(15 * i + 1) as u32;
            (s, rng.below(5) as u32, rng.below(3_000_000) as u32)
        })
        .collect();
    check(&transitions, 0);
}

/// A few sources with many transitions each: a range fills several blocks, and most
/// transitions are duplicates.
#[test]
fn few_sources_many_duplicates() {
    check(&random(2, 300_000, 3, 1000), 0);
}

/// Sources in order first (kept as rows), then out of order (the rows handed to the ranges),
/// with targets and a required state count beyond every source.
#[test]
fn rows_then_ranges() {
    let mut transitions: Vec<_> = (0..50_000u32).map(|s| (s, 1, s + 1)).collect();
    transitions.extend(random(3, 100_000, 60_000, 90_000));
    check(&transitions, 100_000);
    check(&[(1, 1, 0), (0, 2, 1), (1, 1, 0), (0, 0, 0)], 0);
}

/// The same transitions in source order and shuffled give equal LTSs.
#[test]
fn order_does_not_matter() {
    let mut transitions = random(4, 100_000, 20_000, 20_000);
    let shuffled = build(&transitions, 0, 7);
    transitions.sort_by_key(|&(s, _, _)| s);
    assert_eq!(build(&transitions, 0, 7), shuffled);
}
