//! Strong minimisation (Valmari-style, O(m log n)): pinned quotients of small cases, and on
//! thousands of seeded random LTSs the same partition as signature refinement.

mod common;

use agentpi_lts::{
    Equivalence, Lts, LtsBuilder, compare_bisim, minimize, strong_blocks_within, write_aut,
};
use common::aut;

fn to_aut(lts: &Lts) -> String {
    let mut out = Vec::new();
    write_aut(lts, &mut out).unwrap();
    String::from_utf8(out).unwrap()
}

/// The strong quotient of `input` is exactly `expected` (both `.aut` text).
fn check(input: &str, expected: &str) {
    let q = minimize(&aut(input), Equivalence::Strong).quotient;
    assert_eq!(to_aut(&q), expected, "quotient of\n{input}");
}

#[test]
fn one_state_without_transitions() {
    check("des (0, 0, 1)\n", "des (0, 0, 1)\n");
}

#[test]
fn deadlocks_merge_and_differ_from_live_states() {
    check(
        "des (0, 4, 5)\n(0, a, 1)\n(0, a, 2)\n(1, b, 3)\n(2, b, 4)\n",
        "des (0, 2, 3)\n(0, \"a\", 1)\n(1, \"b\", 2)\n",
    );
}

#[test]
fn tau_is_an_ordinary_label() {
    check(
        "des (0, 2, 3)\n(0, tau, 1)\n(1, a, 2)\n",
        "des (0, 2, 3)\n(0, \"tau\", 1)\n(1, \"a\", 2)\n",
    );
}

#[test]
fn self_loops_and_duplicates() {
    check(
        "des (0, 5, 3)\n(0, i, 0)\n(0, i, 0)\n(0, i, 1)\n(1, i, 2)\n(2, i, 1)\n",
        "des (0, 1, 1)\n(0, \"tau\", 0)\n",
    );
}

#[test]
fn a_cycle_with_one_marked_edge_does_not_shrink() {
    let mut text = String::from("des (0, 6, 6)\n");
    for s in 0..6 {
        let label = if s == 5 { "b" } else { "a" };
        text.push_str(&format!("({s}, {label}, {})\n", (s + 1) % 6));
    }
    let expected = "des (0, 6, 6)\n(0, \"a\", 1)\n(1, \"a\", 2)\n(2, \"a\", 3)\n\
                    (3, \"a\", 4)\n(4, \"a\", 5)\n(5, \"b\", 0)\n";
    check(&text, expected);
}

/// The same LTS with `tau` renamed to a visible label, so that branching bisimulation (still
/// computed by signature refinement) is strong bisimulation.
fn tau_visible(lts: &Lts) -> Lts {
    let mut b = LtsBuilder::new();
    b.require_states(lts.num_states());
    for (s, l, t) in lts.transitions() {
        let name = if l == 0 { "t" } else { lts.label_name(l) };
        b.add_transition(s, name, t);
    }
    b.finish(lts.initial())
}

/// Class numbers replaced by the order of first appearance: equal iff same grouping.
fn grouping(class: &[Option<u32>]) -> Vec<Option<u32>> {
    let mut seen = std::collections::HashMap::new();
    class
        .iter()
        .map(|c| {
            c.map(|c| {
                let next = seen.len() as u32;
                *seen.entry(c).or_insert(next)
            })
        })
        .collect()
}

/// Same grouping and quotient size as signature refinement, a quotient that signature
/// refinement finds bisimilar to the input, and the same output file on a second run.
fn agrees(lts: &Lts) {
    let ours = minimize(lts, Equivalence::Strong);
    let reference = minimize(&tau_visible(lts), Equivalence::Branching);
    let sizes = |q: &Lts| (q.num_states(), q.num_transitions());
    let input = to_aut(lts);
    assert_eq!(sizes(&ours.quotient), sizes(&reference.quotient), "{input}");
    assert_eq!(grouping(&ours.class), grouping(&reference.class), "{input}");
    let verdict = compare_bisim(lts, &ours.quotient, Equivalence::Strong);
    assert!(verdict.equivalent, "quotient not bisimilar to\n{input}");
    let again = minimize(lts, Equivalence::Strong).quotient;
    assert_eq!(to_aut(&again), to_aut(&ours.quotient), "{input}");
    hand_over_points_agree(lts, &input);
}

/// Signature refinement alone, handing over to the O(m log n) refinement after one round,
/// or after a few: the same partition of all states, reachable or not.
fn hand_over_points_agree(lts: &Lts, input: &str) {
    let as_some = |blocks: Vec<u32>| grouping(&blocks.into_iter().map(Some).collect::<Vec<_>>());
    let reference = as_some(strong_blocks_within(lts, u64::MAX));
    for budget in [0, 2 * lts.num_states() as u64] {
        let blocks = as_some(strong_blocks_within(lts, budget));
        assert_eq!(blocks, reference, "budget {budget}\n{input}");
    }
}

/// 3000 small LTSs: 1 to 30 states, `tau` plus 1 to 3 letters, 0 to 4 moves per state (so
/// one-state, deadlocked and transition-free LTSs occur; the builder drops duplicates).
#[test]
fn small_random_lts_agree_with_signature_refinement() {
    for seed in 0..3000u64 {
        let states = 1 + (seed % 30) as u32;
        let labels = 2 + (seed / 30 % 3) as u32;
        let max_out = (seed / 90 % 5) as u32;
        agrees(&common::random_lts(seed, states, labels, max_out));
    }
}

/// Larger sparse LTSs, where splitting goes many levels deep.
#[test]
fn larger_random_lts_agree_with_signature_refinement() {
    for seed in 0..40u64 {
        let states = 200 + (seed * 97 % 1800) as u32;
        agrees(&common::random_lts(
            7_000_000 + seed,
            states,
            2 + (seed % 2) as u32,
            2,
        ));
    }
}

/// Inputs too large for the refinement's `u16` arrays (65,535 states or transitions or more)
/// take its `u32` ones: the same partition of all states, handed over after one round or a
/// few, as signature refinement alone.
#[test]
fn wide_inputs_agree_with_signature_refinement() {
    for (seed, states, max_out) in [(11, 70_000, 2), (12, 20_000, 8)] {
        let lts = common::random_lts(seed, states, 3, max_out);
        assert!(lts.num_states().max(lts.num_transitions()) >= 65_535);
        hand_over_points_agree(&lts, &format!("random_lts({seed}, {states}, 3, {max_out})"));
    }
}

/// A long cycle with one distinct edge: nothing merges; with one label: one state.
#[test]
fn long_cycles() {
    let cycle = |marked: &str| {
        let mut b = LtsBuilder::new();
        for s in 0..100_000u32 {
            b.add_transition(s, if s == 0 { marked } else { "a" }, (s + 1) % 100_000);
        }
        let q = minimize(&b.finish(0), Equivalence::Strong).quotient;
        (q.num_states(), q.num_transitions())
    };
    assert_eq!(cycle("b"), (100_000, 100_000));
    assert_eq!(cycle("a"), (1, 1));
}
