//! The queues of buffered channels: part of a state, kept in canonical form with it.
//!
//! A state holds one queue per buffered channel that has messages waiting (an empty queue is
//! not stored). A queue of a fresh channel that no component holds, directly or through a
//! message waiting in a live queue, can never be read: it is dropped, as a name nobody holds
//! is (law *Res-GC*).

use crate::value::{Chan, Value, cmp_chan, cmp_values};
use rustc_hash::FxHashSet;
use std::cmp::Ordering;

/// The messages waiting in one buffered channel, oldest first.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Queue {
    pub chan: Chan,
    pub messages: Vec<Box<[Value]>>,
}

impl Queue {
    /// Calls `f` on every fresh id the queue holds: its channel's, then its messages', in
    /// order.
    pub fn for_each_fresh(&self, f: &mut impl FnMut(u32)) {
        if let Chan::Fresh { id, .. } = self.chan {
            f(id);
        }
        self.for_each_value(&mut |v| v.for_each_fresh(f));
    }

    /// Calls `f` on every value of every message, in order.
    pub fn for_each_value(&self, f: &mut impl FnMut(&Value)) {
        self.messages.iter().flat_map(|m| m.iter()).for_each(f);
    }

    fn rename(&mut self, map: &[u32]) {
        if let Chan::Fresh { id, .. } = &mut self.chan {
            *id = map[*id as usize];
        }
        for message in &mut self.messages {
            message.iter_mut().for_each(|v| v.rename(map));
        }
    }
}

/// Drops empty queues and those no one can read any more; `held` are the fresh ids the
/// components hold.
pub(crate) fn collect_garbage(queues: &mut Vec<Queue>, mut held: FxHashSet<u32>) {
    queues.retain(|q| !q.messages.is_empty());
    let mut live = vec![false; queues.len()];
    loop {
        let mut grew = false;
        for (q, alive) in queues.iter().zip(live.iter_mut()) {
            let readable = match q.chan {
                Chan::Global(_) => true,
                Chan::Fresh { id, .. } => held.contains(&id),
            };
            if readable && !*alive {
                *alive = true;
                grew = true;
                q.for_each_value(&mut |v| v.for_each_fresh(&mut |id| _ = held.insert(id)));
            }
        }
        if !grew {
            break;
        }
    }
    let mut keep = live.into_iter();
    queues.retain(|_| keep.next().unwrap_or(false));
}

/// Sorts queues by channel and contents; with `anon`, fresh names compare by origin only.
pub(crate) fn sort_queues(queues: &mut [Queue], anon: bool) {
    queues.sort_by(|a, b| cmp_queue(a, b, anon));
}

fn cmp_queue(a: &Queue, b: &Queue, anon: bool) -> Ordering {
    cmp_chan(a.chan, b.chan, anon)
        .then(a.messages.len().cmp(&b.messages.len()))
        .then_with(|| {
            let pairs = a.messages.iter().zip(&b.messages);
            let mut order = pairs.map(|(x, y)| cmp_values(x, y, anon));
            order
                .find(|o| *o != Ordering::Equal)
                .unwrap_or(Ordering::Equal)
        })
}

pub(crate) fn rename_queues(queues: &mut [Queue], map: &[u32]) {
    queues.iter_mut().for_each(|q| q.rename(map));
}

/// The queue of `chan` in `queues`, if it has messages.
pub(crate) fn find(queues: &[Queue], chan: Chan) -> Option<&Queue> {
    queues.iter().find(|q| q.chan == chan)
}

/// `queues` with `message` added at the end of `chan`'s queue.
pub fn push(queues: &[Queue], chan: Chan, message: Box<[Value]>) -> Vec<Queue> {
    let mut out = queues.to_vec();
    match out.iter_mut().find(|q| q.chan == chan) {
        Some(q) => q.messages.push(message),
        None => out.push(Queue {
            chan,
            messages: vec![message],
        }),
    }
    out
}

/// `queues` with the oldest message of `chan`'s queue taken out.
pub fn pop(queues: &[Queue], chan: Chan) -> Vec<Queue> {
    let mut out = queues.to_vec();
    if let Some(q) = out.iter_mut().find(|q| q.chan == chan) {
        q.messages.remove(0);
    }
    out.retain(|q| !q.messages.is_empty());
    out
}
