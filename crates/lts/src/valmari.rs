//! Strong bisimulation minimisation in O(m log n) time with refinable partitions.
//!
//! States live in a Valmari–Lehtinen refinable partition (blocks are ranges of one array,
//! a block splits into its marked and unmarked part in time proportional to the marks).
//! Splitters are "constellations", unions of blocks (Paige–Tarjan, labelled as in Valmari's
//! "Bisimilarity minimization in O(m log n) time"): every block is stable with respect to
//! every (label, constellation). A constellation with two or more blocks is split by taking
//! out its smaller-of-two block `B`; only the transitions into `B` are looked at, and a
//! counter per (state, label, constellation) tells whether a predecessor still reaches the
//! rest of the old constellation. A state's in-transitions are looked at only when its block
//! is taken out, which at most halves its constellation: O(log n) times per transition.
//!
//! Unlike signature refinement ([`crate::refine`]) this keeps no round history, so the
//! distinguishing formulas of `compare` still come from signature refinement.

use crate::lts::Lts;
use crate::partition::per_block;
use crate::refine::{Mode, refine_within};

const NONE: u32 = u32::MAX;

/// The coarsest strong bisimulation of `lts`: the block of every state. Block ids depend only
/// on the input (no hashing), so the quotient built from them is deterministic.
///
/// Signature refinement goes first: product state spaces settle in a few linear rounds,
/// which is faster than this module's random accesses (parallel_7x8: 4.5 s against 6.1 s).
/// Its rounds may spend 3/4 of m·log2(n) units of work (measured: enough for the 9 rounds of
/// parallel_7x8); a state space that needs more rounds (a long cycle needs about as many
/// as the length of the words that tell its states apart) is handed over, partition and
/// all, to the O(m log n) refinement, so the whole stays O(m log n).
pub(crate) fn strong_blocks(lts: &Lts) -> Vec<u32> {
    strong_blocks_within(lts, signature_budget(lts))
}

/// The work signature refinement may spend in [`strong_blocks`]: 3/4 of m·log2(n).
pub fn signature_budget(lts: &Lts) -> u64 {
    let (n, m) = (lts.num_states() as u64, lts.num_transitions() as u64);
    m * u64::from(64 - n.leading_zeros()) * 3 / 4
}

/// [`strong_blocks`] with the work signature refinement may spend given: 0 does one round
/// before the O(m log n) refinement takes over, `u64::MAX` never hands over. Public for tests
/// and benchmarks; every budget gives the same partition.
pub fn strong_blocks_within(lts: &Lts, signature_budget: u64) -> Vec<u32> {
    let (part, stable) = refine_within(lts, Mode::Strong, signature_budget);
    if stable {
        return part.block_of;
    }
    let (block_of, blocks) = part.into_blocks();
    let mut m = Minimiser::new(lts, block_of, blocks);
    m.split_by_label_sets();
    while let Some(&c) = m.work.last() {
        let b = m.take_small_block(c);
        m.split_by_block(b);
    }
    m.blocks.set_of
}

/// A refinable partition of `0..n` (Valmari–Lehtinen): set `s` is `elems[first[s]..end[s]]`
/// and its marked elements are the first `marked[s]` of that range.
struct Refinable {
    elems: Vec<u32>,
    loc: Vec<u32>,
    set_of: Vec<u32>,
    first: Vec<u32>,
    end: Vec<u32>,
    marked: Vec<u32>,
    touched: Vec<u32>,
}

impl Refinable {
    /// The partition of `0..n` into the `blocks` sets given by `set_of` (ids `0..blocks`).
    fn new(set_of: Vec<u32>, blocks: usize) -> Self {
        let n = set_of.len();
        // `end[b]` counts the states of blocks up to `b`; `first` is `end` shifted by one.
        let mut end = per_block(n, 0);
        end.resize(blocks, 0);
        for &b in &set_of {
            end[b as usize] += 1;
        }
        for b in 1..blocks {
            end[b] += end[b - 1];
        }
        let mut first = per_block(n, 0);
        first.extend_from_slice(&end[..blocks - 1]);
        let (mut elems, mut loc) = (vec![0; n], vec![0; n]);
        let mut fill = first.clone();
        for (s, &b) in set_of.iter().enumerate() {
            let i = fill[b as usize];
            fill[b as usize] += 1;
            (elems[i as usize], loc[s]) = (s as u32, i);
        }
        let mut marked = per_block(n, 0);
        marked.resize(blocks, 0);
        Refinable {
            elems,
            loc,
            set_of,
            first,
            end,
            marked,
            touched: Vec::new(),
        }
    }

    fn size(&self, s: u32) -> u32 {
        self.end[s as usize] - self.first[s as usize]
    }

    fn members(&self, s: u32) -> &[u32] {
        &self.elems[self.first[s as usize] as usize..self.end[s as usize] as usize]
    }

    /// Marks `e` (marking twice is harmless: predecessors repeat).
    #[inline]
    fn mark(&mut self, e: u32) {
        let s = self.set_of[e as usize] as usize;
        let i = self.loc[e as usize];
        let j = self.first[s] + self.marked[s];
        if i < j {
            return;
        }
        let other = self.elems[j as usize];
        self.elems.swap(i as usize, j as usize);
        self.loc[other as usize] = i;
        self.loc[e as usize] = j;
        if self.marked[s] == 0 {
            self.touched.push(s as u32);
        }
        self.marked[s] += 1;
    }

    /// Splits every touched set into its marked and unmarked part; the smaller part gets a
    /// fresh id (so relabelling costs at most the marks). Appends (old, new) to `out`.
    fn split(&mut self, out: &mut Vec<(u32, u32)>) {
        while let Some(s) = self.touched.pop() {
            let s = s as usize;
            let j = self.first[s] + self.marked[s];
            let marked = self.marked[s];
            self.marked[s] = 0;
            if j == self.end[s] {
                continue;
            }
            let z = self.first.len() as u32;
            if marked <= self.end[s] - j {
                self.first.push(self.first[s]);
                self.end.push(j);
                self.first[s] = j;
            } else {
                self.first.push(j);
                self.end.push(self.end[s]);
                self.end[s] = j;
            }
            self.marked.push(0);
            for i in self.first[z as usize]..self.end[z as usize] {
                self.set_of[self.elems[i as usize] as usize] = z;
            }
            out.push((s as u32, z));
        }
    }
}

/// Working state of one minimisation.
struct Minimiser<'a> {
    lts: &'a Lts,
    blocks: Refinable,
    /// Incoming transitions by target, with their sources, labels and counters.
    incoming: Incoming,
    /// How many transitions with a given source and label go into a given constellation;
    /// `InEdge::cnt` names each transition's counter. Counters that drop to 0 are recycled
    /// through `free`.
    counts: Vec<u32>,
    free: Vec<u32>,
    cons_of: Vec<u32>,
    /// Each constellation's blocks as a linked list (one `Vec` per constellation would cost
    /// an allocation for each of up to n constellations).
    cons_first: Vec<u32>,
    next_in_cons: Vec<u32>,
    /// The constellations with two or more blocks (each listed once).
    work: Vec<u32>,
    /// Per state, during one label's step: its counter into the taken-out block.
    new_cnt: Vec<u32>,
    /// The sources met in one label's step, with their counter into the rest of the old
    /// constellation (kept here, not per state, to save memory).
    preds: Vec<(u32, u32)>,
    buckets: Vec<Vec<u32>>,
    splits: Vec<(u32, u32)>,
}

/// The transitions of an LTS grouped by target (CSR), stored in that order so that the
/// in-transitions of a block's states are read sequentially.
struct Incoming {
    off: Vec<u32>,
    edges: Vec<InEdge>,
}

/// One incoming transition. The fields are read together, so they share a cache line
/// (three parallel arrays cost three cache misses per state taken out instead of one).
#[derive(Clone, Copy, Default)]
struct InEdge {
    src: u32,
    label: u32,
    cnt: u32,
}

impl Incoming {
    /// Groups the transitions by target and gives each one the counter of its (source,
    /// label): at first every target is in the one constellation. Rows are sorted by label,
    /// so each (source, label) is one run of a row; the counters are appended to `counts`.
    fn new(lts: &Lts, counts: &mut Vec<u32>) -> Self {
        let n = lts.num_states();
        let m = lts.num_transitions();
        let off = lts.in_offsets();
        let mut fill = off[..n].to_vec();
        let mut edges = vec![InEdge::default(); m];
        for s in 0..n as u32 {
            let (labels, targets) = lts.row(s);
            for (i, (&l, &t)) in labels.iter().zip(targets).enumerate() {
                if i == 0 || labels[i - 1] != l {
                    counts.push(0);
                }
                let c = counts.len() - 1;
                counts[c] += 1;
                let k = fill[t as usize] as usize;
                fill[t as usize] += 1;
                edges[k] = InEdge {
                    src: s,
                    label: l,
                    cnt: c as u32,
                };
            }
        }
        Incoming { off, edges }
    }

    fn range(&self, t: u32) -> std::ops::Range<usize> {
        self.off[t as usize] as usize..self.off[t as usize + 1] as usize
    }
}

impl<'a> Minimiser<'a> {
    /// Starts from the partition `set_of` into `blocks` blocks, all in one constellation.
    fn new(lts: &'a Lts, set_of: Vec<u32>, blocks: usize) -> Self {
        let n = lts.num_states();
        // At most one counter a transition: room for them at once, since a vector grown by
        // doubling holds the old and the new buffer at each step (the peak of a run).
        let mut counts = Vec::with_capacity(lts.num_transitions());
        let incoming = Incoming::new(lts, &mut counts);
        let mut cons_of = per_block(n, 0);
        cons_of.resize(blocks, 0);
        // The list 0 -> 1 -> ... -> blocks - 1.
        let mut next_in_cons = per_block(n, NONE);
        next_in_cons.clear();
        next_in_cons.extend((1..blocks as u32).chain([NONE]));
        Minimiser {
            lts,
            blocks: Refinable::new(set_of, blocks),
            incoming,
            counts,
            free: Vec::new(),
            cons_of,
            cons_first: per_block(n, 0),
            next_in_cons,
            work: if blocks > 1 { vec![0] } else { Vec::new() },
            new_cnt: vec![NONE; n],
            preds: Vec::new(),
            buckets: vec![Vec::new(); lts.labels().len()],
            splits: Vec::new(),
        }
    }

    /// Stability with respect to (label, all states): split by the set of enabled labels.
    fn split_by_label_sets(&mut self) {
        let mut buckets = std::mem::take(&mut self.buckets);
        for s in 0..self.lts.num_states() as u32 {
            let (labels, _) = self.lts.row(s);
            for run in labels.chunk_by(|a, b| a == b) {
                buckets[run[0] as usize].push(s);
            }
        }
        for bucket in &mut buckets {
            for &s in bucket.iter() {
                self.blocks.mark(s);
            }
            self.split_blocks();
            bucket.clear();
        }
        self.buckets = buckets;
    }
}

impl Minimiser<'_> {
    /// Takes the smaller of two blocks out of compound constellation `c` into a new one.
    fn take_small_block(&mut self, c: u32) -> u32 {
        let first = self.cons_first[c as usize];
        let second = self.next_in_cons[first as usize];
        let b = if self.blocks.size(first) <= self.blocks.size(second) {
            self.cons_first[c as usize] = second;
            first
        } else {
            self.next_in_cons[first as usize] = self.next_in_cons[second as usize];
            second
        };
        self.next_in_cons[b as usize] = NONE;
        if self.next_in_cons[self.cons_first[c as usize] as usize] == NONE {
            self.work.pop();
        }
        self.cons_of[b as usize] = self.cons_first.len() as u32;
        self.cons_first.push(b);
        b
    }

    /// Restores stability after block `b` left its constellation: per label, split by
    /// "reaches `b`" and then by "reaches only `b`".
    fn split_by_block(&mut self, b: u32) {
        // Gathered before any split: `b` itself may split on its own self-loops.
        let mut buckets = std::mem::take(&mut self.buckets);
        let mut labels = Vec::new();
        for &t in self.blocks.members(b) {
            for k in self.incoming.range(t) {
                let l = self.incoming.edges[k].label as usize;
                if buckets[l].is_empty() {
                    labels.push(l);
                }
                buckets[l].push(k as u32);
            }
        }
        for l in labels {
            self.split_by_label(&buckets[l]);
            buckets[l].clear();
        }
        self.buckets = buckets;
    }

    /// One label's step: move the transitions `into_b` (positions in `incoming`) to fresh
    /// counters, then split.
    fn split_by_label(&mut self, into_b: &[u32]) {
        for &k in into_b {
            self.move_counter(k as usize);
        }
        let mut preds = std::mem::take(&mut self.preds);
        for &(s, _) in &preds {
            self.blocks.mark(s);
        }
        self.split_blocks();
        // Blocks holding predecessors now hold only predecessors: split off those that no
        // longer reach the rest of the old constellation.
        for &(s, old) in &preds {
            if self.counts[old as usize] == 0 {
                self.free.push(old);
                self.blocks.mark(s);
            }
            self.new_cnt[s as usize] = NONE;
        }
        self.split_blocks();
        preds.clear();
        self.preds = preds;
    }

    /// Moves incoming transition `k` from its source's counter for the old constellation to
    /// the one for the taken-out block, creating the latter at the source's first such
    /// transition.
    fn move_counter(&mut self, k: usize) {
        let InEdge { src, cnt: old, .. } = self.incoming.edges[k];
        let s = src as usize;
        if self.new_cnt[s] == NONE {
            self.new_cnt[s] = self.alloc_counter();
            self.preds.push((s as u32, old));
        }
        self.counts[old as usize] -= 1;
        self.counts[self.new_cnt[s] as usize] += 1;
        self.incoming.edges[k].cnt = self.new_cnt[s];
    }

    fn alloc_counter(&mut self) -> u32 {
        if let Some(c) = self.free.pop() {
            self.counts[c as usize] = 0;
            return c;
        }
        self.counts.push(0);
        self.counts.len() as u32 - 1
    }

    /// Splits the touched blocks; a new block joins its old block's constellation, which
    /// then is compound (and goes on the worklist when it just became so).
    fn split_blocks(&mut self) {
        self.blocks.split(&mut self.splits);
        for &(old, new) in &self.splits {
            let c = self.cons_of[old as usize];
            debug_assert_eq!(new as usize, self.cons_of.len());
            self.cons_of.push(c);
            let first = self.cons_first[c as usize];
            self.next_in_cons.push(first);
            self.cons_first[c as usize] = new;
            if self.next_in_cons[first as usize] == NONE {
                self.work.push(c);
            }
        }
        self.splits.clear();
    }
}
