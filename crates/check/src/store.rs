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
//! hash (4 bytes), its entry in the state index, and the few interior nodes no other state
//! has. The state index is keyed by a hash of the ids themselves (see [`hash_ids`]), a sum
//! over positions, which a step updates from the one or two ids it changes: finding a target
//! ([`Store::find_changed`]) is one probe, and a candidate is compared with the target by
//! walking down its tree along the paths of what changed only, as SPIN probes its hash table
//! and compares the state vector. Nothing is looked up by hashing pairs unless the state is
//! added.
//!
//! A small state is kept flat instead, as SPIN keeps its state vector: a state of 5 to
//! [`ROW_IDS`] ids, each below 2^16, is a *row* of `u16` ids, four a word, three words
//! ([`Row`]), found by one probe of the same index, a candidate compared word by word with
//! the source's row patched where the step changed it (issue 35: a Peterson N = 4 step's
//! look-up 164 instructions against the tree's 262, a new state 188 against 531). Which
//! kind a state is depends on its ids only ([`RowRule`]), so no state is stored both ways;
//! both kinds share the numbering, the hashes and the index, and a state's length byte
//! tells its kind.
//!
//! Nodes, records and rows are kept in tables that threads read while one writer adds to them
//! ([`table`]): the exploration's workers look targets up while the merge stores the states
//! they did not find, in the order it numbers them. The one writer is whoever holds the
//! store's [`Writer`] (or the store itself, with `&mut`).

mod table;

use crate::intern::Interner;
use agentpi_semantics::State;
use rustc_hash::{FxBuildHasher, FxHashMap};
use std::hash::BuildHasher;
pub(crate) use table::Join;
use table::{Column, Index};

const RELAXED: std::sync::atomic::Ordering = std::sync::atomic::Ordering::Relaxed;

/// A state's ids, in key order ([`Interner::key_order`]).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Key {
    pub(crate) ids: Box<[u32]>,
}

/// No item: the second half of the record of a one-component state, both halves of an empty
/// one.
const NONE: u32 = u32::MAX;

/// The length byte of a tree of [`ROW_LEN`] ids or more: its length is kept aside.
const LONG: u8 = u8::MAX;

/// The length byte of a row of `n` ids is `ROW_LEN + n`; trees of fewer ids have theirs
/// as it is.
const ROW_LEN: u8 = 240;

/// Words a row: 24 bytes, 12 ids (measured best against 16 and 32 bytes, issue 35).
const ROW_WORDS: usize = 3;

/// Ids a row holds at most.
const ROW_IDS: usize = 4 * ROW_WORDS;

const _: () = assert!(ROW_LEN as usize + ROW_IDS < LONG as usize);

/// A small state's ids, each plus one as a `u16`, four a word, 0 past the last: a row tells
/// its length, and no row is all zeros, the place of a tree state (never written), so a
/// candidate is compared by its row alone, without reading its length (issue 35).
type Row = [u64; ROW_WORDS];

/// Which states are rows: those of `from` (1 at least) to `ids` ids, each below `below`
/// (below 2^16 - 1, as a row holds each id plus one; a test makes them smaller, so that a
/// model's states are of both kinds).
#[derive(Clone, Copy, Debug)]
struct RowRule {
    from: usize,
    ids: usize,
    below: u32,
}

impl RowRule {
    /// A state of up to 4 ids is a tree of at most two nodes, most often shared: as a row,
    /// seqbuffer K = 6 D = 4 (3 ids a state) took 2.4% more instructions and 22% more
    /// memory.
    const ALL: RowRule = RowRule {
        from: 5,
        ids: ROW_IDS,
        below: (1 << 16) - 1,
    };

    /// The rule of a new store: [`RowRule::ALL`], but what a test set on this thread.
    fn new() -> RowRule {
        #[cfg(test)]
        if let Some(rule) = tests::RULE.get() {
            assert!(rule.from >= 1 && rule.below < 1 << 16, "{rule:?}");
            return rule;
        }
        RowRule::ALL
    }

    /// The row of `ids`, if they make one.
    #[inline]
    fn row_of(self, ids: &[u32]) -> Option<Row> {
        if ids.len() > self.ids || ids.len() < self.from {
            return None;
        }
        let mut row = [0; ROW_WORDS];
        for (p, &id) in ids.iter().enumerate() {
            if id >= self.below {
                return None;
            }
            row[p / 4] |= u64::from(id + 1) << (16 * (p % 4));
        }
        Some(row)
    }

    /// `row` (of a state of this rule) with `changes` made, if they keep it a row.
    #[inline(always)]
    fn patched(self, mut row: Row, changes: &[(usize, u32)]) -> Option<Row> {
        for &(p, id) in changes {
            if id >= self.below {
                return None;
            }
            let (w, shift) = (p / 4, 16 * (p % 4));
            row[w] = (row[w] & !(0xFFFF << shift)) | u64::from(id + 1) << shift;
        }
        Some(row)
    }
}

/// Rows a segment of the rows' column holds: none crosses a segment's end.
const ROWS_PER_SEGMENT: usize = table::SEGMENT / ROW_WORDS;

/// Where state `i`'s row starts in the rows' column.
#[inline]
fn row_at(i: usize) -> usize {
    (i / ROWS_PER_SEGMENT) * table::SEGMENT + i % ROWS_PER_SEGMENT * ROW_WORDS
}

/// States of at most this many ids are read from the tree read before them (a bit an item
/// of a level: see [`Store::read_changed`]).
const NEAR_READ: usize = 64;

/// Lengths packed in a word of the lengths' column.
const LENS_PER_WORD: usize = 8;

/// Hashes packed in a word of the hashes' column.
const HASHES_PER_WORD: usize = 2;

/// Stored states, numbered in the order they were added.
pub(crate) struct Store {
    /// Tells stores apart for what is remembered of one across explorations (see
    /// `engine::Order`): every store has its own.
    serial: u64,
    interner: Interner,
    /// Interior nodes: pairs of items of the level below, packed (see [`pack`]).
    nodes: Column,
    node_index: Index,
    /// Tree state `i` is the pair `records[i]` over `len(i)` ids.
    records: Column,
    /// Row state `i` is the row at [`row_at`]`(i)` (a tree state's place is left unwritten,
    /// and a segment of trees only is never allocated).
    rows: Column,
    /// How many states are rows.
    row_count: RowCount,
    rule: RowRule,
    /// Each state's length, a byte each, which tells its kind too ([`LONG`], [`ROW_LEN`]).
    lens: Column,
    /// Each state's hash ([`hash_ids`]), two a word: the index is keyed by it, grows by it,
    /// and a state's tree read from the store comes with it.
    hashes: Column,
    /// Lengths of [`ROW_LEN`] and more, added only with `&mut` (see [`Store::room`]).
    long: FxHashMap<u32, u32>,
    index: Index,
    /// The right to add while the store is shared; taken by [`Store::take_writer`].
    writer: Option<Writer>,
}

/// How many states of a store are rows, on cache lines of its own: the merge adds one with
/// each new row, and the line it sat on (the store's serial, its rule, the nodes' segments)
/// is read by every look-up of the other threads, so each new row took that line from them
/// and their next look-up took it back.
#[repr(align(128))]
#[derive(Default)]
struct RowCount(std::sync::atomic::AtomicUsize);

/// The right to add states to a store that other threads are reading (see
/// [`Store::insert_shared`]): one per store, so one thread adds at a time.
#[derive(Debug)]
pub(crate) struct Writer {
    serial: u64,
}

impl Default for Store {
    fn default() -> Store {
        static STORES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let serial = STORES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        Store {
            serial,
            interner: Interner::default(),
            nodes: Column::default(),
            node_index: Index::default(),
            records: Column::default(),
            rows: Column::default(),
            row_count: Default::default(),
            rule: RowRule::new(),
            lens: Column::default(),
            hashes: Column::default(),
            long: FxHashMap::default(),
            index: Index::default(),
            writer: Some(Writer { serial }),
        }
    }
}

/// The levels of a state's tree: `levels[0]` is its ids, each next level the pairs of the
/// one below, the last holding the two items of the record (or fewer for tiny states).
#[derive(Clone, Debug, Default)]
pub(crate) struct Levels {
    levels: Vec<Vec<u32>>,
    /// [`hash_ids`] of the ids (0 for none, as `Default` has it).
    hash: u32,
    /// The serial of the store whose state's tree this is, read whole by
    /// [`Store::read_levels`] (none for a tree built otherwise): the next state read into
    /// the same room is read from the items that differ only.
    of: Option<u64>,
    /// The state's row, when read from one: then `levels` is the ids only.
    row: Option<Row>,
}

impl Levels {
    /// The ids, in key order.
    pub(crate) fn ids(&self) -> &[u32] {
        self.levels.first().map_or(&[], Vec::as_slice)
    }

    /// Whether these are a row's ids (no tree above them).
    pub(crate) fn is_row(&self) -> bool {
        self.row.is_some()
    }

    /// Makes this a copy of `other` in the room it has (the derived `clone_from` allocates;
    /// `Vec::clone_from` reuses each level's vector).
    pub(crate) fn copy_from(&mut self, other: &Levels) {
        self.levels.clone_from(&other.levels);
        (self.hash, self.of, self.row) = (other.hash, other.of, other.row);
    }
}

impl Store {
    pub(crate) fn len(&self) -> usize {
        self.index.len()
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
    /// that made `ids`). `scratch` is reused between calls. Any thread may call it while the
    /// writer adds: it sees every state added before it began, and perhaps later ones.
    pub(crate) fn find_near(
        &self,
        near: Option<&Levels>,
        ids: &[u32],
        scratch: &mut Levels,
    ) -> Option<u32> {
        let near = near.filter(|n| n.ids().len() == ids.len());
        if let Some(near) = near
            && let Some(changed) = Changed::of(near.ids(), ids)
        {
            let changes = changed.with_ids(ids);
            return self.find_changed(near, changes.as_slice());
        }
        if let Some(row) = self.rule.row_of(ids) {
            return find_in(&self.index, hash_ids(ids), |i| self.row_is(i, &row));
        }
        // Compared whole: the candidate's ids read from its tree (a candidate whose slot's tag
        // matches is most often the state looked for).
        let scratch = std::cell::RefCell::new(scratch);
        let same = |i: u32| {
            let mut scratch = scratch.borrow_mut();
            self.len_of(i) == ids.len() && {
                self.read_levels(i, &mut scratch);
                scratch.ids() == ids
            }
        };
        find_in(&self.index, hash_ids(ids), same)
    }

    /// What [`Store::find_near`] finds for the ids of `near` with a few `changes` made
    /// (position, new id; increasing positions, at most [`Changed::MAX`]): one probe of the
    /// index by the hash of `near` updated from the changes, each candidate compared along
    /// the paths of its tree above what changed ([`Store::is_changed`]). Looking up the nodes
    /// above what changed, level by level, was half of a step's instructions (Peterson N = 4).
    /// A target that is a row is compared as one, its row made from the source's.
    pub(crate) fn find_changed(&self, near: &Levels, changes: &[(usize, u32)]) -> Option<u32> {
        self.find_changed_hashed(near, changes, hash_changed(near, changes))
    }

    /// The hash of `near`'s ids with `changes` made, with the cache line its probe starts
    /// at prefetched: a look-up's first cache miss begun ahead, for [`Store::find_changed_hashed`]
    /// to find the line there (see `Assembly::look_up`).
    #[inline]
    pub(crate) fn touch_changed(&self, near: &Levels, changes: &[(usize, u32)]) -> u32 {
        let hash = hash_changed(near, changes);
        self.index.touch(index_hash(hash));
        hash
    }

    /// [`Store::find_changed`] with the hash [`Store::touch_changed`] gave.
    #[inline]
    pub(crate) fn find_changed_hashed(
        &self,
        near: &Levels,
        changes: &[(usize, u32)],
        hash: u32,
    ) -> Option<u32> {
        if let Some(row) = self.target_row(near, changes) {
            return find_in(&self.index, hash, |i| self.row_is(i, &row));
        }
        if near.row.is_some() {
            // A row's step to a tree (an id past the rule's): its tree is not at hand.
            return self.find_whole(near, changes);
        }
        let same = |i: u32| self.is_changed(i, near, changes);
        find_in(&self.index, hash, same)
    }

    /// The row of `near`'s ids with `changes` made, if they make one ([`RowRule`]).
    #[inline(always)]
    fn target_row(&self, near: &Levels, changes: &[(usize, u32)]) -> Option<Row> {
        let ids = near.ids();
        if ids.len() > self.rule.ids || ids.len() < self.rule.from {
            return None;
        }
        if let Some(row) = near.row {
            return self.rule.patched(row, changes);
        }
        // A tree's: a row if every id it keeps is small enough, and every id changed.
        let mut row = [0; ROW_WORDS];
        for (p, &id) in ids.iter().enumerate() {
            if id >= self.rule.below && changes.iter().all(|&(q, _)| q != p) {
                return None;
            }
            row[p / 4] |= u64::from(id.wrapping_add(1) & 0xFFFF) << (16 * (p % 4));
        }
        self.rule.patched(row, changes)
    }

    /// [`Store::find_changed`] of a tree target, compared whole.
    #[cold]
    #[inline(never)]
    fn find_whole(&self, near: &Levels, changes: &[(usize, u32)]) -> Option<u32> {
        thread_local!(static SCRATCH: std::cell::RefCell<Levels> = Default::default());
        // A row's ids: at most `ROW_IDS`.
        let mut ids = [0; ROW_IDS];
        let ids = &mut ids[..near.ids().len()];
        ids.copy_from_slice(near.ids());
        for &(p, id) in changes {
            ids[p] = id;
        }
        SCRATCH.with_borrow_mut(|scratch| self.find_near(None, ids, scratch))
    }

    /// Whether state `i` is the row `row` (which tells its length): a tree state's place
    /// holds zeros, or is in a segment never allocated.
    #[inline(always)]
    fn row_is(&self, i: u32, row: &Row) -> bool {
        let stored = self.rows.try_run(row_at(i as usize), ROW_WORDS);
        stored.is_some_and(|stored| stored.iter().zip(row).all(|(s, &w)| s.load(RELAXED) == w))
    }

    /// Whether state `i` has the ids of `near` with `changes` made: from its record down to
    /// each changed id, the nodes on the way are read, and every item beside the way must
    /// be `near`'s (but where another change's way passes, which that one compares), every
    /// changed id the new one. Nodes are unique, so an item equal to `near`'s stands for the
    /// same ids.
    #[inline]
    fn is_changed(&self, i: u32, near: &Levels, changes: &[(usize, u32)]) -> bool {
        let levels = &near.levels;
        if levels.is_empty() {
            return false;
        }
        if self.tree_len(i) != Some(levels[0].len()) {
            return false;
        }
        let record = unpack(self.records.get(i as usize));
        // One change or two, as nearly every step makes, each walked with what it must
        // leave to the other written out, not looked for in the list of changes at every
        // level.
        match *changes {
            [] => record == record_of(near),
            [one] => self.path_is(record, levels, one, |_, _| false),
            [one, two] => {
                let beside = |q: usize| move |k: usize, j: usize| q >> k == j;
                self.path_is(record, levels, one, beside(two.0))
                    && self.path_is(record, levels, two, beside(one.0))
            }
            _ => changes.iter().all(|&(p, id)| {
                let elsewhere =
                    |k: usize, j: usize| changes.iter().any(|&(q, _)| q != p && q >> k == j);
                self.path_is(record, levels, (p, id), elsewhere)
            }),
        }
    }

    /// Whether the tree under `record` holds `id` at position `p`, and `levels`' items
    /// beside the way down to it, but where `elsewhere` (level, index) says another change's
    /// way passes (which that one compares).
    #[inline]
    fn path_is(
        &self,
        record: [u32; 2],
        levels: &[Vec<u32>],
        (p, id): (usize, u32),
        elsewhere: impl Fn(usize, usize) -> bool,
    ) -> bool {
        let top = levels.len() - 1;
        let j = p >> top;
        let other = j ^ 1;
        let expected = levels[top].get(other).copied().unwrap_or(NONE);
        if record[other] != expected && !elsewhere(top, other) {
            return false;
        }
        let mut item = record[j];
        for k in (0..top).rev() {
            let (below, j) = (&levels[k], p >> k);
            let Some(&beside) = below.get(j ^ 1) else {
                // The odd last item, carried up as it is.
                continue;
            };
            let pair = unpack(self.nodes.get(item as usize));
            item = pair[j & 1];
            if pair[(j & 1) ^ 1] != beside && !elsewhere(k, j ^ 1) {
                return false;
            }
        }
        item == id
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
        if !self.fits(1, ids.len()) {
            // A state adds at most as many interior nodes as it has ids.
            self.make_room(1, ids.len().max(1));
        }
        let (i, new) = self.add(near, ids);
        if new && ids.len() >= usize::from(ROW_LEN) {
            self.long.insert(i, ids.len() as u32);
        }
        (i, new)
    }

    /// What [`Store::find_or_insert`] does, while other threads read the store: `None`, with
    /// nothing added, when there is no [`Store::room`] for the state.
    pub(crate) fn insert_shared(
        &self,
        writer: &mut Writer,
        near: Option<&Levels>,
        ids: &[u32],
    ) -> Option<(u32, bool)> {
        assert_eq!(writer.serial, self.serial, "the writer of another store");
        self.room(1, ids.len()).then(|| self.add(near, ids))
    }

    /// Whether `states` more states of at most `len` ids each can be added while the store is
    /// shared (a state of [`ROW_LEN`] ids or more never can: its length is kept aside).
    pub(crate) fn room(&self, states: usize, len: usize) -> bool {
        len < usize::from(ROW_LEN) && self.fits(states, len)
    }

    /// Grows the tables, which needs that no other thread reads them, so that `states` more
    /// states and `nodes` more interior nodes fit, the indices at most three quarters full after
    /// them.
    pub(crate) fn make_room(&mut self, states: usize, nodes: usize) {
        self.make_room_with(states, nodes, None);
    }

    /// What [`Store::make_room`] does, each index grown by the two pieces of work `join`
    /// is given, on two threads (see `Index::make_room_with`); without `join`, on this one.
    pub(crate) fn make_room_with(&mut self, states: usize, nodes: usize, join: Option<Join<'_>>) {
        let hashes = &self.hashes;
        let state_hash = |i: u32| index_hash(stored_hash(hashes, i));
        self.index.make_room_with(states, state_hash, join);
        let column = &self.nodes;
        let node_hash = |j: u32| hash_node(unpack(column.get(j as usize)));
        self.node_index.make_room_with(nodes, node_hash, join);
        let count = self.len() + states;
        self.records.reserve(count);
        self.rows.reserve(row_at(count));
        self.lens.reserve(count.div_ceil(LENS_PER_WORD));
        self.hashes.reserve(count.div_ceil(HASHES_PER_WORD));
        self.nodes.reserve(self.node_index.len() + nodes);
    }

    /// Takes the right to add while the store is shared ([`Store::insert_shared`]).
    pub(crate) fn take_writer(&mut self) -> Writer {
        self.writer
            .take()
            .expect("the store's writer is given back")
    }

    pub(crate) fn give_writer(&mut self, writer: Writer) {
        assert_eq!(writer.serial, self.serial, "the writer of another store");
        self.writer = Some(writer);
    }

    /// Whether the tables have room for `states` more states of at most `len` ids each.
    fn fits(&self, states: usize, len: usize) -> bool {
        let nodes = states.saturating_mul(len.max(1));
        let count = self.len() + states;
        self.index.room(states)
            && self.node_index.room(nodes)
            && count <= self.records.capacity()
            && row_at(count) <= self.rows.capacity()
            && count.div_ceil(LENS_PER_WORD) <= self.lens.capacity()
            && count.div_ceil(HASHES_PER_WORD) <= self.hashes.capacity()
            && self.node_index.len() + nodes <= self.nodes.capacity()
    }

    /// Finds or adds the state, its nodes first and its index entry last (see [`table`]);
    /// the room is there.
    fn add(&self, near: Option<&Levels>, ids: &[u32]) -> (u32, bool) {
        let few = near.and_then(|near| Some((near, few_changes(near.ids(), ids)?)));
        let hash = match few {
            Some((near, ref changes)) => hash_changed(near, changes.as_slice()),
            None => hash_ids(ids),
        };
        let row = match few {
            Some((near, ref changes)) if near.row.is_some() => {
                self.target_row(near, changes.as_slice())
            }
            _ => self.rule.row_of(ids),
        };
        if let Some(row) = row {
            return self.add_row(&row, ids.len(), hash);
        }
        // A tree is built near a tree only.
        let trees = |near: &&Levels| near.row.is_none();
        self.add_tree(
            near.filter(trees),
            few.filter(|(near, _)| trees(near)),
            ids,
            hash,
        )
    }

    /// Finds or adds the row `row` of `len` ids, its row first and its index entry last.
    fn add_row(&self, row: &Row, len: usize, hash: u32) -> (u32, bool) {
        let same = |i: u32| self.row_is(i, row);
        let probe = index_hash(hash);
        let vacancy = match self.index.find_or_vacancy(probe, same) {
            Ok(i) => return (i, false),
            Err(vacancy) => vacancy,
        };
        let i = self.len();
        let run = self.rows.run_init(row_at(i), ROW_WORDS);
        for (s, &w) in run.iter().zip(row) {
            s.store(w, RELAXED);
        }
        set_packed(&self.lens, i, LENS_PER_WORD, u64::from(ROW_LEN + len as u8));
        set_packed(&self.hashes, i, HASHES_PER_WORD, u64::from(hash));
        // One writer: a plain store, not a locked read-modify-write.
        let rows = &self.row_count.0;
        rows.store(rows.load(RELAXED) + 1, RELAXED);
        self.index.add_at(vacancy, probe, i as u32);
        (i as u32, true)
    }

    /// Finds or adds the tree of `ids` (`few`: their changes from `near`'s, if few).
    fn add_tree(
        &self,
        near: Option<&Levels>,
        few: Option<(&Levels, FewChanges)>,
        ids: &[u32],
        hash: u32,
    ) -> (u32, bool) {
        thread_local!(static SCRATCH: std::cell::RefCell<Levels> = Default::default());
        let add_node = |pair| Some(self.add_node(pair));
        let record = match few {
            // The common step: one or two ids changed, nodes added only above them.
            Some((near, ref changes)) => record_near(near, changes.as_slice(), add_node),
            None => SCRATCH.with_borrow_mut(|levels| {
                levels_of(near, ids, levels, add_node)?;
                Some(record_of(levels))
            }),
        };
        let record = record.expect("adding finds every node");
        let packed = pack(record);
        // The kind first: a row's record is not written.
        let same =
            |i: u32| self.tree_len(i) == Some(ids.len()) && self.records.get(i as usize) == packed;
        // One probe: a state not found is added where the probe ended.
        let probe = index_hash(hash);
        let vacancy = match self.index.find_or_vacancy(probe, same) {
            Ok(i) => return (i, false),
            Err(vacancy) => vacancy,
        };
        let i = self.len();
        self.records.set(i, packed);
        let len = u8::try_from(ids.len())
            .ok()
            .filter(|&n| n < ROW_LEN)
            .unwrap_or(LONG);
        set_packed(&self.lens, i, LENS_PER_WORD, u64::from(len));
        set_packed(&self.hashes, i, HASHES_PER_WORD, u64::from(hash));
        self.index.add_at(vacancy, probe, i as u32);
        (i as u32, true)
    }

    /// The node of `pair`, added when new (where the probe for it ended).
    fn add_node(&self, pair: [u32; 2]) -> u32 {
        let hash = hash_node(pair);
        let packed = pack(pair);
        let nodes = &self.nodes;
        let same = |j: u32| nodes.get(j as usize) == packed;
        let vacancy = match self.node_index.find_or_vacancy(hash, same) {
            Ok(j) => return j,
            Err(vacancy) => vacancy,
        };
        let j = self.node_index.len();
        self.nodes.set(j, packed);
        self.node_index.add_at(vacancy, hash, j as u32);
        j as u32
    }

    /// The tree of state `i`, read down from its record.
    pub(crate) fn levels(&self, i: u32) -> Levels {
        let mut levels = Levels::default();
        self.read_levels(i, &mut levels);
        levels
    }

    /// The tree of state `i` into `out`, reusing its room. When `out` holds the tree of a
    /// state of this store of as many ids (the state a worker expanded before, mostly alike
    /// in breadth-first order), only the items that differ from its are read down: nodes
    /// are unique, so an item equal to the one there stands for the same ids below it.
    /// Reading every node was 500 instructions a Peterson N = 4 state, this 410.
    pub(crate) fn read_levels(&self, i: u32, out: &mut Levels) {
        let len = match self.len_byte(i) {
            LONG => long_length(&self.long, i),
            n if n >= ROW_LEN => return self.read_row(i, usize::from(n - ROW_LEN), out),
            n => usize::from(n),
        };
        out.row = None;
        // The levels down from the first of at most two items: ceil(log2(len)) of them
        // (halving rounded up reaches 2 after that many halvings less one), one at least.
        let count = match len {
            0..=2 => 1,
            _ => (len - 1).ilog2() as usize + 1,
        };
        debug_assert!(size(len, count - 1) <= 2 && (count == 1 || size(len, count - 2) > 2));
        let record = unpack(self.records.get(i as usize));
        let levels = &mut out.levels;
        let near = out.of == Some(self.serial)
            && len <= NEAR_READ
            && levels.len() == count
            && levels[0].len() == len;
        out.of = Some(self.serial);
        // Stored with the state: hashing its ids again was a sixth of reading its tree.
        out.hash = stored_hash(&self.hashes, i);
        if near {
            return self.read_changed(record, levels);
        }
        if levels.len() != count {
            levels.resize_with(count, Vec::new);
        }
        levels[count - 1].clear();
        levels[count - 1].extend(record.iter().copied().take(len.min(2)));
        self.read_below(levels, count - 1, len);
    }

    /// The ids of row state `i`, of `len` ids, into `out`, with its row.
    fn read_row(&self, i: u32, len: usize, out: &mut Levels) {
        let stored = self.rows.run(row_at(i as usize), ROW_WORDS);
        let row: Row = std::array::from_fn(|w| stored[w].load(RELAXED));
        out.levels.resize_with(1, Vec::new);
        let ids = &mut out.levels[0];
        ids.resize(ROW_IDS, 0);
        let (quads, _) = ids.as_chunks_mut::<4>();
        for (quad, &w) in quads.iter_mut().zip(&row) {
            *quad = std::array::from_fn(|k| u32::from((w >> (16 * k)) as u16).wrapping_sub(1));
        }
        ids.truncate(len);
        out.row = Some(row);
        // Not a tree: the next state read into `out` is read whole.
        out.of = None;
        out.hash = stored_hash(&self.hashes, i);
    }

    /// Levels `top - 1` down to 0 of a tree of `len` ids, read whole from level `top`.
    fn read_below(&self, levels: &mut [Vec<u32>], top: usize, len: usize) {
        for k in (0..top).rev() {
            let (below, above) = levels.split_at_mut(k + 1);
            let (below, above) = (&mut below[k], &above[0]);
            // Sized first and written pair by pair: pushing checked the room for every item.
            let size = size(len, k);
            below.resize(size, 0);
            let (pairs, odd) = below.as_chunks_mut::<2>();
            for (pair, &item) in pairs.iter_mut().zip(above) {
                *pair = unpack(self.nodes.get(item as usize));
            }
            if let [last] = odd {
                *last = above[size / 2];
            }
        }
    }

    /// Writes `record` over the top of `levels` (a tree of as many ids, at most
    /// [`NEAR_READ`]) and reads down only the items that changed, a bit each.
    fn read_changed(&self, record: [u32; 2], levels: &mut [Vec<u32>]) {
        let top = levels.len() - 1;
        let mut changed = 0u64;
        for (j, (old, new)) in levels[top].iter_mut().zip(record).enumerate() {
            changed |= u64::from(*old != new) << j;
            *old = new;
        }
        for k in (0..top).rev() {
            if changed == 0 {
                return;
            }
            let (below, above) = levels.split_at_mut(k + 1);
            changed = self.read_items(&mut below[k], &above[0], changed);
        }
    }

    /// Writes into `below` the items under those of `above` (the level over it) whose bits
    /// `changed` has: the bits of the items that changed in turn.
    fn read_items(&self, below: &mut [u32], above: &[u32], mut changed: u64) -> u64 {
        let mut next = 0;
        while changed != 0 {
            let j = changed.trailing_zeros() as usize;
            changed &= changed - 1;
            let item = above[j];
            match below.get_mut(2 * j..2 * j + 2) {
                Some(pair) => {
                    let [a, b] = unpack(self.nodes.get(item as usize));
                    next |=
                        u64::from(pair[0] != a) << (2 * j) | u64::from(pair[1] != b) << (2 * j + 1);
                    pair.copy_from_slice(&[a, b]);
                }
                // The odd last item, carried up as it is.
                None => {
                    next |= u64::from(below[2 * j] != item) << (2 * j);
                    below[2 * j] = item;
                }
            }
        }
        next
    }

    /// The bytes the store holds: records or rows, lengths, hashes, nodes, both indices (a
    /// `u32` and a tag a slot, 12 a 64-byte line), and the interner.
    pub(crate) fn bytes(&self) -> u64 {
        let rows = self.row_count.0.load(RELAXED);
        let records = (8 + 1 + 4) * self.len() + (8 * ROW_WORDS - 8) * rows;
        let records = records + self.index.bytes();
        let nodes = 8 * self.node_index.len() + self.node_index.bytes();
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

    #[inline]
    fn len_of(&self, i: u32) -> usize {
        length(&self.lens, &self.long, i)
    }

    /// The length of state `i` if it is a tree.
    #[inline]
    fn tree_len(&self, i: u32) -> Option<usize> {
        match self.len_byte(i) {
            LONG => Some(long_length(&self.long, i)),
            n if n >= ROW_LEN => None,
            n => Some(usize::from(n)),
        }
    }

    /// State `i`'s length byte.
    #[inline(always)]
    fn len_byte(&self, i: u32) -> u8 {
        let i = i as usize;
        (self.lens.get(i / LENS_PER_WORD) >> (8 * (i % LENS_PER_WORD))) as u8
    }

    /// The bytes storing a state of these ids adds (besides nodes and components not stored
    /// yet): its record or row, its length, its hash and its index entry.
    pub(crate) fn state_bytes(&self, ids: &[u32]) -> u64 {
        let kept = match self.rule.row_of(ids) {
            Some(_) => 8 * ROW_WORDS as u64,
            None => 8,
        };
        kept + 1 + 4 + 8
    }
}

/// How many items level `k` of a tree of `len` ids holds: `len / 2^k` rounded up (halving
/// rounded up k times; an array of the sizes was zeroed for every state read, and
/// `div_ceil` divides).
fn size(len: usize, k: usize) -> usize {
    (len + (1 << k) - 1) >> k
}

/// The state with this hash ([`hash_ids`]) for which `same` holds.
#[inline]
fn find_in(index: &Index, hash: u32, same: impl Fn(u32) -> bool) -> Option<u32> {
    index.find(index_hash(hash), same)
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
    out.hash = hash_ids(ids);
    out.of = None;
    out.row = None;
    let levels = &mut out.levels;
    levels.resize_with(levels.len().max(1), Vec::new);
    levels[0].clear();
    levels[0].extend_from_slice(ids);
    if let Some(near) = near
        && let Some(changed) = Changed::of(near.ids(), ids)
    {
        return levels_near(near, changed, out, node);
    }
    let mut k = 0;
    while levels[k].len() > 2 {
        let (below, above) = level_and_next(levels, k);
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

/// Level `k`, and level `k + 1` emptied (made when missing) for the level loop to fill.
fn level_and_next(levels: &mut Vec<Vec<u32>>, k: usize) -> (&[u32], &mut Vec<u32>) {
    if levels.len() == k + 1 {
        levels.push(Vec::new());
    }
    let (below, above) = levels.split_at_mut(k + 1);
    let above = &mut above[0];
    above.clear();
    (&below[k], above)
}

/// The positions at which a level differs from the one it is built near, in increasing
/// order: a step moves one or two components, so a few.
#[derive(Clone, Copy)]
struct Changed {
    at: [usize; Changed::MAX],
    len: usize,
}

impl Changed {
    const MAX: usize = 8;
    const NONE: Changed = Changed {
        at: [0; Changed::MAX],
        len: 0,
    };

    /// Where `ids` differ from `near`'s ids (as many), if in at most [`Changed::MAX`] places.
    fn of(near: &[u32], ids: &[u32]) -> Option<Changed> {
        let mut changed = Changed::NONE;
        for (i, (a, b)) in near.iter().zip(ids).enumerate() {
            if a != b {
                changed.push(i)?;
            }
        }
        Some(changed)
    }

    fn push(&mut self, i: usize) -> Option<()> {
        *self.at.get_mut(self.len)? = i;
        self.len += 1;
        Some(())
    }

    fn positions(&self) -> &[usize] {
        &self.at[..self.len]
    }

    /// The changes, with the ids of `ids` at their positions.
    fn with_ids(&self, ids: &[u32]) -> Path {
        let mut changes = Path::default();
        for &p in self.positions() {
            changes.push(p, ids[p]);
        }
        changes
    }
}

/// A few changes (position, new id), at most [`Changed::MAX`], in increasing positions.
#[derive(Clone, Copy)]
struct Path {
    at: [(usize, u32); Changed::MAX],
    len: usize,
}

impl Default for Path {
    fn default() -> Path {
        Path {
            at: [(0, 0); Changed::MAX],
            len: 0,
        }
    }
}

impl Path {
    fn push(&mut self, p: usize, item: u32) {
        self.at[self.len] = (p, item);
        self.len += 1;
    }

    fn as_slice(&self) -> &[(usize, u32)] {
        &self.at[..self.len]
    }
}

/// What [`levels_of`] makes when level 0 (written) differs from `near`'s (as long) at the
/// positions `changed` only: each level above is `near`'s with the items above what changed
/// made again, so that a target costs its few look-ups and copies, not a comparison of every
/// pair of every level with its source's (a sixth of the time of philosophers N = 12). The
/// same levels and the same calls of `node`, in the same order, as the pair by pair way: a
/// pair that holds a changed item differs from `near`'s, and so does its node (nodes are
/// unique) or the odd item carried up.
fn levels_near(
    near: &Levels,
    mut changed: Changed,
    out: &mut Levels,
    mut node: impl FnMut([u32; 2]) -> Option<u32>,
) -> Option<()> {
    let levels = &mut out.levels;
    let mut k = 0;
    while levels[k].len() > 2 {
        let (below, above) = level_and_next(levels, k);
        above.extend_from_slice(&near.levels[k + 1]);
        let mut next = Changed::NONE;
        for &p in changed.positions() {
            let j = p / 2;
            if next.positions().last() == Some(&j) {
                continue;
            }
            above[j] = match below.get(2 * j + 1) {
                Some(&b) => node([below[2 * j], b])?,
                None => below[2 * j],
            };
            next.push(j).expect("no more changes above than below");
        }
        changed = next;
        k += 1;
    }
    levels.truncate(k + 1);
    Some(())
}

/// The record of the state with the ids of `near` but for one or two `changes` (position,
/// new id; increasing positions): `near`'s with the nodes above what changed taken from
/// `node` level by level, in the order [`levels_near`] asks for them; `None` as soon as
/// `node` has none.
fn record_near(
    near: &Levels,
    changes: &[(usize, u32)],
    mut node: impl FnMut([u32; 2]) -> Option<u32>,
) -> Option<[u32; 2]> {
    let (mut first, mut second) = match *changes {
        [] => return Some(record_of(near)),
        [one] => (one, None),
        [one, two] if one.0 < two.0 => (one, Some(two)),
        _ => unreachable!("one or two changes, in increasing positions"),
    };
    let mut k = 0;
    while near.levels[k].len() > 2 {
        let below = &near.levels[k];
        match second {
            // Both in one pair: its node has both new items.
            Some(two) if two.0 / 2 == first.0 / 2 => {
                first = (first.0 / 2, node([first.1, two.1])?);
                second = None;
            }
            _ => {
                first = (first.0 / 2, lift(below, first, &mut node)?);
                if let Some(two) = second {
                    second = Some((two.0 / 2, lift(below, two, &mut node)?));
                }
            }
        }
        k += 1;
    }
    let top = &near.levels[k];
    let mut record = [
        top.first().copied().unwrap_or(NONE),
        top.get(1).copied().unwrap_or(NONE),
    ];
    record[first.0] = first.1;
    if let Some((p, id)) = second {
        record[p] = id;
    }
    Some(record)
}

/// The item above position `p` of level `below` once the item there is `id`: its pair's
/// node, or itself when it is the odd last one.
fn lift(
    below: &[u32],
    (p, id): (usize, u32),
    node: &mut impl FnMut([u32; 2]) -> Option<u32>,
) -> Option<u32> {
    match p % 2 {
        0 => match below.get(p + 1) {
            Some(&b) => node([id, b]),
            None => Some(id),
        },
        _ => node([below[p - 1], id]),
    }
}

/// Where `ids` differ from `near`'s ids (as many), with the ids there, if in one or two
/// places.
fn few_changes(near: &[u32], ids: &[u32]) -> Option<FewChanges> {
    if near.len() != ids.len() {
        return None;
    }
    let mut changes = FewChanges::default();
    for (i, (a, b)) in near.iter().zip(ids).enumerate() {
        if a != b {
            *changes.at.get_mut(changes.len)? = (i, *b);
            changes.len += 1;
        }
    }
    Some(changes)
}

/// One or two changed ids: (position, new id), in increasing position order.
#[derive(Default)]
struct FewChanges {
    at: [(usize, u32); 2],
    len: usize,
}

impl FewChanges {
    fn as_slice(&self) -> &[(usize, u32)] {
        &self.at[..self.len]
    }
}

/// The record of a state from its levels: the two items of the top level.
fn record_of(levels: &Levels) -> [u32; 2] {
    let top = levels.levels.last().map_or(&[][..], Vec::as_slice);
    [
        top.first().copied().unwrap_or(NONE),
        top.get(1).copied().unwrap_or(NONE),
    ]
}

/// Inlined, with the look-up of a long length kept apart: every candidate a look-up compares
/// reads its length, and the call it was took 28 instructions (29 M of the first 400,000
/// states of Peterson N = 4).
#[inline(always)]
fn length(lens: &Column, long: &FxHashMap<u32, u32>, i: u32) -> usize {
    let i = i as usize;
    let word = lens.get(i / LENS_PER_WORD);
    match (word >> (8 * (i % LENS_PER_WORD))) as u8 {
        LONG => long_length(long, i as u32),
        n if n >= ROW_LEN => usize::from(n - ROW_LEN),
        n => usize::from(n),
    }
}

#[cold]
#[inline(never)]
fn long_length(long: &FxHashMap<u32, u32>, i: u32) -> usize {
    long[&i] as usize
}

/// A pair as one word of a column.
fn pack([a, b]: [u32; 2]) -> u64 {
    u64::from(a) << 32 | u64::from(b)
}

fn unpack(word: u64) -> [u32; 2] {
    [(word >> 32) as u32, word as u32]
}

pub(crate) fn key(ids: Vec<u32>) -> Key {
    Key {
        ids: ids.into_boxed_slice(),
    }
}

/// Writes `value` as item `i` of a column packing `per_word` items a word (only the writer
/// calls it, so reading the word and writing it back loses nothing).
#[inline(always)]
fn set_packed(column: &Column, i: usize, per_word: usize, value: u64) {
    let bits = 64 / per_word;
    let (word, shift) = (i / per_word, bits * (i % per_word));
    let others = match shift {
        0 => 0,
        _ => column.get(word),
    };
    column.set(word, others | value << shift);
}

/// The hash of state `i`, as stored.
fn stored_hash(hashes: &Column, i: u32) -> u32 {
    let i = i as usize;
    (hashes.get(i / HASHES_PER_WORD) >> (32 * (i % HASHES_PER_WORD))) as u32
}

/// A state's hash: the sum of its ids each mixed with its position (32 bits, as stored), so
/// that a step updates it from what it changed ([`hash_changed`]) without reading the rest.
fn hash_ids(ids: &[u32]) -> u32 {
    ids.iter()
        .enumerate()
        .fold(0, |sum, (p, &id)| sum.wrapping_add(mix(p, id)))
}

/// [`hash_ids`] of `near`'s ids with `changes` made.
fn hash_changed(near: &Levels, changes: &[(usize, u32)]) -> u32 {
    let ids = near.ids();
    changes.iter().fold(near.hash, |sum, &(p, id)| {
        sum.wrapping_sub(mix(p, ids[p])).wrapping_add(mix(p, id))
    })
}

/// An id at a position, mixed: a folded multiplication (the high and low halves of the
/// 128-bit product xored, as foldhash does), which is not linear, so that a sum of them
/// does not collide as a sum of products would.
fn mix(p: usize, id: u32) -> u32 {
    let x = (p as u64) << 32 | u64::from(id);
    folded_multiply(x ^ 0x243F_6A88_85A3_08D3, 0x9E37_79B9_7F4A_7C15) as u32
}

fn folded_multiply(a: u64, b: u64) -> u64 {
    let product = u128::from(a) * u128::from(b);
    (product as u64) ^ (product >> 64) as u64
}

/// The index's hash of a stored hash: its slot from the low bits, its tag from the top ones.
fn index_hash(hash: u32) -> u64 {
    folded_multiply(
        u64::from(hash) ^ 0x1319_8A2E_0370_7344,
        0xA076_1D64_78BD_642F,
    )
}

fn hash_node(pair: [u32; 2]) -> u64 {
    FxBuildHasher.hash_one(pack(pair))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Options, Progress, reference};
    use agentpi_semantics::Semantics;

    thread_local! {
        /// The [`RowRule`] of the stores made on this thread, when a test sets one.
        pub(super) static RULE: std::cell::Cell<Option<RowRule>> = const { std::cell::Cell::new(None) };
    }

    /// The count of rows, which the merge changes with every new row, shares no cache line
    /// (the core fetches them in pairs) with what the readers of the store read: it sat on
    /// the line of the store's serial, its rule and the nodes' segments.
    #[test]
    fn the_count_of_rows_has_its_lines_alone() {
        use std::mem::{offset_of, size_of};
        let at = offset_of!(Store, row_count);
        let (start, end) = (at / 128 * 128, at / 128 * 128 + 128);
        let others = [
            (offset_of!(Store, serial), size_of::<u64>()),
            (offset_of!(Store, interner), size_of::<Interner>()),
            (offset_of!(Store, nodes), size_of::<Column>()),
            (offset_of!(Store, node_index), size_of::<Index>()),
            (offset_of!(Store, records), size_of::<Column>()),
            (offset_of!(Store, rows), size_of::<Column>()),
            (offset_of!(Store, rule), size_of::<RowRule>()),
            (offset_of!(Store, lens), size_of::<Column>()),
            (offset_of!(Store, hashes), size_of::<Column>()),
            (offset_of!(Store, long), size_of::<FxHashMap<u32, u32>>()),
            (offset_of!(Store, index), size_of::<Index>()),
            (offset_of!(Store, writer), size_of::<Option<Writer>>()),
        ];
        for (i, (offset, size)) in others.into_iter().enumerate() {
            let apart = offset + size <= start || offset >= end;
            assert!(apart, "field {i} at {offset}..{} near {at}", offset + size);
        }
    }

    /// Under a rule that makes some of them rows and some trees (at most 12 ids below 8:
    /// ids 7 and 9 are written over vectors of ids 0 to 4, of 1 to 40 ids), every stored
    /// vector is found from every other of its length that differs in at most 8 places, as
    /// a step's target is from its source, whichever kind each is (by a look-up and by the
    /// merge's add), and read back as itself.
    #[test]
    fn a_target_is_found_from_a_source_of_either_kind() {
        RULE.set(Some(RowRule {
            from: 1,
            ids: 12,
            below: 8,
        }));
        let mut store = Store::default();
        RULE.set(None);
        let vectors = variants(&[(7, 9), (9, 7), (7, 7), (9, 9)]);
        let numbers = insert_all(&mut store, &vectors);
        let rows = store.row_count.0.load(RELAXED);
        assert!(rows > 20 && rows + 100 < vectors.len(), "{rows} rows");
        let (mut found, mut across) = (0, 0);
        for (w, v, changes) in steps(&vectors) {
            let (near, target) = (&vectors[w], &vectors[v]);
            let levels = store.levels(numbers[w]);
            assert_eq!(levels.ids(), &near[..]);
            let what = format!("{near:?} to {target:?}");
            let at = store.find_changed(&levels, changes.as_slice());
            assert_eq!(at, Some(numbers[v]), "{what}");
            let mut scratch = Levels::default();
            let near_found = store.find_near(Some(&levels), target, &mut scratch);
            assert_eq!(near_found, Some(numbers[v]), "{what}");
            let added = store.find_or_insert(Some(&levels), target);
            assert_eq!(added, (numbers[v], false), "{what}");
            found += 1;
            let kind = |ids: &[u32]| store.rule.row_of(ids).is_some();
            across += usize::from(kind(near) != kind(target));
        }
        assert!(
            found > 2_000 && across > 200,
            "{found} found, {across} across kinds"
        );
    }

    /// A candidate is compared by its row alone: a row is not taken for a longer one that
    /// ends in zeros, nor for a tree (whose place in the rows' column is never written),
    /// and each state, either kind, is found and read back as itself.
    #[test]
    fn a_row_tells_its_length_and_is_no_tree() {
        let mut store = Store::default();
        let vectors: Vec<Vec<u32>> = vec![
            vec![0; 5],
            vec![0; 6],
            vec![0; 12],
            vec![1, 2, 3, 4, 5],
            vec![1, 2, 3, 4, 5, 0],
            vec![0, 0, 0],
            vec![0, 0, 0, 0, 0, 70_000],
            vec![0; 13],
            vec![65_534; 12],
            vec![65_535, 0, 0, 0, 0],
        ];
        let numbers = insert_all(&mut store, &vectors);
        let rows: Vec<Option<Row>> = vectors.iter().map(|v| store.rule.row_of(v)).collect();
        assert_eq!(rows.iter().flatten().count(), 6, "{rows:?}");
        for (v, ids) in vectors.iter().enumerate() {
            assert_eq!(store.find(&key(ids.clone())), Some(numbers[v]), "{ids:?}");
            assert_eq!(store.levels(numbers[v]).ids(), &ids[..]);
            for (w, row) in rows.iter().enumerate() {
                if let Some(row) = row {
                    let what = format!("state {:?} as row {:?}", ids, vectors[w]);
                    assert_eq!(store.row_is(numbers[v], row), v == w, "{what}");
                }
            }
        }
    }

    /// A store of trees only, for the tests of the tree.
    fn trees_only() -> Store {
        RULE.set(Some(RowRule {
            from: 1,
            ids: 0,
            below: 0,
        }));
        let store = Store::default();
        RULE.set(None);
        store
    }

    /// Models with states of both kinds under a small rule: (name, text).
    fn mixed_models() -> Vec<(&'static str, String)> {
        let abp =
            include_str!("../../../bench/check/abp.pi").replace("const N = 400", "const N = 3");
        let buffer = include_str!("../../../bench/check/buffer.pi")
            .replace("const N = 8", "const N = 2")
            .replace("const K = 3", "const K = 2");
        vec![
            ("abp", abp),
            ("buffer", buffer),
            (
                "philosophers",
                include_str!("../../../models/philosophers.pi").to_string(),
            ),
            ("ring", include_str!("../../../models/ring.pi").to_string()),
            (
                "banking",
                include_str!("../../../models/banking.pi").to_string(),
            ),
            (
                "tool_calls",
                include_str!("../../../models/tool_calls.pi").to_string(),
            ),
        ]
    }

    /// The graph of system 0 of `text` explored with stores of `rule`, and how many of its
    /// states are rows.
    fn explore_with(rule: RowRule, text: &str, threads: usize) -> (crate::Graph, usize) {
        let loaded = agentpi_ir::load_str("m.pi", text);
        assert!(!loaded.has_errors(), "{:?}", loaded.diagnostics);
        let sem = Semantics::new(&loaded.program);
        let options = Options {
            threads,
            max_states: Some(20_000),
            ..Options::default()
        };
        RULE.set(Some(rule));
        let graph = crate::explore_system(&sem, 0, &options, &Progress::default());
        RULE.set(None);
        let graph = graph.expect("an initial state");
        let rows = graph.store.row_count.0.load(RELAXED);
        (graph, rows)
    }

    /// A store whose rule makes some of a model's states rows and some trees (ids below 3,
    /// 5 or 8 only, at most 12 of them, or at most 4 ids) explores each model as the store of
    /// trees only and the reference do: the same states in the same order, the same edges,
    /// with 1 and 2 threads. Both kinds meet: a row's step to a tree and back.
    #[test]
    fn rows_and_trees_in_one_store_explore_as_trees_only() {
        let trees = RowRule {
            from: 1,
            ids: 0,
            below: 0,
        };
        let mixed = [
            RowRule {
                from: 1,
                ids: 12,
                below: 3,
            },
            RowRule {
                from: 1,
                ids: 12,
                below: 5,
            },
            RowRule {
                from: 1,
                ids: 12,
                below: 8,
            },
            RowRule {
                from: 1,
                ids: 4,
                below: (1 << 16) - 1,
            },
            RowRule::ALL,
        ];
        let mut both = 0;
        for (name, text) in mixed_models() {
            let (base, none) = explore_with(trees, &text, 1);
            assert_eq!(none, 0, "{name}");
            let loaded = agentpi_ir::load_str("m.pi", &text);
            let sem = Semantics::new(&loaded.program);
            let explored = reference::explore(&sem, sem.initial(0).unwrap(), 20_000);
            assert_eq!(base.state_count(), explored.states.len(), "{name}");
            for rule in mixed {
                for threads in [1, 2] {
                    let (graph, rows) = explore_with(rule, &text, threads);
                    let what = format!("{name} {rule:?} {threads} threads");
                    both += usize::from(rows > 0 && rows < graph.state_count());
                    assert_eq!(graph.state_count(), base.state_count(), "{what}");
                    for s in 0..graph.state_count() as u32 {
                        assert_eq!(graph.state(s), explored.states[s as usize], "{what}: {s}");
                        let edges = |g: &crate::Graph| -> Vec<(u32, u32, u32)> {
                            g.successors(s)
                                .into_iter()
                                .map(|e| (e.label, e.target, e.actors))
                                .collect()
                        };
                        assert_eq!(edges(&graph), edges(&base), "{what}: edges of {s}");
                    }
                }
            }
        }
        assert!(both >= 8, "runs with states of both kinds: {both}");
    }

    /// A few thousand id vectors of lengths 0 to 299 (long ones past the one-byte lengths),
    /// many sharing most of their ids: each is found after it is stored, by itself and near
    /// another of its length (from the one or two ids that differ, when that is all),
    /// reads back as itself, and no other is found.
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
        let (mut scratch, mut changed) = (Levels::default(), 0);
        for (v, &n) in vectors.iter().zip(&numbers) {
            assert_eq!(store.levels(n).ids(), &v[..]);
            assert_eq!(store.find(&key(v.clone())), Some(n));
            let near = vectors.iter().position(|w| w.len() == v.len() && w != v);
            if let Some(w) = near {
                let levels = store.levels(numbers[w]);
                assert_eq!(store.find_near(Some(&levels), v, &mut scratch), Some(n));
                if let Some(changes) = few_changes(&vectors[w], v) {
                    let found = store.find_changed(&levels, changes.as_slice());
                    assert_eq!(found, Some(n), "found from what changed");
                    changed += 1;
                }
            }
        }
        assert!(
            changed > 100,
            "{changed} vectors found from one or two changes"
        );
        let absent: Vec<u32> = (0..12).map(|i| 1000 + i).collect();
        assert_eq!(store.find(&key(absent)), None);
        // One or two ids changed to ones never stored: not found.
        let levels = store.levels(numbers[1]);
        let len = vectors[1].len();
        for changes in [vec![(0, 7777)], vec![(0, 7777), (len - 1, 7778)]] {
            assert_eq!(store.find_changed(&levels, &changes), None);
        }
    }

    /// A candidate found by the hash is taken only if it is the target: every stored state of
    /// a length is compared with every target made from another of that length by the one
    /// to three ids that differ, whatever the hash says (`is_changed`), and only the target
    /// itself compares equal. Vectors of 1 to 40 ids, so that trees of every height and
    /// with odd items carried up are walked.
    /// Vectors of lengths 1 to 40 (`k % 5` at position `k`), each also with two of its
    /// positions (first and last, middle twice, a third and last, second and third) written
    /// over by each pair of `values`: states that differ in one or two components.
    fn variants(values: &[(u32, u32)]) -> Vec<Vec<u32>> {
        let mut vectors: Vec<Vec<u32>> = Vec::new();
        for len in 1..=40u32 {
            let base: Vec<u32> = (0..len).map(|k| k % 5).collect();
            vectors.push(base.clone());
            for (a, b) in [(0, len - 1), (len / 2, len / 2), (len / 3, len - 1), (1, 2)] {
                for &(x, y) in values {
                    let mut v = base.clone();
                    if let Some(z) = v.get_mut(a as usize) {
                        *z = x;
                    }
                    if let Some(z) = v.get_mut(b as usize) {
                        *z = y;
                    }
                    if !vectors.contains(&v) {
                        vectors.push(v);
                    }
                }
            }
        }
        vectors
    }

    /// Each of `vectors` stored, its number in the same place.
    fn insert_all(store: &mut Store, vectors: &[Vec<u32>]) -> Vec<u32> {
        vectors
            .iter()
            .map(|v| store.insert(&key(v.clone())))
            .collect()
    }

    /// Every step between two of `vectors` of one length, as a worker looks it up: the
    /// source's place, the target's, and what the step wrote.
    fn steps(vectors: &[Vec<u32>]) -> Vec<(usize, usize, Path)> {
        let mut steps = Vec::new();
        for (w, near) in vectors.iter().enumerate() {
            for (v, target) in vectors.iter().enumerate() {
                let changed = Changed::of(near, target).filter(|_| near.len() == target.len());
                if let Some(changed) = changed {
                    steps.push((w, v, changed.with_ids(target)));
                }
            }
        }
        steps
    }

    #[test]
    fn a_candidate_is_the_target_only_if_its_tree_is() {
        let mut store = trees_only();
        let vectors = variants(&[(7, 9)]);
        let numbers = insert_all(&mut store, &vectors);
        let mut compared = 0;
        for (w, v, changes) in steps(&vectors) {
            let (near, target) = (&vectors[w], &vectors[v]);
            let levels = store.levels(numbers[w]);
            for (u, &n) in numbers.iter().enumerate() {
                let same = store.is_changed(n, &levels, changes.as_slice());
                assert_eq!(
                    same,
                    u == v,
                    "state {u} against {near:?} changed to {target:?}"
                );
                compared += 1;
            }
            let found = store.find_changed(&levels, changes.as_slice());
            assert_eq!(found, Some(numbers[v]));
        }
        assert!(compared > 10_000, "{compared} comparisons");
    }

    /// States read one after another into one room, as a worker reads its sources, from two
    /// stores that number their nodes differently, of lengths 0 to 40 and a few longer ones
    /// (past [`NEAR_READ`]), mostly a few ids apart: every tree read is the one read afresh, though only what differs from the one
    /// before is read down ([`Store::read_changed`]). Read from the room's last tree whatever
    /// store it came from, a tree of the other store is wrong, and this fails.
    #[test]
    fn a_tree_read_over_another_is_the_tree_read_afresh() {
        let mut random = crate::random::below(0x9E37_79B9_7F4A_7C15u64);
        let mut vectors: Vec<Vec<u32>> = Vec::new();
        for len in (0..=40usize).chain([63, 64, 65, 100]) {
            let base: Vec<u32> = (0..len as u32).collect();
            for _ in 0..12 {
                let mut v = base.clone();
                // Mostly a few ids apart; now and then many.
                let changes = match random(6) {
                    0 => len,
                    _ => random(4),
                };
                for _ in 0..changes {
                    if len > 0 {
                        v[random(len)] = 100 + random(3) as u32;
                    }
                }
                if !vectors.contains(&v) {
                    vectors.push(v);
                }
            }
        }
        let (mut one, mut two) = (trees_only(), trees_only());
        // The second store takes them in reverse order: other numbers for the same nodes.
        let mut numbers = vec![[0u32; 2]; vectors.len()];
        for (v, numbered) in vectors.iter().zip(numbers.iter_mut()) {
            numbered[0] = one.insert(&key(v.clone()));
        }
        for (v, numbered) in vectors.iter().zip(numbers.iter_mut()).rev() {
            numbered[1] = two.insert(&key(v.clone()));
        }
        let stores = [&one, &two];
        let mut room = Levels::default();
        let mut near = 0;
        for round in 0..20_000 {
            // Mostly a state near the last one (of the same length, most often), as in
            // breadth-first order; sometimes any state, of either store.
            let v = match random(8) {
                0 => random(vectors.len()),
                _ => (near + random(5)).saturating_sub(2).min(vectors.len() - 1),
            };
            near = v;
            let which = usize::from(random(10) == 0);
            let (store, n) = (stores[which], numbers[v][which]);
            store.read_levels(n, &mut room);
            let fresh = store.levels(n);
            assert_eq!(room.levels, fresh.levels, "round {round}: state {n}");
            assert_eq!(
                room.hash, fresh.hash,
                "round {round}: the hash of state {n}"
            );
        }
    }

    /// Threads that look states up while one writer adds them see each state either not
    /// yet or whole: whatever they find reads back as the ids they looked for, and a state
    /// the writer has published (stored before it moved `published` on) is always found. The
    /// readers go on until the writer is done, so some lookups of published states happen
    /// whatever the scheduling. The writer is refused, with nothing added, once the room made
    /// for it is used up.
    #[test]
    fn readers_see_whole_states_while_the_writer_adds() {
        use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
        let vectors: Vec<Vec<u32>> = (0..20_000u32)
            .map(|i| {
                let id = |k| match k {
                    3 => i % 251,
                    8 => i / 251,
                    k => k,
                };
                (0..12).map(id).collect()
            })
            .collect();
        let mut store = Store::default();
        store.make_room(vectors.len(), 12 * vectors.len());
        let mut writer = store.take_writer();
        let store = &store;
        let (published, done) = (AtomicUsize::new(0), AtomicBool::new(false));
        std::thread::scope(|scope| {
            for reader in 0..2 {
                let (vectors, published, done) = (&vectors, &published, &done);
                scope.spawn(move || {
                    let mut scratch = Levels::default();
                    let mut round = 0;
                    while round < 40_000 || !done.load(Ordering::Acquire) {
                        let i = (round * 7919 + reader * 13) % vectors.len();
                        let before = published.load(Ordering::Acquire);
                        let got = store.find_near(None, &vectors[i], &mut scratch);
                        if i < before {
                            assert_eq!(got, Some(i as u32), "a published state is found");
                        }
                        if let Some(n) = got {
                            assert_eq!(store.levels(n).ids(), &vectors[i][..]);
                        }
                        round += 1;
                    }
                });
            }
            let mut near = Levels::default();
            for (i, v) in vectors.iter().enumerate() {
                let added = store.insert_shared(&mut writer, Some(&near), v);
                let (n, _) = added.expect("room was made");
                store.read_levels(n, &mut near);
                published.store(i + 1, Ordering::Release);
            }
            done.store(true, Ordering::Release);
        });
        for (i, v) in vectors.iter().enumerate() {
            let mut scratch = Levels::default();
            assert_eq!(store.find_near(None, v, &mut scratch), Some(i as u32));
        }
        let mut full = 0;
        while store
            .insert_shared(&mut writer, None, &[full, 1, 2])
            .is_some()
        {
            full += 1;
        }
        let len = store.len();
        assert_eq!(store.insert_shared(&mut writer, None, &[full, 1, 2]), None);
        assert_eq!(store.len(), len);
    }
}
