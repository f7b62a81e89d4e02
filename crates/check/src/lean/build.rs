//! Building a [`Lean`] product level by level on several threads, its nodes numbered, and the
//! next level ordered, exactly as one thread's breadth-first search does (whatever the number
//! of threads, the product, its memory and so its verdict are the same).
//!
//! Each level is built in batches of [`BATCH`] chunks of [`CHUNK`] nodes (sizes that do not
//! depend on the thread count), one after the other, so that what a level holds beyond the
//! product is a batch's candidates, not the level's (a level of philosophers can have as
//! many candidates as a state space has states). Each batch in three steps:
//! 1. Its nodes, in chunks of [`CHUNK`],
//!    are expanded in parallel into *candidates*: the (state, monitor state) keys of their
//!    edges' targets not numbered yet, in the order one thread meets them. A chunk stops at a
//!    node with a kind of edge whose moves are not known yet; the monitor (one thread's) learns
//!    them, chunk by chunk in order, and the stopped chunks go on from that node.
//! 2. The candidates are numbered in parallel by ranges of states: a node's number follows from
//!    its state and from the order in which its state's monitor states are first met (see
//!    [`super::nodes`]), so each thread reads all the candidates and numbers those of its own
//!    states, in order, in the layers there are. A candidate whose state's layers are full
//!    waits for step 3.
//! 3. One thread numbers those, in order (in the table past the layers, or in a layer it
//!    makes), and learns the flags of monitor states new to a valuation; the new nodes,
//!    ordered by where they were first reached, go on the next level (a batch's nodes reach
//!    theirs after those of the batches before). Step 2 fills only free places of layers and
//!    step 3 takes the rest in order, so each node gets the number one thread taking the
//!    candidates in order would give it, whatever the threads and the batches.

use super::nodes::{Key, Placed};
use super::parallel;
use super::{Lean, Monitor, Move};
use rustc_hash::FxHashSet;
use std::ops::Range;

/// The nodes of a level expanded as one piece of work.
const CHUNK: usize = 4096;

/// The chunks of a level whose candidates are held at once.
const BATCH: usize = 4;

/// A new node of a level: where it was first reached (its candidate's position in the
/// level, high half) and its number (low half), so that sorting orders the level.
type Reached = u64;

/// What numbering a range of states found: the new nodes, the candidates left to one thread
/// (with their positions) and the (monitor state, valuation) pairs whose flags are unknown.
#[derive(Default)]
struct Numbered {
    new: Vec<Reached>,
    left: Vec<(u64, Key)>,
    unmarked: Vec<(u32, u64)>,
}

impl Lean<'_> {
    /// Builds the product to its end on `threads` threads. `fits` weighs what is held at the
    /// peak of each batch (the product so far with the batch's candidates and the next level's
    /// nodes so far); the build stops, `false`, when it says no or the nodes pass 32-bit
    /// numbers.
    pub(crate) fn build(
        &mut self,
        monitor: &mut impl Monitor,
        threads: usize,
        fits: &dyn Fn(u64) -> bool,
    ) -> bool {
        self.build_by(monitor, (threads, CHUNK), fits)
    }

    /// [`Lean::build`] with chunks of `chunk` nodes (the product is the same for any size).
    pub(super) fn build_by(
        &mut self,
        monitor: &mut impl Monitor,
        (threads, chunk): (usize, usize),
        fits: &dyn Fn(u64) -> bool,
    ) -> bool {
        let threads = parallel::resolve(threads);
        while !self.frontier.is_empty() {
            let level = self.frontier.len();
            let mut next = Vec::new();
            for from in (0..level).step_by(BATCH * chunk) {
                let batch = from..(from + BATCH * chunk).min(level);
                let candidates = self.candidates(monitor, batch, (threads, chunk));
                // The batch's candidates, and the next level so far.
                let held: u64 = candidates.iter().map(|c| 8 * c.len() as u64).sum();
                if !fits(self.bytes() + held + 4 * next.len() as u64) {
                    return false;
                }
                let Some(new) = self.number_level(&candidates, monitor, threads) else {
                    return false;
                };
                next.extend(new);
                if !fits(self.bytes() + held + 4 * next.len() as u64) {
                    return false;
                }
            }
            self.frontier = next;
        }
        self.find_accepting();
        self.tabulate();
        true
    }

    /// Step 1: the candidates of the level's nodes at `batch`, chunk by chunk.
    fn candidates(
        &mut self,
        monitor: &mut impl Monitor,
        batch: Range<usize>,
        (threads, chunk): (usize, usize),
    ) -> Vec<Vec<Key>> {
        let (start, end) = (batch.start, batch.end);
        let chunks = batch.len().div_ceil(chunk);
        let mut keys: Vec<Vec<Key>> = vec![Vec::new(); chunks];
        // Where each chunk still open goes on.
        let mut open: Vec<(usize, usize)> = (0..chunks).map(|k| (k, start + k * chunk)).collect();
        while !open.is_empty() {
            let this = &*self;
            let done = parallel::run(threads, open.len(), |i| {
                let (k, from) = open[i];
                this.expand(from..(start + (k + 1) * chunk).min(end))
            });
            let mut still = Vec::new();
            for (&(k, _), (found, stop)) in open.iter().zip(done) {
                match keys[k].is_empty() {
                    true => keys[k] = found,
                    false => keys[k].extend(found),
                }
                if let Some(at) = stop {
                    still.push((k, at));
                }
            }
            for &(_, at) in &still {
                self.learn(monitor, self.frontier[at]);
            }
            open = still;
        }
        keys
    }

    /// The candidates of the level's nodes at `nodes`, up to the first node with a kind of
    /// edge whose moves are not known (its position, where the chunk goes on once they are).
    fn expand(&self, nodes: Range<usize>) -> (Vec<Key>, Option<usize>) {
        let mut out = Vec::new();
        for at in nodes {
            let (s, c) = self.key(self.frontier[at]);
            let (edges, valuation) = (self.graph.successors(s), self.valuation(s));
            let before = out.len();
            for j in 0..edges.len() {
                let cell = (c, self.graph.kind(s, j), valuation);
                let Some(&(from, len)) = self.cells.get(&cell) else {
                    out.truncate(before);
                    return (out, Some(at));
                };
                let target = edges.get(j).target;
                for m in &self.moves[from as usize..(from + len) as usize] {
                    if self.find((target, m.to)).is_none() {
                        out.push((target, m.to));
                    }
                }
            }
        }
        (out, None)
    }

    /// Learns from `monitor` the moves of node `n` on the kinds of its edges not known yet.
    fn learn(&mut self, monitor: &mut impl Monitor, n: u32) {
        let (s, c) = self.key(n);
        let valuation = self.valuation(s);
        for j in 0..self.graph.successors(s).len() {
            let cell = (c, self.graph.kind(s, j), valuation);
            if self.cells.contains_key(&cell) {
                continue;
            }
            let learnt = monitor.moves(self.monitor[c as usize], (s, j), valuation);
            let range = (self.moves.len() as u32, learnt.len() as u32);
            for m in learnt {
                let to = self.number(m.to);
                self.moves.push(Move { to, ..m });
            }
            self.cells.insert(cell, range);
        }
    }

    /// Steps 2 and 3: numbers a batch's candidates; the new nodes in the order they were
    /// reached, or `None` past 32-bit numbers.
    fn number_level(
        &mut self,
        candidates: &[Vec<Key>],
        monitor: &mut impl Monitor,
        threads: usize,
    ) -> Option<Vec<u32>> {
        let wide = candidates
            .iter()
            .flatten()
            .any(|&(_, c)| c >= u8::MAX as u32);
        if wide {
            self.nodes.widen();
        }
        let mut starts = Vec::with_capacity(candidates.len());
        let mut total = 0u64;
        for chunk in candidates {
            starts.push(total);
            total += chunk.len() as u64;
        }
        if total >= 1 << 32 {
            return None;
        }
        let found = self.number_in_parallel(candidates, &starts, threads);
        let mut new: Vec<Reached> = Vec::new();
        let mut left = Vec::new();
        let mut unmarked = FxHashSet::default();
        for part in found {
            new.extend(part.new);
            left.extend(part.left);
            unmarked.extend(part.unmarked);
        }
        // Flags learnt in the order of the pairs, for the same monitor whatever the threads.
        let mut unmarked: Vec<(u32, u64)> = unmarked.into_iter().collect();
        unmarked.sort_unstable();
        for (c, valuation) in unmarked {
            self.mark(monitor, c, valuation);
        }
        left.sort_unstable_by_key(|&(at, _)| at);
        for (at, key) in left {
            let (n, fresh) = self.nodes.insert(key)?;
            if fresh {
                new.push(at << 32 | n as u64);
                self.mark(monitor, key.1, self.valuation(key.0));
            }
        }
        new.sort_unstable();
        Some(new.into_iter().map(|r| r as u32).collect())
    }

    /// Step 2, each thread on a range of states.
    fn number_in_parallel(
        &mut self,
        candidates: &[Vec<Key>],
        starts: &[u64],
        threads: usize,
    ) -> Vec<Numbered> {
        let width = (self.states as usize).div_ceil(threads).max(1);
        let Lean {
            nodes,
            marks,
            valuations,
            ..
        } = self;
        let marks = &*marks;
        parallel::each(threads, nodes.slices(width), |mut slice| {
            let mut out = Numbered::default();
            let mut unmarked = FxHashSet::default();
            for (chunk, &start) in candidates.iter().zip(starts) {
                for (i, &(s, c)) in chunk.iter().enumerate() {
                    if !slice.holds(s) {
                        continue;
                    }
                    let at = start + i as u64;
                    let n = match slice.place((s, c)) {
                        Placed::Known => continue,
                        Placed::New(n) => n,
                        Placed::Left => {
                            out.left.push((at, (s, c)));
                            continue;
                        }
                    };
                    out.new.push(at << 32 | n as u64);
                    let valuation = valuations.get(s as usize).copied().unwrap_or(0);
                    if !marks.contains_key(&(c, valuation)) {
                        unmarked.insert((c, valuation));
                    }
                }
            }
            out.unmarked = unmarked.into_iter().collect();
            out
        })
    }
}
