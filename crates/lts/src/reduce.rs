//! Minimisation modulo an equivalence: the partition of the states and the quotient LTS.

use crate::builder::LtsBuilder;
use crate::lts::{Lts, TAU};
use crate::refine::{Mode, refine, refine_branching_in_order};
use crate::scc::{contract, contract_tau_sccs, tau_sccs};
use crate::weak::refine_weak;
use std::collections::VecDeque;

/// The behavioural equivalences that can be minimised modulo.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Equivalence {
    /// Strong bisimulation.
    Strong,
    /// Branching bisimulation (van Glabbeek–Weijland).
    Branching,
    /// Divergence-preserving branching bisimulation.
    DivBranching,
    /// Weak bisimulation (Milner).
    Weak,
}

impl Equivalence {
    /// The name in prose.
    pub fn describe(self) -> &'static str {
        match self {
            Equivalence::DivBranching => "divergence-preserving branching",
            other => other.name(),
        }
    }

    /// The name used on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Equivalence::Strong => "strong",
            Equivalence::Branching => "branching",
            Equivalence::DivBranching => "dpbranching",
            Equivalence::Weak => "weak",
        }
    }
}

/// The result of a minimisation.
#[derive(Clone, Debug)]
pub struct Reduction {
    /// The quotient; its states are numbered in breadth-first order from the initial state.
    pub quotient: Lts,
    /// For every state of the input, its state in the quotient, or `None` if unreachable.
    pub class: Vec<Option<u32>>,
}

/// Minimises the reachable part of `lts` modulo `equivalence`.
pub fn minimize(lts: &Lts, equivalence: Equivalence) -> Reduction {
    // Most inputs are fully reachable: then skip the copy and the renumbering, which would
    // keep a map of 8 bytes per state alive through the minimisation.
    let seen = lts.reachable();
    if seen.iter().all(|&r| r) {
        drop(seen);
        let (quotient, class) = minimize_reachable(lts, equivalence);
        let class = class.into_iter().map(Some).collect();
        return Reduction { quotient, class };
    }
    let (copy, map) = keep_reachable(lts, &seen);
    let (quotient, inner) = minimize_reachable(copy.as_ref().unwrap_or(lts), equivalence);
    let class = map.iter().map(|m| m.map(|s| inner[s as usize])).collect();
    Reduction { quotient, class }
}

/// Minimises an LTS whose states are all reachable; returns the quotient and the state map.
fn minimize_reachable(lts: &Lts, equivalence: Equivalence) -> (Lts, Vec<u32>) {
    match equivalence {
        Equivalence::Strong => {
            let blocks = crate::valmari::strong_blocks(lts);
            quotient_of_representatives(lts, &blocks, false)
        }
        Equivalence::Branching => branching(lts, false),
        Equivalence::DivBranching => branching(lts, true),
        Equivalence::Weak => weak(lts),
    }
}

/// Branching minimisation: contract `tau`-SCCs, refine, quotient. Returns the map too.
pub(crate) fn branching(lts: &Lts, divergence: bool) -> (Lts, Vec<u32>) {
    if is_contracted(lts, divergence) {
        // Nothing to contract (no `tau`-step at all, or only acyclic ones already numbered
        // downwards): skip the copy, which would double the memory.
        let part = refine(lts, Mode::Branching);
        return quotient_of_representatives(lts, &part.block_of, true);
    }
    let (component, count) = tau_sccs(lts);
    let acyclic = count as usize == lts.num_states();
    if acyclic && (divergence || !has_tau_self_loop(lts)) {
        // Every component is one state: the contraction would only renumber them (and, when
        // divergence is not preserved, drop `tau`-self-loops, here none). Refining in the
        // components' order instead spares that copy of the LTS.
        let part = refine_branching_in_order(lts, &component);
        drop(component);
        return quotient_of_representatives(lts, &part.block_of, true);
    }
    let (contracted, scc) = contract(lts, component, count, divergence);
    let part = refine(&contracted, Mode::Branching);
    let (q, inner) = quotient_of_representatives(&contracted, &part.block_of, true);
    (q, scc.iter().map(|&c| inner[c as usize]).collect())
}

/// Whether `lts` is what [`contract_tau_sccs`] would make of it up to numbering, as
/// [`Mode::Branching`] needs it: every `tau`-step goes to a lower state number (so there is
/// no `tau`-cycle and the numbering is a reverse topological order), but for `tau`-self-loops,
/// which mark divergence and are allowed only when it is preserved.
fn is_contracted(lts: &Lts, divergence: bool) -> bool {
    (0..lts.num_states() as u32).all(|s| {
        lts.tau_successors(s)
            .all(|t| t < s || (divergence && t == s))
    })
}

fn has_tau_self_loop(lts: &Lts) -> bool {
    (0..lts.num_states() as u32).any(|s| lts.tau_successors(s).any(|t| t == s))
}

/// Weak minimisation: branching first (it is finer and fast), then weak signatures.
fn weak(lts: &Lts) -> (Lts, Vec<u32>) {
    let (b, to_b) = branching(lts, false);
    let (contracted, scc) = contract_tau_sccs(&b, false);
    let part = refine_weak(&contracted);
    let (q, inner) = quotient(&contracted, &part.block_of, true);
    (
        q,
        to_b.iter()
            .map(|&s| inner[scc[s as usize] as usize])
            .collect(),
    )
}

/// The part of `lts` reachable from its initial state, with states renumbered in order, and
/// the map to the new numbers. The LTS is `None` when every state is reachable (no copy).
pub fn reachable_part(lts: &Lts) -> (Option<Lts>, Vec<Option<u32>>) {
    keep_reachable(lts, &lts.reachable())
}

/// [`reachable_part`] for the states marked in `seen`.
fn keep_reachable(lts: &Lts, seen: &[bool]) -> (Option<Lts>, Vec<Option<u32>>) {
    let mut map = vec![None; lts.num_states()];
    let mut next = 0u32;
    for (s, &r) in seen.iter().enumerate() {
        if r {
            map[s] = Some(next);
            next += 1;
        }
    }
    if next as usize == lts.num_states() {
        return (None, map);
    }
    let mut builder = LtsBuilder::with_labels_of(lts);
    builder.require_states(next as usize);
    for (s, l, t) in lts.transitions() {
        if let (Some(a), Some(b)) = (map[s as usize], map[t as usize]) {
            builder.add_transition_id(a, l, b);
        }
    }
    (
        Some(builder.finish(map[lts.initial() as usize].unwrap())),
        map,
    )
}

/// The quotient of `lts` by `block_of`, with blocks renumbered breadth-first from the initial
/// block. With `drop_inert`, `tau`-steps between different states of one block disappear
/// (a `tau`-self-loop, which marks divergence, stays). Returns the quotient and the state map.
pub(crate) fn quotient(lts: &Lts, block_of: &[u32], drop_inert: bool) -> (Lts, Vec<u32>) {
    let number = bfs_numbering(lts, block_of);
    let mut builder = LtsBuilder::with_labels_of(lts);
    for (s, l, t) in lts.transitions() {
        let (a, b) = (
            number[block_of[s as usize] as usize],
            number[block_of[t as usize] as usize],
        );
        if !(drop_inert && l == TAU && a == b && s != t) {
            builder.add_transition_id(a, l, b);
        }
    }
    builder.require_states(number.len());
    let q = builder.finish(number[block_of[lts.initial() as usize] as usize]);
    (q, block_of.iter().map(|&b| number[b as usize]).collect())
}

/// The quotient of `lts` by `block_of` read off one state per block, built directly in place
/// (no list of every transition to sort, which cost 20 bytes a transition at its peak). This
/// is [`quotient`] when every state of a block has the same moves up to blocks: so for strong
/// bisimulation, and for branching bisimulation on a `tau`-acyclic LTS if the state read is a
/// bottom one (no inert `tau`-step): any other state's move is matched by every bottom state
/// of its block directly, and `tau`-self-loops (divergence) are on every bottom state of a
/// divergent block or on none.
pub(crate) fn quotient_of_representatives(
    lts: &Lts,
    block_of: &[u32],
    branching: bool,
) -> (Lts, Vec<u32>) {
    let number = bfs_numbering(lts, block_of);
    let blocks = number.len();
    let state_of = |s: u32| number[block_of[s as usize] as usize];
    let mut representative = vec![u32::MAX; blocks];
    for s in 0..lts.num_states() as u32 {
        let b = state_of(s) as usize;
        let bottom = || {
            !lts.tau_successors(s)
                .any(|t| t != s && state_of(t) == state_of(s))
        };
        if representative[b] == u32::MAX && (!branching || bottom()) {
            representative[b] = s;
        }
    }
    let mut offsets = Vec::with_capacity(blocks + 1);
    let (mut labels, mut targets) = (Vec::new(), Vec::new());
    let mut row = Vec::new();
    offsets.push(0u32);
    for &s in &representative {
        row.clear();
        row.extend(lts.successors(s).map(|(l, t)| (l, state_of(t))));
        row.sort_unstable();
        row.dedup();
        labels.extend(row.iter().map(|&(l, _)| l));
        targets.extend(row.iter().map(|&(_, t)| t));
        offsets.push(labels.len() as u32);
    }
    labels.shrink_to_fit();
    targets.shrink_to_fit();
    let quotient = Lts {
        initial: state_of(lts.initial()),
        labels: lts.labels.clone(),
        offsets,
        trans_label: labels,
        trans_to: targets,
    };
    (
        quotient,
        block_of.iter().map(|&b| number[b as usize]).collect(),
    )
}

/// Numbers blocks in the order a breadth-first search from the initial state meets them.
fn bfs_numbering(lts: &Lts, block_of: &[u32]) -> Vec<u32> {
    let blocks = block_of.iter().map(|&b| b as usize + 1).max().unwrap_or(0);
    let mut number = vec![u32::MAX; blocks];
    let mut seen = vec![false; lts.num_states()];
    let mut next = 0u32;
    let mut queue = VecDeque::from([lts.initial()]);
    seen[lts.initial() as usize] = true;
    while let Some(s) = queue.pop_front() {
        let b = block_of[s as usize] as usize;
        if number[b] == u32::MAX {
            number[b] = next;
            next += 1;
        }
        for (_, t) in lts.successors(s) {
            if !std::mem::replace(&mut seen[t as usize], true) {
                queue.push_back(t);
            }
        }
    }
    // Blocks of unreachable states (only in a disjoint union) follow in state order.
    for &b in block_of {
        if number[b as usize] == u32::MAX {
            number[b as usize] = next;
            next += 1;
        }
    }
    number
}
