//! Putting one state's transitions together from the cached moves of its components, in the
//! order `Semantics::successors` gives them.

use super::*;
use agentpi_semantics::DEAD;
use agentpi_semantics::state::{canonicalize, rename_procs};

/// The transitions of one state being put together.
pub(super) struct Assembly<'a, 's, 'p> {
    pub(super) engine: &'a Engine<'s, 'p>,
    pub(super) store: &'a Store,
    /// The source's ids in key order: components are `ids[..split]`, queues `ids[split..]`.
    pub(super) ids: &'a [u32],
    /// The source's tree, which targets mostly share (none: targets are built whole, not
    /// looked up), and room to build theirs.
    pub(super) levels: Option<&'a Levels>,
    /// The source's number in the store, when targets are looked up there.
    pub(super) source: Option<u32>,
    /// Only transitions whose label this accepts (`Semantics::successors_where`).
    pub(super) keep: Option<&'a dyn Fn(&Label) -> bool>,
    /// The worker's vectors, written in place (see [`Reused`]).
    pub(super) reused: &'a mut Reused,
    /// The ids of targets not stored before, one after another.
    pub(super) arena: Vec<u32>,
    pub(super) split: usize,
    /// The source's components in canonical order, where `Slot::pos` points, and the
    /// position of each in `ids`.
    pub(super) canon: &'a [u32],
    pub(super) key_pos: &'a [u32],
    pub(super) slots: &'a [Slot],
    pub(super) moves: &'a [&'a CompMoves],
    pub(super) out: Vec<FastSucc>,
    /// The positions (in `canon`) of the components the next transition moves.
    pub(super) movers_now: [u32; 2],
    /// The channels both some output and some input of the state are on, a bit each (see
    /// `Engine::slots_and_moves`).
    pub(super) meet: ChanBits,
    pub(super) misses: Vec<Miss>,
    /// Set when the reference path must take the state (names in queued messages).
    pub(super) slow: bool,
    /// How many fresh names the source holds, and how many ids the transitions built so far
    /// have used: names made by a build are numbered from there, as `successors` does.
    pub(super) fresh: u32,
    pub(super) counter: u32,
    /// The cache entry, missing, that gives the queue content of the next step's target
    /// ([`QueueChange::Pending`]).
    pub(super) pending: Option<Miss>,
}

/// Room for the inputs by channel and required value (see `InputIndex`), and an output's
/// candidates.
#[derive(Default)]
pub(super) struct Lists {
    index: InputIndex,
    candidates: Vec<usize>,
}

/// A component replaced by what it became: its position, and the continuation's ids.
type Replace<'a> = (usize, &'a [u32]);

/// A continuation built for a step: where it goes, and where the names it made start in the
/// step's numbering.
struct Part<'t> {
    pos: usize,
    then: &'t Continuation,
    made: Made,
    base: u32,
}

impl Part<'_> {
    /// The continuation's components with the names its build made numbered from `base`.
    fn renumbered(&self) -> Vec<Proc> {
        let mut procs = self.then.raw.to_vec();
        if self.made.is_empty() || self.made.start == self.base {
            return procs;
        }
        let map: Vec<u32> = (0..self.made.end)
            .map(|id| match id >= self.made.start {
                true => self.base + (id - self.made.start),
                false => id,
            })
            .collect();
        rename_procs(&mut procs, &map);
        procs
    }
}

impl<'a> Assembly<'a, '_, '_> {
    /// Rules *Tau*, *Event*, *Assert*, *Fault*, *Send*, *Receive*: every offer of every
    /// component opened in full, alone, in order.
    pub(super) fn singles(&mut self) {
        for (slot, &moves) in self.slots.iter().zip(self.moves) {
            if slot.twin {
                continue;
            }
            for &single in moves.singles() {
                if single.then == NOT_PLAIN || self.fresh > 0 {
                    let o = single.offer;
                    self.single(*slot, o, &moves.offers[o as usize]);
                    continue;
                }
                // What `single` and `step` do for such an offer, without reading it.
                self.movers_now = [slot.pos as u32, ALONE];
                let one = Actors::One(single.instance);
                let then = std::slice::from_ref(&single.then);
                self.plain_step(single.label, one, &[Some((slot.pos, then)), None], None);
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
                self.fault(one, fault)
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
            Some(q) => match self.engine.queues.info(q) {
                Some(info) => info.len,
                None if self.computes_queues() => self.store.interner().queue_of(q).messages.len(),
                None => return self.misses.push(Miss::Queue(q)),
            },
            None => 0,
        };
        let effects = self.engine.sem.send_effects(out.chan, waiting);
        let one = Actors::One(m.instance);
        let replace = [(slot.pos, &out.then)];
        if effects.push {
            let miss = Miss::Pushed(queue, out.chan, out.msg);
            match self.engine.queues.pushed(queue, out.chan, out.msg) {
                Some(after) => {
                    let queues = QueueChange::Set(queue, after);
                    self.step(out.send, one, m.span, &replace, Some(queues));
                }
                None if self.computes_queues() => {
                    let queues = self.queue_becomes(queue, miss);
                    self.step(out.send, one, m.span, &replace, Some(queues));
                }
                None => self.misses.push(miss),
            }
        }
        if effects.lose {
            self.step(out.lost, one, m.span, &replace, None);
        }
    }

    /// Whether a step to a queue content the cache lacks is taken with its content left
    /// to the merge, rather than missed: when targets are looked up in the store, and not
    /// under partial-order reduction, where which states take the reference path decides the
    /// states stored. A miss made the merge refuse the source and expand it a second time
    /// once the cache was filled.
    fn computes_queues(&self) -> bool {
        self.levels.is_some() && !self.engine.reduces()
    }

    /// The change from the channel's queue `old` to the content cache entry `miss` gives,
    /// which the cache lacks: pending, for the merge to fill the entry and put the content's
    /// id in the target (see `Run::learn`). The merge fills it once: the next source takes
    /// it from the cache.
    fn queue_becomes(&mut self, old: Option<u32>, miss: Miss) -> QueueChange {
        self.pending = Some(miss);
        QueueChange::Pending(old)
    }

    /// A queue's front message (numbered) and the change taking it: from the cache, or
    /// computed when the cache lacks it (see [`Assembly::computes_queues`]) and the message
    /// is numbered already. `None`: missed.
    fn popping(&mut self, queue: u32) -> Option<(u32, QueueChange)> {
        let change = |popped: Option<u32>| match popped {
            Some(rest) => QueueChange::Set(Some(queue), rest),
            None => QueueChange::Remove(queue),
        };
        if let Some(info) = self.engine.queues.info(queue) {
            return Some((info.front, change(info.popped)));
        }
        let interner = self.store.interner();
        let content = interner.queue_of(queue);
        let front = match self.computes_queues() {
            true => self
                .engine
                .messages
                .index
                .get(&content.messages[0])
                .copied(),
            false => None,
        };
        let Some(front) = front else {
            self.misses.push(Miss::Queue(queue));
            return None;
        };
        if content.messages.len() == 1 {
            return Some((front, QueueChange::Remove(queue)));
        }
        Some((front, self.queue_becomes(Some(queue), Miss::Queue(queue))))
    }

    /// Rule *Receive*: the oldest message of a buffered channel, when it fits.
    fn receive(&mut self, slot: Slot, offer: u32, m: &FastMove, chan: Chan) {
        let Some(queue) = self.queue_of(chan) else {
            return;
        };
        let Some((front, queues)) = self.popping(queue) else {
            return;
        };
        let key = (slot.id, slot.twin, offer, front);
        let Some(recv) = self.engine.received.get(&key) else {
            self.pending = None;
            return self
                .misses
                .push(Miss::Received(slot.id, slot.twin, offer, front));
        };
        let one = Actors::One(m.instance);
        match &recv.kind {
            RecvKind::NoMatch => {}
            RecvKind::Fault(fault) => self.fault(one, fault.clone()),
            RecvKind::Then(then) => {
                self.step(recv.label, one, m.span, &[(slot.pos, then)], Some(queues));
            }
        }
        self.pending = None;
    }

    /// Rules *Comm*, *Comm-Within*, *Comm-Repl*: every output with every input on the same
    /// synchronous channel, in offer order.
    pub(super) fn communications(&mut self) {
        // The offers on no channel of `meet` (bits may be shared) meet nothing.
        let meet = self.meet;
        if meet == 0 {
            return;
        }
        let mut inputs = std::mem::take(&mut self.reused.inputs);
        inputs.clear();
        self.inputs(&mut inputs, meet);
        let Lists {
            mut index,
            mut candidates,
        } = std::mem::take(&mut self.reused.lists);
        index.fill(&inputs, self.engine.syncs.items.len());
        let (slots, moves): (&'a [Slot], &'a [&'a CompMoves]) = (self.slots, self.moves);
        for (k, (slot, &comp)) in slots.iter().zip(moves).enumerate() {
            if comp.out_chans & meet == 0 {
                continue;
            }
            for &o in comp.sync_outs() {
                let m = &comp.offers[o as usize];
                let FastKind::Out(out) = &m.kind else {
                    unreachable!("an output");
                };
                let output = (k, *slot, o, m, out);
                // Most often its inputs are one chain, walked as it is.
                if let Some(mut i) = index.one_chain(out) {
                    while i != NO_INPUT {
                        self.pair(output, inputs[i as usize]);
                        i = index.next[i as usize];
                    }
                    continue;
                }
                index.candidates(&inputs, moves, k, out, &mut candidates);
                for &i in &candidates {
                    self.pair(output, inputs[i]);
                }
            }
        }
        index.empty(&inputs);
        self.reused.lists = Lists { index, candidates };
        self.reused.inputs = inputs;
    }

    /// Every input offer on a synchronous channel, in offer order, but those of components
    /// with no input on a channel of `meet` (no output may meet them).
    fn inputs(&self, inputs: &mut Vec<Input>, meet: ChanBits) {
        for (k, moves) in self.moves.iter().enumerate() {
            if moves.in_chans & meet == 0 {
                continue;
            }
            for &offer in moves.sync_ins() {
                if let FastKind::In { sync, .. } = &moves.offers[offer as usize].kind {
                    let (k, sync) = (k as u32, *sync);
                    inputs.push(Input { k, offer, sync });
                }
            }
        }
    }

    fn pair(&mut self, output: (usize, Slot, u32, &FastMove, &Output), input: Input) {
        let (k, slot, o, m, out) = output;
        if input.k as usize == k {
            if !slot.twin {
                self.internal(k, o, input.offer);
            }
            return;
        }
        let moves: &'a [&'a CompMoves] = self.moves;
        let im = &moves[input.k as usize].offers[input.offer as usize];
        let FastKind::In {
            guard_key,
            may_fault,
            ..
        } = &im.kind
        else {
            unreachable!("an input");
        };
        // The cheapest test first: most inputs on the channel require another value.
        if let (Some(guard), Some(first)) = (*guard_key, out.first_key)
            && guard != first
        {
            return;
        }
        // An offer of a twin inside a component meets only its equal neighbour there.
        if m.twin || im.twin {
            return;
        }
        let islot = self.slots[input.k as usize];
        // A twin meets only the first of its equal pair, side by side.
        let meets = match (slot.twin, islot.twin) {
            (false, false) => true,
            (true, false) => islot.pos + 1 == slot.pos,
            (false, true) => slot.pos + 1 == islot.pos,
            (true, true) => false,
        };
        if !meets {
            return;
        }
        self.movers_now = [slot.pos as u32, islot.pos as u32];
        // When the communication itself was not asked for, the receive is needed only if
        // matching may fault (a `tau` fault, asked for apart).
        let faults = *may_fault && self.wanted(self.tau());
        if !(self.wanted(out.comm) || faults) {
            return;
        }
        let key = (islot.id, islot.twin, input.offer, out.msg);
        let Some(recv) = self.engine.received.get(&key) else {
            let (id, twin, offer, msg) = key;
            return self.misses.push(Miss::Received(id, twin, offer, msg));
        };
        let two = Actors::Two(m.instance, im.instance);
        match &recv.kind {
            RecvKind::NoMatch => {}
            RecvKind::Fault(fault) => self.fault(Actors::One(im.instance), fault.clone()),
            RecvKind::Then(then) => {
                let replace = [(slot.pos, &out.then), (islot.pos, then)];
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

    /// A transition replacing the components at the given positions by their continuations,
    /// built in order (the first fault among them makes it a fault transition, and what
    /// follows it is not built).
    fn step(
        &mut self,
        label: u32,
        actors: Actors,
        span: Span,
        replace: &[(usize, &Then)],
        queues: Option<QueueChange>,
    ) {
        // The common step, in a source without names: what the general way below does when
        // no name is made and nothing faults, without its bookkeeping of names.
        if self.fresh == 0
            && let Some(lists) = plain(replace)
        {
            return self.plain_step(label, actors, &lists, queues);
        }
        // A transition not asked for is not built (so its names are not numbered either).
        if !self.wanted(label) {
            return;
        }
        self.named_step(label, actors, span, replace, queues);
    }

    /// What [`Assembly::step`] does for the common step: each replaced component becomes the
    /// components `lists` gives, no name is made and nothing faults.
    #[inline(always)]
    fn plain_step(
        &mut self,
        label: u32,
        actors: Actors,
        lists: &[Option<Replace<'_>>; 2],
        queues: Option<QueueChange>,
    ) {
        // A transition not asked for is not built.
        if !self.wanted(label) {
            return;
        }
        // Each way emits its own transition: a target merged from both ways went through
        // memory (see [`Assembly::target_in_place`]).
        let renaming = self.kept_numbering();
        match self.target_in_place(lists, queues) {
            Some(known) => self.emit_known(label, actors, known, renaming),
            None => self.emit_built(label, actors, lists, queues, renaming),
        }
    }

    /// What [`Assembly::step`] emits for a common step whose target is built whole.
    #[inline(never)]
    fn emit_built(
        &mut self,
        label: u32,
        actors: Actors,
        lists: &[Option<Replace<'_>>; 2],
        queues: Option<QueueChange>,
        renaming: agentpi_semantics::Renaming,
    ) {
        let target = self.built_target(lists, queues);
        self.emit(FastSucc::To {
            label,
            actors,
            target,
            renaming,
        });
    }

    /// What [`Assembly::step`] does for a step that makes or holds names, or faults: their
    /// numbering kept as `successors` numbers them. Apart, so that the common step does not
    /// pay for its registers on every call.
    #[inline(never)]
    fn named_step(
        &mut self,
        label: u32,
        actors: Actors,
        span: Span,
        replace: &[(usize, &Then)],
        queues: Option<QueueChange>,
    ) {
        let mut bases = [0u32; 2];
        for (i, (_, then)) in replace.iter().enumerate() {
            bases[i] = self.counter;
            self.counter += then.made.len() as u32;
            if let Err(fault) = &then.built {
                let fault = fault.clone();
                return self.emit(FastSucc::Fault {
                    label,
                    fault,
                    actors,
                });
            }
        }
        let parts: [Option<Part<'_>>; 2] = std::array::from_fn(|i| {
            let (pos, then) = replace.get(i)?;
            let built = then.built.as_ref().ok()?;
            Some(Part {
                pos: *pos,
                then: built,
                made: then.made.clone(),
                base: bases[i],
            })
        });
        if parts.iter().flatten().any(|p| p.then.nesting > MAX_NESTING) {
            let kind = FaultKind::NestedTooDeep;
            let fault = Fault { kind, span };
            return self.emit(FastSucc::Fault {
                label,
                fault,
                actors,
            });
        }
        let (target, renaming) = match self.quiet(&parts) {
            true => {
                let lists = parts
                    .each_ref()
                    .map(|p| p.as_ref().map(|p| (p.pos, &p.then.ids[..])));
                (self.target(&lists, queues), self.kept_numbering())
            }
            // Names made or moved with a queue changed too: the reference path.
            false if queues.is_some() => return self.slow = true,
            false => self.named_target(&parts),
        };
        self.emit(FastSucc::To {
            label,
            actors,
            target,
            renaming,
        });
    }

    /// Whether the step keeps the source's numbering of fresh names: it makes no name, and
    /// the components it moves hold none before or after (then every name stays where it was
    /// in the order that numbers them, and none dies).
    fn quiet(&self, parts: &[Option<Part<'_>>]) -> bool {
        let interner = self.store.interner();
        let held = |p: &Part<'_>| interner.fresh_bound(self.canon[p.pos]) > 0;
        let mut parts = parts.iter().flatten();
        parts.clone().all(|p| p.made.is_empty())
            && (self.fresh == 0 || !parts.any(|p| held(p) || p.then.named))
    }

    /// The renaming of a step that keeps the numbering: the source's names as they are, the
    /// ids made so far by other steps' builds gone.
    fn kept_numbering(&self) -> agentpi_semantics::Renaming {
        // No name made or held: empty, without collecting an iterator per transition.
        if self.counter == 0 {
            return Box::default();
        }
        (0..self.counter)
            .map(|id| if id < self.fresh { id } else { DEAD })
            .collect()
    }

    /// The target of a step that moves or makes names: the source's components with the
    /// continuations (their names numbered as `successors` numbers them) in place, put in
    /// canonical form by the semantics, as `successors` does.
    fn named_target(&self, parts: &[Option<Part<'_>>]) -> (Target, agentpi_semantics::Renaming) {
        let interner = self.store.interner();
        let mut procs: Vec<Proc> = Vec::with_capacity(self.canon.len() + 2);
        for (p, &id) in self.canon.iter().enumerate() {
            match parts.iter().flatten().find(|part| part.pos == p) {
                Some(part) => procs.extend(part.renumbered()),
                None => procs.push(interner.component(id)),
            }
        }
        let queues: Vec<Queue> = self.ids[self.split..]
            .iter()
            .map(|&q| interner.queue_of(q).clone())
            .collect();
        let sem = self.engine.sem;
        let replicated = |t| sem.is_replication(t);
        let (state, renaming) = canonicalize(procs, queues, self.counter, &replicated);
        let found = self
            .store
            .lookup(&state)
            .and_then(|key| self.store.find(&key));
        let target = match found {
            Some(known) => Target::Known(known),
            None => Target::State(Box::new(state)),
        };
        (target, renaming)
    }

    /// The stubborn set to expand the source (state `s`) by, when one without a visible
    /// transition is smaller than all, and it reaches no state numbered up to `s` (the
    /// cycle proviso: every cycle of the reduced graph has a state expanded in full).
    pub(super) fn reduce(&self, s: u32) -> Option<Vec<u32>> {
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
        let set = stubborn(&components, &self.reused.movers, &visible)?;
        let older = |t: &u32| matches!(self.out[*t as usize], FastSucc::To { target: Target::Known(n), .. } if n <= s);
        (!set.iter().any(older)).then_some(set)
    }

    /// Whether the caller asked for transitions with this label (remembered per label: the
    /// filter may look names up).
    fn wanted(&mut self, label: u32) -> bool {
        let Some(keep) = self.keep else {
            return true;
        };
        let i = label as usize;
        if self.reused.asked.len() <= i {
            self.reused.asked.resize(i + 1, None);
        }
        *self.reused.asked[i].get_or_insert_with(|| keep(&self.engine.labels.items[i]))
    }

    /// Adds a transition to the state numbered `known` (or [`Assembly::look_up`]'s
    /// placeholder), moving the components at `self.movers_now`. Made by `once_with` once
    /// the vector has room, its fields are written into the vector directly: pushed, it was
    /// put together on the stack in pieces of 4 and 8 bytes (before the push's check of the
    /// room, which may call the allocator) and copied in pieces of 16, which the store
    /// buffer cannot forward (see [`Assembly::target_in_place`]): 40% of the samples of
    /// `step` on Peterson N = 4.
    #[inline(always)]
    fn emit_known(
        &mut self,
        label: u32,
        actors: Actors,
        known: u32,
        renaming: agentpi_semantics::Renaming,
    ) {
        let make = || FastSucc::To {
            label,
            actors,
            target: Target::Known(known),
            renaming,
        };
        self.out.extend(std::iter::once_with(make));
        self.reused.movers.push(self.movers_now);
    }

    /// Adds a transition, moving the components at `self.movers_now`.
    fn emit(&mut self, succ: FastSucc) {
        self.out.push(succ);
        self.reused.movers.push(self.movers_now);
    }

    /// A fault raised before anything was built (a failed assertion, a pattern that cannot
    /// be evaluated): labelled `tau`.
    fn fault(&mut self, actors: Actors, fault: Fault) {
        let label = self.tau();
        if !self.wanted(label) {
            return;
        }
        self.emit(FastSucc::Fault {
            label,
            fault,
            actors,
        });
    }

    /// The engine's first label (see `Engine::new`): looking it up hashed a label per pair.
    fn tau(&self) -> u32 {
        debug_assert_eq!(self.engine.labels.items[0], Label::tau());
        0
    }

    /// The target's ids: the source's components but the replaced ones, with the
    /// continuations' components each put in its place in key order (an equal replication
    /// already there is kept once, law *Repl-Idem*), then the queues.
    fn target(
        &mut self,
        replace: &[Option<Replace<'_>>; 2],
        queues: Option<QueueChange>,
    ) -> Target {
        match self.target_in_place(replace, queues) {
            Some(known) => Target::Known(known),
            None => self.built_target(replace, queues),
        }
    }

    /// What [`Assembly::target`] finds for the common steps, the source itself or a target
    /// written over it (looked up later: [`Assembly::look_up`]'s placeholder), as a number
    /// returned in a register; `None`: built whole. A `Target` returned (through memory,
    /// being 24 bytes) was written in pieces of 4 bytes and read back in one of 16 to be
    /// pushed, which the store buffer cannot forward: the load waited for the stores to
    /// reach the cache, a third of the samples of `step` on Peterson N = 4.
    #[inline(always)]
    fn target_in_place(
        &mut self,
        replace: &[Option<Replace<'_>>; 2],
        queues: Option<QueueChange>,
    ) -> Option<u32> {
        if queues.is_none()
            && let Some(s) = self.source
            && self.stays(replace)
        {
            return Some(s);
        }
        let levels = self.levels?;
        let written = self.written_over(replace)?;
        let written = match queues {
            None => written,
            Some(QueueChange::Set(Some(old), new)) => self.queue_over(written, old, new)?,
            Some(_) => return None,
        };
        Some(self.look_up(levels, written))
    }

    /// `written` (over the source's components) with the source's queue `old` becoming
    /// `new` in its place, when `new` falls there in key order (by id) among the source's
    /// queues: what [`Assembly::built_target`] finds for a send or a receive that leaves a
    /// queue with messages, without copying the source's ids (a twentieth of seqbuffer's
    /// instructions). `None`: more than two ids change, or `new` goes elsewhere.
    fn queue_over(&self, mut written: Written, old: u32, new: u32) -> Option<Written> {
        let queues = &self.ids[self.split..];
        let at = queues.iter().position(|&q| q == old)?;
        let after = at == 0 || queues[at - 1] < new;
        let before = queues.get(at + 1).is_none_or(|&q| new < q);
        if !(after && before) {
            return None;
        }
        written.add(self.split + at, new)?;
        Some(written)
    }

    /// What [`Assembly::target`] finds for a step that changes a queue, or whose
    /// continuations are not written over the source's ids: the ids built whole. Apart, so
    /// that the common steps above do not pay for its registers on every call.
    #[inline(never)]
    fn built_target(
        &mut self,
        replace: &[Option<Replace<'_>>; 2],
        queues: Option<QueueChange>,
    ) -> Target {
        let interner = self.store.interner();
        let mut ids = std::mem::take(&mut self.reused.buffer);
        ids.clear();
        ids.extend_from_slice(&self.ids[..self.split]);
        let in_place = self.replace_in_place(&mut ids, replace);
        if in_place.is_none() {
            ids.clear();
            ids.extend_from_slice(&self.ids[..self.split]);
            self.replace_sorted(&mut ids, replace);
        }
        if let Some(QueueChange::Pending(old)) = queues {
            // The content's id is the merge's to give: the ids with a placeholder for it,
            // last (`Run::learn` puts the id there and the queues back in key order).
            self.queues_into(&mut ids, old.map(QueueChange::Remove));
            ids.push(u32::MAX);
            let miss = self.pending.take().expect("a pending queue content");
            let start = self.arena.len() as u32;
            self.arena.extend_from_slice(&ids);
            let len = ids.len() as u32;
            self.reused.buffer = ids;
            return Target::Queued(start, len, Box::new(miss));
        }
        // Most states hold no queue: nothing to append, and no call per step to see it.
        if queues.is_some() || self.split < self.ids.len() {
            self.queues_into(&mut ids, queues);
        }
        let Some(levels) = self.levels else {
            let state = interner.state(&ids);
            self.reused.buffer = ids;
            return Target::State(Box::new(state));
        };
        // Written in place, and the queues as many as before: the ids differ from the
        // source's where they were written and in a queue or two, so the store need not
        // compare them all.
        let changes = in_place.and_then(|written| self.with_queues(written, &ids));
        if let Some(changes) = changes {
            self.reused.buffer = ids;
            return Target::Known(self.look_up(levels, changes));
        }
        let found = self
            .store
            .find_near(Some(levels), &ids, &mut self.reused.scratch);
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
        self.reused.buffer = ids;
        target
    }

    /// Whether every replaced component becomes itself, alone, with no equal neighbour (which
    /// law *Repl-Idem* might merge it with): then the target is the source, and a look-up in
    /// the store would find it. A read of a register that leaves both the reader and the
    /// register as they were (a guard found false, `bench/check/peterson.pi`'s `Wait`) is
    /// such a step: building and looking up its target was most of its cost.
    fn stays(&self, replace: &[Option<Replace<'_>>; 2]) -> bool {
        let same = |&(pos, list): &Replace<'_>| list == [self.canon[pos]];
        if !replace.iter().flatten().all(same) {
            return false;
        }
        let comps = &self.ids[..self.split];
        replace.iter().flatten().all(|&(pos, _)| {
            let (gone, at) = (self.canon[pos], self.key_pos[pos] as usize);
            (at == 0 || comps[at - 1] != gone) && comps.get(at + 1) != Some(&gone)
        })
    }

    /// What [`Assembly::replace_in_place`] writes over the source's ids, found without
    /// copying them: the first component's place is found in the source's ids, and the
    /// second's too, as the first write cannot have changed where it is (it is another
    /// component, and the first did not become it: else `None`, and the caller takes the
    /// general way). The neighbours are read as the writes left them.
    #[inline(always)]
    fn written_over(&self, replace: &[Option<Replace<'_>>; 2]) -> Option<Written> {
        if let [Some((pos, &[id])), None] = *replace {
            return self.written_once(pos, id);
        }
        let interner = self.store.interner();
        let comps = &self.ids[..self.split];
        let mut written = Written::default();
        let mut first: Option<(u32, u32)> = None;
        for (pos, list) in replace.iter().flatten() {
            let &[id] = *list else {
                return None;
            };
            let gone = self.canon[*pos];
            if let Some((gone_before, id_before)) = first
                && (gone == gone_before || gone == id_before)
            {
                return None;
            }
            first = Some((gone, id));
            let at = first_left(comps, self.key_pos[*pos] as usize, gone);
            let read = |i: usize| match written.at[..written.len].iter().find(|w| w.0 == i) {
                Some(&(_, id)) => id,
                None => comps[i],
            };
            let key = interner.order_key(id);
            let after = at == 0 || interner.order_key(read(at - 1)) < key;
            let before = at + 1 >= comps.len() || key < interner.order_key(read(at + 1));
            if !(after && before) {
                return None;
            }
            if comps[at] != id {
                written.push(at, id);
            }
        }
        Some(written)
    }

    /// What [`Assembly::written_over`] finds for one component at `pos` becoming `id` (the
    /// offers that fire alone, more than half of Peterson's steps): nothing written before
    /// to read the neighbours through, nor another change to keep apart. Found by the loop
    /// over both changes, it was 240 instructions a step.
    #[inline(always)]
    fn written_once(&self, pos: usize, id: u32) -> Option<Written> {
        let interner = self.store.interner();
        let comps = &self.ids[..self.split];
        let gone = self.canon[pos];
        let at = first_left(comps, self.key_pos[pos] as usize, gone);
        let key = interner.order_key(id);
        let after = at == 0 || interner.order_key(comps[at - 1]) < key;
        let before = comps
            .get(at + 1)
            .is_none_or(|&x| key < interner.order_key(x));
        if !(after && before) {
            return None;
        }
        let mut written = Written::default();
        if comps[at] != id {
            written.at[0] = (at, id);
            written.len = 1;
        }
        Some(written)
    }

    /// The target of the transition about to be emitted, the source's ids with `written`
    /// made (the queues as they were), looked up from what changed once every transition of
    /// the source is put together ([`Assembly::resolve`]); its ids are copied into the arena
    /// only when it is not stored. A placeholder until then; the first cache line of its probe
    /// is prefetched now, so that it arrives while the other transitions are put together.
    #[inline(always)]
    fn look_up(&mut self, levels: &Levels, written: Written) -> u32 {
        let at = self.out.len() as u32;
        let hash = self.store.touch_changed(levels, written.as_slice());
        // Made in place (see [`Assembly::emit_known`]).
        let deferred = || Deferred { at, written, hash };
        self.reused.deferred.extend(std::iter::once_with(deferred));
        u32::MAX
    }

    /// Looks up the targets [`Assembly::look_up`] left, in order, each into its
    /// transition. Most look-ups miss the cache (a fifth to a third of Peterson N = 4's time
    /// was the first load of a probe, each waited for before the next transition was put
    /// together): their first lines, prefetched by [`Assembly::look_up`], overlap.
    pub(super) fn resolve(&mut self) {
        let Some(levels) = self.levels else {
            return;
        };
        let mut deferred = take(&mut self.reused.deferred);
        for d in &deferred {
            let changes = d.written.as_slice();
            let found = self.store.find_changed_hashed(levels, changes, d.hash);
            // The placeholder's number written over, or the placeholder replaced whole: a
            // `Target` made apart and moved in went through memory in pieces of other
            // sizes than it was read back in (see [`Assembly::target_in_place`]), more
            // than half of the samples here.
            let new = found.is_none().then(|| self.new_written(&d.written));
            let FastSucc::To { target, .. } = &mut self.out[d.at as usize] else {
                unreachable!("a transition to a target");
            };
            match (target, found, new) {
                (Target::Known(placeholder), Some(known), _) => *placeholder = known,
                (target, _, Some((start, len))) => *target = Target::New { start, len },
                _ => unreachable!("a placeholder, found or new"),
            }
        }
        deferred.clear();
        self.reused.deferred = deferred;
    }

    /// A target not stored: the source's ids with `written` made, copied into the arena.
    fn new_written(&mut self, written: &Written) -> (u32, u32) {
        let start = self.arena.len();
        self.arena.extend_from_slice(self.ids);
        for &(at, id) in written.as_slice() {
            self.arena[start + at] = id;
        }
        (start as u32, self.ids.len() as u32)
    }

    /// What a target written in place (`written`, among the components) changed from the
    /// source's ids, with the queues that changed (`ids`: the target's ids, queues
    /// included): `None` when the queues are not as many as before, or more than two ids
    /// changed in all (a send or a receive changes a component and a queue).
    fn with_queues(&self, mut written: Written, ids: &[u32]) -> Option<Written> {
        if ids.len() != self.ids.len() {
            return None;
        }
        let (before, after) = (&self.ids[self.split..], &ids[self.split..]);
        for (i, (a, b)) in before.iter().zip(after).enumerate() {
            if a != b {
                written.add(self.split + i, *b)?;
            }
        }
        Some(written)
    }

    /// The common step, each replaced component becoming one component that falls in its
    /// place in key order, strictly between its neighbours: written over it. That is what
    /// [`Assembly::replace_sorted`] makes (no equal component beside it, so law *Repl-Idem*
    /// keeps nothing once), without moving the others: the positions written, in increasing
    /// order; `None`, `ids` left half done, otherwise.
    fn replace_in_place(
        &self,
        ids: &mut [u32],
        replace: &[Option<Replace<'_>>; 2],
    ) -> Option<Written> {
        let interner = self.store.interner();
        let mut written = Written::default();
        for (pos, list) in replace.iter().flatten() {
            let &[id] = *list else {
                return None;
            };
            let gone = self.canon[*pos];
            let at = first_left(ids, self.key_pos[*pos] as usize, gone);
            let key = interner.order_key(id);
            let after = at == 0 || interner.order_key(ids[at - 1]) < key;
            let before = ids.get(at + 1).is_none_or(|&x| key < interner.order_key(x));
            if !(after && before) {
                return None;
            }
            // A component that stays as it was changes nothing the store must walk up from.
            if ids[at] != id {
                ids[at] = id;
                written.push(at, id);
            }
        }
        Some(written)
    }

    /// The source's components (`ids`) with the replaced ones removed and the
    /// continuations' components each put in its place in key order (an equal replication
    /// already there is kept once, law *Repl-Idem*).
    fn replace_sorted(&self, ids: &mut Vec<u32>, replace: &[Option<Replace<'_>>; 2]) {
        let interner = self.store.interner();
        for (pos, _) in replace.iter().flatten() {
            let gone = self.canon[*pos];
            let at = ids
                .iter()
                .position(|&id| id == gone)
                .expect("a component of the source");
            ids.remove(at);
        }
        for (_, list) in replace.iter().flatten() {
            for &id in list.iter() {
                let key = interner.order_key(id);
                let at = ids.partition_point(|&x| interner.order_key(x) < key);
                if ids.get(at) == Some(&id) && self.replicated(interner, id) {
                    continue;
                }
                ids.insert(at, id);
            }
        }
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
            Some(QueueChange::Pending(_)) => unreachable!("built whole (Assembly::target)"),
            Some(QueueChange::Set(old, new)) => {
                ids.extend(queues.iter().filter(|&&q| Some(q) != old));
                let at = ids[start..].partition_point(|&q| q < new);
                ids.insert(start + at, new);
            }
        }
    }

    /// The queue of a buffered channel, if it has messages: each queue's channel read from
    /// the engine's cache of contents, where the send or receive reads next, when known
    /// there (else from the interner's content, a cache miss of its own).
    fn queue_of(&self, chan: Chan) -> Option<u32> {
        let (cache, interner) = (&self.engine.queues, self.store.interner());
        self.ids[self.split..].iter().copied().find(|&q| {
            cache
                .is_on(q, chan)
                .unwrap_or_else(|| interner.queue_of(q).chan == chan)
        })
    }
}

/// The inputs of a state by channel and the value their first pattern requires (together
/// numbered: `Input::sync`): an output meets the inputs that require nothing or its first
/// value, and those of its own component (which meet it inside, whatever they require), so
/// it is tried with those only. Trying it with every input on its channel was most of
/// putting philosophers' transitions together (a fork waits for its own number), and a state
/// with thousands of components (requests in flight) tried every output with every input.
///
/// A list per sync number, chained through the inputs (`heads`, `next`), each in offer
/// order: the numbers are dense and few, so an output finds its inputs without a search
/// (sorting the inputs by number and searching twice per output was a tenth of the time).
/// Built for every state and emptied after it, so nothing is allocated per state.
#[derive(Default)]
pub(super) struct InputIndex {
    /// By sync number: the first input with it (`NO_INPUT`: none).
    heads: Vec<u32>,
    /// By input: the next input with the same sync number.
    next: Vec<u32>,
}

const NO_INPUT: u32 = u32::MAX;

impl InputIndex {
    /// Chains `inputs` by sync number (`syncs` of them numbered so far).
    fn fill(&mut self, inputs: &[Input], syncs: usize) {
        if self.heads.len() < syncs {
            self.heads.resize(syncs, NO_INPUT);
        }
        self.next.clear();
        self.next.resize(inputs.len(), NO_INPUT);
        // From the last, so that each chain runs in offer order.
        for (i, input) in inputs.iter().enumerate().rev() {
            let head = &mut self.heads[input.sync as usize];
            self.next[i] = *head;
            *head = i as u32;
        }
    }

    /// Every head back to none, for the next state.
    fn empty(&mut self, inputs: &[Input]) {
        for input in inputs {
            self.heads[input.sync as usize] = NO_INPUT;
        }
    }

    /// The inputs with this `sync`, in offer order.
    fn chain(&self, sync: u32) -> impl Iterator<Item = usize> + '_ {
        let some = |i: u32| (i != NO_INPUT).then_some(i);
        let first = self.heads.get(sync as usize).copied().and_then(some);
        std::iter::successors(first, move |&i| some(self.next[i as usize])).map(|i| i as usize)
    }

    /// The inputs of chains `a` and `b` merged, in offer order, into `list`.
    fn merged(&self, a: u32, b: u32, list: &mut Vec<usize>) {
        let (mut any, mut firsts) = (self.chain(a).peekable(), self.chain(b).peekable());
        loop {
            let next = match (any.peek(), firsts.peek()) {
                (Some(&a), Some(&b)) if a < b => any.next(),
                (_, Some(_)) => firsts.next(),
                (Some(_), None) => any.next(),
                (None, None) => break,
            };
            list.extend(next);
        }
    }

    /// The first input of the one chain output `out` may meet, when it is one: the
    /// output has a first value, and no input of its own component on its channel (those
    /// meet it inside whatever they require), and one of its two chains is empty.
    fn one_chain(&self, out: &Output) -> Option<u32> {
        let first = out.sync_first.filter(|_| !out.inner)?;
        match (self.head(out.sync_any), self.head(first)) {
            (NO_INPUT, only) | (only, NO_INPUT) => Some(only),
            _ => None,
        }
    }

    fn head(&self, sync: u32) -> u32 {
        self.heads.get(sync as usize).copied().unwrap_or(NO_INPUT)
    }

    /// The inputs output `out` of slot `k` may meet, in offer order, into `list`.
    fn candidates(
        &self,
        inputs: &[Input],
        moves: &[&CompMoves],
        k: usize,
        out: &Output,
        list: &mut Vec<usize>,
    ) {
        list.clear();
        let on_chan = |i: usize| inputs[i].chan(moves) == out.chan;
        let Some(first) = out.sync_first else {
            // No value to match: every input on the channel.
            return list.extend((0..inputs.len()).filter(|&i| on_chan(i)));
        };
        // Most often one of the two chains is empty (a fork's inputs all require a value).
        match (self.head(out.sync_any), self.head(first)) {
            (NO_INPUT, _) => list.extend(self.chain(first)),
            (_, NO_INPUT) => list.extend(self.chain(out.sync_any)),
            _ => self.merged(out.sync_any, first, list),
        }
        // Inputs of the output's own component meet it inside whatever they require.
        if out.inner {
            let own = |&i: &usize| {
                let input = &inputs[i];
                input.k as usize == k && on_chan(i) && ![out.sync_any, first].contains(&input.sync)
            };
            let before = list.len();
            list.extend((0..inputs.len()).filter(own));
            if list.len() > before && before > 0 {
                list.sort_unstable();
            }
        }
    }
}

/// An input offer of the state, for pairing: its slot, its offer there, and its sync number
/// (the rest is read from the offer when it is paired, which few are: building every
/// input's whole description was a sixth of putting a state's transitions together).
#[derive(Clone, Copy)]
pub(super) struct Input {
    k: u32,
    offer: u32,
    sync: u32,
}

impl Input {
    fn chan(&self, moves: &[&CompMoves]) -> Chan {
        match &moves[self.k as usize].offers[self.offer as usize].kind {
            FastKind::In { chan, .. } => *chan,
            _ => unreachable!("an input"),
        }
    }
}

/// The continuations' ids in place, when every one was built, made no name and nests no
/// deeper than allowed: then the step keeps the source's numbering of names and builds no
/// fault (see `Assembly::step`).
fn plain<'t>(replace: &[(usize, &'t Then)]) -> Option<[Option<Replace<'t>>; 2]> {
    let mut lists = [None, None];
    for (list, &(pos, then)) in lists.iter_mut().zip(replace) {
        let built = then.built.as_ref().ok()?;
        if !then.made.is_empty() || built.nesting > MAX_NESTING {
            return None;
        }
        *list = Some((pos, &built.ids[..]));
    }
    Some(lists)
}

/// The first `gone` of `ids` (which holds it), found from the position `near` where it
/// was in the source: equal ids sit side by side in key order, so it is the first of the run
/// of `gone` that `near` is in, or (when a twin of the same step was written there already)
/// the next one after it. What `ids.iter().position(|&x| x == gone)` finds, without going
/// through the ids before it.
fn first_left(ids: &[u32], near: usize, gone: u32) -> usize {
    let mut at = near;
    while at > 0 && ids[at - 1] == gone {
        at -= 1;
    }
    while ids[at] != gone {
        at += 1;
    }
    at
}

/// What a step wrote over its source's ids: (position, id), in increasing position order,
/// each position once (with the last id written there).
#[derive(Clone, Copy, Default)]
pub(super) struct Written {
    at: [(usize, u32); 2],
    len: usize,
}

impl Written {
    fn push(&mut self, at: usize, id: u32) {
        if let Some(same) = self.at[..self.len].iter_mut().find(|(p, _)| *p == at) {
            same.1 = id;
            return;
        }
        self.at[self.len] = (at, id);
        self.len += 1;
        if self.len == 2 && self.at[0].0 > self.at[1].0 {
            self.at.swap(0, 1);
        }
    }

    /// Adds a change after every one there (a queue's, past the components): `None` when
    /// that would make more than two.
    fn add(&mut self, at: usize, id: u32) -> Option<()> {
        *self.at.get_mut(self.len)? = (at, id);
        self.len += 1;
        Some(())
    }

    fn as_slice(&self) -> &[(usize, u32)] {
        &self.at[..self.len]
    }
}

/// A target left to [`Assembly::resolve`]: its transition's place in `out`, what the step
/// wrote over the source's ids, and the hash whose probe [`Assembly::look_up`] began.
pub(super) struct Deferred {
    at: u32,
    written: Written,
    hash: u32,
}

/// How a transition changes the queues: the channel's queue (if any) becomes another, or
/// is emptied, or becomes the content in `Assembly::pending`.
#[derive(Clone, Copy)]
enum QueueChange {
    Set(Option<u32>, u32),
    Remove(u32),
    Pending(Option<u32>),
}
