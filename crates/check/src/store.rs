//! The visited store: every state as its sequence of interned component ids (see
//! [`crate::intern`]), kept as a tree of shared pairs (tree compression, as in LTSmin).
//!
//! A state's ids, in key order, are paired up level by level: each level's items two by two
//! (an odd last item goes up as it is) until two remain, which are the state's *record*. Each
//! pair below the record is an interior node, stored once however many states share it: a
//! step changes one or two components, so a successor shares all but the nodes above them
//! with its source, and each instance keeps its place in key order from state to state. The
//! shape depends only on the number of ids, which is stored with the record.
//!
//! A state thus costs its record (8 bytes), its length (1 byte, more only past 254 ids), its
//! entry in the record index, and the few interior nodes no other state has. Finding a target
//! walks up from the ids it does not share with its source ([`Store::find_near`]), so a step
//! costs a hash look-up per level above the components that moved, not a hash of the state.

use crate::intern::Interner;
use agentpi_semantics::State;
use hashbrown::HashTable;
use rustc_hash::{FxBuildHasher, FxHashMap};
use std::hash::BuildHasher;

/// A state's ids, in key order ([`Interner::key_order`]).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Key {
    pub(crate) ids: Box<[u32]>,
}

/// No item: the second half of the record of a one-component state, both halves of an empty
/// one.
const NONE: u32 = u32::MAX;

/// Lengths of 255 and more are kept aside.
const LONG: u8 = u8::MAX;

/// Stored states, numbered in the order they were added.
pub(crate) struct Store {
    /// Tells stores apart for what is remembered of one across explorations (see
    /// `engine::Order`): every store has its own.
    serial: u64,
    interner: Interner,
    /// Interior nodes: pairs of items of the level below.
    nodes: Vec<[u32; 2]>,
    node_index: HashTable<u32>,
    /// State `i` is the pair `records[i]` over `len(i)` ids.
    records: Vec<[u32; 2]>,
    lens: Vec<u8>,
    long: FxHashMap<u32, u32>,
    index: HashTable<u32>,
}

impl Default for Store {
    fn default() -> Store {
        static STORES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        Store {
            serial: STORES.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
            interner: Interner::default(),
            nodes: Vec::new(),
            node_index: HashTable::new(),
            records: Vec::new(),
            lens: Vec::new(),
            long: FxHashMap::default(),
            index: HashTable::new(),
        }
    }
}

/// The levels of a state's tree: `levels[0]` is its ids, each next level the pairs of the
/// one below, the last holding the two items of the record (or fewer for tiny states).
#[derive(Clone, Debug, Default)]
pub(crate) struct Levels {
    levels: Vec<Vec<u32>>,
}

impl Levels {
    /// The ids, in key order.
    pub(crate) fn ids(&self) -> &[u32] {
        self.levels.first().map_or(&[], Vec::as_slice)
    }
}

impl Store {
    pub(crate) fn len(&self) -> usize {
        self.records.len()
    }

    /// State number `i`, rebuilt from the interner's canonical components.
    pub(crate) fn state(&self, i: u32) -> State {
        self.interner.state(self.levels(i).ids())
    }

    /// The key of `state`, interning its new components.
    pub(crate) fn intern(&mut self, state: &State) -> Key {
        let mut ids = Vec::with_capacity(state.procs.len() + state.queues.len());
        self.interner.intern(state, &mut ids);
        self.interner.key_order(&mut ids);
        key(ids)
    }

    /// The key of `state` when every component is interned already (else the state is not
    /// stored, and its key is made later by [`Store::intern`]). Reads only, so the workers
    /// computing successors can call it in parallel.
    pub(crate) fn lookup(&self, state: &State) -> Option<Key> {
        let mut ids = Vec::with_capacity(state.procs.len() + state.queues.len());
        if !self.interner.lookup(state, &mut ids) {
            return None;
        }
        self.interner.key_order(&mut ids);
        Some(key(ids))
    }

    /// The number of the state with this key, if it is stored.
    pub(crate) fn find(&self, key: &Key) -> Option<u32> {
        thread_local!(static SCRATCH: std::cell::RefCell<Levels> = Default::default());
        SCRATCH.with_borrow_mut(|scratch| self.find_near(None, &key.ids, scratch))
    }

    /// The number of the state with ids `ids`, if stored, walking up from the ids that differ
    /// from `near`'s (the levels of a state of as many ids, typically the source of the step
    /// that made `ids`). `scratch` is reused between calls.
    pub(crate) fn find_near(
        &self,
        near: Option<&Levels>,
        ids: &[u32],
        scratch: &mut Levels,
    ) -> Option<u32> {
        levels_of(near, ids, scratch, |pair| self.find_node(pair))?;
        let record = record_of(scratch);
        self.index
            .find(hash_state(record, ids.len()), |&i| {
                self.records[i as usize] == record && self.len_of(i) == ids.len()
            })
            .copied()
    }

    /// Adds a state that is not stored yet; returns its number.
    pub(crate) fn insert(&mut self, key: &Key) -> u32 {
        let (i, new) = self.find_or_insert(None, &key.ids);
        debug_assert!(new, "a state is inserted once");
        i
    }

    /// The number of the state with ids `ids`, stored first if it is not: (number, whether
    /// it was new). Nodes are found or added walking up from the ids that differ from
    /// `near`'s (see [`Store::find_near`]).
    pub(crate) fn find_or_insert(&mut self, near: Option<&Levels>, ids: &[u32]) -> (u32, bool) {
        thread_local!(static SCRATCH: std::cell::RefCell<Levels> = Default::default());
        let record = SCRATCH.with_borrow_mut(|levels| {
            let (nodes, index) = (&mut self.nodes, &mut self.node_index);
            levels_of(near, ids, levels, |pair| {
                Some(insert_node(nodes, index, pair))
            })
            .expect("inserting adds every node");
            record_of(levels)
        });
        let hash = hash_state(record, ids.len());
        let (records, lens, long) = (&self.records, &self.lens, &self.long);
        let same = |&i: &u32| records[i as usize] == record && length(lens, long, i) == ids.len();
        if let Some(&i) = self.index.find(hash, same) {
            return (i, false);
        }
        let i = self.records.len() as u32;
        self.records.push(record);
        match u8::try_from(ids.len()) {
            Ok(n) if n < LONG => self.lens.push(n),
            _ => {
                self.lens.push(LONG);
                self.long.insert(i, ids.len() as u32);
            }
        }
        let (records, lens, long) = (&self.records, &self.lens, &self.long);
        let rehash = |&j: &u32| hash_state(records[j as usize], length(lens, long, j));
        self.index.insert_unique(hash, i, rehash);
        (i, true)
    }

    /// The tree of state `i`, read down from its record.
    pub(crate) fn levels(&self, i: u32) -> Levels {
        let mut levels = Levels::default();
        self.read_levels(i, &mut levels);
        levels
    }

    /// The tree of state `i` into `out`, reusing its room.
    pub(crate) fn read_levels(&self, i: u32, out: &mut Levels) {
        let mut sizes = [0usize; 64];
        let (mut count, mut n) = (1, self.len_of(i));
        sizes[0] = n;
        while n > 2 {
            n = n.div_ceil(2);
            sizes[count] = n;
            count += 1;
        }
        let levels = &mut out.levels;
        levels.resize_with(count, Vec::new);
        levels.truncate(count);
        let record = self.records[i as usize];
        levels[count - 1].clear();
        levels[count - 1].extend(record.iter().copied().take(sizes[0].min(2)));
        for k in (0..count - 1).rev() {
            let (below, above) = levels.split_at_mut(k + 1);
            let (below, above) = (&mut below[k], &above[0]);
            below.clear();
            for (j, &item) in above.iter().enumerate() {
                match 2 * j + 1 < sizes[k] {
                    true => below.extend_from_slice(&self.nodes[item as usize]),
                    false => below.push(item),
                }
            }
        }
    }

    /// The bytes the store holds: records, lengths, nodes, both indices (a `u32` and a
    /// control byte a bucket), and the interner.
    pub(crate) fn bytes(&self) -> u64 {
        let records = (8 + 1) * self.records.len() + 5 * self.index.capacity();
        let nodes = 8 * self.nodes.len() + 5 * self.node_index.capacity();
        (records + nodes + 12 * self.long.len()) as u64 + self.interner.bytes()
    }

    /// This store's own number among the process's stores.
    pub(crate) fn serial(&self) -> u64 {
        self.serial
    }

    /// The interned components and queues.
    pub(crate) fn interner(&self) -> &Interner {
        &self.interner
    }

    pub(crate) fn interner_mut(&mut self) -> &mut Interner {
        &mut self.interner
    }

    fn len_of(&self, i: u32) -> usize {
        length(&self.lens, &self.long, i)
    }

    fn find_node(&self, pair: [u32; 2]) -> Option<u32> {
        let nodes = &self.nodes;
        self.node_index
            .find(hash_node(pair), |&j| nodes[j as usize] == pair)
            .copied()
    }
}

/// The node of `pair`, added when new.
fn insert_node(nodes: &mut Vec<[u32; 2]>, index: &mut HashTable<u32>, pair: [u32; 2]) -> u32 {
    let hash = hash_node(pair);
    if let Some(&j) = index.find(hash, |&j| nodes[j as usize] == pair) {
        return j;
    }
    let j = nodes.len() as u32;
    nodes.push(pair);
    let rehash = |&k: &u32| hash_node(nodes[k as usize]);
    index.insert_unique(hash, j, rehash);
    j
}

/// Pairs `ids` up level by level into `out` (see the module's comment), taking each pair's
/// node from `near` when its two items are the same there, else from `node`; `None` as soon
/// as `node` has none.
fn levels_of(
    near: Option<&Levels>,
    ids: &[u32],
    out: &mut Levels,
    mut node: impl FnMut([u32; 2]) -> Option<u32>,
) -> Option<()> {
    let near = near.filter(|n| n.ids().len() == ids.len());
    let levels = &mut out.levels;
    levels.resize_with(levels.len().max(1), Vec::new);
    levels[0].clear();
    levels[0].extend_from_slice(ids);
    let mut k = 0;
    while levels[k].len() > 2 {
        if levels.len() == k + 1 {
            levels.push(Vec::new());
        }
        let (below, above) = levels.split_at_mut(k + 1);
        let (below, above) = (&below[k], &mut above[0]);
        above.clear();
        above.reserve(below.len().div_ceil(2));
        for (j, pair) in below.chunks(2).enumerate() {
            let item = match *pair {
                [a, b] => match near.map(|n| (&n.levels[k], &n.levels[k + 1])) {
                    Some((nb, na)) if nb[2 * j] == a && nb[2 * j + 1] == b => na[j],
                    _ => node([a, b])?,
                },
                [a] => a,
                _ => unreachable!("chunks of two"),
            };
            above.push(item);
        }
        k += 1;
    }
    levels.truncate(k + 1);
    Some(())
}

/// The record of a state from its levels: the two items of the top level.
fn record_of(levels: &Levels) -> [u32; 2] {
    let top = levels.levels.last().map_or(&[][..], Vec::as_slice);
    [
        top.first().copied().unwrap_or(NONE),
        top.get(1).copied().unwrap_or(NONE),
    ]
}

fn length(lens: &[u8], long: &FxHashMap<u32, u32>, i: u32) -> usize {
    match lens[i as usize] {
        LONG => long[&i] as usize,
        n => n as usize,
    }
}

/// The bytes storing a state with this key adds (besides nodes and components not stored
/// yet): its record, its length and its index entry.
pub(crate) fn state_bytes() -> u64 {
    8 + 1 + 8
}

pub(crate) fn key(ids: Vec<u32>) -> Key {
    Key {
        ids: ids.into_boxed_slice(),
    }
}

fn hash_state(record: [u32; 2], len: usize) -> u64 {
    FxBuildHasher.hash_one((record, len))
}

fn hash_node(pair: [u32; 2]) -> u64 {
    FxBuildHasher.hash_one(pair)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A few thousand id vectors of lengths 0 to 299 (long ones past the one-byte lengths),
    /// many sharing most of their ids: each is found after it is stored, by itself and near
    /// another of its length, reads back as itself, and no other is found.
    #[test]
    fn stored_vectors_read_back_and_are_found_near_others() {
        let mut store = Store::default();
        let mut seed = 7u64;
        let mut next = move || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) as u32
        };
        let mut vectors: Vec<Vec<u32>> = Vec::new();
        for i in 0..3000 {
            let len = match i % 10 {
                0 => 255 + (next() % 45) as usize,
                _ => (next() % 30) as usize,
            };
            let mut v: Vec<u32> = (0..len as u32).collect();
            for _ in 0..(next() % 3) {
                if let Some(slot) = v.get_mut(next() as usize % len.max(1)) {
                    *slot = next() % 8;
                }
            }
            vectors.push(v);
        }
        let mut numbers = Vec::new();
        for v in &vectors {
            let k = key(v.clone());
            let n = store.find(&k).unwrap_or_else(|| store.insert(&k));
            numbers.push(n);
        }
        let mut scratch = Levels::default();
        for (v, &n) in vectors.iter().zip(&numbers) {
            assert_eq!(store.levels(n).ids(), &v[..]);
            assert_eq!(store.find(&key(v.clone())), Some(n));
            let near = vectors.iter().position(|w| w.len() == v.len() && w != v);
            if let Some(w) = near {
                let levels = store.levels(numbers[w]);
                assert_eq!(store.find_near(Some(&levels), v, &mut scratch), Some(n));
            }
        }
        let absent: Vec<u32> = (0..12).map(|i| 1000 + i).collect();
        assert_eq!(store.find(&key(absent)), None);
    }
}
