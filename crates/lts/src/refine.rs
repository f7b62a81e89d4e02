//! Signature refinement for strong and (divergence-preserving) branching bisimulation.
//!
//! Each round computes, for every state whose signature may have changed, its signature
//! against the partition of the previous round, and splits blocks by signature (Blom–Orzan).
//! Two devices make it fast in practice:
//! - only "marked" states are re-signed: the predecessors of states that moved last round
//!   (and, for branching, states that moved and their inert `tau`-predecessors). The other
//!   states of a block still share the signature they had, computed once per block.
//! - the largest part of a split block keeps the block id, so a state moves O(log n) times
//!   and the total signature work is O(m log n) signature pairs (plus the sorting of each
//!   signature). Rounds are Jacobi-style, which keeps the history usable for evidence.
//!
//! Branching signatures are inductive (Blom–Orzan, "Distributed branching bisimulation
//! reduction of state spaces"): on a `tau`-acyclic LTS (after SCC contraction, where states
//! are numbered in reverse topological order) the signature of `s` is its non-inert moves
//! united with the signatures of its inert `tau`-successors.

use crate::lts::{Lts, TAU};
use crate::partition::Partition;
use rustc_hash::FxHashMap;
use std::mem::take;

/// The pseudo-block in a signature that marks a `tau`-self-loop, i.e. a divergence.
pub(crate) const DIVERGENCE: u32 = u32::MAX;

/// Which signature to refine with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Mode {
    Strong,
    /// Requires a `tau`-acyclic LTS numbered in reverse topological order (but `tau`-self-loops
    /// are allowed and mean divergence).
    Branching,
}

type Pair = (u32, u32);

/// Working state of one refinement.
struct Refiner<'a> {
    lts: &'a Lts,
    mode: Mode,
    /// The order states are signed in within a block, if not their numbers (see
    /// [`refine_branching_in_order`]): the rank of every state, and the state of every rank.
    rank: Option<(&'a [u32], Vec<u32>)>,
    part: Partition,
    /// Predecessors: all of them (strong), or only `tau`-predecessors (branching closure).
    pred: (Vec<u32>, Vec<u32>),
    tau_pred: (Vec<u32>, Vec<u32>),
    marked: Vec<bool>,
    marked_list: Vec<u32>,
    slot: Vec<u32>,
    sigs: Interner,
    ids: Vec<u32>,
    sizes: Vec<usize>,
}

/// Refines the partition with all states in one block to the coarsest stable one.
pub(crate) fn refine(lts: &Lts, mode: Mode) -> Partition {
    refine_within(lts, mode, u64::MAX).0
}

/// Branching refinement of a `tau`-acyclic LTS (but for `tau`-self-loops, which mean
/// divergence) whose numbering need not be a reverse topological order: `rank` is one (every
/// `tau`-step but a self-loop goes to a lower rank), and states are signed in its order. This
/// spares the renumbered copy of the LTS that [`Mode::Branching`] otherwise needs, for 4
/// bytes a state: the state of each rank, so that the marked states are sorted by packed
/// keys as usual (a sort that looked the rank up at every comparison took a third more
/// instructions on a long cycle).
pub(crate) fn refine_branching_in_order(lts: &Lts, rank: &[u32]) -> Partition {
    let mut state = vec![0; rank.len()];
    for (s, &r) in rank.iter().enumerate() {
        state[r as usize] = s as u32;
    }
    refiner(lts, Mode::Branching, Some((rank, state)))
        .refine_until(u64::MAX)
        .0
}

/// Signing a state costs about as much as reading this many of its transitions.
const SIGN_COST: u64 = 5;

/// Refines as [`refine`] does, but stops after the round in which the work spent (states
/// signed, weighted by [`SIGN_COST`], plus transitions read) reaches `budget`, or after which
/// it is bound to reach it (see [`predicted_work`]). Returns the partition and whether it is
/// stable.
pub(crate) fn refine_within(lts: &Lts, mode: Mode, budget: u64) -> (Partition, bool) {
    refiner(lts, mode, None).refine_until(budget)
}

fn refiner<'a>(lts: &'a Lts, mode: Mode, rank: Option<(&'a [u32], Vec<u32>)>) -> Refiner<'a> {
    let n = lts.num_states();
    let pred = lts.predecessors();
    // What only branching signatures use is left empty for strong ones.
    let branching = mode == Mode::Branching;
    let tau_pred = if branching {
        tau_predecessors(lts)
    } else {
        (Vec::new(), Vec::new())
    };
    Refiner {
        lts,
        mode,
        rank,
        part: Partition::new(n),
        pred,
        tau_pred,
        marked: vec![true; n],
        marked_list: (0..n as u32).collect(),
        slot: vec![0; if branching { n } else { 0 }],
        sigs: Interner::default(),
        ids: Vec::new(),
        sizes: Vec::new(),
    }
}

impl Refiner<'_> {
    /// The rounds of [`refine_within`].
    fn refine_until(mut self, budget: u64) -> (Partition, bool) {
        let n = self.lts.num_states();
        let mut work = 0u64;
        loop {
            self.part.rounds += 1;
            // The blocks made in a round are numbered from `before` on and hold exactly the
            // states that moved (a block is split once a round): no list of the moves is
            // kept, which cost 8 bytes a moved state at the peak of the round.
            let (mut last, before) = (0, self.part.num_blocks());
            if budget != u64::MAX {
                // Counting costs a pass over the marked states: only when a budget is set.
                last = self.round_work();
                work = work.saturating_add(last);
            }
            self.round();
            if self.part.num_blocks() == before {
                self.part.rounds -= 1;
                return (self.part, true);
            }
            self.finish_round(before as u32);
            let growth = (before, self.part.num_blocks());
            // Without a budget there is nothing to predict, and the logarithm would bring the
            // maths library's code and tables into the run (180 KB of a short branching run).
            let finite = budget != u64::MAX;
            if finite && (work >= budget || predicted_work(work, last, growth, n) >= budget) {
                return (self.part, false);
            }
        }
    }
}

/// The work signature refinement would have spent when every state is in a block of its own,
/// if each further round cost `last` as the last one did and multiplied the blocks by as much
/// as it did (`growth`: the blocks before and after it). Rounds that add few blocks make it
/// large: a long cycle, or a state space whose `tau`-steps tell states apart only a little
/// more each round (hiding all but one of 12 dining philosophers took 12 rounds that cost
/// 1.3 s, when the O(m log n) refinement does it all in 0.75 s). Then the O(m log n)
/// refinement takes over at once rather than when the budget runs out.
fn predicted_work(done: u64, last: u64, (before, after): (usize, usize), n: usize) -> u64 {
    if after >= n {
        return done;
    }
    let growth = after as f64 / before as f64;
    let rounds = (n as f64 / after as f64).ln() / growth.ln();
    (done as f64 + rounds * last as f64).min(u64::MAX as f64) as u64
}

fn tau_predecessors(lts: &Lts) -> (Vec<u32>, Vec<u32>) {
    let n = lts.num_states();
    let mut offsets = vec![0u32; n + 1];
    let taus = || (0..n as u32).flat_map(|s| lts.tau_successors(s).map(move |t| (s, t)));
    for (_, t) in taus() {
        offsets[t as usize + 1] += 1;
    }
    for i in 0..n {
        offsets[i + 1] += offsets[i];
    }
    let mut fill = offsets.clone();
    let mut sources = vec![0u32; offsets[n] as usize];
    for (s, t) in taus() {
        sources[fill[t as usize] as usize] = s;
        fill[t as usize] += 1;
    }
    (offsets, sources)
}

impl Refiner<'_> {
    /// The work of the next round: the marked states and their transitions.
    fn round_work(&self) -> u64 {
        let off = &self.lts.offsets;
        let row = |s: u32| u64::from(off[s as usize + 1] - off[s as usize]);
        self.marked_list.iter().map(|&s| SIGN_COST + row(s)).sum()
    }

    /// One round: re-sign the marked states block by block and split.
    fn round(&mut self) {
        let mut marked = std::mem::take(&mut self.marked_list);
        self.sort_marked(&mut marked);
        let mut start = 0;
        while start < marked.len() {
            let x = self.part.block_of[marked[start] as usize];
            let end = start
                + marked[start..]
                    .iter()
                    .take_while(|&&s| self.part.block_of[s as usize] == x)
                    .count();
            self.split_block(x, &marked[start..end]);
            start = end;
        }
        for &s in &marked {
            self.marked[s as usize] = false;
        }
        marked.clear();
        self.marked_list = marked;
    }

    /// Sorts the marked states by block, then by the order they are signed in (their
    /// numbers, or their ranks).
    fn sort_marked(&self, marked: &mut Vec<u32>) {
        // (block, state or rank) packed in one integer: cheaper than a keyed sort that looks
        // the block up at every comparison. The packed copy is freed before the blocks are
        // split (`block_of` does not change until the round ends), so that its 8 bytes a
        // marked state are not held beside the signatures.
        let block_of = &self.part.block_of;
        let order = |s: u32| match &self.rank {
            Some((rank, _)) => rank[s as usize],
            None => s,
        };
        let mut keyed: Vec<u64> = marked
            .iter()
            .map(|&s| (u64::from(block_of[s as usize]) << 32) | u64::from(order(s)))
            .collect();
        keyed.sort_unstable();
        marked.clear();
        match &self.rank {
            Some((_, state)) => marked.extend(keyed.iter().map(|&k| state[k as u32 as usize])),
            None => marked.extend(keyed.iter().map(|&k| k as u32)),
        }
    }

    /// Moves the states of the blocks made this round (ids from `first_new` on) and marks the
    /// states whose signature may change next round.
    fn finish_round(&mut self, first_new: u32) {
        self.part.apply_blocks_from(first_new);
        for b in first_new..self.part.num_blocks() as u32 {
            for &s in self.part.members(b) {
                if self.mode == Mode::Branching && !self.marked[s as usize] {
                    self.marked[s as usize] = true;
                    self.marked_list.push(s);
                }
                let (off, src) = &self.pred;
                for i in off[s as usize]..off[s as usize + 1] {
                    let p = src[i as usize];
                    if !self.marked[p as usize] {
                        self.marked[p as usize] = true;
                        self.marked_list.push(p);
                    }
                }
            }
        }
        if self.mode == Mode::Branching {
            self.close_marks();
        }
    }

    fn mark(&mut self, s: u32) {
        if !self.marked[s as usize] {
            self.marked[s as usize] = true;
            self.marked_list.push(s);
        }
    }

    /// Inert `tau`-predecessors of marked states inherit their signature: mark them too.
    fn close_marks(&mut self) {
        let mut i = 0;
        while i < self.marked_list.len() {
            let t = self.marked_list[i];
            let off = &self.tau_pred.0;
            let (lo, hi) = (off[t as usize] as usize, off[t as usize + 1] as usize);
            for k in lo..hi {
                let p = self.tau_pred.1[k];
                if self.part.block_of[p as usize] == self.part.block_of[t as usize] {
                    self.mark(p);
                }
            }
            i += 1;
        }
    }
}

impl Refiner<'_> {
    /// Splits block `x` by the signatures of its marked states (sorted by state number).
    fn split_block(&mut self, x: u32, marked: &[u32]) {
        let size = self.part.members(x).len();
        if size == 1 {
            return;
        }
        let has_unmarked = marked.len() < size;
        // The buffers live in `self` so that the many small blocks of late rounds do not
        // allocate; they are taken out while `self` is borrowed for the signatures.
        let (mut sigs, mut ids, mut sizes) = (
            take(&mut self.sigs),
            take(&mut self.ids),
            take(&mut self.sizes),
        );
        sigs.clear();
        if has_unmarked {
            // Signature 0 is the one the unmarked states share.
            sigs.intern(&self.common_signature(x));
        }
        self.signatures(x, marked, &mut sigs, &mut ids);
        sizes.clear();
        sizes.resize(sigs.len(), 0);
        if has_unmarked {
            sizes[0] = size - marked.len();
        }
        for &g in &ids {
            sizes[g as usize] += 1;
        }
        if sizes.len() > 1 {
            self.move_groups(x, marked, &ids, &sizes, has_unmarked);
        }
        (self.sigs, self.ids, self.sizes) = (sigs, ids, sizes);
    }

    /// Moves every group but the largest into a fresh block.
    fn move_groups(
        &mut self,
        x: u32,
        marked: &[u32],
        group_of: &[u32],
        sizes: &[usize],
        has_unmarked: bool,
    ) {
        let largest = (0..sizes.len())
            .max_by_key(|&g| (sizes[g], std::cmp::Reverse(g)))
            .unwrap() as u32;
        let mut members: Vec<Vec<u32>> = vec![Vec::new(); sizes.len()];
        for (&s, &g) in marked.iter().zip(group_of) {
            if g != largest {
                members[g as usize].push(s);
            }
        }
        if has_unmarked && largest != 0 {
            let unmarked = self
                .part
                .members(x)
                .iter()
                .filter(|&&s| !self.marked[s as usize]);
            members[0].extend(unmarked);
        }
        let round = self.part.rounds;
        for states in members.iter().filter(|m| !m.is_empty()) {
            self.part.carve(x, states, round);
        }
    }

    /// The signature shared by the unmarked states of `x`: that of an unmarked bottom state.
    fn common_signature(&self, x: u32) -> Vec<Pair> {
        let rep = *self
            .part
            .members(x)
            .iter()
            .find(|&&s| !self.marked[s as usize])
            .unwrap();
        let mut bottom = rep;
        if self.mode == Mode::Branching {
            while let Some(t) = self.inert_successors(bottom, x).next() {
                bottom = t;
            }
        }
        let mut sig = Vec::new();
        self.direct(bottom, x, &mut sig);
        sig.sort_unstable();
        sig.dedup();
        sig
    }

    /// The `tau`-successors of `s` other than itself that stay in block `x`.
    fn inert_successors(&self, s: u32, x: u32) -> impl Iterator<Item = u32> + '_ {
        let block_of = &self.part.block_of;
        self.lts
            .tau_successors(s)
            .filter(move |&t| t != s && block_of[t as usize] == x)
    }

    /// The signature pairs of `s` that do not come from inert `tau`-successors.
    fn direct(&self, s: u32, x: u32, out: &mut Vec<Pair>) {
        let block_of = &self.part.block_of;
        for (l, t) in self.lts.successors(s) {
            let b = block_of[t as usize];
            if self.mode == Mode::Strong || l != TAU || b != x {
                out.push((l, b));
            } else if t == s {
                out.push((TAU, DIVERGENCE));
            }
        }
    }

    /// The signature ids of the marked states (ids index `sigs`, which holds each distinct
    /// signature once: inductive signatures are large and mostly equal).
    fn signatures(&mut self, x: u32, marked: &[u32], sigs: &mut Interner, ids: &mut Vec<u32>) {
        ids.clear();
        let (mut scratch, mut merged, mut refs) = (Vec::new(), Vec::new(), Vec::new());
        for (i, &s) in marked.iter().enumerate() {
            if self.mode == Mode::Branching {
                self.slot[s as usize] = i as u32;
            }
            scratch.clear();
            self.direct(s, x, &mut scratch);
            scratch.sort_unstable();
            scratch.dedup();
            refs.clear();
            if self.mode == Mode::Branching {
                let marked_flags = &self.marked;
                let slot = &self.slot;
                refs.extend(self.inert_successors(s, x).map(|t| {
                    // An unmarked inert successor has the common signature, id 0.
                    if marked_flags[t as usize] {
                        ids[slot[t as usize] as usize]
                    } else {
                        0
                    }
                }));
                refs.sort_unstable();
                refs.dedup();
            }
            let id = match refs.as_slice() {
                // The usual case: everything `s` does directly its inert successor does too.
                [only]
                    if scratch
                        .iter()
                        .all(|p| sigs.get(*only).binary_search(p).is_ok()) =>
                {
                    *only
                }
                _ => {
                    for &r in &refs {
                        merge(&scratch, sigs.get(r), &mut merged);
                        std::mem::swap(&mut scratch, &mut merged);
                    }
                    sigs.intern(&scratch)
                }
            };
            ids.push(id);
        }
    }
}

/// Distinct signatures of one block, numbered in order of appearance, stored back to back
/// in one buffer (no allocation per signature).
#[derive(Default)]
struct Interner {
    pairs: Vec<Pair>,
    /// Signature i is `pairs[ends[i - 1]..ends[i]]`.
    ends: Vec<usize>,
    /// Hash of a signature -> the last id with that hash; `chain` links ids with equal hashes.
    by_hash: FxHashMap<u64, u32>,
    chain: Vec<u32>,
}

impl Interner {
    fn len(&self) -> usize {
        self.ends.len()
    }

    fn clear(&mut self) {
        self.pairs.clear();
        self.ends.clear();
        self.by_hash.clear();
        self.chain.clear();
    }

    fn get(&self, id: u32) -> &[Pair] {
        let start = if id == 0 {
            0
        } else {
            self.ends[id as usize - 1]
        };
        &self.pairs[start..self.ends[id as usize]]
    }

    fn intern(&mut self, sig: &[Pair]) -> u32 {
        let hash = {
            use std::hash::{Hash, Hasher};
            let mut h = rustc_hash::FxHasher::default();
            sig.hash(&mut h);
            h.finish()
        };
        let mut candidate = self.by_hash.get(&hash).copied();
        while let Some(id) = candidate {
            if self.get(id) == sig {
                return id;
            }
            candidate = (self.chain[id as usize] != u32::MAX).then(|| self.chain[id as usize]);
        }
        let id = self.ends.len() as u32;
        self.pairs.extend_from_slice(sig);
        self.ends.push(self.pairs.len());
        self.chain
            .push(self.by_hash.insert(hash, id).unwrap_or(u32::MAX));
        id
    }
}

/// `out` = the sorted, duplicate-free union of the sorted, duplicate-free `a` and `b`.
fn merge(a: &[Pair], b: &[Pair], out: &mut Vec<Pair>) {
    out.clear();
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        let (x, y) = (a[i], b[j]);
        out.push(x.min(y));
        i += usize::from(x <= y);
        j += usize::from(y <= x);
    }
    out.extend_from_slice(&a[i..]);
    out.extend_from_slice(&b[j..]);
}
