//! Before the cycle search, the nodes that lie in no accepting component are taken off on the
//! run's threads, as far as that can be told without a node's predecessors: Tarjan's search,
//! one thread's, reads only the rest. It is One-Way-Catch-Them-Young (Černá and Pelánek,
//! "Distributed explicit fair cycle detection", 2003) over the inside edges between nodes
//! that may cycle, with the product's eventualities (one bit each, cleared on some edges) as
//! its acceptance sets:
//!
//! - *elimination*: a node no other node left points to lies on no cycle: it is taken off,
//!   which may leave its targets with none (Kahn's peeling, in parallel). Under `leads to` on
//!   rpc every node that may cycle goes so (321,552 of 802,238 numbers: the product holds no
//!   cycle), and the search reads none.
//! - *reachability*, for each bit some edge between such nodes may leave pending
//!   ([`Space::cycle_bits`]): a node that no edge clearing the bit reaches, through nodes
//!   left, lies in no accepting component (each of its nodes is reached from the component's
//!   own edge that clears the bit). What it does not reach is taken off, and the elimination
//!   goes on from the counts of edges from what it reached.
//!
//! Both are repeated until a round takes nothing off. What is left then holds every accepting
//! component whole, so the components the search finds there that are accepting are those
//! it would find on all the nodes; and it is empty exactly when there is none (a component of
//! what is left that no other points into holds an edge clearing each bit and a cycle). The
//! fixed shapes (`leads to`, `always eventually`) have no bits: the elimination alone.
//!
//! Each node that may cycle has one number, in Tarjan's own array (4 bytes a node, there
//! already): [`DONE`] once taken off, else the count of edges into it from nodes left, with,
//! during a reachability, two flags. The elimination, pass after pass over the nodes, marks
//! a node whose count is 0 done and takes 1 off each of its targets' counts; a target whose
//! count that brings to 0 is marked at once by the thread that did it (up to [`CHASE`] of
//! them waiting), not left for the next pass: a chain whose numbers fall would otherwise take
//! a pass over every node for each of its nodes. Which nodes each step takes off does not
//! depend on the order (the nodes no cycle reaches, the nodes no clearing edge reaches), so
//! neither on the threads.

use super::{DONE, Dense, Space};
use std::sync::atomic::{AtomicU32, Ordering};

/// The nodes a thread reads as one piece of work.
const PIECE: usize = 1 << 14;

/// How many nodes a thread keeps to go on from at once: a few pages, whatever the product's
/// size (the trimming adds no memory that grows with it); one past them waits for the next
/// pass.
const CHASE: usize = 1 << 12;

/// During a reachability: the node is reached.
const REACHED: u32 = 1 << 31;
/// During a reachability: the node's edges are counted.
const COUNTED: u32 = 1 << 30;
/// The count of edges into a node, below the flags.
const COUNT: u32 = COUNTED - 1;

/// Tarjan's numbers for the nodes of `dense` (0: not visited yet), those that lie in no
/// accepting component as far as the trimming tells already [`DONE`].
pub(super) fn peel(product: &(impl Space + Sync), dense: &Dense, threads: usize) -> Vec<u32> {
    trim(product, dense, (threads, PIECE, CHASE)).0
}

/// What [`trim`] did: the elimination's passes, and the rounds of reachabilities.
#[derive(Debug, Default, PartialEq, Eq)]
struct Work {
    passes: usize,
    rounds: usize,
}

/// [`peel`] on `threads` threads, by pieces of `piece` nodes, each thread going on at once
/// from up to `chase` nodes; with the work it took.
fn trim(
    product: &(impl Space + Sync),
    dense: &Dense,
    (threads, piece, chase): (usize, usize, usize),
) -> (Vec<u32>, Work) {
    let trim = Trim {
        product,
        dense,
        counts: (0..dense.len()).map(|_| AtomicU32::new(0)).collect(),
        threads,
        piece,
        chase,
    };
    trim.count_all();
    let mut work = Work::default();
    let mut left = dense.len() - trim.eliminate(&mut work.passes);
    let bits = product.cycle_bits();
    while bits != 0 && left > 0 {
        work.rounds += 1;
        let before = left;
        for bit in (0..64).filter(|b| bits & (1 << b) != 0) {
            left -= trim.reach(1 << bit);
            left -= trim.eliminate(&mut work.passes);
            if left == 0 {
                break;
            }
        }
        if left == before {
            break;
        }
    }
    // Not visited yet, for the others; in place (the same size).
    let unvisited = |c: AtomicU32| match c.into_inner() {
        DONE => DONE,
        _ => 0,
    };
    (trim.counts.into_iter().map(unvisited).collect(), work)
}

/// The trimming's numbers, over the nodes of `dense`.
struct Trim<'a, P> {
    product: &'a P,
    dense: &'a Dense,
    counts: Vec<AtomicU32>,
    threads: usize,
    /// The nodes of a piece.
    piece: usize,
    /// How many nodes a thread keeps to go on from at once ([`CHASE`]).
    chase: usize,
}

impl<P: Space + Sync> Trim<'_, P> {
    fn count(&self, n: u32) -> &AtomicU32 {
        &self.counts[self.dense.of(n)]
    }

    /// Whether node `n`, one that may cycle, is not taken off.
    fn left(&self, n: u32) -> bool {
        self.count(n).load(Ordering::Relaxed) != DONE
    }

    /// Calls `each` with the target and pending bits of each inside edge out of `n` into a
    /// node left. A node taken off after the edges into it were counted is not among them:
    /// it is taken off only once each of those edges has been taken off its count.
    fn targets(&self, n: u32, each: &mut impl FnMut(u32, u64)) {
        self.product.each_inside(n, &mut |to, pending| {
            if self.dense.holds(to) && self.left(to) {
                each(to, pending);
            }
        });
    }

    /// The nodes of the `k`-th piece that may cycle.
    fn piece(&self, k: usize) -> impl Iterator<Item = u32> + '_ {
        let end = ((k + 1) * self.piece).min(self.product.nodes());
        ((k * self.piece) as u32..end as u32).filter(|&n| self.dense.holds(n))
    }

    /// `work` on each piece, on the threads: the sum of what each returns.
    fn each_piece(&self, work: impl Fn(usize) -> usize + Sync) -> usize {
        let pieces = self.product.nodes().div_ceil(self.piece);
        let done = crate::lean::parallel::run(self.threads, pieces, work);
        done.into_iter().sum()
    }

    /// Each node's count: the inside edges into it from nodes that may cycle.
    fn count_all(&self) {
        self.each_piece(|k| {
            for n in self.piece(k) {
                self.targets(n, &mut |to, _| {
                    self.count(to).fetch_add(1, Ordering::Relaxed);
                });
            }
            0
        });
    }

    /// Takes off, pass after pass, the nodes whose count is 0; the number taken off.
    fn eliminate(&self, passes: &mut usize) -> usize {
        let mut all = 0;
        loop {
            *passes += 1;
            let marked = self.each_piece(|k| self.eliminate_piece(k));
            all += marked;
            if marked == 0 {
                return all;
            }
        }
    }

    /// One pass of [`Trim::eliminate`] over a piece: whichever thread swaps a 0 for DONE
    /// marks the node, the pass reading it or the thread whose decrement brought it to 0.
    fn eliminate_piece(&self, k: usize) -> usize {
        let claim = |n: u32| {
            let zero = self.count(n);
            (zero.compare_exchange(0, DONE, Ordering::Relaxed, Ordering::Relaxed)).is_ok()
        };
        let (mut marked, mut chase) = (0usize, Vec::new());
        for n in self.piece(k) {
            if claim(n) {
                chase.push(n);
            }
            while let Some(m) = chase.pop() {
                marked += 1;
                self.targets(m, &mut |to, _| {
                    let last = self.count(to).fetch_sub(1, Ordering::Relaxed) == 1;
                    if last && chase.len() < self.chase && claim(to) {
                        chase.push(to);
                    }
                });
            }
        }
        marked
    }

    /// Keeps the nodes that an inside edge clearing `bit`, from a node left, reaches through
    /// nodes left; each count becomes that of the edges into it from those. The number of
    /// nodes taken off.
    fn reach(&self, bit: u64) -> usize {
        // The counts start again from 0, with no flag.
        self.each_piece(|k| {
            for n in self.piece(k).filter(|&n| self.left(n)) {
                self.count(n).store(0, Ordering::Relaxed);
            }
            0
        });
        self.each_piece(|k| {
            let mut chase = Vec::new();
            for n in self.piece(k).filter(|&n| self.left(n)) {
                self.targets(n, &mut |to, pending| {
                    if pending & bit == 0 {
                        self.arrive(to, &mut chase);
                    }
                });
                self.go_on(&mut chase);
            }
            0
        });
        // The nodes reached whose edges are not counted yet: those a thread had no room for.
        while self.each_piece(|k| self.count_reached(k)) > 0 {}
        self.each_piece(|k| {
            let mut off = 0;
            for n in self.piece(k).filter(|&n| self.left(n)) {
                let c = self.count(n);
                let v = c.load(Ordering::Relaxed);
                let v = match v & REACHED {
                    0 => (DONE, off += 1).0,
                    _ => v & COUNT,
                };
                c.store(v, Ordering::Relaxed);
            }
            off
        })
    }

    /// Node `to` is reached: the thread that reaches it first counts its edges, at once when
    /// `chase` has room.
    fn arrive(&self, to: u32, chase: &mut Vec<u32>) {
        let before = self.count(to).fetch_or(REACHED, Ordering::Relaxed);
        debug_assert!(before & COUNT < COUNT, "a count below the flags");
        if before & REACHED == 0 && chase.len() < self.chase {
            chase.push(to);
        }
    }

    /// Counts the edges of each node of `chase` and of those they reach first.
    fn go_on(&self, chase: &mut Vec<u32>) -> usize {
        let mut counted = 0;
        while let Some(m) = chase.pop() {
            counted += self.count_edges(m, chase);
        }
        counted
    }

    /// Counts, once, the edges out of reached node `m` into the nodes left, reaching them.
    fn count_edges(&self, m: u32, chase: &mut Vec<u32>) -> usize {
        if self.count(m).fetch_or(COUNTED, Ordering::Relaxed) & COUNTED != 0 {
            return 0;
        }
        self.targets(m, &mut |to, _| {
            self.count(to).fetch_add(1, Ordering::Relaxed);
            self.arrive(to, chase);
        });
        1
    }

    /// A pass over a piece, counting the edges of the nodes reached whose edges are not
    /// counted; how many it counted.
    fn count_reached(&self, k: usize) -> usize {
        let mut chase = Vec::new();
        let mut counted = 0;
        for n in self.piece(k) {
            let v = self.count(n).load(Ordering::Relaxed);
            if v != DONE && v & REACHED != 0 && v & COUNTED == 0 {
                counted += self.count_edges(n, &mut chase) + self.go_on(&mut chase);
            }
        }
        counted
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::product::{Numbered, Product, always_pending, search};

    /// A product of avoid nodes with `edges` (inside, in order of their sources), each with
    /// its pending bits.
    fn product(nodes: u32, edges: &[(u32, u32, u64)]) -> Product {
        let mut product = Product::default();
        for n in 0..nodes {
            product.add_node(n, true, None);
        }
        for n in 0..nodes {
            product.start(n);
            for &(_, to, pending) in edges.iter().filter(|e| e.0 == n) {
                product.push_edge(to, 0, true, pending);
            }
        }
        product
    }

    /// `edges` with no bit pending.
    fn plain(edges: &[(u32, u32)]) -> Vec<(u32, u32, u64)> {
        edges.iter().map(|&(from, to)| (from, to, 0)).collect()
    }

    /// Threads, nodes a piece and nodes a thread goes on from the trimming is run with: one
    /// piece, pieces of 1, 7 and 100 nodes on 2 and 3 threads, and a thread going on from
    /// one node or 3 at once (the others left to the next pass).
    const SPLITS: [(usize, usize, usize); 6] = [
        (1, PIECE, CHASE),
        (2, 1, CHASE),
        (3, 7, 3),
        (2, 100, 1),
        (1, PIECE, 1),
        (3, PIECE, CHASE),
    ];

    /// The nodes left on each of [`SPLITS`] (the same on each).
    fn left(product: &Product) -> Vec<u32> {
        let dense = Dense::new(product, 1);
        let runs: Vec<Vec<u32>> = (SPLITS.iter())
            .map(|&split| {
                let numbers = trim(product, &dense, split).0;
                assert!(numbers.iter().all(|&c| c == DONE || c == 0));
                let left = (0..product.nodes() as u32).filter(|&n| numbers[n as usize] == 0);
                left.collect()
            })
            .collect();
        assert!(runs.iter().all(|r| r == &runs[0]), "{runs:?}");
        runs[0].clone()
    }

    /// A cycle 1 <-> 2 reached from 5 -> 0 -> 1, reaching 3 -> 4; node 6 alone; a chain
    /// 12 -> 11 -> ... -> 7 (numbers falling: a pass in order marks one of it); a self-loop
    /// on 13 reaching 14. Marked: what no cycle reaches, on any number of threads.
    #[test]
    fn the_nodes_no_cycle_reaches_are_marked() {
        let mut edges = vec![
            (0, 1),
            (1, 2),
            (2, 1),
            (2, 3),
            (3, 4),
            (5, 0),
            (13, 13),
            (13, 14),
        ];
        edges.extend((8..=12).map(|n| (n, n - 1)));
        edges.sort();
        let product = product(15, &plain(&edges));
        assert_eq!(left(&product), [1, 2, 3, 4, 13, 14]);
    }

    /// A chain of 3,000 nodes whose numbers fall (2,999 -> 2,998 -> ... -> 0) is peeled in
    /// one pass that marks and one that finds nothing left, not a pass a node: each node
    /// brought to 0 is marked by the thread that brought it there.
    #[test]
    fn a_falling_chain_is_peeled_in_one_pass() {
        let edges: Vec<(u32, u32)> = (1..3_000).map(|n| (n, n - 1)).collect();
        let product = product(3_000, &plain(&edges));
        let dense = Dense::new(&product, 1);
        for threads in 1..4 {
            let (numbers, work) = trim(&product, &dense, (threads, PIECE, CHASE));
            assert!(numbers.iter().all(|&c| c == DONE), "{threads} threads");
            assert_eq!(
                work,
                Work {
                    passes: 2,
                    rounds: 0
                },
                "{threads} threads"
            );
        }
    }

    /// Bit 1 pending on every edge of the cycle 0 -> 1 -> 2 -> 0 and of what it reaches
    /// (3), cleared on the cycle 4 <-> 5, which reaches 6 and is reached from 2; the cycle 7
    /// <-> 8 clears bit 1 but not bit 2, 9 <-> 10 bit 2 but not bit 1, 8 -> 9 joining them.
    /// Left: the cycle that clears both bits and what it reaches. With no bits, every node
    /// is on a cycle or reached from one: none goes.
    #[test]
    fn cycles_that_clear_no_bit_are_taken_off() {
        let edges = [
            (0, 1, 1),
            (1, 2, 1),
            (2, 0, 1),
            (1, 3, 1),
            (2, 4, 1),
            (4, 5, 0),
            (5, 4, 0),
            (5, 6, 0),
            (7, 8, 2),
            (8, 7, 2),
            (8, 9, 2),
            (9, 10, 1),
            (10, 9, 1),
        ];
        let with_bits = product(11, &edges);
        assert_eq!(with_bits.cycle_bits(), 3);
        assert_eq!(left(&with_bits), [4, 5, 6]);
        let edges: Vec<(u32, u32)> = edges.iter().map(|&(f, t, _)| (f, t)).collect();
        let without = product(11, &plain(&edges));
        assert_eq!(left(&without), (0..11).collect::<Vec<u32>>());
    }

    /// A small generator of pseudo-random numbers (xorshift), for the products below.
    struct Random(u64);

    impl Random {
        fn below(&mut self, n: u64) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0 % n
        }
    }

    /// A random product of 500 to 3,000 nodes, up to 2 edges a node (most to a node a few
    /// numbers on, so that there are cycles), with up to 3 bits, each cleared on an edge with
    /// a chance of 0, 1/64, 1/4 or 3/4.
    fn random_product(random: &mut Random) -> Product {
        let nodes = 500 + random.below(2_500) as u32;
        let bits = random.below(4);
        let clear: Vec<u64> = (0..bits)
            .map(|_| [0, 1, 16, 48][random.below(4) as usize])
            .collect();
        let mut edges = Vec::new();
        for from in 0..nodes {
            for _ in 0..random.below(3) {
                let to = match random.below(8) {
                    0 => random.below(nodes as u64) as u32,
                    _ => (from + random.below(12) as u32) % nodes,
                };
                let pending = (0..bits)
                    .filter(|&b| random.below(64) >= clear[b as usize])
                    .fold(0, |all, b| all | 1 << b);
                edges.push((from, to, pending));
            }
        }
        product(nodes, &edges)
    }

    /// The accepting components (clearing every bit), sorted, that Tarjan's search finds
    /// from the numbers `numbers` (all 0: every node).
    fn components(product: &Product, dense: Dense, numbers: Vec<u32>) -> Vec<Vec<u32>> {
        let bytes = dense.bytes();
        let roots = 0..product.nodes() as u32;
        let numbered = Numbered { dense, numbers };
        let sccs = search(product, roots, (None, bytes), numbered).expect("no bound");
        let mut sccs: Vec<Vec<u32>> = (sccs.into_iter())
            .filter(|scc| always_pending(product, scc) == 0)
            .collect();
        sccs.sort();
        sccs
    }

    /// On random products, the accepting components Tarjan's search finds after the
    /// trimming are those it finds without, on each of [`SPLITS`]; what the trimming leaves
    /// is empty exactly when there are none, and the bits take off more than the elimination
    /// alone on some.
    #[test]
    fn the_trimming_keeps_every_accepting_component() {
        let mut random = Random(0x9e37_79b9_7f4a_7c15);
        let (mut none, mut some, mut fewer) = (0, 0, 0);
        for round in 0..60 {
            let product = random_product(&mut random);
            let everything = vec![0; product.nodes()];
            let expected = components(&product, Dense::new(&product, 1), everything);
            let left = left(&product);
            assert_eq!(left.is_empty(), expected.is_empty(), "round {round}");
            for split in SPLITS {
                let dense = Dense::new(&product, 1);
                let numbers = trim(&product, &dense, split).0;
                let found = components(&product, dense, numbers);
                assert_eq!(found, expected, "round {round}, {split:?}");
            }
            let dense = Dense::new(&product, 1);
            // The elimination alone.
            let alone = Trim {
                product: &product,
                dense: &dense,
                counts: (0..dense.len()).map(|_| AtomicU32::new(0)).collect(),
                threads: 1,
                piece: PIECE,
                chase: CHASE,
            };
            alone.count_all();
            let peeled = alone.eliminate(&mut 0);
            fewer += usize::from(left.len() < dense.len() - peeled);
            match expected.is_empty() {
                true => none += 1,
                false => some += 1,
            }
        }
        assert!(
            none > 5 && some > 5 && fewer > 5,
            "{none} without, {some} with, {fewer} fewer"
        );
    }
}
