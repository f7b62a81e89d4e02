//! Filling the engine's cache: what the workers missed, computed by the reference semantics
//! (`Semantics::component_moves`, `component_receives`, the queue rules), with the
//! continuations' components interned.

use super::*;

/// More closures than this make a component large (see [`Engine::fill_now`]).
const LARGE: usize = 8;

impl Engine<'_, '_> {
    /// Computes what the workers missed, by the reference semantics, interning the
    /// continuations' components. Whether any of it is in the cache now (`false`: every miss
    /// was a large component met for the first time, so expanding again misses the same).
    pub(crate) fn fill(
        &mut self,
        store: &mut Store,
        misses: impl IntoIterator<Item = Miss>,
    ) -> bool {
        self.fill_now(store, misses, false)
    }

    /// Fills what was missed; unless `now`, a large component (a sequence holding more than a
    /// few closures) only when it was missed before too: a model whose states keep growing
    /// makes a new large component every step, and computing the moves of each (every
    /// continuation as large as it) would cost more than the reference path, for nothing.
    /// Whether it filled any (or found it filled).
    pub(crate) fn fill_now(
        &mut self,
        store: &mut Store,
        misses: impl IntoIterator<Item = Miss>,
        now: bool,
    ) -> bool {
        let mut filled = false;
        for miss in misses {
            let large = match &miss {
                Miss::Moves(id, _) | Miss::Received(id, ..) => {
                    store.interner().closures_in(*id) > LARGE
                }
                Miss::Queue(_) | Miss::Pushed(..) => false,
            };
            // Only a large component's misses are counted: counting every miss (a queue
            // content not seen before, each a few) grew a map by hundreds of thousands of
            // entries that nothing read (a tenth of the bounded buffer's time).
            if large {
                let met = self.missed.entry(miss.clone()).or_insert(0);
                *met = met.saturating_add(1);
                if !now && *met < 2 {
                    continue;
                }
            }
            filled = true;
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
        filled
    }

    fn fill_moves(&mut self, interner: &mut Interner, id: u32, twin: bool) {
        if self.moves.get(id, twin).is_some() {
            return;
        }
        let proc = interner.component(id);
        let nesting = agentpi_semantics::state::nesting(&proc);
        let moves = self.sem.component_moves(&proc, twin);
        let mut offers = Vec::with_capacity(moves.offers.len());
        for m in moves.offers {
            let kind = match m.kind {
                MoveKind::Alone { label, then, made } => FastKind::Alone {
                    label: self.labels.id(label),
                    then: self.then(interner, then, made),
                },
                MoveKind::Fault(kind) => FastKind::Fault(kind),
                MoveKind::Out {
                    chan,
                    values,
                    then,
                    made,
                } => FastKind::Out(Output {
                    sync_any: self.syncs.id((chan, None)),
                    sync_first: values.first().map(|v| {
                        let first = self.values.id(v.clone());
                        self.syncs.id((chan, Some(first)))
                    }),
                    chan,
                    first_key: values.first().map(|v| self.values.id(v.clone())),
                    inner: false,
                    comm: self.labels.id(label(Head::Chan(chan), &values)),
                    send: self.labels.id(label(Head::Send(chan), &values)),
                    lost: self.labels.id(label(Head::Lost(chan), &values)),
                    msg: self.messages.id(values),
                    then: self.then(interner, then, made),
                }),
                MoveKind::In {
                    chan,
                    guard,
                    may_fault,
                } => {
                    let guard_key = guard.map(|v| self.values.id(v));
                    FastKind::In {
                        chan,
                        guard_key,
                        sync: self.syncs.id((chan, guard_key)),
                        may_fault,
                    }
                }
            };
            offers.push(FastMove {
                kind,
                twin: m.twin,
                instance: m.instance,
                span: m.span,
            });
        }
        mark_inner(&mut offers);
        let mut internal = Vec::with_capacity(moves.internal.len());
        for (o, j, steps) in moves.internal {
            let steps = steps
                .into_iter()
                .map(|step| FastStep {
                    label: self.labels.id(step.label),
                    then: self.then(interner, step.then, step.made),
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
        let [singles, sync_outs, sync_ins] = self.offer_kinds(&offers);
        let in_chans = self.chan_bits(&offers, &sync_ins);
        let out_chans = self.chan_bits(&offers, &sync_outs);
        let ins_at = sync_outs.len() as u32;
        let moves = CompMoves {
            in_chans,
            out_chans,
            singles: singles.iter().map(|&o| single(&offers, o)).collect(),
            kinds: [sync_outs, sync_ins].concat().into_boxed_slice(),
            ins_at,
            slow: moves.opened > 0 || nesting > MAX_NESTING,
            offers: offers.into_boxed_slice(),
            alphabet,
            chans: chans.into_boxed_slice(),
            internal,
        };
        self.moves.insert(id, twin, moves);
    }

    /// The offers that fire alone, the synchronous outputs and the synchronous inputs (see
    /// `CompMoves::singles`).
    fn offer_kinds(&self, offers: &[FastMove]) -> [Vec<u32>; 3] {
        let buffered = |chan: Chan| self.sem.buffer(chan).is_some();
        let pick = |keep: &dyn Fn(&FastMove) -> bool| {
            let picked = offers.iter().enumerate().filter(|(_, m)| keep(m));
            picked.map(|(o, _)| o as u32).collect()
        };
        [
            pick(&|m| {
                !m.twin
                    && match &m.kind {
                        FastKind::Alone { .. } | FastKind::Fault(_) => true,
                        FastKind::Out(out) => buffered(out.chan),
                        FastKind::In { chan, .. } => buffered(*chan),
                    }
            }),
            pick(&|m| matches!(&m.kind, FastKind::Out(out) if !buffered(out.chan))),
            pick(&|m| matches!(&m.kind, FastKind::In { chan, .. } if !buffered(*chan))),
        ]
    }

    /// The channels of `picked` offers, a bit each (see `CompMoves::in_chans`).
    fn chan_bits(&mut self, offers: &[FastMove], picked: &[u32]) -> ChanBits {
        let mut bits = 0;
        for &o in picked {
            let chan = match &offers[o as usize].kind {
                FastKind::Out(out) => out.chan,
                FastKind::In { chan, .. } => *chan,
                _ => unreachable!("an output or an input"),
            };
            bits |= 1 << (self.chans.id(chan) % ChanBits::BITS);
        }
        bits
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
        let received = self
            .sem
            .component_receives(&proc, twin, offer as usize, &values);
        let kind = match received {
            Received::NoMatch => RecvKind::NoMatch,
            Received::Fault(fault) => RecvKind::Fault(fault),
            Received::Then(then, made) => RecvKind::Then(self.then(interner, then, made)),
        };
        let moves = self
            .moves
            .get(id, twin)
            .expect("a receive of a component filled");
        let chan = match &moves.offers[offer as usize].kind {
            FastKind::In { chan, .. } => *chan,
            _ => unreachable!("a receive names an input offer"),
        };
        let label = self.labels.id(label(Head::Receive(chan), &values));
        self.received.insert(key, Recv { kind, label });
    }

    fn fill_queue(&mut self, interner: &mut Interner, id: u32) {
        self.fill_queue_to(interner, id, None);
    }

    /// [`Engine::fill_queue`], the content without the front message given when `known`.
    fn fill_queue_to(&mut self, interner: &mut Interner, id: u32, known: Option<u32>) {
        if self.queues.info(id).is_some() {
            return;
        }
        // Read in place: cloning the queue (a box a message) to pop it was most of a
        // content's cost, and the bounded buffer's states are mostly new contents.
        let queue = interner.queue_of(id);
        let (len, front) = (queue.messages.len(), &queue.messages[0]);
        let front = match self.messages.index.get(front) {
            Some(&front) => front,
            None => self.messages.id(front.clone()),
        };
        let popped = known.or_else(|| interner.queue_popped(id));
        let info = QueueInfo { len, front, popped };
        self.queues.set_info(id, info);
    }

    fn fill_pushed(&mut self, interner: &mut Interner, queue: Option<u32>, chan: Chan, msg: u32) {
        if self.queues.pushed(queue, chan, msg).is_some() {
            return;
        }
        let message = &self.messages.items[msg as usize];
        let id = interner.queue_pushed(queue, chan, message);
        self.queues.set_pushed(queue, chan, msg, id);
    }

    /// A continuation, kept as the semantics built it and, when it made no name, with its
    /// components in canonical form and interned.
    fn then(
        &mut self,
        interner: &mut Interner,
        built: agentpi_semantics::Built,
        made: Made,
    ) -> Then {
        let built = built.map(|raw| {
            let nesting = raw.iter().map(agentpi_semantics::state::nesting).max();
            let mut named = !made.is_empty();
            let mut ids = Vec::new();
            if made.is_empty() {
                let sem = self.sem;
                let procs = canonical_components(raw.clone(), &|t| sem.is_replication(t));
                ids = procs.iter().map(|p| interner.proc(p)).collect();
                named = ids.iter().any(|&id| interner.fresh_bound(id) > 0);
            }
            Continuation {
                ids: ids.into(),
                raw: raw.into_boxed_slice(),
                nesting: nesting.unwrap_or(0),
                named,
            }
        });
        Then { built, made }
    }
}

/// Offer `o` of `offers`, which fires alone, with what its common step needs (see [`Single`]).
fn single(offers: &[FastMove], o: u32) -> Single {
    let m = &offers[o as usize];
    let (label, then) = match &m.kind {
        FastKind::Alone { label, then } => (*label, plain_one(then)),
        _ => (0, NOT_PLAIN),
    };
    Single {
        offer: o,
        label,
        instance: m.instance,
        then,
    }
}

/// The one component a continuation is, when it was built, made no name and nests no deeper
/// than allowed (what `assembly::plain` takes the common step for); else [`NOT_PLAIN`].
fn plain_one(then: &Then) -> u32 {
    let Ok(built) = &then.built else {
        return NOT_PLAIN;
    };
    match built.ids[..] {
        [id] if then.made.is_empty() && built.nesting <= MAX_NESTING => id,
        _ => NOT_PLAIN,
    }
}

/// Marks the outputs of a component that has an input on the same channel.
fn mark_inner(offers: &mut [FastMove]) {
    let inputs: Vec<Chan> = offers
        .iter()
        .filter_map(|m| match &m.kind {
            FastKind::In { chan, .. } => Some(*chan),
            _ => None,
        })
        .collect();
    for m in offers {
        if let FastKind::Out(out) = &mut m.kind {
            out.inner = inputs.contains(&out.chan);
        }
    }
}

impl Engine<'_, '_> {
    /// What [`Engine::fill`] does for a queue content's `miss` (a [`Miss::Pushed`], or a
    /// [`Miss::Queue`] of two messages or more) whose content is interned already as `id`:
    /// its cache entry set without looking the content up again (the merge found it when it
    /// numbered it ahead, see `explore/ahead.rs`).
    pub(crate) fn fill_found(&mut self, store: &mut Store, miss: &Miss, id: u32) {
        match *miss {
            Miss::Pushed(queue, chan, msg) => {
                if self.queues.pushed(queue, chan, msg).is_none() {
                    self.queues.set_pushed(queue, chan, msg, id);
                }
            }
            Miss::Queue(q) => self.fill_queue_to(store.interner_mut(), q, Some(id)),
            Miss::Moves(..) | Miss::Received(..) => unreachable!("a queue content's miss"),
        }
    }

    /// The parts of the queue content [`Engine::fill`] would intern for `miss` (a
    /// [`Miss::Pushed`], or a [`Miss::Queue`]), as `fill_pushed` and `fill_queue` compute
    /// it, changing nothing: the merge numbers it ahead while the workers read the cache
    /// (see `explore/ahead.rs`). `None` for another miss.
    pub(crate) fn queue_parts(&self, miss: &Miss) -> Option<Parts<'_>> {
        match *miss {
            Miss::Pushed(queue, chan, msg) => {
                let message = &self.messages.items[msg as usize];
                Some(Parts::Pushed(queue, chan, message))
            }
            Miss::Queue(id) => Some(Parts::Popped(id)),
            Miss::Moves(..) | Miss::Received(..) => None,
        }
    }
}
