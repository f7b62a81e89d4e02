//! Signature refinement for weak bisimulation on a `tau`-acyclic LTS.
//!
//! The weak signature of `s` is `{(a, B) | s =a=> t, t in B} ∪ {(tau, B) | s =tau*=> t in B}`.
//! On a `tau`-acyclic LTS numbered in reverse topological order both sets are computed in
//! one pass per round by dynamic programming over the `tau`-successors. The sets can grow
//! quadratically, so weak minimisation first reduces modulo branching bisimulation (which
//! is finer) and runs this on the much smaller quotient.

use crate::lts::{Lts, TAU};
use crate::partition::Partition;
use rustc_hash::FxHashMap;

type Pair = (u32, u32);

/// The weak signatures of all states against `part` (empty for a state alone in its block).
pub(crate) fn weak_signatures(lts: &Lts, part: &Partition) -> Vec<Vec<Pair>> {
    let reach = tau_reach(lts, part);
    let mut after: Vec<Vec<Pair>> = Vec::with_capacity(lts.num_states());
    for s in 0..lts.num_states() as u32 {
        let mut pairs = Vec::new();
        for (l, t) in lts.successors(s) {
            if l == TAU {
                pairs.extend_from_slice(&after[t as usize]);
            } else {
                pairs.extend(reach[t as usize].iter().map(|&b| (l, b)));
            }
        }
        pairs.sort_unstable();
        pairs.dedup();
        after.push(pairs);
    }
    // A state alone in its block cannot split: its signature is not needed (most states, late
    // in a long refinement).
    let alone = |s: usize| part.members(part.block(s as u32)).len() < 2;
    after
        .into_iter()
        .zip(reach)
        .enumerate()
        .map(|(s, (mut pairs, blocks))| {
            if alone(s) {
                return Vec::new();
            }
            pairs.extend(blocks.into_iter().map(|b| (TAU, b)));
            pairs.sort_unstable();
            pairs
        })
        .collect()
}

/// For every state, the sorted blocks it reaches by `tau*`.
fn tau_reach(lts: &Lts, part: &Partition) -> Vec<Vec<u32>> {
    let mut reach: Vec<Vec<u32>> = Vec::with_capacity(lts.num_states());
    for s in 0..lts.num_states() as u32 {
        let mut blocks = vec![part.block(s)];
        for t in lts.tau_successors(s) {
            debug_assert!(t < s, "weak signatures need reverse topological numbering");
            blocks.extend_from_slice(&reach[t as usize]);
        }
        blocks.sort_unstable();
        blocks.dedup();
        reach.push(blocks);
    }
    reach
}

/// Refines to weak bisimilarity (Jacobi rounds, every state re-signed each round).
pub(crate) fn refine_weak(lts: &Lts) -> Partition {
    let mut part = Partition::new(lts.num_states());
    loop {
        part.rounds += 1;
        let sigs = weak_signatures(lts, &part);
        let moves = split_all(&mut part, &sigs);
        if moves.is_empty() {
            part.rounds -= 1;
            return part;
        }
        part.apply(&moves);
    }
}

/// Splits every block by signature; the largest group keeps the id. Returns the moves.
fn split_all(part: &mut Partition, sigs: &[Vec<Pair>]) -> Vec<Pair> {
    let round = part.rounds;
    let mut moves = Vec::new();
    for x in 0..part.num_blocks() as u32 {
        if part.members(x).len() < 2 {
            continue;
        }
        let mut groups: FxHashMap<&[Pair], Vec<u32>> = FxHashMap::default();
        for &s in part.members(x) {
            groups.entry(&sigs[s as usize]).or_default().push(s);
        }
        if groups.len() < 2 {
            continue;
        }
        let mut groups: Vec<Vec<u32>> = groups.into_values().collect();
        groups.sort_unstable_by_key(|g| (std::cmp::Reverse(g.len()), g[0]));
        for states in &mut groups[1..] {
            states.sort_unstable();
            let id = part.carve(x, states, round);
            moves.extend(states.iter().map(|&s| (s, id)));
        }
    }
    moves
}
