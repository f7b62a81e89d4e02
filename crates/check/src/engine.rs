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

use crate::intern::Interner;
use crate::por::{ALONE, Alphabet, Alphabets, Component, stubborn};
use crate::store::{Levels, Store};
use agentpi_diagnostics::Span;
use agentpi_semantics::state::canonical_components;
use agentpi_semantics::{
    Chan, Fault, FaultKind, Head, Instance, Label, MAX_NESTING, MoveKind, Queue, Received,
    Semantics, Value,
};
use rustc_hash::FxHashMap;

/// The cached moves, filled by the serial merge and read by the workers.
pub(crate) struct Engine<'s, 'p> {
    sem: &'s Semantics<'p>,
    /// By (component id, twin).
    moves: FxHashMap<(u32, bool), CompMoves>,
    /// What an input offer does with a message: by (component id, twin, offer, message).
    received: FxHashMap<(u32, bool, u32, u32), Recv>,
    /// Each queue's channel, front message and what it is without it.
    queues: FxHashMap<u32, QueueInfo>,
    /// A queue with a message added: by (channel's queue or none, channel, message).
    pushed: FxHashMap<(Option<u32>, Chan, u32), u32>,
    messages: Table<Box<[Value]>>,
    pub(crate) labels: Table<Label>,
    /// With partial-order reduction: each declared channel's users, and for each of the
    /// engine's labels whether a property sees it (see [`crate::por`]).
    por: Option<Alphabets>,
    pub(crate) visible: Vec<bool>,
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
struct CompMoves {
    /// A fresh name is involved: states holding this component take the reference path.
    fresh: bool,
    /// With partial-order reduction: the channels it may ever use, and those of its offers.
    alphabet: Alphabet,
    chans: Box<[Chan]>,
    /// How deeply sequences nest in the component itself.
    nesting: usize,
    offers: Vec<FastMove>,
    internal: Vec<(u32, u32, Vec<FastStep>)>,
}

struct FastMove {
    kind: FastKind,
    instance: Instance,
    span: Span,
}

enum FastKind {
    Alone { label: u32, then: Then },
    Fault(FaultKind),
    Out(Output),
    In { chan: Chan, guard: Option<Value> },
}

struct Output {
    chan: Chan,
    msg: u32,
    first: Option<Value>,
    /// `chan(values)`, its label as a communication; `chan!(values)` as a send.
    comm: u32,
    send: u32,
    then: Then,
}

struct FastStep {
    label: u32,
    then: Then,
    actors: Actors,
}

/// What a component became: its replacement's ids in canonical order, and how deeply
/// sequences nest in them; or the fault building it raised.
enum Then {
    Ids(Box<[u32]>, usize),
    Fault(Fault),
}

struct Recv {
    kind: RecvKind,
    fresh: bool,
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

/// One transition of the fast path.
pub(crate) enum FastSucc {
    To {
        label: u32,
        actors: Actors,
        target: Target,
    },
    /// A fault transition (the explorer keeps its label and fault, not who moved).
    Fault { label: u32, fault: Fault },
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
}

/// Something the fast path needed and the cache did not have.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Miss {
    Moves(u32, bool),
    Received(u32, bool, u32, u32),
    Queue(u32),
    Pushed(Option<u32>, Chan, u32),
}

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
    /// Its components in canonical order.
    canon: Vec<u32>,
    /// The tree of a target, and its ids.
    scratch: Levels,
    buffer: Vec<u32>,
}

/// The position of a component in the source state and its role.
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
            moves: FxHashMap::default(),
            received: FxHashMap::default(),
            queues: FxHashMap::default(),
            pushed: FxHashMap::default(),
            messages: Table::new(),
            labels: {
                let mut labels = Table::new();
                labels.id(Label::tau());
                labels
            },
        }
    }

    /// The transitions of state `s`, in the order `Semantics::successors` gives them, or
    /// what keeps the fast path from computing them.
    pub(crate) fn expand(&self, store: &Store, s: u32) -> Expansion {
        // Each worker thread keeps its room from state to state: no allocation per state.
        thread_local!(static ROOM: std::cell::RefCell<Room> = Default::default());
        let mut room = ROOM.take();
        store.read_levels(s, &mut room.source);
        let expansion = self.expand_in(store, &mut room, s);
        ROOM.set(room);
        expansion
    }

    fn expand_in(&self, store: &Store, room: &mut Room, s: u32) -> Expansion {
        let ids = room.source.ids();
        let interner = store.interner();
        if ids.iter().any(|&id| interner.fresh_bound(id) > 0) {
            return Expansion::Slow(Vec::new());
        }
        let split = ids.partition_point(|&id| !Interner::is_queue(id));
        // The store keeps ids by instance; the reference opens components in canonical order.
        room.canon.clear();
        room.canon.extend_from_slice(&ids[..split]);
        room.canon.sort_by(|&a, &b| interner.cmp(a, b));
        let slots = slots(&room.canon);
        let moves = match self.cached_moves(&slots) {
            Ok(moves) => moves,
            Err(misses) => return Expansion::Slow(misses),
        };
        let mut run = Assembly {
            engine: self,
            store,
            ids,
            levels: &room.source,
            scratch: std::mem::take(&mut room.scratch),
            buffer: std::mem::take(&mut room.buffer),
            arena: Vec::new(),
            split,
            canon: &room.canon,
            slots: &slots,
            moves: &moves,
            out: Vec::with_capacity(2 * slots.len()),
            movers: Vec::with_capacity(2 * slots.len()),
            movers_now: [0, ALONE],
            misses: Vec::new(),
            slow: false,
        };
        run.singles();
        run.communications();
        room.scratch = std::mem::take(&mut run.scratch);
        room.buffer = std::mem::take(&mut run.buffer);
        if run.slow || !run.misses.is_empty() {
            return Expansion::Slow(run.misses);
        }
        let reduced = self.por.as_ref().and_then(|_| run.reduce(s));
        Expansion::Fast(run.out, run.arena, reduced)
    }

    /// The moves of each slot; what is missing, or an empty list when a component takes
    /// the reference path (fresh names, or a source already nested too deeply: its every
    /// step is a fault).
    fn cached_moves(&self, slots: &[Slot]) -> Result<Vec<&CompMoves>, Vec<Miss>> {
        let mut misses = Vec::new();
        let mut moves = Vec::with_capacity(slots.len());
        for slot in slots {
            match self.moves.get(&(slot.id, slot.twin)) {
                Some(m) if m.fresh || m.nesting > MAX_NESTING => return Err(Vec::new()),
                Some(m) => moves.push(m),
                None => misses.push(Miss::Moves(slot.id, slot.twin)),
            }
        }
        match misses.is_empty() {
            true => Ok(moves),
            false => Err(misses),
        }
    }

    /// Fills the cache with what expanding state `s` needs (a few rounds: what an input
    /// receives is known once the outputs are), so that it takes the fast path. Done for the
    /// initial state, which would otherwise always take the reference path.
    pub(crate) fn prepare(&mut self, store: &mut Store, s: u32) {
        for _ in 0..4 {
            match self.expand(store, s) {
                Expansion::Slow(misses) if !misses.is_empty() => self.fill(store, misses),
                _ => return,
            }
        }
    }

    /// Computes what the workers missed, by the reference semantics, interning the
    /// continuations' components.
    pub(crate) fn fill(&mut self, store: &mut Store, misses: Vec<Miss>) {
        for miss in misses {
            match miss {
                Miss::Moves(id, twin) => self.fill_moves(store.interner_mut(), id, twin),
                Miss::Received(id, twin, offer, msg) => {
                    self.fill_received(store.interner_mut(), id, twin, offer, msg)
                }
                Miss::Queue(id) => self.fill_queue(store.interner_mut(), id),
                Miss::Pushed(queue, chan, msg) => {
                    self.fill_pushed(store.interner_mut(), queue, chan, msg)
                }
            }
        }
    }

    fn fill_moves(&mut self, interner: &mut Interner, id: u32, twin: bool) {
        if self.moves.contains_key(&(id, twin)) {
            return;
        }
        let proc = interner.component(id);
        let nesting = agentpi_semantics::state::nesting(&proc);
        let moves = self.sem.component_moves(&proc, twin);
        let mut fresh = moves.fresh;
        let mut offers = Vec::with_capacity(moves.offers.len());
        for m in moves.offers {
            let kind = match m.kind {
                MoveKind::Alone { label, then } => FastKind::Alone {
                    label: self.labels.id(label),
                    then: self.then(interner, then, &mut fresh),
                },
                MoveKind::Fault(kind) => FastKind::Fault(kind),
                MoveKind::Out { chan, values, then } => FastKind::Out(Output {
                    chan,
                    first: values.first().cloned(),
                    comm: self.labels.id(label(Head::Chan(chan), &values)),
                    send: self.labels.id(label(Head::Send(chan), &values)),
                    msg: self.messages.id(values),
                    then: self.then(interner, then, &mut fresh),
                }),
                MoveKind::In { chan, guard } => FastKind::In { chan, guard },
            };
            offers.push(FastMove {
                kind,
                instance: m.instance,
                span: m.span,
            });
        }
        let mut internal = Vec::with_capacity(moves.internal.len());
        for (o, j, steps) in moves.internal {
            let steps = steps
                .into_iter()
                .map(|step| FastStep {
                    label: self.labels.id(step.label),
                    then: self.then(interner, step.then, &mut fresh),
                    actors: actors(&step.actors),
                })
                .collect();
            internal.push((o, j, steps));
        }
        let alphabet = self.por.as_ref().map_or(Alphabet::Any, |a| a.of(&proc));
        let mut chans: Vec<Chan> = Vec::new();
        for m in &offers {
            let chan = match &m.kind {
                FastKind::Out(out) => out.chan,
                FastKind::In { chan, .. } => *chan,
                _ => continue,
            };
            if !chans.contains(&chan) {
                chans.push(chan);
            }
        }
        let moves = CompMoves {
            fresh,
            alphabet,
            chans: chans.into_boxed_slice(),
            nesting,
            offers,
            internal,
        };
        self.moves.insert((id, twin), moves);
    }

    fn fill_received(
        &mut self,
        interner: &mut Interner,
        id: u32,
        twin: bool,
        offer: u32,
        msg: u32,
    ) {
        let key = (id, twin, offer, msg);
        if self.received.contains_key(&key) {
            return;
        }
        let values = self.messages.items[msg as usize].clone();
        let proc = interner.component(id);
        let (received, mut fresh) =
            self.sem
                .component_receives(&proc, twin, offer as usize, &values);
        let kind = match received {
            Received::NoMatch => RecvKind::NoMatch,
            Received::Fault(fault) => RecvKind::Fault(fault),
            Received::Then(then) => RecvKind::Then(self.then(interner, then, &mut fresh)),
        };
        let chan = match &self.moves[&(id, twin)].offers[offer as usize].kind {
            FastKind::In { chan, .. } => *chan,
            _ => unreachable!("a receive names an input offer"),
        };
        let label = self.labels.id(label(Head::Receive(chan), &values));
        self.received.insert(key, Recv { kind, fresh, label });
    }

    fn fill_queue(&mut self, interner: &mut Interner, id: u32) {
        if self.queues.contains_key(&id) {
            return;
        }
        let queue = interner.queue_of(id).clone();
        let front = self.messages.id(queue.messages[0].clone());
        let rest = agentpi_semantics::queue::pop(std::slice::from_ref(&queue), queue.chan);
        let popped = rest.first().map(|q| interner.queue(q));
        let info = QueueInfo {
            len: queue.messages.len(),
            front,
            popped,
        };
        self.queues.insert(id, info);
    }

    fn fill_pushed(&mut self, interner: &mut Interner, queue: Option<u32>, chan: Chan, msg: u32) {
        let key = (queue, chan, msg);
        if self.pushed.contains_key(&key) {
            return;
        }
        let before: Vec<Queue> = queue
            .map(|q| interner.queue_of(q).clone())
            .into_iter()
            .collect();
        let message = self.messages.items[msg as usize].clone();
        let after = agentpi_semantics::queue::push(&before, chan, message);
        let id = interner.queue(&after[0]);
        self.pushed.insert(key, id);
    }

    /// A continuation with its components in canonical form and interned.
    fn then(
        &mut self,
        interner: &mut Interner,
        built: agentpi_semantics::Built,
        fresh: &mut bool,
    ) -> Then {
        match built {
            Err(fault) => Then::Fault(fault),
            Ok(procs) => {
                let sem = self.sem;
                let procs = canonical_components(procs, &|t| sem.is_replication(t));
                let nesting = procs.iter().map(agentpi_semantics::state::nesting).max();
                let ids: Box<[u32]> = procs.iter().map(|p| interner.proc(p)).collect();
                *fresh |= ids.iter().any(|&id| interner.fresh_bound(id) > 0);
                Then::Ids(ids, nesting.unwrap_or(0))
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

/// The components the reference opens, in order: the first of equal components side by side
/// in full, the second as a twin, the others not at all (`Opener::open_list`).
fn slots(procs: &[u32]) -> Vec<Slot> {
    let mut out = Vec::with_capacity(procs.len());
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
    out
}

/// The transitions of one state being put together.
struct Assembly<'a, 's, 'p> {
    engine: &'a Engine<'s, 'p>,
    store: &'a Store,
    /// The source's ids in key order: components are `ids[..split]`, queues `ids[split..]`.
    ids: &'a [u32],
    /// The source's tree, which targets mostly share, and room to build theirs.
    levels: &'a Levels,
    scratch: Levels,
    /// Room for a target's ids.
    buffer: Vec<u32>,
    /// The ids of targets not stored before, one after another.
    arena: Vec<u32>,
    split: usize,
    /// The source's components in canonical order, where `Slot::pos` points.
    canon: &'a [u32],
    slots: &'a [Slot],
    moves: &'a [&'a CompMoves],
    out: Vec<FastSucc>,
    /// For each transition, the positions (in `canon`) of the components it moves.
    movers: Vec<[u32; 2]>,
    movers_now: [u32; 2],
    misses: Vec<Miss>,
    /// Set when some transition involves a fresh name: the reference path takes the state.
    slow: bool,
}

/// A component replaced by what it became: its position, and the continuation's ids.
type Replace<'a> = (usize, &'a [u32]);

impl<'a> Assembly<'a, '_, '_> {
    /// Rules *Tau*, *Event*, *Assert*, *Fault*, *Send*, *Receive*: every offer of every
    /// component opened in full, alone, in order.
    fn singles(&mut self) {
        for (k, slot) in self.slots.iter().enumerate() {
            if slot.twin {
                continue;
            }
            for (o, m) in self.moves[k].offers.iter().enumerate() {
                self.single(*slot, o as u32, m);
            }
        }
    }

    fn single(&mut self, slot: Slot, offer: u32, m: &FastMove) {
        self.movers_now = [slot.pos as u32, ALONE];
        let one = Actors::One(m.instance);
        match &m.kind {
            FastKind::Alone { label, then } => {
                self.step(*label, one, m.span, &[(slot.pos, then)], None)
            }
            FastKind::Fault(kind) => {
                let fault = Fault {
                    kind: kind.clone(),
                    span: m.span,
                };
                self.fault(fault)
            }
            FastKind::Out(out) if self.engine.sem.buffer(out.chan).is_some() => {
                self.send(slot, m, out)
            }
            FastKind::In { chan, .. } if self.engine.sem.buffer(*chan).is_some() => {
                self.receive(slot, offer, m, *chan)
            }
            FastKind::Out(_) | FastKind::In { .. } => {}
        }
    }

    /// Rule *Send*: into the queue when there is room, and lost on a lossy channel.
    fn send(&mut self, slot: Slot, m: &FastMove, out: &Output) {
        let queue = self.queue_of(out.chan);
        let waiting = match queue {
            Some(q) => match self.engine.queues.get(&q) {
                Some(info) => info.len,
                None => return self.misses.push(Miss::Queue(q)),
            },
            None => 0,
        };
        let effects = self.engine.sem.send_effects(out.chan, waiting);
        let one = Actors::One(m.instance);
        let replace = [(slot.pos, &out.then)];
        if effects.push {
            match self.engine.pushed.get(&(queue, out.chan, out.msg)) {
                Some(&after) => {
                    let queues = QueueChange::Set(queue, after);
                    self.step(out.send, one, m.span, &replace, Some(queues));
                }
                None => self.misses.push(Miss::Pushed(queue, out.chan, out.msg)),
            }
        }
        if effects.lose {
            self.step(out.send, one, m.span, &replace, None);
        }
    }

    /// Rule *Receive*: the oldest message of a buffered channel, when it fits.
    fn receive(&mut self, slot: Slot, offer: u32, m: &FastMove, chan: Chan) {
        let Some(queue) = self.queue_of(chan) else {
            return;
        };
        let Some(info) = self.engine.queues.get(&queue) else {
            return self.misses.push(Miss::Queue(queue));
        };
        let key = (slot.id, slot.twin, offer, info.front);
        let Some(recv) = self.engine.received.get(&key) else {
            return self
                .misses
                .push(Miss::Received(slot.id, slot.twin, offer, info.front));
        };
        self.slow |= recv.fresh;
        let one = Actors::One(m.instance);
        match &recv.kind {
            RecvKind::NoMatch => {}
            RecvKind::Fault(fault) => self.fault(fault.clone()),
            RecvKind::Then(then) => {
                let queues = match info.popped {
                    Some(rest) => QueueChange::Set(Some(queue), rest),
                    None => QueueChange::Remove(queue),
                };
                self.step(recv.label, one, m.span, &[(slot.pos, then)], Some(queues));
            }
        }
    }

    /// Rules *Comm*, *Comm-Within*, *Comm-Repl*: every output with every input on the same
    /// synchronous channel, in offer order.
    fn communications(&mut self) {
        let inputs = self.inputs();
        let (slots, moves): (&'a [Slot], &'a [&'a CompMoves]) = (self.slots, self.moves);
        for (k, slot) in slots.iter().enumerate() {
            for (o, m) in moves[k].offers.iter().enumerate() {
                let FastKind::Out(out) = &m.kind else {
                    continue;
                };
                for input in inputs.iter().filter(|i| i.chan == out.chan) {
                    self.pair((k, *slot, o as u32, m, out), input);
                }
            }
        }
    }

    /// Every input offer on a synchronous channel, in offer order.
    fn inputs(&self) -> Vec<Input<'a>> {
        let (slots, moves): (&'a [Slot], &'a [&'a CompMoves]) = (self.slots, self.moves);
        let mut inputs = Vec::new();
        for (k, slot) in slots.iter().enumerate() {
            for (j, m) in moves[k].offers.iter().enumerate() {
                if let FastKind::In { chan, guard } = &m.kind
                    && self.engine.sem.buffer(*chan).is_none()
                {
                    inputs.push(Input {
                        k,
                        slot: *slot,
                        offer: j as u32,
                        chan: *chan,
                        guard: guard.as_ref(),
                        m,
                    });
                }
            }
        }
        inputs
    }

    fn pair(&mut self, output: (usize, Slot, u32, &FastMove, &Output), input: &Input<'_>) {
        let (k, slot, o, m, out) = output;
        if input.k == k {
            if !slot.twin {
                self.internal(k, o, input.offer);
            }
            return;
        }
        // A twin meets only the first of its equal pair, side by side.
        let meets = match (slot.twin, input.slot.twin) {
            (false, false) => true,
            (true, false) => input.slot.pos + 1 == slot.pos,
            (false, true) => slot.pos + 1 == input.slot.pos,
            (true, true) => false,
        };
        if !meets {
            return;
        }
        if let (Some(guard), Some(first)) = (input.guard, &out.first)
            && guard != first
        {
            return;
        }
        self.movers_now = [slot.pos as u32, input.slot.pos as u32];
        let key = (input.slot.id, input.slot.twin, input.offer, out.msg);
        let Some(recv) = self.engine.received.get(&key) else {
            let (id, twin, offer, msg) = key;
            return self.misses.push(Miss::Received(id, twin, offer, msg));
        };
        self.slow |= recv.fresh;
        let two = Actors::Two(m.instance, input.m.instance);
        match &recv.kind {
            RecvKind::NoMatch => {}
            RecvKind::Fault(fault) => self.fault(fault.clone()),
            RecvKind::Then(then) => {
                let replace = [(slot.pos, &out.then), (input.slot.pos, then)];
                self.step(out.comm, two, m.span, &replace, None);
            }
        }
    }

    /// Two offers of one component meeting: cached whole with the component.
    fn internal(&mut self, k: usize, o: u32, j: u32) {
        let moves = self.moves[k];
        let Ok(at) = moves
            .internal
            .binary_search_by_key(&(o, j), |(a, b, _)| (*a, *b))
        else {
            return;
        };
        let pos = self.slots[k].pos;
        self.movers_now = [pos as u32, ALONE];
        for step in &moves.internal[at].2 {
            let span = moves.offers[o as usize].span;
            self.step(step.label, step.actors, span, &[(pos, &step.then)], None);
        }
    }

    /// A transition replacing the components at the given positions by their continuations
    /// (the first fault among them makes it a fault transition).
    fn step(
        &mut self,
        label: u32,
        actors: Actors,
        span: Span,
        replace: &[(usize, &Then)],
        queues: Option<QueueChange>,
    ) {
        // As the reference builds them: the first fault among the continuations, then the
        // nesting bound of what was built.
        for (_, then) in replace {
            if let Then::Fault(fault) = then {
                let fault = fault.clone();
                return self.emit(FastSucc::Fault { label, fault });
            }
        }
        let mut lists: [Replace<'_>; 2] = [(usize::MAX, &[]); 2];
        for (i, (pos, then)) in replace.iter().enumerate() {
            if let Then::Ids(ids, nesting) = then {
                if *nesting > MAX_NESTING {
                    let kind = FaultKind::NestedTooDeep;
                    let fault = Fault { kind, span };
                    return self.emit(FastSucc::Fault { label, fault });
                }
                lists[i] = (*pos, ids);
            }
        }
        let target = self.target(&lists[..replace.len()], queues);
        self.emit(FastSucc::To {
            label,
            actors,
            target,
        });
    }

    /// The stubborn set to expand the source (state `s`) by, when one without a visible
    /// transition is smaller than all, and it reaches no state numbered up to `s` (the
    /// cycle proviso: every cycle of the reduced graph has a state expanded in full).
    fn reduce(&self, s: u32) -> Option<Vec<u32>> {
        let mut components = Vec::with_capacity(self.canon.len());
        let mut k = 0;
        for p in 0..self.canon.len() {
            // A third equal component is served by the slot of its equals.
            while k + 1 < self.slots.len() && self.slots[k + 1].pos <= p {
                k += 1;
            }
            let m = self.moves[k];
            components.push(Component {
                alphabet: &m.alphabet,
                offers: &m.chans,
            });
        }
        let visible: Vec<bool> = self
            .out
            .iter()
            .map(|t| match t {
                FastSucc::To { label, .. } => self
                    .engine
                    .visible
                    .get(*label as usize)
                    .copied()
                    .unwrap_or(true),
                FastSucc::Fault { .. } => true,
            })
            .collect();
        let set = stubborn(&components, &self.movers, &visible)?;
        let older = |t: &u32| matches!(self.out[*t as usize], FastSucc::To { target: Target::Known(n), .. } if n <= s);
        (!set.iter().any(older)).then_some(set)
    }

    /// Adds a transition, moving the components at `self.movers_now`.
    fn emit(&mut self, succ: FastSucc) {
        self.out.push(succ);
        self.movers.push(self.movers_now);
    }

    fn fault(&mut self, fault: Fault) {
        let label = self.tau();
        self.emit(FastSucc::Fault { label, fault });
    }

    fn tau(&self) -> u32 {
        self.engine.labels.index[&Label::tau()]
    }

    /// The target's ids: the source's components but the replaced ones, with the
    /// continuations' components each put in its place in key order (an equal replication
    /// already there is kept once, law *Repl-Idem*), then the queues.
    fn target(&mut self, replace: &[Replace<'_>], queues: Option<QueueChange>) -> Target {
        let interner = self.store.interner();
        let mut ids = std::mem::take(&mut self.buffer);
        ids.clear();
        ids.extend_from_slice(&self.ids[..self.split]);
        for (pos, _) in replace {
            let gone = self.canon[*pos];
            let at = ids
                .iter()
                .position(|&id| id == gone)
                .expect("a component of the source");
            ids.remove(at);
        }
        for (_, list) in replace {
            for &id in list.iter() {
                let key = interner.order_key(id);
                let at = ids.partition_point(|&x| interner.order_key(x) < key);
                if ids.get(at) == Some(&id) && self.replicated(interner, id) {
                    continue;
                }
                ids.insert(at, id);
            }
        }
        self.queues_into(&mut ids, queues);
        let found = self
            .store
            .find_near(Some(self.levels), &ids, &mut self.scratch);
        let target = match found {
            Some(known) => Target::Known(known),
            None => {
                let start = self.arena.len() as u32;
                self.arena.extend_from_slice(&ids);
                Target::New {
                    start,
                    len: ids.len() as u32,
                }
            }
        };
        self.buffer = ids;
        target
    }

    fn replicated(&self, interner: &Interner, id: u32) -> bool {
        interner
            .closure_of(id)
            .is_some_and(|c| self.engine.sem.is_replication(c.term))
    }

    /// Appends the source's queues with `change` applied, in key order (by id).
    fn queues_into(&self, ids: &mut Vec<u32>, change: Option<QueueChange>) {
        let queues = &self.ids[self.split..];
        let start = ids.len();
        match change {
            None => ids.extend_from_slice(queues),
            Some(QueueChange::Remove(old)) => ids.extend(queues.iter().filter(|&&q| q != old)),
            Some(QueueChange::Set(old, new)) => {
                ids.extend(queues.iter().filter(|&&q| Some(q) != old));
                let at = ids[start..].partition_point(|&q| q < new);
                ids.insert(start + at, new);
            }
        }
    }

    /// The queue of a buffered channel, if it has messages.
    fn queue_of(&self, chan: Chan) -> Option<u32> {
        let interner = self.store.interner();
        self.ids[self.split..]
            .iter()
            .copied()
            .find(|&q| interner.queue_of(q).chan == chan)
    }
}

/// An input offer of the state, for pairing.
struct Input<'m> {
    k: usize,
    slot: Slot,
    offer: u32,
    chan: Chan,
    guard: Option<&'m Value>,
    m: &'m FastMove,
}

/// How a transition changes the queues: the channel's queue (if any) becomes another, or
/// is emptied.
#[derive(Clone, Copy)]
enum QueueChange {
    Set(Option<u32>, u32),
    Remove(u32),
}
