//! The rank of each new state in its level: its number among the level's states in the
//! single-process engine's order (by its key: its source's rank, then the transition).
//!
//! A distributed sort by counting: the sources' ranks are cut into one range per worker,
//! and each new state's owner sends its key to the worker of its source's range (the
//! *ranker*), which sorts the keys it got; a prefix sum of how many each ranker holds (sent
//! with the level's summary) gives each its first rank, and every ranker sends each state's
//! rank back to its owner. Keys stay two words whatever the depth, and every worker holds
//! about its share of the level.

use crate::codec::{In, Out, malformed};
use crate::expand::Key;
use crate::net::Net;
use timely::worker::Worker;

/// The keys a worker ranks: (key, the owner, the state's number there), sorted.
pub struct Ranker {
    entries: Vec<(Key, u32, u32)>,
}

/// The worker that ranks the successors of the source of rank `rank`, among `sources`.
fn ranker(rank: u64, sources: u64, peers: usize) -> u32 {
    (u128::from(rank) * peers as u128 / u128::from(sources.max(1))) as u32
}

impl Ranker {
    /// Sends the key of each new state (`new`: key and number) to its ranker and takes those
    /// sent here; `sources` is the size of the level they were found from.
    pub fn gather(worker: &mut Worker, net: &mut Net, new: &[(Key, u32)], sources: u64) -> Self {
        let mut out: Vec<Out> = (0..net.peers).map(|_| Out::default()).collect();
        for &((rank, index), n) in new {
            let o = &mut out[ranker(rank, sources, net.peers) as usize];
            if o.0.is_empty() {
                o.u32(net.index as u32);
            }
            o.u64(rank);
            o.u32(index);
            o.u32(n);
        }
        let full = out.into_iter().enumerate().filter(|(_, o)| !o.0.is_empty());
        let msgs = full.map(|(w, o)| (w as u32, o.0)).collect();
        let mut entries = Vec::new();
        for bytes in net.round(worker, msgs) {
            let mut r = In::new(&bytes);
            let from = r.u32().unwrap_or_else(|why| malformed(why));
            while !r.is_empty() {
                let read = (|| Ok::<_, &str>(((r.u64()?, r.u32()?), r.u32()?)))();
                let (key, n) = read.unwrap_or_else(|why| malformed(why));
                entries.push((key, from, n));
            }
        }
        entries.sort_unstable();
        Ranker { entries }
    }

    /// How many states this worker ranks.
    pub fn len(&self) -> u64 {
        self.entries.len() as u64
    }

    /// The rank of the source of the `i`th state this worker ranks.
    pub fn source_of(&self, i: u64) -> u64 {
        self.entries[i as usize].0.0
    }

    /// Sends each state's rank (`first` for the first this worker ranks) to its owner; this
    /// worker's new states `(rank, number)`, by rank: the next level's frontier.
    pub fn ranks(self, worker: &mut Worker, net: &mut Net, first: u64) -> Vec<(u64, u32)> {
        let mut out: Vec<Out> = (0..net.peers).map(|_| Out::default()).collect();
        for (i, (_, owner, n)) in self.entries.into_iter().enumerate() {
            let o = &mut out[owner as usize];
            o.u64(first + i as u64);
            o.u32(n);
        }
        let full = out.into_iter().enumerate().filter(|(_, o)| !o.0.is_empty());
        let msgs = full.map(|(w, o)| (w as u32, o.0)).collect();
        let mut frontier = Vec::new();
        for bytes in net.round(worker, msgs) {
            let mut r = In::new(&bytes);
            while !r.is_empty() {
                let read = (|| Ok::<_, &str>((r.u64()?, r.u32()?)))();
                frontier.push(read.unwrap_or_else(|why| malformed(why)));
            }
        }
        frontier.sort_unstable();
        frontier
    }
}
