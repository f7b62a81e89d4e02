//! Rebuilding the counterexamples: the first worker asks the owners of the findings'
//! sources for their states and parents, then the parents' owners, level by level back to
//! the initial state.

use crate::codec::{In, Out, malformed};
use crate::net::Net;
use crate::search::{Ended, Part, ROOT};
use agentpi_semantics::State;
use rustc_hash::FxHashMap;
use timely::worker::Worker;

/// The states (with their parents' places) on the paths to every finding of `ended`, by
/// place: on the first worker; empty on the others. Every worker takes part in as many
/// rounds, which all know from `ended`.
pub fn fetch(
    worker: &mut Worker,
    net: &mut Net,
    part: &Part,
    ended: &Ended,
) -> FxHashMap<u64, (State, u64)> {
    let events = ended.firsts.iter().flatten().chain(ended.limit.iter());
    // A path from a source of depth `d` has `d + 1` states: one round each.
    let rounds = match events.clone().next() {
        Some(_) => ended.depth + 1,
        None => 0,
    };
    let mut pending: Vec<u64> = match net.index {
        0 => events.map(|e| e.place).collect(),
        _ => Vec::new(),
    };
    pending.sort_unstable();
    pending.dedup();
    let mut known = FxHashMap::default();
    for _ in 0..rounds {
        let asks = pending.drain(..).map(|p| {
            let mut m = Out::default();
            m.u64(p);
            ((p >> 32) as u32, m.0)
        });
        let asked = net.round(worker, asks.collect());
        let answers = asked.iter().map(|bytes| answer(part, bytes)).collect();
        for bytes in net.round(worker, answers) {
            let mut r = In::new(&bytes);
            let read = (|| Ok::<_, &str>((r.u64()?, r.u64()?, r.state()?)))();
            let (p, parent, state) = read.unwrap_or_else(|why| malformed(why));
            if parent != ROOT && !known.contains_key(&parent) && !pending.contains(&parent) {
                pending.push(parent);
            }
            known.insert(p, (state, parent));
        }
        pending.retain(|p| !known.contains_key(p));
    }
    known
}

/// The state asked for, with its parent's place, for the first worker.
fn answer(part: &Part, bytes: &[u8]) -> (u32, Vec<u8>) {
    let p = In::new(bytes).u64().unwrap_or_else(|why| malformed(why));
    let n = p as u32;
    let mut m = Out::default();
    m.u64(p);
    m.u64(part.parents[n as usize]);
    m.state(&part.visited.state(n));
    (0, m.0)
}

/// The states from the initial one to the one at `place`.
pub fn path(known: &FxHashMap<u64, (State, u64)>, mut place: u64) -> Vec<State> {
    let mut states = Vec::new();
    while place != ROOT {
        let (state, parent) = &known[&place];
        states.push(state.clone());
        place = *parent;
    }
    states.reverse();
    states
}
