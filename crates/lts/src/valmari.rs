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
use std::ops::{Add, AddAssign, Sub, SubAssign};

/// The coarsest strong bisimulation of `lts`: the block of every state. Block ids depend only
/// on the input (no hashing), so the quotient built from them is deterministic.
///
/// Signature refinement goes first: product state spaces settle in a few linear rounds,
/// which is faster than this module's random accesses (parallel_7x8: 4.5 s against 6.1 s).
/// Its rounds may spend 3/4 of m·log2(n) units of work (measured: enough for the 9 rounds of
/// parallel_7x8); a state space that needs more rounds (a long cycle needs about as many
/// as the length of the words that tell its states apart) is handed over, partition and
/// all, to the O(m log n) refinement, so the whole stays O(m log n).
///
/// Inputs whose states, transitions and labels number fewer than 65,535 skip the signature
/// rounds: the O(m log n) refinement alone, in `u16` arrays, is their smallest footprint
/// (signature refinement holds a predecessor list, a history of its blocks and every distinct
/// signature of a block, whose memory its allocator keeps for what comes after), and takes a
/// few milliseconds at that size.
pub(crate) fn strong_blocks(lts: &Lts) -> Vec<u32> {
    if narrow(lts) {
        return constellations_alone(lts);
    }
    strong_blocks_within(lts, signature_budget(lts))
}

/// Whether the O(m log n) refinement of `lts` fits in `u16` arrays: the states, the
/// transitions and the labels number fewer than 65,535 (so do the blocks, the counters, which
/// are at most one a transition, and every count; `u16::MAX` stays free for "none").
fn narrow(lts: &Lts) -> bool {
    let (n, m) = (lts.num_states(), lts.num_transitions());
    n.max(m).max(lts.labels().len()) < usize::from(u16::MAX)
}

/// The O(m log n) refinement from one block, in `u16` arrays (the caller checked [`narrow`]).
fn constellations_alone(lts: &Lts) -> Vec<u32> {
    let mut m = Minimiser::<u16>::new(lts, vec![0; lts.num_states()], 1);
    m.split_by_label_sets(lts);
    refine_constellations(lts, m)
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
    // At least one round was run: its signatures were the sets of labels each state enables,
    // so every block is stable with respect to (label, all states), as the constellation
    // refinement must start (no split by label sets of its own, which held a list of every
    // (state, label) pair through the whole refinement).
    debug_assert!(label_sets_agree(lts, &block_of));
    // In `u16` arrays where they fit: half the memory.
    if narrow(lts) {
        let m = Minimiser::<u16>::new(lts, u16::from_u32s(block_of), blocks);
        refine_constellations(lts, m)
    } else {
        let m = Minimiser::<u32>::new(lts, block_of, blocks);
        refine_constellations(lts, m)
    }
}

/// Runs the O(m log n) refinement from the partition of `m`, whose blocks are all in one
/// constellation and stable with respect to it.
fn refine_constellations<I: Index>(lts: &Lts, mut m: Minimiser<I>) -> Vec<u32> {
    m.count_transitions(lts);
    while let Some(&c) = m.work.last() {
        let b = m.take_small_block(c);
        m.split_by_block(b);
    }
    I::into_u32s(m.into_blocks())
}

/// Whether all states of each block enable the same labels (checked in debug builds).
fn label_sets_agree(lts: &Lts, block_of: &[u32]) -> bool {
    let labels = |s: u32| {
        let mut row = lts.row(s).0.to_vec();
        row.dedup();
        row
    };
    let mut first = vec![u32::MAX; lts.num_states()];
    (0..lts.num_states() as u32).all(|s| {
        let b = block_of[s as usize] as usize;
        if first[b] == u32::MAX {
            first[b] = s;
        }
        labels(s) == labels(first[b])
    })
}

/// The unsigned integer the refinement's arrays hold (states, blocks, constellations,
/// transition positions, labels, counters and counts): `u16` or `u32`.
trait Index:
    Copy + Eq + Ord + Default + Add<Output = Self> + Sub<Output = Self> + AddAssign + SubAssign
{
    /// No value: never a valid one, since every value is below it.
    const NONE: Self;
    const ZERO: Self;
    const ONE: Self;
    fn of(i: usize) -> Self;
    fn ix(self) -> usize;
    fn from_u32s(v: Vec<u32>) -> Vec<Self>;
    fn into_u32s(v: Vec<Self>) -> Vec<u32>;
}

impl Index for u32 {
    const NONE: Self = u32::MAX;
    const ZERO: Self = 0;
    const ONE: Self = 1;
    #[inline]
    fn of(i: usize) -> Self {
        debug_assert!(i < Self::NONE as usize);
        i as u32
    }
    #[inline]
    fn ix(self) -> usize {
        self as usize
    }
    fn from_u32s(v: Vec<u32>) -> Vec<Self> {
        v
    }
    fn into_u32s(v: Vec<Self>) -> Vec<u32> {
        v
    }
}

impl Index for u16 {
    const NONE: Self = u16::MAX;
    const ZERO: Self = 0;
    const ONE: Self = 1;
    #[inline]
    fn of(i: usize) -> Self {
        debug_assert!(i < usize::from(Self::NONE));
        i as u16
    }
    #[inline]
    fn ix(self) -> usize {
        usize::from(self)
    }
    fn from_u32s(v: Vec<u32>) -> Vec<Self> {
        v.into_iter().map(|b| b as u16).collect()
    }
    fn into_u32s(v: Vec<Self>) -> Vec<u32> {
        v.into_iter().map(u32::from).collect()
    }
}

/// A refinable partition of `0..n` (Valmari–Lehtinen): set `s` is `elems[first[s]..end[s]]`
/// and its marked elements are the first `marked[s]` of that range.
struct Refinable<I> {
    elems: Vec<I>,
    loc: Vec<I>,
    set_of: Vec<I>,
    first: Vec<I>,
    end: Vec<I>,
    marked: Vec<I>,
    touched: Vec<I>,
}

impl<I: Index> Refinable<I> {
    /// The partition of `0..n` into the `blocks` sets given by `set_of` (ids `0..blocks`).
    fn new(set_of: Vec<I>, blocks: usize) -> Self {
        let n = set_of.len();
        // `end[b]` counts the states of blocks up to `b`; `first` is `end` shifted by one.
        let mut end = per_block(n, I::ZERO);
        end.resize(blocks, I::ZERO);
        for &b in &set_of {
            end[b.ix()] += I::ONE;
        }
        for b in 1..blocks {
            end[b] = end[b] + end[b - 1];
        }
        let mut first = per_block(n, I::ZERO);
        first.extend_from_slice(&end[..blocks - 1]);
        let (mut elems, mut loc) = (vec![I::ZERO; n], vec![I::ZERO; n]);
        // `first` serves as the fill cursor, then is put back from `end` and the sizes.
        for (s, &b) in set_of.iter().enumerate() {
            let i = first[b.ix()];
            first[b.ix()] += I::ONE;
            (elems[i.ix()], loc[s]) = (I::of(s), i);
        }
        first[0] = I::ZERO;
        first[1..].copy_from_slice(&end[..blocks - 1]);
        let mut marked = per_block(n, I::ZERO);
        marked.resize(blocks, I::ZERO);
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

    fn size(&self, s: I) -> I {
        self.end[s.ix()] - self.first[s.ix()]
    }

    fn members(&self, s: I) -> &[I] {
        &self.elems[self.first[s.ix()].ix()..self.end[s.ix()].ix()]
    }

    /// Marks `e` (marking twice is harmless: predecessors repeat).
    #[inline]
    fn mark(&mut self, e: I) {
        let s = self.set_of[e.ix()].ix();
        let i = self.loc[e.ix()];
        let j = self.first[s] + self.marked[s];
        if i < j {
            return;
        }
        let other = self.elems[j.ix()];
        self.elems.swap(i.ix(), j.ix());
        self.loc[other.ix()] = i;
        self.loc[e.ix()] = j;
        if self.marked[s] == I::ZERO {
            self.touched.push(I::of(s));
        }
        self.marked[s] += I::ONE;
    }

    /// Splits every touched set into its marked and unmarked part; the smaller part gets a
    /// fresh id (so relabelling costs at most the marks). Appends (old, new) to `out`.
    fn split(&mut self, out: &mut Vec<(I, I)>) {
        while let Some(s) = self.touched.pop() {
            let s = s.ix();
            let j = self.first[s] + self.marked[s];
            let marked = self.marked[s];
            self.marked[s] = I::ZERO;
            if j == self.end[s] {
                continue;
            }
            let z = self.first.len();
            if marked <= self.end[s] - j {
                self.first.push(self.first[s]);
                self.end.push(j);
                self.first[s] = j;
            } else {
                self.first.push(j);
                self.end.push(self.end[s]);
                self.end[s] = j;
            }
            self.marked.push(I::ZERO);
            for i in self.first[z].ix()..self.end[z].ix() {
                self.set_of[self.elems[i].ix()] = I::of(z);
            }
            out.push((I::of(s), I::of(z)));
        }
    }
}

/// Working state of one minimisation.
struct Minimiser<I> {
    blocks: Refinable<I>,
    /// Incoming transitions by target, with their sources, labels and counters.
    incoming: Incoming<I>,
    /// How many transitions with a given source and label go into a given constellation;
    /// `InEdge::cnt` names each transition's counter. A counter is never empty (one that
    /// would be is handed over whole, see [`Minimiser::split_by_label`]), so there are at
    /// most as many as transitions: room for them is made at once, and none is ever freed.
    counts: Vec<I>,
    cons_of: Vec<I>,
    /// Each constellation's blocks as a linked list (one `Vec` per constellation would cost
    /// an allocation for each of up to n constellations).
    cons_first: Vec<I>,
    next_in_cons: Vec<I>,
    /// The constellations with two or more blocks (each listed once).
    work: Vec<I>,
    /// Per state, during one label's step: how many of its transitions go into the
    /// taken-out block, then the counter they share.
    new_cnt: Vec<I>,
    /// The sources met in one label's step, with their counter into the old constellation
    /// (kept here, not per state, to save memory).
    preds: Vec<(I, I)>,
    /// Per label, the positions in `incoming` of the transitions into the taken-out block.
    buckets: Vec<Vec<I>>,
    labels: Vec<usize>,
    splits: Vec<(I, I)>,
}

/// The transitions of an LTS grouped by target (CSR), stored in that order so that the
/// in-transitions of a block's states are read sequentially.
struct Incoming<I> {
    off: Vec<I>,
    edges: Vec<InEdge<I>>,
}

/// One incoming transition. The fields are read together, so they share a cache line
/// (three parallel arrays cost three cache misses per state taken out instead of one).
#[derive(Clone, Copy, Default)]
struct InEdge<I> {
    src: I,
    label: I,
    cnt: I,
}

impl<I: Index> Incoming<I> {
    /// Groups the transitions by target and gives each one the counter of its (source,
    /// label): at first every target is in the one constellation. Rows are sorted by label,
    /// so each (source, label) is one run of a row; the counters are appended to `counts`.
    fn new(lts: &Lts, counts: &mut Vec<I>) -> Self {
        let n = lts.num_states();
        // `off[t]` counts the transitions into `t`, then is made where they end; filling
        // each target's range from its end down leaves it where they start (no second array
        // of cursors), with the sources ascending when the rows are read backwards.
        let mut off = vec![I::ZERO; n + 1];
        for &t in &lts.trans_to {
            off[t as usize] += I::ONE;
        }
        let mut sum = I::ZERO;
        for o in &mut off {
            sum += *o;
            *o = sum;
        }
        let mut edges = vec![InEdge::default(); lts.num_transitions()];
        for s in (0..n).rev() {
            let (labels, targets) = lts.row(s as u32);
            for i in (0..labels.len()).rev() {
                if i + 1 == labels.len() || labels[i + 1] != labels[i] {
                    counts.push(I::ZERO);
                }
                let c = counts.len() - 1;
                counts[c] += I::ONE;
                let t = targets[i] as usize;
                off[t] -= I::ONE;
                edges[off[t].ix()] = InEdge {
                    src: I::of(s),
                    label: I::of(labels[i] as usize),
                    cnt: I::of(c),
                };
            }
        }
        Incoming { off, edges }
    }

    fn range(&self, t: I) -> std::ops::Range<usize> {
        self.off[t.ix()].ix()..self.off[t.ix() + 1].ix()
    }
}

impl<I: Index> Minimiser<I> {
    /// Starts from the partition `set_of` into `blocks` blocks, all in one constellation;
    /// the transitions are read in later, by [`Minimiser::count_transitions`].
    fn new(lts: &Lts, set_of: Vec<I>, blocks: usize) -> Self {
        let n = lts.num_states();
        let mut cons_of = per_block(n, I::ZERO);
        cons_of.resize(blocks, I::ZERO);
        // The list 0 -> 1 -> ... -> blocks - 1.
        let mut next_in_cons = per_block(n, I::NONE);
        next_in_cons.clear();
        next_in_cons.extend((1..blocks).map(I::of).chain([I::NONE]));
        Minimiser {
            blocks: Refinable::new(set_of, blocks),
            incoming: Incoming {
                off: Vec::new(),
                edges: Vec::new(),
            },
            counts: Vec::new(),
            cons_of,
            cons_first: per_block(n, I::ZERO),
            next_in_cons,
            work: if blocks > 1 {
                vec![I::ZERO]
            } else {
                Vec::new()
            },
            new_cnt: vec![I::NONE; n],
            preds: Vec::new(),
            buckets: vec![Vec::new(); lts.labels().len()],
            labels: Vec::new(),
            splits: Vec::new(),
        }
    }

    /// Splits by the set of labels each state enables: stability with respect to (label,
    /// all states), where the refinement starts. The states enabling each label are listed
    /// label by label in one array (a counting sort of the (state, label) pairs), freed
    /// before the transitions are read in.
    fn split_by_label_sets(&mut self, lts: &Lts) {
        let runs = |s: usize| {
            lts.row(s as u32)
                .0
                .chunk_by(|a, b| a == b)
                .map(|r| r[0] as usize)
        };
        let mut start = vec![0usize; lts.labels().len() + 1];
        for s in 0..lts.num_states() {
            for l in runs(s) {
                start[l + 1] += 1;
            }
        }
        for l in 1..start.len() {
            start[l] += start[l - 1];
        }
        let mut states = vec![I::ZERO; start[start.len() - 1]];
        let mut fill = start.clone();
        for s in 0..lts.num_states() {
            for l in runs(s) {
                states[fill[l]] = I::of(s);
                fill[l] += 1;
            }
        }
        for w in start.windows(2) {
            for &s in &states[w[0]..w[1]] {
                self.blocks.mark(s);
            }
            self.split_blocks();
        }
    }

    /// Reads the transitions in, grouped by target, each with the counter of its (source,
    /// label) into the one constellation.
    fn count_transitions(&mut self, lts: &Lts) {
        self.counts = Vec::with_capacity(lts.num_transitions());
        self.incoming = Incoming::new(lts, &mut self.counts);
    }

    /// The block of every state; everything else is freed first.
    fn into_blocks(self) -> Vec<I> {
        self.blocks.set_of
    }

    /// Takes the smaller of two blocks out of compound constellation `c` into a new one.
    fn take_small_block(&mut self, c: I) -> I {
        let first = self.cons_first[c.ix()];
        let second = self.next_in_cons[first.ix()];
        let b = if self.blocks.size(first) <= self.blocks.size(second) {
            self.cons_first[c.ix()] = second;
            first
        } else {
            self.next_in_cons[first.ix()] = self.next_in_cons[second.ix()];
            second
        };
        self.next_in_cons[b.ix()] = I::NONE;
        if self.next_in_cons[self.cons_first[c.ix()].ix()] == I::NONE {
            self.work.pop();
        }
        self.cons_of[b.ix()] = I::of(self.cons_first.len());
        self.cons_first.push(b);
        b
    }

    /// Restores stability after block `b` left its constellation: per label, split by
    /// "reaches `b`" and then by "reaches only `b`".
    fn split_by_block(&mut self, b: I) {
        // Gathered before any split: `b` itself may split on its own self-loops.
        let mut buckets = std::mem::take(&mut self.buckets);
        let mut labels = std::mem::take(&mut self.labels);
        for &t in self.blocks.members(b) {
            for k in self.incoming.range(t) {
                let l = self.incoming.edges[k].label.ix();
                if buckets[l].is_empty() {
                    labels.push(l);
                }
                buckets[l].push(I::of(k));
            }
        }
        for &l in &labels {
            self.split_by_label(&buckets[l]);
            buckets[l].clear();
        }
        labels.clear();
        (self.buckets, self.labels) = (buckets, labels);
    }

    /// One label's step: give the transitions `into_b` (positions in `incoming`) counters of
    /// their own, then split.
    fn split_by_label(&mut self, into_b: &[I]) {
        self.count_into_b(into_b);
        let mut preds = std::mem::take(&mut self.preds);
        for &(s, old) in &preds {
            let moved = self.new_cnt[s.ix()];
            if moved == self.counts[old.ix()] {
                // All of the source's transitions into the old constellation go into `b`:
                // their counter becomes the one into `b` (`new_cnt` = `old` says so below).
                self.new_cnt[s.ix()] = old;
            } else {
                self.counts[old.ix()] -= moved;
                self.new_cnt[s.ix()] = I::of(self.counts.len());
                self.counts.push(moved);
            }
        }
        for &k in into_b {
            let edge = &mut self.incoming.edges[k.ix()];
            edge.cnt = self.new_cnt[edge.src.ix()];
        }
        for &(s, _) in &preds {
            self.blocks.mark(s);
        }
        self.split_blocks();
        // Blocks holding predecessors now hold only predecessors: split off those that no
        // longer reach the rest of the old constellation.
        for &(s, old) in &preds {
            if self.new_cnt[s.ix()] == old {
                self.blocks.mark(s);
            }
            self.new_cnt[s.ix()] = I::NONE;
        }
        self.split_blocks();
        preds.clear();
        self.preds = preds;
    }

    /// Counts in `new_cnt` each source's transitions in `into_b`, listing each source once in
    /// `preds` with its counter into the old constellation (the same for all of them: they
    /// have one label and went into one constellation).
    fn count_into_b(&mut self, into_b: &[I]) {
        for &k in into_b {
            let InEdge { src, cnt, .. } = self.incoming.edges[k.ix()];
            let s = src.ix();
            if self.new_cnt[s] == I::NONE {
                self.new_cnt[s] = I::ZERO;
                self.preds.push((src, cnt));
            }
            self.new_cnt[s] += I::ONE;
        }
    }

    /// Splits the touched blocks; a new block joins its old block's constellation, which
    /// then is compound (and goes on the worklist when it just became so).
    fn split_blocks(&mut self) {
        self.blocks.split(&mut self.splits);
        for &(old, new) in &self.splits {
            let c = self.cons_of[old.ix()];
            debug_assert_eq!(new.ix(), self.cons_of.len());
            self.cons_of.push(c);
            let first = self.cons_first[c.ix()];
            self.next_in_cons.push(first);
            self.cons_first[c.ix()] = new;
            if self.next_in_cons[first.ix()] == I::NONE {
                self.work.push(c);
            }
        }
        self.splits.clear();
    }
}
