//! The fast successor function: a state's transitions from cached per-component moves, on id
//! sequences, with no state rebuilt and no allocation for a target already stored.
//!
//! What a component can do is computed once per distinct component by the reference
//! semantics (`Semantics::component_moves`, `component_receives`: the very rules
//! `successors` applies) and kept here with its continuations interned. A state's
//! transitions are then assembled exactly as `Semantics::successors` orders them: every
//! offer firing alone, in offer order, then every output with every input on its channel.
//! A target is the source's ids with the acting components replaced by their continuations'
//! ids, each put in its place in the canonical order.
//!
//! The fast path covers states without fresh names. A state holding a fresh name, or a
//! component whose moves make one, takes the reference path (`Semantics::successors`), since
//! fresh names are numbered over the whole state. So does a state whose moves are not all
//! cached yet: the workers report what was missing ([`Miss`]) and the serial merge computes it
//! ([`Engine::fill`]), so the cache is the same whatever the thread count, and so is every
//! result (the fast path and the reference give the same transitions in the same order;
//! `tests/differential.rs` holds them to it).

mod assembly;
mod cached;
use assembly::Assembly;
pub use cached::Cached;
mod fill;
mod queues;
use queues::QueueCache;

use crate::intern::{Interner, Parts};
use crate::por::{ALONE, Alphabet, Alphabets, Component, stubborn};
use crate::store::{Levels, Store};
use agentpi_diagnostics::Span;
use agentpi_semantics::state::canonical_components;
use agentpi_semantics::{
    Chan, Fault, FaultKind, Head, Instance, Label, MAX_NESTING, Made, MoveKind, Proc, Queue,
    Received, Semantics, State, Value,
};
use rustc_hash::FxHashMap;
use std::mem::take;

/// The cached moves, filled by the serial merge and read by the workers.
pub(crate) struct Engine<'s, 'p> {
    sem: &'s Semantics<'p>,
    moves: MovesTable,
    /// What an input offer does with a message: by (component id, twin, offer, message).
    received: FxHashMap<(u32, bool, u32, u32), Recv>,
    /// Each queue's length, front message and what it is without it, and what it becomes
    /// with a message added: by (channel's queue or none, channel, message).
    queues: QueueCache,
    messages: Table<Box<[Value]>>,
    /// Outputs' first values and inputs' guards, numbered: a state's outputs are tried with
    /// every input on their channel, and comparing numbers, not values, was most of that.
    values: Table<Value>,
    /// A channel with what an input on it requires (a value's number, or nothing),
    /// numbered: an input's and an output's are equal when the output may meet the input.
    syncs: Table<(Chan, Option<u32>)>,
    /// Channels numbered for [`CompMoves::in_chans`] and `out_chans`.
    chans: Table<Chan>,
    pub(crate) labels: Table<Label>,
    /// How often each miss of a large component was met (see [`Engine::fill_now`]).
    missed: FxHashMap<Miss, u8>,
    /// With partial-order reduction: each declared channel's users, and for each of the
    /// engine's labels whether a property sees it (see [`crate::por`]).
    por: Option<Alphabets>,
    pub(crate) visible: Vec<bool>,
}

/// The cached moves by (component id, twin), in a vector indexed by both: every state looks
/// up each of its components (a hash look-up each was a third of putting a state's
/// transitions together). An id is its component's number among those of its kind times
/// four, plus the kind (`crate::intern`): at most eight entries a component interned.
#[derive(Default)]
struct MovesTable {
    entries: Vec<Option<Box<CompMoves>>>,
}

impl MovesTable {
    fn get(&self, id: u32, twin: bool) -> Option<&CompMoves> {
        self.entries.get(Self::at(id, twin))?.as_deref()
    }

    fn insert(&mut self, id: u32, twin: bool, moves: CompMoves) {
        let at = Self::at(id, twin);
        if self.entries.len() <= at {
            self.entries.resize_with(at + 1, || None);
        }
        self.entries[at] = Some(Box::new(moves));
    }

    fn at(id: u32, twin: bool) -> usize {
        2 * id as usize + usize::from(twin)
    }
}

/// Values numbered by first appearance.
pub(crate) struct Table<T> {
    pub(crate) items: Vec<T>,
    index: FxHashMap<T, u32>,
}

impl<T: Clone + Eq + std::hash::Hash> Table<T> {
    fn new() -> Self {
        Table {
            items: Vec::new(),
            index: FxHashMap::default(),
        }
    }

    fn id(&mut self, item: T) -> u32 {
        if let Some(&id) = self.index.get(&item) {
            return id;
        }
        let id = self.items.len() as u32;
        self.items.push(item.clone());
        self.index.insert(item, id);
        id
    }
}

/// The moves of one component, continuations interned.
///
/// Every state reads the first cache line of each of its components' moves (which channels
/// its offers are on, which offers fire alone, which meet), so those fields are laid out
/// first in a line of their own, and the outputs and inputs are one list: read from three
/// lists and fields spread over three lines, they were a pointer chase and a cache miss each,
/// the costliest loads of putting a Peterson state's transitions together.
#[repr(C, align(64))]
struct CompMoves {
    /// The channels of `sync_ins` and of `sync_outs`, a bit each (a channel's number in
    /// `Engine::chans` modulo [`ChanBits::BITS`]): a state's outputs are tried only when
    /// some input may be on their channel, and its inputs indexed only when some output may
    /// be on theirs. Peterson's and the filter lock's registers offer a read and a write in
    /// every state, and listing, indexing and trying them all was most of pairing a state's
    /// offers.
    in_chans: ChanBits,
    out_chans: ChanBits,
    /// The offers that fire alone, in order (rules *Tau*, *Event*, *Assert*, *Fault*, and a
    /// send or receive on a buffered channel; not a twin's), each with what its common step
    /// needs (see [`Single`]).
    singles: Box<[Single]>,
    /// Indices into `offers`, in order, the outputs (`sync_outs`), then from `ins_at` the
    /// inputs (`sync_ins`) on synchronous channels. A state's transitions went through every
    /// offer of every component three times to pick these and the singles out (philosophers
    /// fire nothing alone).
    kinds: Box<[u32]>,
    ins_at: u32,
    /// Whether a state holding it takes the reference path: opening it makes names (an
    /// offer's values would hold names numbered by the whole state's opening), or sequences
    /// nest in it deeper than allowed (its every step is a fault).
    slow: bool,
    offers: Box<[FastMove]>,
    /// With partial-order reduction: the channels it may ever use, and those of its offers.
    alphabet: Alphabet,
    chans: Box<[Chan]>,
    internal: Vec<(u32, u32, Vec<FastStep>)>,
}

impl CompMoves {
    fn singles(&self) -> &[Single] {
        &self.singles
    }

    fn sync_outs(&self) -> &[u32] {
        &self.kinds[..self.ins_at as usize]
    }

    fn sync_ins(&self) -> &[u32] {
        &self.kinds[self.ins_at as usize..]
    }
}

/// An offer that fires alone, with what its common step needs, read in a few bytes beside
/// the others of its component: an offer of kind `Alone` whose continuation is one
/// component, made with no name and nested no deeper than allowed, that component (`then`;
/// [`NOT_PLAIN`] for any other offer, which is read from `CompMoves::offers`). The offers
/// themselves are a hundred bytes and more apart, and reading each to fire it was a cache
/// miss a step on Peterson N = 4 (whose processes mostly take `tau` steps).
#[derive(Clone, Copy)]
struct Single {
    offer: u32,
    label: u32,
    instance: Instance,
    then: u32,
}

/// [`Single::then`] of an offer whose step takes the general way.
const NOT_PLAIN: u32 = u32::MAX;

// The fields every state reads fit the first line (see [`CompMoves`]).
const _: () = assert!(std::mem::offset_of!(CompMoves, slow) < 64);

/// A set of channels, a bit each (see [`CompMoves::in_chans`]): one word, since every state
/// gathers and tests them for each of its components (a `u128` was two each time). Channels
/// that share a bit only let through offers that meet nothing.
type ChanBits = u64;

struct FastMove {
    kind: FastKind,
    /// Of a twin nested in the component: never alone, never with another component.
    twin: bool,
    instance: Instance,
    span: Span,
}

enum FastKind {
    Alone {
        label: u32,
        then: Then,
    },
    Fault(FaultKind),
    Out(Output),
    In {
        chan: Chan,
        /// The number of the value its first pattern requires, in `Engine::values`.
        guard_key: Option<u32>,
        /// Its channel with that, in `Engine::syncs`.
        sync: u32,
        may_fault: bool,
    },
}

struct Output {
    chan: Chan,
    msg: u32,
    /// The first value's number in `Engine::values`.
    first_key: Option<u32>,
    /// Whether its component has an input on its channel (which it may meet inside).
    inner: bool,
    /// The inputs it may meet by `Engine::syncs`: those that require nothing, and those
    /// that require its first value.
    sync_any: u32,
    sync_first: Option<u32>,
    /// `chan(values)`, its label as a communication; `chan!(values)` as a send;
    /// `chan!(values) lost` as a send a lossy channel loses.
    comm: u32,
    send: u32,
    lost: u32,
    then: Then,
}

struct FastStep {
    label: u32,
    then: Then,
    actors: Actors,
}

/// What a component became, and the ids building it made (`made`, in the numbering of the
/// computation that cached it: see `agentpi_semantics::component`).
struct Then {
    built: Result<Continuation, Fault>,
    made: Made,
}

/// A continuation: its components interned, in canonical order (when it made no name), as
/// the semantics built them (for states with fresh names, put in canonical form with the
/// whole state), how deeply sequences nest in them, and whether one holds a fresh name.
struct Continuation {
    ids: Ids,
    raw: Box<[Proc]>,
    nesting: usize,
    named: bool,
}

/// A continuation's component ids: one or two (most continuations are one component) kept
/// in place, so that a step reads them with the offer it fires, not behind a pointer of
/// their own; more on the heap.
enum Ids {
    Few(u8, [u32; 2]),
    Many(Box<[u32]>),
}

impl std::ops::Deref for Ids {
    type Target = [u32];

    fn deref(&self) -> &[u32] {
        match self {
            Ids::Few(len, ids) => &ids[..usize::from(*len)],
            Ids::Many(ids) => ids,
        }
    }
}

impl From<Vec<u32>> for Ids {
    fn from(ids: Vec<u32>) -> Self {
        match ids[..] {
            [] => Ids::Few(0, [0; 2]),
            [a] => Ids::Few(1, [a, 0]),
            [a, b] => Ids::Few(2, [a, b]),
            _ => Ids::Many(ids.into_boxed_slice()),
        }
    }
}

struct Recv {
    kind: RecvKind,
    /// `chan?(values)`: its label when it takes the message from a buffered channel.
    label: u32,
}

enum RecvKind {
    NoMatch,
    Fault(Fault),
    Then(Then),
}

struct QueueInfo {
    len: usize,
    front: u32,
    /// The queue without its front message (`None`: empty, so gone).
    popped: Option<u32>,
}

/// The instances that moved: one, or the sender and the receiver.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Actors {
    One(Instance),
    Two(Instance, Instance),
}

impl Actors {
    pub(crate) fn to_vec(self) -> Vec<Instance> {
        match self {
            Actors::One(a) => vec![a],
            Actors::Two(a, b) => vec![a, b],
        }
    }
}

/// The graph's numbers of the fast path's sets of actors (`Run::fast_actors`, once per
/// transition): by the first instance, then by the second plus one (0: alone), for instances
/// below [`ActorNumbers::NEAR`]; hashed beyond. Hashing every transition's `Actors` was 3% of
/// Peterson N = 4's instructions.
#[derive(Default)]
pub(crate) struct ActorNumbers {
    near: Vec<Vec<u32>>,
    far: FxHashMap<Actors, u32>,
}

impl ActorNumbers {
    /// Instances below this are looked up by index (at most `NEAR` squared numbers).
    const NEAR: u32 = 1 << 8;
    const NONE: u32 = u32::MAX;

    /// Where `actors` is kept among the near ones, if it is.
    fn at(actors: Actors) -> Option<(usize, usize)> {
        let (first, second) = match actors {
            Actors::One(a) => (a, 0),
            Actors::Two(a, b) => (a, b.checked_add(1)?),
        };
        (first < Self::NEAR && second <= Self::NEAR).then_some((first as usize, second as usize))
    }

    #[inline]
    pub(crate) fn get(&self, actors: Actors) -> Option<u32> {
        let Some((first, second)) = Self::at(actors) else {
            return self.far.get(&actors).copied();
        };
        let number = *self.near.get(first)?.get(second)?;
        (number != Self::NONE).then_some(number)
    }

    pub(crate) fn insert(&mut self, actors: Actors, number: u32) {
        let Some((first, second)) = Self::at(actors) else {
            self.far.insert(actors, number);
            return;
        };
        if self.near.len() <= first {
            self.near.resize_with(first + 1, Vec::new);
        }
        let row = &mut self.near[first];
        if row.len() <= second {
            row.resize(second + 1, Self::NONE);
        }
        row[second] = number;
    }
}

/// One transition of the fast path.
pub(crate) enum FastSucc {
    To {
        label: u32,
        actors: Actors,
        target: Target,
        /// The source's fresh ids as the target numbers them (`Transition::renaming`).
        renaming: agentpi_semantics::Renaming,
    },
    /// A fault transition.
    Fault {
        label: u32,
        fault: Fault,
        actors: Actors,
    },
}

/// A target: a stored state's number (stored before this chunk), or the key of one that
/// was not.
pub(crate) enum Target {
    Known(u32),
    /// Its ids are `ids[start..start + len]` of the expansion's arena.
    New {
        start: u32,
        len: u32,
    },
    /// A state with fresh names, in canonical form, not found stored (its components may
    /// not be interned yet: the merge interns them).
    State(Box<State>),
    /// A target whose ids (`ids[start..start + len]` of the arena) hold a queue content the
    /// cache lacked (computed by the worker): its place is the last id, a placeholder, and
    /// the merge fills the cache entry that gives the content and puts its id there (see
    /// `Run::learn`).
    Queued(u32, u32, Box<Miss>),
}

impl Engine<'_, '_> {
    /// The id of the queue content cache entry `miss` gives, once filled: a pushed content,
    /// or a queue without its front message.
    pub(crate) fn queue_for(&self, miss: &Miss) -> u32 {
        let id = match miss {
            Miss::Pushed(queue, chan, msg) => self.queues.pushed(*queue, *chan, *msg),
            Miss::Queue(queue) => self.queues.info(*queue).and_then(|info| info.popped),
            Miss::Moves(..) | Miss::Received(..) => None,
        };
        id.expect("a queue content filled")
    }
}

/// Something the fast path needed and the cache did not have.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Miss {
    Moves(u32, bool),
    Received(u32, bool, u32, u32),
    Queue(u32),
    Pushed(Option<u32>, Chan, u32),
}

/// A state's transitions, the ids of its new targets, and the stubborn set to expand it by.
pub(crate) type Assembled = (Vec<FastSucc>, Vec<u32>, Option<Vec<u32>>);

/// What the fast path made of a state.
pub(crate) enum Expansion {
    /// The transitions, the arena holding the ids of targets not stored before, and with
    /// partial-order reduction the stubborn set to expand by (indices of transitions;
    /// `None`: all of them).
    Fast(Vec<FastSucc>, Vec<u32>, Option<Vec<u32>>),
    /// The reference path: the state holds fresh names, or these were missing.
    Slow(Vec<Miss>),
}

/// What a worker thread reuses from one state to the next.
#[derive(Default)]
struct Room {
    /// The tree of the state being expanded; its ids in key order.
    source: Levels,
    /// Whose tree `source` is: (the store's serial, the state), until [`take_source`].
    of: Option<(u64, u32)>,
    work: Work,
}

// Each worker thread keeps its room from state to state: no allocation per state.
thread_local!(static ROOM: std::cell::RefCell<Room> = Default::default());

/// A copy of the tree of state `s` of `store` in `out`, if the last state this thread
/// expanded was that one: what [`take_source`] gives, for a thread that expands more states
/// before the merge takes this one. Its own tree stays, so that the next state's is read
/// from it along the items that differ only: swapped for a block's old tree (a state far
/// off), the next was read nearly whole (philosophers N = 12, two threads: `read_levels`
/// 459 M instructions, now 276 M and 76 M copying). A row is taken, not copied: the next
/// state is read whole after a row anyway.
pub(crate) fn copy_source(store: &Store, s: u32, out: &mut Levels) -> bool {
    ROOM.with_borrow_mut(|room| {
        if room.of != Some((store.serial(), s)) {
            return false;
        }
        match room.source.is_row() {
            true => {
                room.of = None;
                std::mem::swap(&mut room.source, out);
            }
            false => out.copy_from(&room.source),
        }
        true
    })
}

/// The tree of state `s` of `store` into `out` (its room swapped for this thread's), if the
/// last state this thread expanded was that one: the merge walks up from its source's tree to
/// store new targets, and reading it again from the store was 3% of the instructions of
/// philosophers N = 10 on one thread (which merges each state right after expanding it).
pub(crate) fn take_source(store: &Store, s: u32, out: &mut Levels) -> bool {
    ROOM.with_borrow_mut(|room| {
        if room.of != Some((store.serial(), s)) {
            return false;
        }
        room.of = None;
        std::mem::swap(&mut room.source, out);
        true
    })
}

/// Room for putting one state's transitions together.
#[derive(Default)]
struct Work {
    /// The source's components in canonical order, and where each is in key order.
    canon: Vec<u32>,
    key_pos: Vec<u32>,
    reused: Reused,
    slots: Vec<Slot>,
    moves: Vec<&'static CompMoves>,
    order: Order,
}

/// The vectors an [`Assembly`] writes into, lent to it whole: taking each out of the
/// worker's room and putting it back, and building the assembly around them, was a few
/// hundred instructions a state.
#[derive(Default)]
struct Reused {
    /// The tree of a target, and its ids.
    scratch: Levels,
    buffer: Vec<u32>,
    /// For each transition, the positions (in `canon`) of the components it moves.
    movers: Vec<[u32; 2]>,
    /// What the filter said of each label so far (`Assembly::wanted`).
    asked: Vec<Option<bool>>,
    /// Room for the inputs by channel and required value, and an output's candidates (see
    /// `InputIndex`), and for the inputs.
    lists: assembly::Lists,
    inputs: Vec<assembly::Input>,
    /// The targets looked up once the state's transitions are all put together.
    deferred: Vec<assembly::Deferred>,
}

/// An empty vector of another lifetime with the same room: a worker's room outlives the
/// borrows of one state, and allocating these afresh for every state had the two threads wait
/// on each other in glibc's allocator (they may share an arena). Empty, so nothing of one
/// lifetime reaches the other; the room is kept where the standard library collects in place
/// (same size and alignment), else this allocates as before.
fn recycle<T, U>(mut v: Vec<T>) -> Vec<U> {
    v.clear();
    v.into_iter().map(|_| unreachable!("empty")).collect()
}

/// Comparisons of components in canonical order (`Interner::cmp`, a deep comparison of
/// closures), remembered in a small direct-mapped table: every state's components are
/// sorted so, and a model has few distinct components, so most comparisons recur (sorting
/// was a tenth of the fast path's time). Interned ids never change their meaning within a
/// store; the table is emptied for another store.
struct Order {
    store: u64,
    /// (a, b, a compared to b), at a slot chosen by hashing the pair.
    slots: Vec<(u32, u32, std::cmp::Ordering)>,
    /// Each closure's and each sequence's rank in canonical order among the components
    /// interned when the ranks were last computed (by [`Interner::component_number`]; equal
    /// ranks for components that compare equal): a state whose components all have one is
    /// sorted by rank, a few integer comparisons, not by comparing components. Computed
    /// again once [`Order::RANK_AFTER`] states (or a sixteenth as many as there are
    /// components) were sorted the slow way since, so that a model whose components keep
    /// growing pays a few comparisons a state for it.
    ranks: [Vec<u32>; 2],
    /// The components ranked, in canonical order: those interned since are put in their
    /// places among them (see [`Order::rank`]).
    sorted: Vec<u32>,
    unranked: usize,
    /// The (rank, position) keys of the state sorted last, in its canonical order.
    keyed: Vec<u64>,
    /// That state's components (empty: none to start from, whatever the next state), of
    /// which `keyed` holds the
    /// ranks: the next state sorted is mostly the same ids (see [`Order::by_rank_since`]).
    last: Vec<u32>,
}

impl Default for Order {
    fn default() -> Self {
        Order {
            store: u64::MAX,
            slots: Vec::new(),
            ranks: [Vec::new(), Vec::new()],
            sorted: Vec::new(),
            unranked: 0,
            keyed: Vec::new(),
            last: Vec::new(),
        }
    }
}

// [`Order::by_rank_since`] marks the changed positions of a state sorted by insertion in a
// `u64`: a larger bound would shift past its bits.
const _: () = assert!(Order::INSERTION_SORTED <= 64);

impl Order {
    const SLOTS: usize = 1 << 14;
    /// Components are ranked again after this many states sorted the slow way, or a
    /// sixteenth of the components if more (ranking costs a pass over them all).
    const RANK_AFTER: usize = 64;
    /// States of at most this many components are sorted by insertion from the order of
    /// the state sorted before (see [`Order::by_rank`]).
    const INSERTION_SORTED: usize = 32;

    /// `ids` sorted in canonical order, stably (as `sort_by` with [`Interner::cmp`]), into
    /// `canon`, and into `key_pos` the position in `ids` of each (so that a step finds the
    /// component it replaces without searching for it).
    fn sort(&mut self, store: &Store, ids: &[u32], canon: &mut Vec<u32>, key_pos: &mut Vec<u32>) {
        if self.store != store.serial() || self.slots.is_empty() {
            let empty = (u32::MAX, u32::MAX, std::cmp::Ordering::Equal);
            self.slots.clear();
            self.slots.resize(Self::SLOTS, empty);
            self.ranks.iter_mut().for_each(Vec::clear);
            self.sorted.clear();
            self.unranked = 0;
            self.last.clear();
            self.store = store.serial();
        }
        let interner = store.interner();
        if self.by_rank(ids, key_pos, canon) {
            return;
        }
        // Positions sorted stably by their ids: the ids' own stable order.
        key_pos.clear();
        key_pos.extend(0..ids.len() as u32);
        key_pos.sort_by(|&a, &b| self.cmp(interner, ids[a as usize], ids[b as usize]));
        canon.clear();
        canon.extend(key_pos.iter().map(|&k| ids[k as usize]));
        self.unranked += 1;
        let [leaves, seqs] = interner.components();
        if self.unranked >= Self::RANK_AFTER.max((leaves + seqs) / 16) {
            self.rank(interner);
        }
    }

    /// The positions of `ids` sorted by their ranks into `key_pos`, and the ids in that order
    /// into `canon`, if they all have one.
    /// `key_pos` comes with the order of the state sorted before (a permutation of its
    /// positions), which is taken first when the state is as long: the states expanded one
    /// after another are mostly alike, so it is nearly sorted already, and an insertion sort
    /// from it does a few moves where sorting from the positions' order did dozens. The
    /// (rank, position) keys are all different, so the order sorted is the same either way.
    fn by_rank(&mut self, ids: &[u32], key_pos: &mut Vec<u32>, canon: &mut Vec<u32>) -> bool {
        // An empty `last` is no state to start from (a state of no component is sorted
        // at once).
        let since = !self.last.is_empty() && self.last.len() == ids.len();
        if since && ids.len() <= Self::INSERTION_SORTED {
            return self.by_rank_since(ids, key_pos, canon);
        }
        self.last.clear();
        self.keyed.clear();
        let hinted = key_pos.len() == ids.len();
        let start = |j: usize| match hinted {
            true => key_pos[j] as usize,
            false => j,
        };
        for pos in (0..ids.len()).map(start) {
            let (kind, i) = Interner::component_number(ids[pos]);
            let Some(&rank) = self.ranks[kind].get(i) else {
                return false;
            };
            self.keyed.push(u64::from(rank) << 32 | pos as u64);
        }
        // An insertion sort takes quadratic time on a state of many components far from
        // the order before.
        match self.keyed.len() <= Self::INSERTION_SORTED {
            true => _ = insertion_sort(&mut self.keyed),
            false => self.keyed.sort_unstable(),
        }
        key_pos.clear();
        key_pos.extend(self.keyed.iter().map(|&k| k as u32));
        canon.clear();
        canon.extend(key_pos.iter().map(|&k| ids[k as usize]));
        self.last.extend_from_slice(ids);
        true
    }

    /// What [`Order::by_rank`] does, from the state sorted last (`last`, whose keys, order
    /// and components `keyed`, `key_pos` and `canon` still hold; as many ids): only the
    /// positions whose id changed get a new rank, the keys are sorted by insertion from
    /// their order before, and when none moves only the changed components are written
    /// into `canon`. Consecutive states differ in a few components; ranking and writing
    /// every one was most of sorting a state. The ranks of the others are the same as when
    /// `keyed` was made: `last` is emptied whenever the ranks change ([`Order::ranked`]).
    fn by_rank_since(&mut self, ids: &[u32], key_pos: &mut Vec<u32>, canon: &mut [u32]) -> bool {
        let mut changed = 0u64;
        for (p, (a, b)) in ids.iter().zip(&self.last).enumerate() {
            changed |= u64::from(a != b) << p;
        }
        if changed == 0 {
            return true;
        }
        for key in self.keyed.iter_mut() {
            let pos = *key as u32 as usize;
            if changed >> pos & 1 == 0 {
                continue;
            }
            let (kind, i) = Interner::component_number(ids[pos]);
            let Some(&rank) = self.ranks[kind].get(i) else {
                self.last.clear();
                return false;
            };
            *key = u64::from(rank) << 32 | pos as u64;
        }
        if insertion_sort(&mut self.keyed) {
            key_pos.clear();
            key_pos.extend(self.keyed.iter().map(|&k| k as u32));
            for (c, &k) in canon.iter_mut().zip(key_pos.iter()) {
                *c = ids[k as usize];
            }
        } else {
            for (c, &k) in canon.iter_mut().zip(&self.keyed) {
                if changed >> (k as u32) & 1 != 0 {
                    *c = ids[k as u32 as usize];
                }
            }
        }
        self.last.copy_from_slice(ids);
        true
    }

    /// Ranks every component interned: those interned since the last ranking are sorted
    /// and each put in its place among the ranked ones by a binary search, a few deep
    /// comparisons each. Sorting them all again each time was 9% of the instructions of
    /// the bounded buffer (`bench/check/buffer.pi`, whose consumer keeps three counters:
    /// thousands of components, met a few at a time).
    fn rank(&mut self, interner: &Interner) {
        use std::cmp::Ordering;
        let [leaves, seqs] = interner.components();
        let ranked = [self.ranks[0].len(), self.ranks[1].len()];
        let mut new: Vec<u32> = (ranked[0]..leaves)
            .map(|i| Interner::component_id(0, i))
            .chain((ranked[1]..seqs).map(|i| Interner::component_id(1, i)))
            .collect();
        new.sort_by(|&a, &b| interner.cmp(a, b));
        let old = take(&mut self.sorted);
        let mut all = Vec::with_capacity(old.len() + new.len());
        let mut from = 0;
        for &id in &new {
            let after = old[from..].partition_point(|&o| interner.cmp(o, id) != Ordering::Greater);
            all.extend_from_slice(&old[from..from + after]);
            all.push(id);
            from += after;
        }
        all.extend_from_slice(&old[from..]);
        // Equal ranks for neighbours that compare equal: two ranked before compare as
        // their ranks did.
        let old_rank = |id: u32| {
            let (kind, i) = Interner::component_number(id);
            (i < ranked[kind]).then(|| self.ranks[kind][i])
        };
        let mut ranks = Vec::with_capacity(all.len());
        let mut rank = 0;
        for (k, &id) in all.iter().enumerate() {
            if k > 0 {
                let before = all[k - 1];
                let equal = match (old_rank(before), old_rank(id)) {
                    (Some(a), Some(b)) => a == b,
                    _ => interner.cmp(before, id) == Ordering::Equal,
                };
                rank += u32::from(!equal);
            }
            ranks.push(rank);
        }
        self.install(&all, &ranks, [leaves, seqs]);
        self.sorted = all;
    }

    /// Gives component `all[k]` rank `ranks[k]`, of `counts` closures and sequences. The
    /// state sorted last is forgotten: its keys hold the ranks before
    /// ([`Order::by_rank_since`]).
    fn install(&mut self, all: &[u32], ranks: &[u32], counts: [usize; 2]) {
        self.ranks[0].resize(counts[0], 0);
        self.ranks[1].resize(counts[1], 0);
        for (&id, &rank) in all.iter().zip(ranks) {
            let (kind, i) = Interner::component_number(id);
            self.ranks[kind][i] = rank;
        }
        self.unranked = 0;
        self.last.clear();
    }

    fn cmp(&mut self, interner: &Interner, a: u32, b: u32) -> std::cmp::Ordering {
        if a == b {
            return std::cmp::Ordering::Equal;
        }
        let hash = (u64::from(a) << 32 | u64::from(b)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let slot = &mut self.slots[(hash >> 50) as usize];
        if (slot.0, slot.1) != (a, b) {
            *slot = (a, b, interner.cmp(a, b));
        }
        slot.2
    }
}

/// Sorts `keys` by moving each back past the greater ones before it: few moves when they are
/// nearly sorted (see [`Order::by_rank`]).
/// Whether any key moved.
fn insertion_sort(keys: &mut [u64]) -> bool {
    let mut moved = false;
    for i in 1..keys.len() {
        let key = keys[i];
        if keys[i - 1] <= key {
            continue;
        }
        moved = true;
        let mut j = i;
        while j > 0 && keys[j - 1] > key {
            keys[j] = keys[j - 1];
            j -= 1;
        }
        keys[j] = key;
    }
    moved
}

/// The vectors a state's transitions are put into, handed in empty so that their room is
/// reused from state to state: freed after every chunk instead, the allocator gave their
/// pages back and took them again, a page fault each (a tenth of the time, and a lock the
/// threads contended for).
#[derive(Default)]
pub(crate) struct Buffers {
    pub(crate) succ: Vec<FastSucc>,
    pub(crate) arena: Vec<u32>,
}

/// The position of a component in the source state and its role: the reference opens the
/// first of equal components side by side in full, the second as a twin, the others not at
/// all (`Opener::open_list`), a slot each for the first two.
#[derive(Clone, Copy)]
struct Slot {
    pos: usize,
    id: u32,
    twin: bool,
}

impl<'s, 'p> Engine<'s, 'p> {
    pub(crate) fn new(sem: &'s Semantics<'p>, por: bool) -> Self {
        Engine {
            por: por.then(|| Alphabets::of_program(sem.program)),
            visible: Vec::new(),
            sem,
            moves: MovesTable::default(),
            received: FxHashMap::default(),
            queues: QueueCache::default(),
            messages: Table::new(),
            values: Table::new(),
            syncs: Table::new(),
            chans: Table::new(),
            missed: FxHashMap::default(),
            labels: {
                let mut labels = Table::new();
                labels.id(Label::tau());
                labels
            },
        }
    }

    /// Whether it computes stubborn sets (partial-order reduction).
    pub(crate) fn reduces(&self) -> bool {
        self.por.is_some()
    }

    /// The transitions of state `s`, in the order `Semantics::successors` gives them (put
    /// into `buffers`, which come empty), or what keeps the fast path from computing them.
    pub(crate) fn expand(&self, store: &Store, s: u32, buffers: Buffers) -> Expansion {
        ROOM.with_borrow_mut(|room| {
            store.read_levels(s, &mut room.source);
            room.of = Some((store.serial(), s));
            self.expand_in(store, room, s, buffers)
        })
    }

    fn expand_in(&self, store: &Store, room: &mut Room, s: u32, buffers: Buffers) -> Expansion {
        let levels = Some((&room.source, s));
        let (ids, work) = (room.source.ids(), &mut room.work);
        match self.assemble(store, ids, levels, None, work, buffers) {
            Ok((out, arena, reduced)) => Expansion::Fast(out, arena, reduced),
            Err(misses) => Expansion::Slow(misses),
        }
    }

    /// The transitions of the state with ids `ids` (in key order), in the order
    /// `Semantics::successors` gives them, those whose label `keep` accepts when it is given;
    /// with `levels` (the state's tree and number) targets are looked up in the store, else
    /// built whole. What was missing, or nothing when the state takes the reference path.
    fn assemble(
        &self,
        store: &Store,
        ids: &[u32],
        levels: Option<(&Levels, u32)>,
        keep: Option<&dyn Fn(&Label) -> bool>,
        work: &mut Work,
        buffers: Buffers,
    ) -> Result<Assembled, Vec<Miss>> {
        let interner = store.interner();
        let split = ids.partition_point(|&id| !Interner::is_queue(id));
        // Names in queued messages are renumbered with the queues: the reference path.
        let named = interner.holds_names();
        if named && ids[split..].iter().any(|&id| interner.fresh_bound(id) > 0) {
            return Err(Vec::new());
        }
        let fresh = match named {
            true => ids.iter().map(|&id| interner.fresh_bound(id)).max(),
            false => None,
        };
        let fresh = fresh.unwrap_or(0);
        // The store keeps ids by instance; the reference opens components in canonical order.
        let (canon, key_pos) = (&mut work.canon, &mut work.key_pos);
        work.order.sort(store, &ids[..split], canon, key_pos);
        let mut slots = take(&mut work.slots);
        let mut moves = recycle(take(&mut work.moves));
        let meet = match self.slots_and_moves(&work.canon, &mut slots, &mut moves) {
            Ok(meet) => meet,
            Err(misses) => {
                (work.slots, work.moves) = (slots, recycle(moves));
                return Err(misses);
            }
        };
        work.reused.movers.clear();
        work.reused.asked.clear();
        work.reused.deferred.clear();
        let mut run = Assembly {
            engine: self,
            store,
            ids,
            levels: levels.map(|(l, _)| l),
            source: levels.map(|(_, s)| s),
            keep,
            reused: &mut work.reused,
            arena: buffers.arena,
            split,
            canon: &work.canon,
            key_pos: &work.key_pos,
            slots: &slots,
            moves: &moves,
            out: buffers.succ,
            movers_now: [0, ALONE],
            meet,
            misses: Vec::new(),
            slow: false,
            fresh,
            counter: fresh,
            pending: None,
        };
        run.singles();
        run.communications();
        let failed = run.slow || !run.misses.is_empty();
        if !failed {
            run.resolve();
        }
        let reduced = match (failed, &self.por, levels) {
            (false, Some(_), Some((_, s))) => run.reduce(s),
            _ => None,
        };
        let (out, arena, misses) = (run.out, run.arena, run.misses);
        (work.slots, work.moves) = (slots, recycle(moves));
        match failed {
            true => Err(misses),
            false => Ok((out, arena, reduced)),
        }
    }

    /// The components the reference opens, in order (see [`Slot`]), into `slots`, the
    /// moves of each into `moves`, and the channels (a bit each, see
    /// [`CompMoves::in_chans`]) that both some output and some input of the state are on:
    /// the offers on no such channel meet nothing. What is missing, or an empty list when a
    /// component takes the reference path (fresh names, or a source already nested too
    /// deeply: its every step is a fault).
    fn slots_and_moves<'a>(
        &'a self,
        canon: &[u32],
        slots: &mut Vec<Slot>,
        moves: &mut Vec<&'a CompMoves>,
    ) -> Result<ChanBits, Vec<Miss>> {
        fill_slots(canon, slots);
        let mut misses = Vec::new();
        for slot in slots.iter() {
            match self.moves.get(slot.id, slot.twin) {
                Some(m) if m.slow => return Err(Vec::new()),
                Some(m) => moves.push(m),
                None => misses.push(Miss::Moves(slot.id, slot.twin)),
            }
        }
        if !misses.is_empty() {
            return Err(misses);
        }
        let (mut ins, mut outs): (ChanBits, ChanBits) = (0, 0);
        for m in moves.iter() {
            ins |= m.in_chans;
            outs |= m.out_chans;
        }
        Ok(ins & outs)
    }

    /// Fills the cache with what expanding state `s` needs (a few rounds: what an input
    /// receives is known once the outputs are), so that it takes the fast path. Done for the
    /// initial state, which would otherwise always take the reference path.
    pub(crate) fn prepare(&mut self, store: &mut Store, s: u32) {
        for _ in 0..4 {
            match self.expand(store, s, Buffers::default()) {
                Expansion::Slow(misses) if !misses.is_empty() => {
                    self.fill_now(store, misses, true);
                }
                _ => return,
            }
        }
    }
}

fn label(head: Head, values: &[Value]) -> Label {
    Label {
        head,
        args: values.into(),
    }
}

fn actors(actors: &[Instance]) -> Actors {
    match actors {
        [a] => Actors::One(*a),
        [a, b] => Actors::Two(*a, *b),
        _ => unreachable!("one actor, or a sender and a receiver"),
    }
}

/// The slots of the components `procs` (in canonical order) into `out` (see [`Slot`]).
fn fill_slots(procs: &[u32], out: &mut Vec<Slot>) {
    out.clear();
    // Most states have no equal components side by side: a slot each, written by one
    // `extend` (a push each checked the room: 300 instructions a Peterson state).
    if procs.windows(2).all(|w| w[0] != w[1]) {
        let slot = |(pos, &id): (usize, &u32)| Slot {
            pos,
            id,
            twin: false,
        };
        out.extend(procs.iter().enumerate().map(slot));
        return;
    }
    for (pos, &id) in procs.iter().enumerate() {
        let second = pos > 0 && procs[pos - 1] == id;
        let third = second && pos > 1 && procs[pos - 2] == id;
        if !third {
            out.push(Slot {
                pos,
                id,
                twin: second,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A copy of the tree of the state this thread expanded last leaves the thread its own,
    /// as often as it is asked, so that the next state is read from it; taking it leaves
    /// none, and so does a row's (the next state is read whole after a row). A worker that
    /// took a tree, to hand it with its expansion, read its next state from a block's old
    /// tree: nearly whole.
    #[test]
    fn a_copied_source_stays_with_the_thread() {
        let mut store = Store::default();
        let tree = store.insert(&crate::store::key(vec![3, 5, 7]));
        let row = store.insert(&crate::store::key(vec![3, 5, 7, 9, 11]));
        let expanded = |s: u32| {
            ROOM.with_borrow_mut(|room| {
                room.source = store.levels(s);
                room.of = Some((store.serial(), s));
            })
        };
        expanded(tree);
        assert!(!store.levels(tree).is_row());
        for _ in 0..2 {
            let mut copy = Levels::default();
            assert!(copy_source(&store, tree, &mut copy));
            assert_eq!(copy.ids(), &[3, 5, 7]);
        }
        assert!(!copy_source(&store, row, &mut Levels::default()));
        let mut taken = Levels::default();
        assert!(take_source(&store, tree, &mut taken));
        assert_eq!(taken.ids(), &[3, 5, 7]);
        assert!(!copy_source(&store, tree, &mut Levels::default()));
        expanded(row);
        assert!(store.levels(row).is_row());
        let mut copy = Levels::default();
        assert!(copy_source(&store, row, &mut copy));
        assert_eq!(copy.ids(), &[3, 5, 7, 9, 11]);
        assert!(!copy_source(&store, row, &mut Levels::default()));
    }

    /// A continuation's ids read back as they were given, whether kept in place (one or two)
    /// or on the heap; in place for one or two.
    #[test]
    fn a_continuations_ids_read_back_as_given() {
        for len in 0..5u32 {
            let given: Vec<u32> = (0..len).map(|i| 7 * i + 3).collect();
            let ids = Ids::from(given.clone());
            assert_eq!(&ids[..], &given[..], "{len} ids");
            assert_eq!(matches!(ids, Ids::Few(..)), len <= 2, "{len} ids in place");
        }
    }

    /// The positions of `ids` by (rank, position), as sorting them afresh gives.
    fn by_ranks_now(order: &Order, ids: &[u32]) -> Vec<u32> {
        let rank = |p: usize| {
            let (kind, i) = Interner::component_number(ids[p]);
            order.ranks[kind][i]
        };
        let mut positions: Vec<u32> = (0..ids.len() as u32).collect();
        positions.sort_by_key(|&p| (rank(p as usize), p));
        positions
    }

    /// States sorted one after another, as a worker sorts them (its `key_pos` and `canon`
    /// kept from state to state), mostly a few ids apart, some of other lengths, the
    /// components ranked again now and then: every order is the one sorting afresh gives.
    /// With the state sorted last kept when the ranks change ([`Order::install`]), a
    /// state sorted from it keeps its unchanged components' old ranks, and this fails; so
    /// it does when an empty state is taken as the one sorted last.
    #[test]
    fn a_state_sorted_from_the_last_is_sorted_by_the_ranks_of_now() {
        let mut random = crate::random::below(0x2545_F491_4F6C_DD1Du64);
        let all: Vec<u32> = (0..12)
            .map(|i| Interner::component_id(i % 2, i / 2))
            .collect();
        let mut ranks: Vec<u32> = (0..12).collect();
        let mut order = Order::default();
        order.install(&all, &ranks, [6, 6]);
        let (mut key_pos, mut canon) = (Vec::new(), Vec::new());
        // A state of no component, right after the ranks change: nothing to start from,
        // though `last` is as long (empty).
        assert!(order.by_rank(&all[..3], &mut key_pos, &mut canon));
        order.install(&all, &ranks, [6, 6]);
        assert!(order.by_rank(&[], &mut key_pos, &mut canon));
        assert_eq!((key_pos.len(), canon.len()), (0, 0), "an empty state");
        let mut ids: Vec<u32> = (0..8).map(|_| all[random(12)]).collect();
        let mut reranked = 0;
        for round in 0..2_000 {
            match random(40) {
                0 => ids = (0..random(10)).map(|_| all[random(12)]).collect(),
                1 => {
                    // Ranks change, equal ones included (components that compare equal).
                    ranks.iter_mut().for_each(|r| *r = random(8) as u32);
                    order.install(&all, &ranks, [6, 6]);
                    reranked += 1;
                }
                _ => {
                    for _ in 0..random(3) {
                        if !ids.is_empty() {
                            let at = random(ids.len());
                            ids[at] = all[random(12)];
                        }
                    }
                }
            }
            assert!(
                order.by_rank(&ids, &mut key_pos, &mut canon),
                "every id ranked"
            );
            let expected = by_ranks_now(&order, &ids);
            assert_eq!(key_pos, expected, "round {round}: the positions of {ids:?}");
            let in_order: Vec<u32> = expected.iter().map(|&p| ids[p as usize]).collect();
            assert_eq!(canon, in_order, "round {round}: the components of {ids:?}");
        }
        assert!(reranked > 10, "ranked again {reranked} times");
    }
}
