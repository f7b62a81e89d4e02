//! The obligations of strong fairness as bits: each instance and each channel of a graph
//! has a number, and the obligations an edge takes, or a state enables, are a few words of
//! bits, found with two array reads an edge. Before 2026-12-07 each was a hash set, made
//! anew for each node of each part searched (about three quarters of the instructions of
//! the search of the parts, on philosophers).

use super::{Obligation, Selection, channel, selected};
use crate::edges::Edge;
use crate::graph::Graph;

/// A set of obligations: bit `i` of word `i / 64` is obligation `i`.
pub(crate) type Set = Vec<u64>;

/// The label has no channel obligation (see [`Bits::chan`]).
const NONE: u32 = u32::MAX;

/// The numbers of a graph's obligations, and the sets they make up.
pub(crate) struct Bits {
    /// The words of a set.
    words: usize,
    /// The number of the channel each label communicates on, or [`NONE`].
    chan: Vec<u32>,
    /// The instances of each actor set (`words` words a set, one after the other).
    actors: Vec<u64>,
    /// The obligations held to strong fairness.
    pub(crate) selected: Set,
    /// The instances (each held to weak fairness under a selection).
    pub(crate) instances: Set,
}

impl Bits {
    /// The obligations of `graph`, instance `a` numbered `a`, its channels after them in
    /// their order.
    pub(crate) fn new(graph: &Graph, selection: Option<&Selection>) -> Self {
        let most = graph.actor_sets.iter().flatten().map(|&a| a as usize + 1);
        let instances = most.max().unwrap_or(0).max(graph.instances.len());
        let of_label: Vec<Option<Obligation>> = (0..graph.labels.len() as u32)
            .map(|l| channel(graph, l))
            .collect();
        let mut chans: Vec<Obligation> = of_label.iter().flatten().copied().collect();
        chans.sort_unstable();
        chans.dedup();
        let words = (instances + chans.len()).div_ceil(64).max(1);
        let number = |o: &Obligation| instances + chans.binary_search(o).expect("a channel");
        let chan = (of_label.iter())
            .map(|o| o.as_ref().map_or(NONE, |o| number(o) as u32))
            .collect();
        let mut actors = vec![0; words * graph.actor_sets.len()];
        for (k, set) in graph.actor_sets.iter().enumerate() {
            for &a in set {
                put(&mut actors[k * words..(k + 1) * words], a as usize);
            }
        }
        let mut bits = Bits {
            words,
            chan,
            actors,
            selected: vec![0; words],
            instances: vec![0; words],
        };
        let all = (0..instances).map(|a| Obligation::Instance(a as u32));
        for (i, o) in all.chain(chans.iter().copied()).enumerate() {
            if i < instances {
                put(&mut bits.instances, i);
            }
            if selected(selection, &o) {
                put(&mut bits.selected, i);
            }
        }
        bits
    }

    /// The empty set.
    pub(crate) fn none(&self) -> Set {
        vec![0; self.words]
    }

    /// The set of every obligation (and of numbers none takes).
    pub(crate) fn every(&self) -> Set {
        vec![u64::MAX; self.words]
    }

    /// Adds the obligations edge `e` takes to `into`.
    pub(crate) fn take(&self, e: Edge, into: &mut [u64]) {
        let k = e.actors as usize * self.words;
        for (w, a) in into.iter_mut().zip(&self.actors[k..k + self.words]) {
            *w |= a;
        }
        if let Some(&c) = self.chan.get(e.label as usize).filter(|&&c| c != NONE) {
            put(into, c as usize);
        }
    }

    /// `into` becomes the obligations enabled in system state `state`.
    pub(crate) fn enabled(&self, graph: &Graph, state: u32, into: &mut [u64]) {
        into.fill(0);
        for e in graph.successors(state).iter() {
            self.take(e, into);
        }
    }
}

fn put(set: &mut [u64], i: usize) {
    set[i / 64] |= 1 << (i % 64);
}

/// `a` becomes `a | b`.
pub(crate) fn or(a: &mut [u64], b: &[u64]) {
    a.iter_mut().zip(b).for_each(|(a, b)| *a |= b);
}

/// `a` becomes `a & b`.
pub(crate) fn and(a: &mut [u64], b: &[u64]) {
    a.iter_mut().zip(b).for_each(|(a, b)| *a &= b);
}

/// Whether `a & b & !c` is empty.
pub(crate) fn within(a: &[u64], b: &[u64], c: &[u64]) -> bool {
    a.iter().zip(b).zip(c).all(|((a, b), c)| a & b & !c == 0)
}

/// Whether `a` and `b` have no obligation in common.
pub(crate) fn disjoint(a: &[u64], b: &[u64]) -> bool {
    a.iter().zip(b).all(|(a, b)| a & b == 0)
}
