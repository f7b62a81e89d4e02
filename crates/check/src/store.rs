//! The visited store: every state as its sequence of interned component ids (see
//! [`crate::intern`]), all in one flat arena, found by an xxh3 fingerprint of the sequence and
//! compared as a slice.

use crate::intern::Interner;
use agentpi_semantics::State;
use hashbrown::HashTable;

/// A state's id sequence and its fingerprint.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Key {
    pub(crate) hash: u64,
    pub(crate) ids: Box<[u32]>,
}

/// Stored states, numbered in the order they were added.
pub(crate) struct Store {
    interner: Interner,
    /// The id sequences of all states, one after another.
    arena: Vec<u32>,
    /// State `i` is `arena[offsets[i]..offsets[i + 1]]`.
    offsets: Vec<u64>,
    index: HashTable<u32>,
}

/// Bytes a stored state takes besides its ids: its offset and its entry in the index (a `u32`
/// and a control byte a bucket at a load of at most 7/8, rounded up).
const STATE_OVERHEAD: u64 = 8 + 8;

impl Default for Store {
    fn default() -> Store {
        Store {
            interner: Interner::default(),
            arena: Vec::new(),
            offsets: vec![0],
            index: HashTable::new(),
        }
    }
}

impl Store {
    pub(crate) fn len(&self) -> usize {
        self.offsets.len() - 1
    }

    /// State number `i`, rebuilt from the interner's canonical components.
    pub(crate) fn state(&self, i: u32) -> State {
        self.interner.state(self.ids(i))
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
        self.index
            .find(key.hash, |&i| self.ids(i) == &key.ids[..])
            .copied()
    }

    /// Adds a state that is not stored yet; returns its number.
    pub(crate) fn insert(&mut self, key: &Key) -> u32 {
        let i = self.len() as u32;
        self.arena.extend_from_slice(&key.ids);
        self.offsets.push(self.arena.len() as u64);
        let (arena, offsets) = (&self.arena, &self.offsets);
        // Growing the index rehashes from the arena: no fingerprint is kept per state.
        let rehash = |&j: &u32| fingerprint(slice(arena, offsets, j));
        self.index.insert_unique(key.hash, i, rehash);
        i
    }

    /// The bytes the store holds: the arena, the offsets, the index and the interner.
    pub(crate) fn bytes(&self) -> u64 {
        4 * self.arena.len() as u64 + STATE_OVERHEAD * self.len() as u64 + self.interner.bytes()
    }

    /// The interned components and queues.
    pub(crate) fn interner(&self) -> &Interner {
        &self.interner
    }

    pub(crate) fn interner_mut(&mut self) -> &mut Interner {
        &mut self.interner
    }

    /// The number of the state whose ids are `ids` (with fingerprint `hash`), if stored.
    pub(crate) fn find_ids(&self, hash: u64, ids: &[u32]) -> Option<u32> {
        self.index.find(hash, |&i| self.ids(i) == ids).copied()
    }

    /// The id sequence of state `i`, in key order (`Interner::key_order`).
    pub(crate) fn ids(&self, i: u32) -> &[u32] {
        slice(&self.arena, &self.offsets, i)
    }
}

/// The bytes storing a state with this key adds (besides components not interned yet).
pub(crate) fn state_bytes(key: &Key) -> u64 {
    4 * key.ids.len() as u64 + STATE_OVERHEAD
}

fn slice<'a>(arena: &'a [u32], offsets: &[u64], i: u32) -> &'a [u32] {
    let i = i as usize;
    &arena[offsets[i] as usize..offsets[i + 1] as usize]
}

pub(crate) fn key(ids: Vec<u32>) -> Key {
    Key {
        hash: fingerprint(&ids),
        ids: ids.into_boxed_slice(),
    }
}

/// The xxh3 hash of an id sequence's little-endian bytes: stable across processes.
pub(crate) fn fingerprint(ids: &[u32]) -> u64 {
    // The bytes are copied into a reused buffer: reading `&[u32]` as bytes in place would
    // need `unsafe`, and the copy is a few dozen bytes.
    thread_local!(static BYTES: std::cell::RefCell<Vec<u8>> = const {
        std::cell::RefCell::new(Vec::new())
    });
    BYTES.with_borrow_mut(|bytes| {
        bytes.clear();
        bytes.extend(ids.iter().flat_map(|id| id.to_le_bytes()));
        xxhash_rust::xxh3::xxh3_64(bytes)
    })
}
