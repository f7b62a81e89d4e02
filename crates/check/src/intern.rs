//! Hash-consing of state components: each distinct top-level component (a closure, or a whole
//! sequential composition) and each distinct queue is stored once and named by a `u32`, so a
//! canonical state is the sequence of its components' ids.
//!
//! An id carries its kind in its two low bits (closure, sequence, queue). A canonical state
//! lists its components in canonical order, then its queues in canonical order; interning is
//! injective up to equality, so two canonical states are equal exactly when their id sequences
//! are. The state's `fresh` is not stored: canonical numbering is dense (`0..fresh` by first
//! occurrence), so it is one more than the largest fresh id any component holds, which each
//! component records when it is interned.

use agentpi_semantics::{Chan, Closure, Proc, Queue, State, Value};
use hashbrown::HashTable;
use rustc_hash::{FxBuildHasher, FxHashMap};
use std::hash::BuildHasher;
use std::sync::Arc;

const LEAF: u32 = 0;
const SEQ: u32 = 1;
const QUEUE: u32 = 2;
const KIND_BITS: u32 = 2;
const KIND_MASK: u32 = (1 << KIND_BITS) - 1;

/// Every distinct component seen so far, by id.
#[derive(Default)]
pub(crate) struct Interner {
    /// The canonical copy of each closure. States handed to the semantics are rebuilt from
    /// these, so the components a step leaves in place come back as these very `Arc`s.
    closures: Vec<Arc<Closure>>,
    closure_index: HashTable<u32>,
    /// The address of each `Arc` in `closures`, to its id: the fast path, no hashing of the
    /// closure. Sound because only addresses of `Arc`s held in `closures` are keys, and
    /// `closures` keeps them alive until the interner is dropped: while it lives, no other
    /// allocation can have that address, and the closure cannot change (an `Arc` with a
    /// second owner is never mutated in place: `Arc::make_mut` copies it). Any `Arc` found at
    /// a key's address is therefore a clone of the interned one.
    by_address: FxHashMap<usize, u32>,
    /// Each sequential composition as `[right side's closure id, left side's component
    /// ids...]`: a sequence nested in another is stored once, by id, not copied into it.
    seqs: Vec<Box<[u32]>>,
    seq_index: HashTable<u32>,
    /// Each sequential composition whole, for comparing components in canonical order.
    seq_procs: Vec<Proc>,
    queues: Vec<Queue>,
    queue_index: HashTable<u32>,
    /// Each queue's sum ([`queue_sum`]), from which its hash in `queue_index` is mixed:
    /// growing the index rehashed every content, its values one by one (a twentieth of the
    /// bounded buffer's time, whose states are mostly new contents), and a content pushed or
    /// popped has its sum from its queue's and the one message. Not counted in `bytes`,
    /// like `closure_instance`.
    queue_sums: Vec<u64>,
    /// For each closure, sequence and queue: one more than the largest fresh id it holds.
    closure_fresh: Vec<u32>,
    seq_fresh: Vec<u32>,
    /// For each closure and sequence: its instance, read by [`Interner::order_key`] for every
    /// component a step puts in place (here, and not through the closure's `Arc`: a cache
    /// miss each). Not counted in `bytes`, like the engine's other caches.
    closure_instance: Vec<u32>,
    seq_instance: Vec<u32>,
    queue_fresh: Vec<u32>,
    /// Whether any closure or queue interned holds a fresh name (a sequence holds its
    /// closures'): when none does, no state does, and the engine need not ask of each id.
    named: bool,
    /// Components with their instance moved (`reinstance`), by (id, from, to).
    moved: FxHashMap<(u32, u32, u32), u32>,
    /// The heap bytes of everything above, as [`Interner::bytes`] reports.
    bytes: u64,
}

impl Interner {
    /// Appends the ids of `state`'s components and queues to `out`, interning what is new.
    pub(crate) fn intern(&mut self, state: &State, out: &mut Vec<u32>) {
        for proc in state.procs.iter() {
            let id = self.proc(proc);
            out.push(id);
        }
        for queue in state.queues.iter() {
            let id = self.queue(queue);
            out.push(id);
        }
    }

    /// Like [`Interner::intern`] without adding anything: false (and `out` partly written)
    /// when some component is new, which also means the state is not stored.
    pub(crate) fn lookup(&self, state: &State, out: &mut Vec<u32>) -> bool {
        for proc in state.procs.iter() {
            match self.find_proc(proc) {
                Some(id) => out.push(id),
                None => return false,
            }
        }
        for queue in state.queues.iter() {
            match self.find_queue(queue) {
                Some(id) => out.push(id),
                None => return false,
            }
        }
        true
    }

    /// The state whose id sequence is `ids`.
    pub(crate) fn state(&self, ids: &[u32]) -> State {
        let split = ids.partition_point(|&id| id & KIND_MASK != QUEUE);
        let mut procs: Vec<Proc> = ids[..split].iter().map(|&id| self.component(id)).collect();
        let mut queues: Vec<Queue> = ids[split..]
            .iter()
            .map(|&id| self.queues[index(id)].clone())
            .collect();
        agentpi_semantics::state::sort_canonically(&mut procs, &mut queues);
        let fresh = ids.iter().map(|&id| self.fresh_bound(id)).max();
        State {
            procs: procs.into_boxed_slice(),
            queues: queues.into_boxed_slice(),
            fresh: fresh.unwrap_or(0),
        }
    }

    /// Puts a state's ids in the order the store keeps them: by instance, then by id, queues
    /// last. A state's components are a multiset, so any fixed order of ids is canonical;
    /// this one keeps each instance's components in one place from state to state, which
    /// the tree of the store shares.
    pub(crate) fn key_order(&self, ids: &mut [u32]) {
        ids.sort_unstable_by_key(|&id| self.order_key(id));
    }

    /// Where an id goes in [`Interner::key_order`].
    pub(crate) fn order_key(&self, id: u32) -> (u32, u32) {
        let instance = match id & KIND_MASK {
            LEAF => self.closure_instance[index(id)],
            SEQ => self.seq_instance[index(id)],
            _ => u32::MAX,
        };
        (instance, id)
    }

    /// The heap bytes the interner holds: each component's own heap bytes, its slot in the
    /// vectors and its entries in the indices.
    pub(crate) fn bytes(&self) -> u64 {
        self.bytes
    }

    /// Whether any component or queue interned holds a fresh name (else every
    /// [`Interner::fresh_bound`] is 0).
    pub(crate) fn holds_names(&self) -> bool {
        self.named
    }

    /// The component with this id.
    pub(crate) fn component(&self, id: u32) -> Proc {
        match id & KIND_MASK {
            LEAF => Proc::Leaf(self.closures[index(id)].clone()),
            _ => self.seq_procs[index(id)].clone(),
        }
    }

    /// The component `id` with its closures of instance `from` moved to instance `to`
    /// (symmetry reduction), interned.
    pub(crate) fn reinstance(&mut self, id: u32, from: u32, to: u32) -> u32 {
        if from == to {
            return id;
        }
        if let Some(&moved) = self.moved.get(&(id, from, to)) {
            return moved;
        }
        let proc = agentpi_semantics::state::reinstanced(&self.component(id), from, to);
        let moved = self.proc(&proc);
        self.moved.insert((id, from, to), moved);
        moved
    }

    /// How many closures a component holds (1 for a waiting closure).
    pub(crate) fn closures_in(&self, id: u32) -> usize {
        match id & KIND_MASK {
            LEAF => 1,
            _ => self.seqs[index(id)]
                .iter()
                .map(|&c| self.closures_in(c))
                .sum(),
        }
    }

    /// The queue with this id.
    pub(crate) fn queue_of(&self, id: u32) -> &Queue {
        &self.queues[index(id)]
    }

    /// Two components in the canonical order of a state without fresh names
    /// (`agentpi_semantics::state::cmp_components`).
    pub(crate) fn cmp(&self, a: u32, b: u32) -> std::cmp::Ordering {
        use agentpi_semantics::state::{cmp_closures, cmp_components};
        use std::cmp::Ordering;
        match (a & KIND_MASK, b & KIND_MASK) {
            (LEAF, LEAF) => cmp_closures(&self.closures[index(a)], &self.closures[index(b)]),
            (LEAF, _) => Ordering::Less,
            (_, LEAF) => Ordering::Greater,
            _ => cmp_components(&self.seq_procs[index(a)], &self.seq_procs[index(b)]),
        }
    }

    /// How many closures and how many sequences are interned: the components' ids are
    /// those [`Interner::component_id`] gives for the numbers below.
    pub(crate) fn components(&self) -> [usize; 2] {
        [self.closures.len(), self.seqs.len()]
    }

    /// Closure number `i` (`kind` 0) or sequence number `i` (`kind` 1).
    pub(crate) fn component_id(kind: usize, i: usize) -> u32 {
        tagged(i as u32, [LEAF, SEQ][kind])
    }

    /// The kind and number [`Interner::component_id`] takes for component `id`.
    pub(crate) fn component_number(id: u32) -> (usize, usize) {
        (usize::from(id & KIND_MASK != LEAF), index(id))
    }

    /// The closure of a waiting component (`None` for a sequence).
    pub(crate) fn closure_of(&self, id: u32) -> Option<&Closure> {
        (id & KIND_MASK == LEAF).then(|| &*self.closures[index(id)])
    }

    /// The number of queue content `id` among the contents interned (0, 1, ...).
    pub(crate) fn queue_number(id: u32) -> usize {
        debug_assert!(Interner::is_queue(id), "a queue's id");
        index(id)
    }

    /// Whether an id names a queue (queues follow the components in a state's ids).
    pub(crate) fn is_queue(id: u32) -> bool {
        id & KIND_MASK == QUEUE
    }

    /// One more than the largest fresh id the component or queue holds.
    pub(crate) fn fresh_bound(&self, id: u32) -> u32 {
        let i = index(id);
        match id & KIND_MASK {
            LEAF => self.closure_fresh[i],
            SEQ => self.seq_fresh[i],
            _ => self.queue_fresh[i],
        }
    }

    /// The id of a component, interning it when new.
    pub(crate) fn proc(&mut self, proc: &Proc) -> u32 {
        match proc {
            Proc::Leaf(c) => self.closure(c),
            Proc::Seq(left, right) => self.seq(left, right),
        }
    }

    fn find_proc(&self, proc: &Proc) -> Option<u32> {
        match proc {
            Proc::Leaf(c) => self.find_closure(c),
            Proc::Seq(left, right) => {
                let key = self.find_seq_key(left, right)?;
                self.find_seq(&key)
            }
        }
    }

    fn closure(&mut self, c: &Arc<Closure>) -> u32 {
        if let Some(id) = self.find_closure(c) {
            return id;
        }
        let i = self.closures.len() as u32;
        let hash = hash_of(&**c);
        let closures = &self.closures;
        self.closure_index
            .insert_unique(hash, i, |&j| hash_of(&*closures[j as usize]));
        // The `Arc` pushed is the one whose address is the key: see `by_address`.
        self.closures.push(Arc::clone(c));
        self.by_address.insert(Arc::as_ptr(c) as usize, i);
        let fresh = fresh_bound(&c.env);
        self.named |= fresh > 0;
        self.closure_fresh.push(fresh);
        self.closure_instance.push(c.instance);
        self.bytes += closure_bytes(c) + INDEX_ENTRY + ADDRESS_ENTRY + 8 + 4;
        tagged(i, LEAF)
    }

    fn find_closure(&self, c: &Arc<Closure>) -> Option<u32> {
        if let Some(&i) = self.by_address.get(&(Arc::as_ptr(c) as usize)) {
            return Some(tagged(i, LEAF));
        }
        let closures = &self.closures;
        self.closure_index
            .find(hash_of(&**c), |&j| *closures[j as usize] == **c)
            .map(|&i| tagged(i, LEAF))
    }

    fn seq(&mut self, left: &[Proc], right: &Arc<Closure>) -> u32 {
        let mut key = vec![self.closure(right)];
        key.extend(left.iter().map(|p| self.proc(p)));
        if let Some(id) = self.find_seq(&key) {
            return id;
        }
        let i = self.seqs.len() as u32;
        let fresh = key.iter().map(|&id| self.fresh_bound(id)).max();
        self.seq_fresh.push(fresh.unwrap_or(0));
        self.seq_instance.push(self.closure_instance[index(key[0])]);
        self.bytes += 4 * key.len() as u64 + 16 + INDEX_ENTRY + 4;
        // The whole sequence, for comparisons; it shares its closures with the interner.
        let left = key[1..].iter().map(|&c| self.component(c)).collect();
        let whole = Proc::Seq(left, self.closures[index(key[0])].clone());
        self.bytes += 16 * key.len() as u64 + 24;
        let seqs = &self.seqs;
        self.seq_index
            .insert_unique(hash_of(&key[..]), i, |&j| hash_of(&seqs[j as usize][..]));
        self.seqs.push(key.into_boxed_slice());
        self.seq_procs.push(whole);
        tagged(i, SEQ)
    }

    fn find_seq(&self, key: &[u32]) -> Option<u32> {
        let seqs = &self.seqs;
        self.seq_index
            .find(hash_of(key), |&j| *seqs[j as usize] == *key)
            .map(|&i| tagged(i, SEQ))
    }

    fn find_seq_key(&self, left: &[Proc], right: &Arc<Closure>) -> Option<Vec<u32>> {
        let mut key = vec![self.find_closure(right)?];
        for p in left {
            key.push(self.find_proc(p)?);
        }
        Some(key)
    }

    /// The id of a queue, interning it when new.
    pub(crate) fn queue(&mut self, queue: &Queue) -> u32 {
        let sum = queue_sum(queue.chan, queue.messages.iter().map(|m| &m[..]));
        if let Some(id) = self.find_queue_summed(sum, |q| q == queue) {
            return id;
        }
        self.add_queue(sum, queue.clone())
    }

    /// The id of the queue of `chan` holding the messages of queue `before` (none: empty)
    /// and `message` after them, interning it when new: `queue::push`'s content, looked up
    /// without being built (most pushes make a content met before).
    pub(crate) fn queue_pushed(
        &mut self,
        before: Option<u32>,
        chan: Chan,
        message: &[Value],
    ) -> u32 {
        let (old, sum) = self.push_onto(before, chan, message);
        if let Some(id) = self.find_summed_push(old, sum, chan, message) {
            return id;
        }
        let mut messages = Vec::with_capacity(old.len() + 1);
        messages.extend_from_slice(old);
        messages.push(message.into());
        self.add_queue(sum, Queue { chan, messages })
    }

    /// The queue of `chan` holding messages `old` and `message` after them, of sum `sum`.
    fn find_summed_push(
        &self,
        old: &[Box<[Value]>],
        sum: u64,
        chan: Chan,
        message: &[Value],
    ) -> Option<u32> {
        let same = |q: &Queue| {
            q.chan == chan
                && q.messages.len() == old.len() + 1
                && q.messages[..old.len()] == *old
                && *q.messages[old.len()] == *message
        };
        self.find_queue_summed(sum, same)
    }

    /// The messages of queue `before` (none: empty) of `chan`, and the sum of the queue they
    /// make with `message` pushed.
    fn push_onto(
        &self,
        before: Option<u32>,
        chan: Chan,
        message: &[Value],
    ) -> (&[Box<[Value]>], u64) {
        let (old, sum): (&[Box<[Value]>], u64) = match before {
            Some(q) => {
                let queue = &self.queues[index(q)];
                debug_assert_eq!(queue.chan, chan, "a push onto the channel's own queue");
                (&queue.messages, self.queue_sums[index(q)])
            }
            None => (&[], chan_sum(chan)),
        };
        (old, pushed_sum(sum, message))
    }

    /// The id of queue `id` without its front message (`None`: it held one, so the channel
    /// has no queue after), interning it when new: `queue::pop`'s content, looked up without
    /// being built.
    pub(crate) fn queue_popped(&mut self, id: u32) -> Option<u32> {
        if let Some(found) = self.find_popped(id) {
            return found;
        }
        let queue = &self.queues[index(id)];
        let (chan, rest) = (queue.chan, queue.messages[1..].to_vec());
        let sum = popped_sum(self.queue_sums[index(id)], queue);
        Some(self.add_queue(
            sum,
            Queue {
                chan,
                messages: rest,
            },
        ))
    }

    /// [`Interner::queue_popped`]'s content if interned (`Some(None)`: queue `id` held one
    /// message), interning nothing.
    pub(crate) fn find_popped(&self, id: u32) -> Option<Option<u32>> {
        let queue = &self.queues[index(id)];
        let (chan, rest) = (queue.chan, &queue.messages[1..]);
        if rest.is_empty() {
            return Some(None);
        }
        let sum = popped_sum(self.queue_sums[index(id)], queue);
        let same = |q: &Queue| q.chan == chan && q.messages[..] == *rest;
        self.find_queue_summed(sum, same).map(Some)
    }

    /// The content `parts` make: `Ok` its id when interned, else `Err` its hash (equal
    /// contents have equal hashes; [`Interner::same_parts`] compares them); `None` for a pop of a
    /// queue's only message (no content). Nothing is built: numbering a content ahead built
    /// each new one (a box a message, the queue cloned twice) and hashed it whole, a sixth of
    /// the merge's instructions on the bounded buffer with two threads.
    pub(crate) fn find_parts(&self, parts: Parts<'_>) -> Option<Result<u32, u64>> {
        match parts {
            Parts::Pushed(before, chan, message) => {
                let (old, sum) = self.push_onto(before, chan, message);
                Some(
                    self.find_summed_push(old, sum, chan, message)
                        .ok_or(mixed(sum)),
                )
            }
            Parts::Popped(id) => match self.find_popped(id) {
                Some(found) => found.map(Ok),
                None => {
                    let sum = popped_sum(self.queue_sums[index(id)], self.queue_of(id));
                    Some(Err(mixed(sum)))
                }
            },
        }
    }

    /// Whether the contents two parts make (each not a pop of a queue's only message) hold
    /// the same messages on the same channel.
    pub(crate) fn same_parts(&self, a: Parts<'_>, b: Parts<'_>) -> bool {
        let (chan, before, pushed) = self.parts_of(a);
        let (chan_b, before_b, pushed_b) = self.parts_of(b);
        let messages = before.iter().map(|m| &m[..]).chain(pushed);
        let messages_b = before_b.iter().map(|m| &m[..]).chain(pushed_b);
        chan == chan_b
            && before.len() + usize::from(pushed.is_some())
                == before_b.len() + usize::from(pushed_b.is_some())
            && messages.eq(messages_b)
    }

    /// The channel, the interned messages and the message pushed after them that `parts`
    /// make.
    fn parts_of<'a>(&'a self, parts: Parts<'a>) -> Spread<'a> {
        match parts {
            Parts::Pushed(Some(q), chan, message) => {
                (chan, &self.queues[index(q)].messages, Some(message))
            }
            Parts::Pushed(None, chan, message) => (chan, &[], Some(message)),
            Parts::Popped(id) => {
                let queue = &self.queues[index(id)];
                (queue.chan, &queue.messages[1..], None)
            }
        }
    }

    /// Interns `queue`, not interned yet, of sum `sum` ([`queue_sum`]).
    fn add_queue(&mut self, sum: u64, queue: Queue) -> u32 {
        let i = self.queues.len() as u32;
        let sums = &self.queue_sums;
        self.queue_index
            .insert_unique(mixed(sum), i, |&j| mixed(sums[j as usize]));
        self.queue_sums.push(sum);
        let mut fresh = 0;
        queue.for_each_fresh(&mut |id| fresh = fresh.max(id + 1));
        self.named |= fresh > 0;
        self.queue_fresh.push(fresh);
        self.bytes += queue_bytes(&queue) + INDEX_ENTRY + 4;
        self.queues.push(queue);
        tagged(i, QUEUE)
    }

    /// The id the queue content interned `k`-th from now (0: the next) will have: ids are
    /// given in the order contents are first interned, so the merge can number contents
    /// ahead while the workers read this interner, and intern them in that order later.
    pub(crate) fn queue_id_ahead(&self, k: usize) -> u32 {
        tagged((self.queues.len() + k) as u32, QUEUE)
    }

    fn find_queue(&self, queue: &Queue) -> Option<u32> {
        let sum = queue_sum(queue.chan, queue.messages.iter().map(|m| &m[..]));
        self.find_queue_summed(sum, |q| q == queue)
    }

    /// The queue of sum `sum` ([`queue_sum`]) for which `same` holds.
    fn find_queue_summed(&self, sum: u64, same: impl Fn(&Queue) -> bool) -> Option<u32> {
        let queues = &self.queues;
        self.queue_index
            .find(mixed(sum), |&j| same(&queues[j as usize]))
            .map(|&i| tagged(i, QUEUE))
    }
}

/// A content's channel, messages interned, and message pushed after them
/// ([`Interner::parts_of`]).
type Spread<'a> = (Chan, &'a [Box<[Value]>], Option<&'a [Value]>);

/// A queue content given by its parts, not built ([`Interner::find_parts`]).
#[derive(Clone, Copy, Debug)]
pub(crate) enum Parts<'v> {
    /// The queue of a channel holding queue `before`'s messages (none: empty) and one more.
    Pushed(Option<u32>, Chan, &'v [Value]),
    /// A queue without its front message.
    Popped(u32),
}

/// The base of a queue's sum: odd, so that no power of it is 0.
const BASE: u64 = 0x9E37_79B9_7F4A_7C15;

/// A queue's sum: its channel's hash times `BASE^n` plus each of its `n` messages' hash
/// times `BASE` to the power of how many messages follow it. A message pushed multiplies by
/// `BASE` and adds, the front one popped takes its term away ([`popped_sum`]), so a content
/// pushed or popped is looked up from its queue's sum and one message, without hashing the
/// others ([`Interner::queue_pushed`]): every message of the content was hashed for each
/// look-up before, a tenth of seqbuffer's time.
fn queue_sum<'v>(chan: Chan, messages: impl Iterator<Item = &'v [Value]>) -> u64 {
    messages.fold(chan_sum(chan), pushed_sum)
}

/// The sum of an empty queue of `chan`.
fn chan_sum(chan: Chan) -> u64 {
    hash_of(&chan)
}

/// The sum of a queue of sum `sum` with `message` pushed.
fn pushed_sum(sum: u64, message: &[Value]) -> u64 {
    sum.wrapping_mul(BASE).wrapping_add(hash_of(message))
}

/// The sum of `queue` (of sum `sum`, two messages or more) without its front message: its
/// `n` messages' terms but the front's, and the channel's term times `BASE^(n-1)`.
fn popped_sum(sum: u64, queue: &Queue) -> u64 {
    let n = queue.messages.len() as u32;
    let (chan, front) = (chan_sum(queue.chan), hash_of(&queue.messages[0][..]));
    let top = BASE.wrapping_pow(n - 1);
    let gone = chan
        .wrapping_mul(BASE)
        .wrapping_add(front)
        .wrapping_sub(chan);
    sum.wrapping_sub(top.wrapping_mul(gone))
}

/// The index's hash of a queue of sum `sum`: its bits mixed (murmur3's finaliser), since
/// hashbrown takes both its low bits and its top seven.
fn mixed(sum: u64) -> u64 {
    let mut h = sum ^ (sum >> 33);
    h = h.wrapping_mul(0xFF51_AFD7_ED55_8CCD);
    h ^= h >> 33;
    h = h.wrapping_mul(0xC4CE_B9FE_1A85_EC53);
    h ^ (h >> 33)
}

/// Bytes of one entry of a hashbrown index of `u32`s (4 bytes and a control byte a bucket, at
/// a load of at most 7/8), rounded up.
const INDEX_ENTRY: u64 = 8;
/// Bytes of one entry of the address map (a `usize` and a `u32`, and a control byte).
const ADDRESS_ENTRY: u64 = 24;

fn tagged(index: u32, kind: u32) -> u32 {
    // More than 2^30 distinct components of one kind would need far more memory than any
    // exploration is given; the check keeps ids of different kinds from ever colliding.
    assert!(
        index < 1 << (32 - KIND_BITS),
        "too many distinct components"
    );
    (index << KIND_BITS) | kind
}

fn index(id: u32) -> usize {
    (id >> KIND_BITS) as usize
}

fn hash_of<T: std::hash::Hash + ?Sized>(value: &T) -> u64 {
    FxBuildHasher.hash_one(value)
}

fn fresh_bound(values: &[Value]) -> u32 {
    let mut fresh = 0;
    for v in values {
        v.for_each_fresh(&mut |id| fresh = fresh.max(id + 1));
    }
    fresh
}

/// The heap bytes of an interned closure: the `Arc`'s allocation (two counts and the
/// closure) and its values.
fn closure_bytes(c: &Closure) -> u64 {
    let own = 16 + std::mem::size_of::<Closure>() as u64;
    own + c.env.iter().map(value_bytes).sum::<u64>()
}

fn queue_bytes(q: &Queue) -> u64 {
    let own = std::mem::size_of::<Queue>() as u64;
    let messages = q.messages.len() as u64 * 16;
    let mut values = 0;
    q.for_each_value(&mut |v| values += value_bytes(v));
    own + messages + values
}

/// A value's size, with the heap parts of constructors and tuples.
fn value_bytes(value: &Value) -> u64 {
    let own = std::mem::size_of::<Value>() as u64;
    match value {
        Value::Ctor(_, _, vs) | Value::Tuple(vs) => own + vs.iter().map(value_bytes).sum::<u64>(),
        _ => own,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use agentpi_ir::core::ChanId;
    use agentpi_semantics::queue;

    /// Random pushes and pops on two channels, done twice: once by building each content
    /// with the semantics' own `queue::push` and `queue::pop` and interning it whole
    /// ([`Interner::queue`]), once by [`Interner::queue_pushed`] and
    /// [`Interner::queue_popped`], which look a content up from its parts: the same ids in
    /// the same order, for the same contents, and each content built whole is found as
    /// interned from its parts. A hash of the parts that is not the content's makes a content
    /// interned twice, and this fails. [`Interner::find_parts`] finds each content exactly
    /// when it was interned before, and gives a new one the hash it has once interned.
    #[test]
    fn a_content_pushed_or_popped_is_the_one_built_whole() {
        let chans = [Chan::Global(ChanId(0)), Chan::Global(ChanId(3))];
        let messages: Vec<Box<[Value]>> = vec![
            Box::new([Value::Int(1)]),
            Box::new([Value::Int(2), Value::Bool(true)]),
            Box::new([Value::Tuple(Box::new([Value::Int(1), Value::Int(2)]))]),
            Box::new([]),
        ];
        let mut random = crate::random::below(0x2545_F491_4F6C_DD1Du64);
        let (mut whole, mut parts) = (Interner::default(), Interner::default());
        // Each channel's queue: its id in both interners (the same), or none.
        let mut queues: [Option<u32>; 2] = [None, None];
        for round in 0..5_000 {
            let c = random(2);
            let (chan, before) = (chans[c], queues[c]);
            let content: Vec<Queue> = before
                .map(|q| whole.queue_of(q).clone())
                .into_iter()
                .collect();
            let pop = before.is_some() && (random(3) == 0 || content[0].messages.len() > 6);
            let known = parts.queues.len();
            let (expected, got, found) = if pop {
                let rest = queue::pop(&content, chan);
                let expected = rest.first().map(|q| whole.queue(q));
                let q = before.expect("a queue");
                let found = parts.find_parts(Parts::Popped(q));
                (expected, parts.queue_popped(q), found)
            } else {
                let message = &messages[random(messages.len())];
                let after = queue::push(&content, chan, message.clone());
                let expected = Some(whole.queue(&after[0]));
                let found = parts.find_parts(Parts::Pushed(before, chan, message));
                (
                    expected,
                    Some(parts.queue_pushed(before, chan, message)),
                    found,
                )
            };
            assert_eq!(got, expected, "round {round}");
            // Looked up from its parts without interning: found exactly when interned before,
            // and else given the hash the content has once interned.
            let new = got.is_some_and(|id| Interner::queue_number(id) >= known);
            let hash = |id: u32| mixed(parts.queue_sums[index(id)]);
            match got {
                None => assert!(found.is_none(), "round {round}"),
                Some(id) if new => assert_eq!(found, Some(Err(hash(id))), "round {round}"),
                Some(id) => assert_eq!(found, Some(Ok(id)), "round {round}"),
            }
            if let Some(id) = got {
                assert_eq!(parts.queue_of(id), whole.queue_of(id), "round {round}");
                assert_eq!(parts.find_queue(whole.queue_of(id)), Some(id));
            }
            queues[c] = got;
        }
        assert_eq!(parts.queues.len(), whole.queues.len());
        assert!(parts.queues.len() > 100, "{} contents", parts.queues.len());
        assert_eq!(parts.bytes(), whole.bytes());
    }

    /// Contents given by their parts are the same exactly when they hold the same messages
    /// on the same channel: a message pushed onto a queue against a longer queue popped,
    /// pushes onto nothing, and pops of the same queue.
    #[test]
    fn parts_are_the_same_when_their_contents_are() {
        let (chan, other) = (Chan::Global(ChanId(0)), Chan::Global(ChanId(1)));
        let m = |i: i64| -> Box<[Value]> { Box::new([Value::Int(i)]) };
        let mut interner = Interner::default();
        let mut queue = |chan, ms: &[i64]| {
            interner.queue(&Queue {
                chan,
                messages: ms.iter().map(|&i| m(i)).collect(),
            })
        };
        let (a, xab, xac, yab) = (
            queue(chan, &[1]),
            queue(chan, &[9, 1, 2]),
            queue(chan, &[9, 1, 3]),
            queue(chan, &[8, 1, 2]),
        );
        let b = m(2);
        let (pushed, empty) = (
            Parts::Pushed(Some(a), chan, &b),
            Parts::Pushed(None, chan, &b),
        );
        let same = |p, q| interner.same_parts(p, q) && interner.same_parts(q, p);
        assert!(same(pushed, Parts::Popped(xab)));
        assert!(same(Parts::Popped(yab), Parts::Popped(xab)));
        assert!(!same(pushed, Parts::Popped(xac)), "another last message");
        assert!(!same(pushed, empty), "another length");
        assert!(
            !same(empty, Parts::Pushed(None, other, &b)),
            "another channel"
        );
        assert!(same(empty, Parts::Pushed(None, chan, &m(2))));
        let hash = |p| interner.find_parts(p).and_then(Result::err);
        assert_eq!(hash(pushed), hash(Parts::Popped(xab)));
        assert!(hash(pushed).is_some(), "not interned");
    }
}
