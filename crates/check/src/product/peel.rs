//! Before the cycle search, the nodes that no cycle reaches are taken off on the run's
//! threads (Kahn's peeling, in parallel): a node lies on a cycle only if a cycle reaches it,
//! so those nodes lie in no component, and Tarjan's search, one thread's, need not read them.
//! Under `leads to` on rpc every node that may cycle is one of them (321,552 of 802,238
//! numbers: the product holds no cycle), and the search reads none.
//!
//! Each node that may cycle counts its inside edges from such nodes, in Tarjan's own array
//! of numbers (4 bytes a node, there already); then, pass after pass over the nodes, one whose
//! count is 0 is marked done and takes 1 off each of its targets' counts, until a pass marks
//! none. A target whose count that brings to 0 is marked at once by the thread that did it
//! (up to [`CHASE`] of them waiting), not left for the next pass: a chain whose numbers fall
//! would otherwise take a pass over every node for each of its nodes. Which nodes end marked
//! does not depend on the order (they are those no cycle reaches), so neither on the threads.

use super::{DONE, Dense, Space};
use std::sync::atomic::{AtomicU32, Ordering};

/// The nodes a thread reads as one piece of work.
const PIECE: usize = 1 << 14;

/// How many nodes brought to 0 a thread keeps to mark at once: a few pages, whatever the
/// product's size (the peeling adds no memory that grows with it); one past them waits for
/// the next pass.
const CHASE: usize = 1 << 12;

/// Tarjan's numbers for the nodes of `dense` (0: not visited yet), those that no cycle of
/// inside edges between them reaches already [`DONE`].
pub(super) fn peel(product: &(impl Space + Sync), dense: &Dense, threads: usize) -> Vec<u32> {
    peel_in_passes(product, dense, threads).0
}

/// [`peel`], with the number of passes it took.
fn peel_in_passes(
    product: &(impl Space + Sync),
    dense: &Dense,
    threads: usize,
) -> (Vec<u32>, usize) {
    let counts: Vec<AtomicU32> = (0..dense.len()).map(|_| AtomicU32::new(0)).collect();
    let count = |n: u32| &counts[dense.of(n)];
    let targets = |n: u32| (product.edges(n)).filter(|e| e.inside && dense.holds(e.to));
    let pieces = product.nodes().div_ceil(PIECE);
    let piece = |k: usize| {
        let end = ((k + 1) * PIECE).min(product.nodes());
        ((k * PIECE) as u32..end as u32).filter(|&n| dense.holds(n))
    };
    crate::lean::parallel::run(threads, pieces, |k| {
        for n in piece(k) {
            targets(n).for_each(|e| _ = count(e.to).fetch_add(1, Ordering::Relaxed));
        }
    });
    // Whichever thread swaps a 0 for DONE marks the node: the pass reading it, or the thread
    // whose decrement brought it to 0.
    let claim = |n: u32| {
        let swap = count(n).compare_exchange(0, DONE, Ordering::Relaxed, Ordering::Relaxed);
        swap.is_ok()
    };
    let pass = |k: usize| {
        let (mut marked, mut chase) = (0usize, Vec::new());
        for n in piece(k) {
            if claim(n) {
                chase.push(n);
            }
            while let Some(m) = chase.pop() {
                marked += 1;
                for e in targets(m) {
                    let last = count(e.to).fetch_sub(1, Ordering::Relaxed) == 1;
                    if last && chase.len() < CHASE && claim(e.to) {
                        chase.push(e.to);
                    }
                }
            }
        }
        marked
    };
    let mut passes = 1;
    while crate::lean::parallel::run(threads, pieces, pass)
        .into_iter()
        .sum::<usize>()
        > 0
    {
        passes += 1;
    }
    // Not visited yet, for the others; in place (the same size).
    let unvisited = |c: AtomicU32| match c.into_inner() {
        DONE => DONE,
        _ => 0,
    };
    (counts.into_iter().map(unvisited).collect(), passes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::product::Product;

    /// A product of avoid nodes with `edges` (inside, in order of their sources).
    fn product(nodes: u32, edges: &[(u32, u32)]) -> Product {
        let mut product = Product::default();
        for n in 0..nodes {
            product.add_node(n, true, None);
        }
        for n in 0..nodes {
            product.start(n);
            for &(_, to) in edges.iter().filter(|&&(from, _)| from == n) {
                product.push_edge(to, 0, true, 0);
            }
        }
        product
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
        let product = product(15, &edges);
        let dense = Dense::new(&product);
        for threads in 1..4 {
            let numbers = peel(&product, &dense, threads);
            let marked: Vec<u32> = (0..15).filter(|&n| numbers[n as usize] == DONE).collect();
            assert_eq!(marked, [0, 5, 6, 7, 8, 9, 10, 11, 12], "{threads} threads");
            assert!(numbers.iter().all(|&c| c == DONE || c == 0));
        }
    }

    /// A chain of 3,000 nodes whose numbers fall (2,999 -> 2,998 -> ... -> 0) is peeled in
    /// one pass that marks and one that finds nothing left, not a pass a node: each node
    /// brought to 0 is marked by the thread that brought it there.
    #[test]
    fn a_falling_chain_is_peeled_in_one_pass() {
        let edges: Vec<(u32, u32)> = (1..3_000).map(|n| (n, n - 1)).collect();
        let product = product(3_000, &edges);
        let dense = Dense::new(&product);
        for threads in 1..4 {
            let (numbers, passes) = peel_in_passes(&product, &dense, threads);
            assert!(numbers.iter().all(|&c| c == DONE), "{threads} threads");
            assert_eq!(passes, 2, "{threads} threads");
        }
    }
}
