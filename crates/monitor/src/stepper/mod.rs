//! The monitor's replay of the protocol model: the rules of `agentpi_check::replay` (which
//! stays the reference: `tests/stepper.rs` holds this one to it), at a cost per message that
//! does not grow with the requests in flight.
//!
//! A state of the monitor's model holds a component or two per request in flight, and each
//! of them moves only when a message names its request. So an explanation is kept split
//! ([`split::Split`]): the components that may move between messages, always looked at, and
//! passive groups indexed by what they can take part in (every move of a passive group is
//! visible, or an input on a hidden channel: the lifecycle and capability observers wait so).
//! A message is checked on a *window*: the active components and the groups the observation
//! can concern (those holding a name it names, those taking any label of its head, those
//! offering one of its constructor), and the takers of the hidden channels its closure
//! outputs on. The closure is checked for that: when a state it reaches outputs on a hidden
//! channel whose takers are outside the window, the step is taken again with them (and they
//! are remembered for observations of that shape). No component outside the window can then
//! take part in the message or in any hidden step after it, so the window's transitions,
//! closure, flags and bindings are those of the whole state. With more than one explanation,
//! or an observation whose head is a name, every window is the whole state, as in the
//! reference.
//!
//! A step taken before on a window whose groups have the same forms, bindings and
//! observation (up to names and keys) is applied to the explanation in place, without cutting
//! the window (`quick.rs`).
//!
//! And a message of the kind of the last of its side (`Session::kind_fast`: the same bytes
//! but for its id) is stepped without its observation: the step that one took in place is
//! kept with the part of its look-up that reads the window ([`KindStep`]); the window of the
//! new key is found and read again, and when it reads the same, the look-up is the same and
//! so is the step (`kind_ready`, `kind_apply`).

mod closure;
mod forms;
mod names;
mod quick;
mod split;
mod statics;
mod steps;
mod summary;
mod window;

use agentpi_check::replay::memo::Memo;
use agentpi_check::replay::{Alphabet, Flag, HeadPat, Observation, Options, ReplayError, Verdict};
use agentpi_check::replay::{Arg, Key, Word};
use agentpi_ir::core::ChanId;
use agentpi_semantics::{Chan, Proc, Semantics, State};
use closure::{Hyp, Rules};
use rustc_hash::FxHashMap;
use split::{GroupId, Grouping, Offer, Rest, Split};
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use summary::{Head, Heads, Summaries};

/// Steps the model along observations (see the module's documentation).
pub struct Stepper {
    rules: Rules,
    hyps: Vec<Split>,
    summaries: Summaries,
    /// The next stable id for a name.
    counter: u32,
    /// By an observation's shape, the hidden channels its closure needed takers of.
    predicted: FxHashMap<(Head, Head), Vec<Head>>,
    /// How many times `predicted` grew: what a kind's `took` is as of.
    predictions: u64,
    /// Whole steps of windows, remembered.
    steps: steps::Steps,
    /// Steps remembered by the forms of the window's groups, taken in place.
    quick: quick::Quicks,
    /// The forms of the passive groups.
    forms: forms::Forms,
    /// How many window results were grouped by linking their components (not by a
    /// remembered step's grouping).
    groupings: u64,
    /// The buffer of the last window whose step was taken in place, for the next window.
    spare_window: RefCell<Vec<GroupId>>,
    /// What the walks of a window found, by what they walk, with the epoch of `Rest` they
    /// were made at (see [`Stepper::walked`]).
    walks: RefCell<FxHashMap<Walk, (u64, Vec<GroupId>)>>,
    /// The last walks found in `walks` or made, asked first (a flood alternates two kinds
    /// of message, each with its walk): compared, not hashed. Emptied with `walks`.
    recent_walks: RefCell<[RecentWalk; 2]>,
    /// How many windows took their walks from `walks`.
    walk_hits: Cell<u64>,
    /// The last step taken in place, as the step of a kind of message (`kind_remember`).
    last_quick: Option<KindStep>,
    /// By side (client, server), the step the last message of that side's kind took.
    kinds: [Option<KindStep>; 2],
    /// How many steps were taken by kind (`kind_apply`).
    kind_hits: u64,
    /// The walk of the last window, and whether the observation pinned a name.
    last_walk: Cell<Option<(Walk, bool)>>,
    /// The step of a kind found to apply, its look-up and window (`kind_ready`).
    ready: Option<(Rc<quick::Quick>, Box<quick::Lookup>, Vec<GroupId>)>,
}

/// What the walks of a window's lists take (see [`Stepper::walked`]): the head whose takers
/// are in, the label offered (head, its first constructor, the constructor at a place inside
/// it) unless the observation pins a name, and the shape whose predicted hidden takers are.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
struct Walk {
    taking: Option<Head>,
    offer: Option<Offer>,
    predicted: Option<(Head, Head)>,
}

/// A walk, the epoch it was made at and what it found (`Stepper::recent_walks`).
type RecentWalk = Option<(Walk, u64, Vec<GroupId>)>;

/// A step taken in place, kept for the next observation that is the same but for its one
/// key (the next message of its kind: `Session::kind_fast`): the window's walk, whether the
/// key was bound, the look-up's part that reads the window and the key's place, and the
/// step. The look-up of such an observation is that part, then the observation's words
/// (the same) with the key's place: so when the window read again gives the same part and
/// place, the look-up is the same, and so is its step (`quick.rs`).
struct KindStep {
    walk: Walk,
    shape: (Head, Head),
    pinned: bool,
    groups_key: Vec<u32>,
    place: (u32, u32),
    quick: Rc<quick::Quick>,
    /// The count of `predictions` at which [`Stepper::walk_took`] held for this kind's walk
    /// and step (a function of theirs and of `predicted`, which only grows): not asked
    /// again (a hash of the shape) until `predicted` grows.
    took: Cell<Option<u64>>,
}

/// `Rc::make_mut`, without its call when `rc` is not shared (a step taken in place finds
/// the explanation's parts unshared: nothing else holds them between messages).
fn unshared<T: Clone>(rc: &mut Rc<T>) -> &mut T {
    if Rc::get_mut(rc).is_none() {
        Rc::make_mut(rc);
    }
    Rc::get_mut(rc).expect("unshared above")
}

/// The one key of `obs`, when it has one (as `Arg::Name`) and no `IfBound`.
fn single_key(obs: &Observation) -> Option<&Key> {
    fn walk<'a>(arg: &'a Arg, found: &mut Vec<&'a Key>, ok: &mut bool) {
        match arg {
            Arg::Name(k) => found.push(k),
            Arg::IfBound(..) => *ok = false,
            Arg::Ctor(_, args) | Arg::Tuple(args) => args.iter().for_each(|a| walk(a, found, ok)),
            _ => {}
        }
    }
    let (mut found, mut ok) = (Vec::new(), true);
    obs.args.iter().for_each(|a| walk(a, &mut found, &mut ok));
    match (ok, found.as_slice()) {
        (true, [one]) => Some(one),
        _ => None,
    }
}

/// The walks remembered start over past this many (a session has few shapes of message).
const WALKS: usize = 256;

/// The explanations after a closure and its flags.
type Closed = Result<(Vec<Hyp>, Vec<Flag>), ReplayError>;

/// Past this many stable ids, names are numbered afresh from 0 (a long session makes two
/// names per request).
const RENUMBER: u32 = 1 << 31;

/// No head (see [`Stepper::shape`]).
const NO_HEAD: Head = Head::MAX;

impl Stepper {
    /// Whether the stepper can follow the model of `sem`: a window holds no queue, so a model
    /// with a buffered channel is left to the reference replay.
    pub fn supports(sem: &Semantics<'_>) -> bool {
        let global = (0..sem.program.chans.len()).map(|i| Chan::Global(ChanId(i as u32)));
        let origins = 0..sem.origin_names().len() as u32;
        let fresh = origins.map(|origin| Chan::Fresh { id: 0, origin });
        global.chain(fresh).all(|c| sem.buffer(c).is_none())
    }

    /// Starts at system `system`'s initial state, closed over hidden steps, with a memo of
    /// its own.
    pub fn new(
        sem: &'static Semantics<'static>,
        system: usize,
        alphabet: Alphabet,
        options: Options,
    ) -> Result<Stepper, ReplayError> {
        Stepper::with_memo(sem, system, alphabet, options, Rc::default())
    }

    /// [`Stepper::new`], remembering transitions in `memo`, which steppers of one model (and
    /// alphabet and options) may share.
    pub fn with_memo(
        sem: &'static Semantics<'static>,
        system: usize,
        alphabet: Alphabet,
        options: Options,
        memo: Rc<RefCell<Memo>>,
    ) -> Result<Stepper, ReplayError> {
        let initial = sem.initial(system).map_err(ReplayError::Initial)?;
        let mut stepper = Stepper {
            rules: Rules::new(sem, alphabet, options, memo),
            hyps: Vec::new(),
            summaries: Summaries::default(),
            counter: 0,
            predicted: FxHashMap::default(),
            predictions: 0,
            steps: steps::Steps::default(),
            quick: quick::Quicks::default(),
            forms: forms::Forms::default(),
            groupings: 0,
            spare_window: RefCell::default(),
            walks: RefCell::default(),
            recent_walks: RefCell::default(),
            walk_hits: Cell::new(0),
            last_quick: None,
            kinds: [None, None],
            kind_hits: 0,
            last_walk: Cell::new(None),
            ready: None,
        };
        let seed = Hyp::new(initial, Vec::new(), Vec::new(), Rc::default());
        let (hyps, _) = stepper.rules.close(vec![seed])?;
        stepper.hyps = stepper.absorb(hyps, None, None);
        Ok(stepper)
    }

    /// How many steps were taken by the kind of their message ([`Stepper::kind_apply`]).
    pub fn kind_hits(&self) -> u64 {
        self.kind_hits
    }

    /// Whether `key` is bound to a live name in some explanation.
    pub fn is_bound(&self, key: &str) -> bool {
        self.hyps
            .iter()
            .any(|h| h.bindings.by_key.contains_key(key))
    }

    /// Lets go of `key` in every explanation: its name lives on, bound to no key, and a later
    /// label with `key` means a new name.
    pub fn forget(&mut self, key: &str) {
        for split in &mut self.hyps {
            if let Some(&name) = split.bindings.by_key.get(key) {
                Rc::make_mut(&mut split.bindings).unbind(name);
            }
        }
    }

    /// Takes one observed label; when it is flagged or refused, also what the model would
    /// have accepted instead.
    pub fn step_explained(
        &mut self,
        obs: &Observation,
    ) -> Result<(Verdict, Vec<String>), ReplayError> {
        self.last_quick = None;
        self.last_walk.set(None);
        let mut window = self.window_of(obs);
        let lookup = self.quick_lookup(window.as_deref(), obs);
        let kind = self.kind_of(lookup.as_deref(), obs);
        if let (Some(at), Some(groups)) = (&lookup, &window)
            && self.quick_step(at, groups)
        {
            if let Some(mut kind) = kind
                && let Some(step) = self.quick.get(at)
            {
                kind.quick = step;
                self.last_quick = Some(kind);
            }
            if let Some(at) = lookup {
                self.quick.recycle(at);
            }
            if let Some(groups) = window {
                *self.spare_window.get_mut() = groups;
            }
            return Ok((Verdict::Accepted, Vec::new()));
        }
        let cut_from = window.clone();
        let (first, counter) = match self.hyps.as_slice() {
            [split] => (split.rest.next_id(), self.counter),
            _ => (0, self.counter),
        };
        let (cut, stepped, grouping, outs) = loop {
            let cut: Vec<Hyp> = match &window {
                Some(groups) => vec![window::cut(self.rules.sem, &self.hyps[0], groups)],
                None => self.whole(),
            };
            let Some(groups) = window.as_mut() else {
                let Some(seeds) = self.rules.take(&cut, obs) else {
                    return Ok((Verdict::Refused, self.expected()?));
                };
                break (cut, self.rules.close(seeds), None, Vec::new());
            };
            let at = steps::abstract_step(&cut[0], obs);
            let (stepped, hidden_outs, grouping) = match self.steps.get(&at, &cut[0]) {
                Some(step) => {
                    let after = step.after(&at, &cut[0]);
                    let grouping = Some(step.grouping.clone());
                    (
                        Ok((vec![after], Vec::new())),
                        step.hidden_outs.clone(),
                        grouping,
                    )
                }
                None => {
                    let Some(seeds) = self.rules.take(&cut, obs) else {
                        return Ok((Verdict::Refused, self.expected()?));
                    };
                    let (stepped, hidden_outs) = self.close_window(seeds);
                    let mut grouping = None;
                    if let Ok((after, flags)) = &stepped
                        && let ([one], true) = (after.as_slice(), flags.is_empty())
                    {
                        let found = Rc::new(self.grouping_of(one));
                        let outs = hidden_outs.clone();
                        (self.steps).remember(at, &cut[0], after, outs, found.clone());
                        grouping = Some(found);
                    }
                    (stepped, hidden_outs, grouping)
                }
            };
            let missing = self.missing(&hidden_outs, groups);
            if missing.is_empty() {
                break (cut, stepped, grouping, hidden_outs);
            }
            // A hidden output of the window has takers outside it: again, with them.
            let shape = self.shape(obs);
            // The walks remembered read the predictions: they go.
            self.walks.get_mut().clear();
            *self.recent_walks.get_mut() = Default::default();
            self.predictions += 1;
            let heads = self.predicted.entry(shape).or_default();
            for (head, group) in missing {
                groups.push(group);
                heads.push(head);
            }
            heads.sort();
            heads.dedup();
            groups.sort_unstable();
            groups.dedup();
        };
        let (next, flags) = stepped?;
        let explained = if flags.is_empty() {
            (Verdict::Accepted, Vec::new())
        } else {
            (Verdict::Flagged(flags), self.expected()?)
        };
        // The windows share the bindings with the explanations: let go of them first, so
        // that the explanation is updated in place.
        drop(cut);
        self.hyps = match &window {
            Some(groups) => self.absorb(next, Some(groups), grouping.as_deref()),
            None => self.absorb(next, None, None),
        };
        if let (Some(at), Some(groups), Verdict::Accepted, [split]) =
            (lookup, &window, &explained.0, self.hyps.as_slice())
            && window == cut_from
            && split.active.is_empty()
        {
            let made = (first, counter, self.counter);
            let (rest, bindings) = (&split.rest, &split.bindings);
            (self.quick).remember(*at, groups, rest, bindings, made, outs);
        }
        if self.counter > RENUMBER {
            self.renumber();
        }
        Ok(explained)
    }

    /// What a step of a kind keeps of look-up `at` of `obs` (its step still to fill).
    fn kind_of(&self, at: Option<&quick::Lookup>, obs: &Observation) -> Option<KindStep> {
        let at = at?;
        let (walk, pinned) = self.last_walk.get()?;
        let key = single_key(obs)?;
        let bindings = &self.hyps[0].bindings;
        let bound = at.bound.len();
        let place = at.keys.iter().position(|k| k == key)?;
        let outside = place >= bound && bindings.by_key.contains_key(key);
        Some(KindStep {
            walk,
            shape: self.shape(obs),
            pinned,
            groups_key: at.groups_key().to_vec(),
            place: (place as u32, outside as u32),
            quick: Rc::new(quick::Quick::empty()),
            took: Cell::new(None),
        })
    }

    /// Keeps the last step, when it was taken in place, as the step of the kind of side
    /// `side`; whether there was one.
    pub fn kind_remember(&mut self, side: usize) -> bool {
        self.kinds[side] = self.last_quick.take();
        self.kinds[side].is_some()
    }

    /// Whether the step of the kind of side `side` applies to its observation with `key`:
    /// one explanation, no active component, the window of that observation (found as
    /// `window_of` finds it: the group holding the key's name, and the walk's groups) read
    /// into the same look-up, and every taker of the step's hidden outputs in the window.
    /// Then [`Stepper::kind_apply`] takes it; nothing is changed here.
    pub fn kind_ready(&mut self, side: usize, key: &Key) -> bool {
        let Some(kind) = &self.kinds[side] else {
            return false;
        };
        let [split] = self.hyps.as_slice() else {
            return false;
        };
        if !split.active.is_empty() {
            return false;
        }
        let name = split.bindings.by_key.get(key).copied();
        if name.is_some() != kind.pinned {
            return false;
        }
        let mut window = std::mem::take(self.spare_window.get_mut());
        window.clear();
        let walk = Walk {
            predicted: (!self.predicted.is_empty()).then_some(kind.shape),
            ..kind.walk
        };
        // What the walks found comes sorted, each once: the owner goes in its place.
        self.walked(&split.rest, walk, &mut window);
        if let Some(owner) = name.and_then(|n| split.rest.owner(n))
            && let Err(place) = window.binary_search(&owner)
        {
            window.insert(place, owner);
        }
        let Some(mut at) = self
            .quick
            .lookup_groups(&split.rest, &split.bindings, &window)
        else {
            *self.spare_window.get_mut() = window;
            return false;
        };
        let place = quick::place_of(key, name.is_some(), &mut at);
        let same = place == kind.place && at.groups_key() == kind.groups_key.as_slice();
        let outs = &kind.quick.hidden_outs;
        if !same || (!self.kind_took(kind, walk) && self.any_missing(outs, &window)) {
            self.quick.recycle(at);
            *self.spare_window.get_mut() = window;
            return false;
        }
        self.ready = Some((kind.quick.clone(), at, window));
        true
    }

    /// Takes the step [`Stepper::kind_ready`] found applies.
    pub fn kind_apply(&mut self) {
        let Some((step, at, window)) = self.ready.take() else {
            return;
        };
        let split = &mut self.hyps[0];
        let (rest, bindings) = (unshared(&mut split.rest), unshared(&mut split.bindings));
        step.apply(&at, &window, rest, bindings, &mut self.counter);
        self.quick.recycle(at);
        *self.spare_window.get_mut() = window;
        self.kind_hits += 1;
        if self.counter > RENUMBER {
            self.renumber();
        }
    }

    /// The look-up of a remembered step for `obs` on `window`: with one explanation, no
    /// active component and a window.
    fn quick_lookup(
        &mut self,
        window: Option<&[GroupId]>,
        obs: &Observation,
    ) -> Option<Box<quick::Lookup>> {
        let ([split], Some(groups)) = (self.hyps.as_slice(), window) else {
            return None;
        };
        if !split.active.is_empty() {
            return None;
        }
        (self.quick).lookup(&split.rest, &split.bindings, groups, obs)
    }

    /// Takes the step remembered for `at` on window `groups` in place, when there is one
    /// and every taker of its closure's hidden outputs is in the window; whether it did.
    fn quick_step(&mut self, at: &quick::Lookup, groups: &[GroupId]) -> bool {
        let Some(step) = self.quick.get(at) else {
            return false;
        };
        if self.any_missing(&step.hidden_outs, groups) {
            return false;
        }

        let split = &mut self.hyps[0];
        let (rest, bindings) = (
            Rc::make_mut(&mut split.rest),
            Rc::make_mut(&mut split.bindings),
        );
        step.apply(at, groups, rest, bindings, &mut self.counter);
        self.quick.hits += 1;
        if self.counter > RENUMBER {
            self.renumber();
        }
        true
    }

    /// The visible labels the model would accept next without a flag, sorted and without
    /// repeats (see `agentpi_check::replay::Replay::expected`). With one explanation, from
    /// windows: every visible transition has its actors among the active components and at
    /// most one group with the groups taking its outputs, and what follows it stays among
    /// them and the passive groups. Otherwise from the whole states.
    pub fn expected(&self) -> Result<Vec<String>, ReplayError> {
        let windows = match self.hyps.as_slice() {
            [split] => self.expected_windows(split),
            _ => self.whole(),
        };
        let mut out = Vec::new();
        for hyp in &windows {
            out.extend(self.rules.expected(hyp)?);
        }
        out.sort();
        out.dedup();
        Ok(out)
    }

    /// The active and passive components alone, and with each group and its partners (with
    /// every passive group, a closure needs no other taker of a hidden channel).
    fn expected_windows(&self, split: &Split) -> Vec<Hyp> {
        let sem = self.rules.sem;
        let rest = &split.rest;
        let passive: Vec<GroupId> = rest.passive().collect();
        let with_passive = |mut window: Vec<GroupId>| {
            window.extend(&passive);
            window.sort_unstable();
            window.dedup();
            window
        };
        let groups = rest.ids().into_iter().map(|id| rest.partners(id));
        std::iter::once(Vec::new())
            .chain(groups)
            .map(with_passive)
            .map(|w| window::cut(sem, split, &w))
            .collect()
    }

    /// Each explanation as one window holding everything.
    fn whole(&self) -> Vec<Hyp> {
        let every = |h: &Split| window::cut(self.rules.sem, h, &h.rest.ids());
        self.hyps.iter().map(every).collect()
    }

    /// Closes `seeds` (of a window), with the hidden channels some state of the closure
    /// outputs on (sorted, each once): their takers must be in the window.
    fn close_window(&mut self, seeds: Vec<Hyp>) -> (Closed, Vec<Head>) {
        let Stepper {
            rules, summaries, ..
        } = self;
        let mut outs = Vec::new();
        let mut seen = |state: &State| {
            for proc in state.procs.iter() {
                let summary = summaries.of(rules.sem, &rules.alphabet, proc);
                outs.extend(&summary.hidden_outs);
            }
        };
        let stepped = rules.close_seeing(seeds, &mut seen);
        outs.sort();
        outs.dedup();
        (stepped, outs)
    }

    /// The groups outside the window holding `groups` that take one of `hidden_outs`, with
    /// the channel: then the window was too small, and its closure is not the whole state's.
    fn missing(&self, hidden_outs: &[Head], groups: &[GroupId]) -> Vec<(Head, GroupId)> {
        let rest = &self.hyps[0].rest;
        let mut missing = Vec::new();
        for &head in hidden_outs {
            let outside = rest
                .takers(head)
                .filter(|g| groups.binary_search(g).is_err());
            missing.extend(outside.map(|g| (head, g)));
        }
        missing.sort();
        missing.dedup();
        missing
    }

    /// Whether some group outside the window holding `groups` takes one of `hidden_outs`
    /// ([`Stepper::missing`] is not empty), found without collecting them.
    fn any_missing(&self, hidden_outs: &[Head], groups: &[GroupId]) -> bool {
        let rest = &self.hyps[0].rest;
        let outside = |g: GroupId| groups.binary_search(&g).is_err();
        (hidden_outs.iter()).any(|&head| rest.takers(head).any(outside))
    }

    /// Whether `walk` took every taker of each of `hidden_outs`: the takers of the hidden
    /// channels predicted for its shape are among what it found, and what it found is what
    /// a walk finds now (taken afresh, or remembered at the epoch of now: [`Stepper::walked`]).
    /// Then none of them is outside a window holding that ([`Stepper::any_missing`] is
    /// false), and they are not looked for again.
    fn walk_took(&self, walk: Walk, hidden_outs: &[Head]) -> bool {
        let predicted = walk.predicted.and_then(|shape| self.predicted.get(&shape));
        predicted.is_some_and(|heads| hidden_outs.iter().all(|h| heads.binary_search(h).is_ok()))
    }

    /// [`Stepper::walk_took`] for the walk and step of `kind`, remembered in it.
    fn kind_took(&self, kind: &KindStep, walk: Walk) -> bool {
        if kind.took.get() == Some(self.predictions) {
            return true;
        }
        let took = self.walk_took(walk, &kind.quick.hidden_outs);
        if took {
            kind.took.set(Some(self.predictions));
        }
        took
    }

    /// The groups `obs` can concern, when one explanation is held and `obs` names its head
    /// (with the takers of the hidden channels such an observation needed before); `None`:
    /// the whole state.
    fn window_of(&self, obs: &Observation) -> Option<Vec<GroupId>> {
        let [split] = self.hyps.as_slice() else {
            return None;
        };
        let HeadPat::Named(head) = &obs.head else {
            return None;
        };
        let rest = &split.rest;
        let heads = &self.summaries.heads;
        let bound = |key: &str| split.bindings.by_key.get(key).copied();
        // The buffer of the last window taken in place (a message makes one window).
        let mut groups = std::mem::take(&mut *self.spare_window.borrow_mut());
        groups.clear();
        let mut pinned = false;
        for arg in &obs.args {
            keys(arg, &bound, &mut |name, taken| {
                pinned |= taken;
                groups.extend(rest.owner(name));
            });
        }
        let mut offer = None;
        if !pinned {
            // Only a label holding a name the observation pins can take it, and the groups
            // holding those names are in; otherwise, every group offering such a label.
            // And of those, when the observation names a constructor inside the first value
            // (a ping's kind), only the groups offering a label with it there.
            let (ctor, inner) = match obs.args.first().map(|a| resolve(a, &bound)) {
                Some(Arg::Ctor(name, payload)) => (Some(name), first_ctor(payload, &bound)),
                _ => (None, None),
            };
            offer = offered(heads, head, ctor, inner);
        }
        let walk = Walk {
            taking: heads.word(head),
            offer,
            predicted: (!self.predicted.is_empty()).then(|| self.shape(obs)),
        };
        self.last_walk.set(Some((walk, pinned)));
        self.walked(rest, walk, &mut groups);
        groups.sort_unstable();
        groups.dedup();
        Some(groups)
    }

    /// Adds the groups `walk`'s walks of `rest`'s lists find (sorted, each once): the groups
    /// taking any label of the head, those offering the label, and the takers of the hidden
    /// channels predicted for the observation's shape. Remembered by the walk while `rest`'s
    /// epoch stays (no class was listed or unlisted, no class a walk took gained or lost a group: then every
    /// walk finds what it found), and while `predicted` does (it is emptied when that grows).
    fn walked(&self, rest: &Rest, walk: Walk, groups: &mut Vec<GroupId>) {
        let epoch = rest.epoch();
        let mut recent = self.recent_walks.borrow_mut();
        let same = |r: &RecentWalk| matches!(r, Some((w, e, _)) if *w == walk && *e == epoch);
        if let Some(Some((_, _, found))) = recent.iter().find(|r| same(r)) {
            groups.extend_from_slice(found);
            self.walk_hits.set(self.walk_hits.get() + 1);
            return;
        }
        let mut walks = self.walks.borrow_mut();
        if let Some((at, found)) = walks.get(&walk)
            && *at == epoch
        {
            groups.extend_from_slice(found);
            self.walk_hits.set(self.walk_hits.get() + 1);
            // In the place of the older of the two.
            recent.swap(0, 1);
            recent[0] = Some((walk, epoch, found.clone()));
            return;
        }
        let hidden = walk.predicted.and_then(|shape| self.predicted.get(&shape));
        let hidden = hidden.map_or(&[][..], Vec::as_slice);
        let mut found: Vec<GroupId> = rest.walked(walk.taking, walk.offer, hidden).collect();
        found.sort_unstable();
        found.dedup();
        // Sorted, each once, as a remembered walk adds them.
        groups.extend_from_slice(&found);
        if walks.len() >= WALKS {
            walks.clear();
        }
        recent.swap(0, 1);
        recent[0] = Some((walk, epoch, found.clone()));
        walks.insert(walk, (epoch, found));
    }

    /// An observation's head and first constructor, by number: what the hidden channels its
    /// closure needs are remembered by. A name no summary holds (or none) is [`NO_HEAD`]:
    /// observations that share it share their predictions, which can only widen a window.
    fn shape(&self, obs: &Observation) -> (Head, Head) {
        let heads = &self.summaries.heads;
        let head = match &obs.head {
            HeadPat::Named(n) => heads.word(n),
            HeadPat::Name(_) => None,
        };
        let ctor = match obs.args.first() {
            Some(Arg::Ctor(name, _)) => heads.word(name),
            _ => None,
        };
        (head.unwrap_or(NO_HEAD), ctor.unwrap_or(NO_HEAD))
    }

    /// Puts the explanations of a window back: into the explanation it was cut from, without
    /// the groups it held (`Some`), or as whole explanations (`None`). `grouping`, when
    /// known (a step remembered), is how the one explanation's components fall into groups.
    fn absorb(
        &mut self,
        hyps: Vec<Hyp>,
        groups: Option<&[GroupId]>,
        grouping: Option<&Grouping>,
    ) -> Vec<Split> {
        let window: Vec<u32> = hyps
            .first()
            .map(|h| h.elsewhere.window.to_vec())
            .unwrap_or_default();
        if let (Some(groups), [hyp]) = (groups, hyps.as_slice()) {
            let made;
            let grouping = match grouping {
                Some(found) => found,
                None => {
                    made = self.grouping_of(hyp);
                    &made
                }
            };
            let (procs, names) = window::restore(hyp, &mut self.counter);
            drop(hyps);
            return vec![self.absorb_one(groups, procs, names, &window, grouping)];
        }
        // Each component's summary is found from the window's own component: a renaming
        // does not change it, and the window's components are those the memo keeps (the
        // summaries know them by address), where the restored ones are new copies.
        let (sem, alphabet) = (self.rules.sem, &self.rules.alphabet);
        let restored: Vec<_> = (hyps.iter())
            .map(|h| {
                let (procs, names) = window::restore(h, &mut self.counter);
                let found = h.state.procs.iter();
                let found = found.map(|p| self.summaries.of(sem, alphabet, p));
                (procs.into_iter().zip(found).collect::<Vec<_>>(), names)
            })
            .collect();
        drop(hyps);
        let mut base = match groups {
            Some(groups) => self.without(groups, &window),
            None => Split::default(),
        };
        let count = restored.len();
        let mut out = Vec::with_capacity(count);
        for (i, (procs, names)) in restored.into_iter().enumerate() {
            // The last explanation takes the parent's groups; the others copy them.
            let mut split = match i + 1 == count {
                true => std::mem::take(&mut base),
                false => base.clone(),
            };
            let bindings = Rc::make_mut(&mut split.bindings);
            names.into_iter().for_each(|(k, id)| bindings.bind(k, id));
            let rest = Rc::make_mut(&mut split.rest);
            split::regroup(procs, &mut split.active, rest, &mut self.forms);
            out.push(split);
        }
        out
    }

    /// Puts the one explanation of a window (its components `procs` and bindings `names`,
    /// in stable ids) back into the one explanation it was cut from: the groups the step
    /// left as they were stay, a group of one component that became another with the same
    /// keys (a request's sender that gave out a name and made the next) takes its place,
    /// and the rest are filed afresh.
    fn absorb_one(
        &mut self,
        groups: &[GroupId],
        procs: Vec<Proc>,
        names: Vec<(Key, u32)>,
        window: &[u32],
        grouping: &Grouping,
    ) -> Split {
        let (moved, left) = self.unmoved_out(groups, &procs);
        let mut planned = split::apply(grouping, procs, &left);
        let kept = self.in_place(&moved, &mut planned);
        let gone: Vec<GroupId> = (moved.iter().copied())
            .filter(|g| !kept.iter().any(|(k, _)| k == g))
            .collect();
        let mut split = self.without(&gone, window);
        let bindings = Rc::make_mut(&mut split.bindings);
        names.into_iter().for_each(|(k, id)| bindings.bind(k, id));
        let rest = Rc::make_mut(&mut split.rest);
        for (id, group) in kept {
            let names = names::names_of(&group.procs);
            let form = self.forms.of(&group.procs, &names);
            rest.replace(id, Some(group.procs), names, form);
        }
        split::file(planned, &mut split.active, rest, &mut self.forms);
        split
    }

    /// The groups of `moved` (each of one component) that a new group of one passive
    /// component with the same summary can replace, each with it (taken out of `planned`).
    /// What the group is filed under does not change, so its indices need not either.
    fn in_place(
        &self,
        moved: &[GroupId],
        planned: &mut Vec<split::NewGroup>,
    ) -> Vec<(GroupId, split::NewGroup)> {
        let rest = &self.hyps[0].rest;
        let mut kept = Vec::new();
        for &id in moved {
            let Some(group) = rest.group(id).filter(|g| g.len() == 1) else {
                continue;
            };
            let same = |n: &split::NewGroup| {
                n.passive && n.procs.len() == 1 && Rc::ptr_eq(&n.keys, group.keys())
            };
            if let Some(at) = planned.iter().position(same) {
                kept.push((id, planned.remove(at)));
            }
        }
        kept
    }

    /// The groups of a window (of the one explanation) that its step left as they were,
    /// marked in the second list (by position in `procs`, the window's result in stable ids)
    /// to be left in place; returns the others first. Only a group of one component found unchanged in the result, none of whose
    /// names another component of the result holds: `regroup` would make the same group of
    /// it again (linked to no other component, its summary its component's). Most of a window
    /// is such (the wire, the lifecycle observer, the senders of each kind of request with
    /// the names they hold ready), and a message leaves them as they were.
    fn unmoved_out(&self, groups: &[GroupId], procs: &[Proc]) -> (Vec<GroupId>, Vec<bool>) {
        let rest = &self.hyps[0].rest;
        let mut holders: FxHashMap<u32, usize> = FxHashMap::default();
        let mut held = Vec::new();
        let mut left = vec![false; procs.len()];
        for proc in procs {
            held.clear();
            names::each_name(proc, &mut held);
            held.iter()
                .for_each(|&n| *holders.entry(n).or_default() += 1);
        }
        let mut moved = Vec::with_capacity(groups.len());
        for &id in groups {
            let alone = rest.group(id).and_then(|g| match g.procs() {
                [proc] if g.names().iter().all(|n| holders.get(n) == Some(&1)) => Some(proc),
                _ => None,
            });
            let unmoved = |proc| (0..procs.len()).find(|&i| !left[i] && &procs[i] == proc);
            match alone.and_then(unmoved) {
                Some(at) => left[at] = true,
                None => moved.push(id),
            }
        }
        (moved, left)
    }

    /// How the components of `hyp` (a window's one explanation) fall into groups.
    fn grouping_of(&mut self, hyp: &Hyp) -> Grouping {
        self.groupings += 1;
        let (sem, alphabet) = (self.rules.sem, &self.rules.alphabet);
        let procs = &hyp.state.procs;
        let found: Vec<_> = (procs.iter())
            .map(|p| self.summaries.of(sem, alphabet, p))
            .collect();
        split::grouping(procs, &found)
    }

    /// The one explanation, taken, without its active components, the groups of a window
    /// and the bindings of the window's names.
    fn without(&mut self, groups: &[GroupId], window: &[u32]) -> Split {
        let mut split = self.hyps.pop().unwrap_or_default();
        self.hyps.clear();
        split.active.clear();
        let rest = Rc::make_mut(&mut split.rest);
        groups.iter().for_each(|&g| _ = rest.remove(g));
        let bindings = Rc::make_mut(&mut split.bindings);
        window.iter().for_each(|&id| bindings.unbind(id));
        split
    }

    /// Numbers every explanation's names afresh from 0.
    fn renumber(&mut self) {
        self.kinds = [None, None];
        let mut whole = self.whole();
        whole.iter_mut().for_each(|h| h.track.clear());
        self.counter = 0;
        self.hyps = self.absorb(whole, None, None);
    }
}

/// The label an observation offers (its head, first constructor and the constructor at a
/// place inside it) by number; `None` when a name no summary holds is among them: it is in
/// no group's keys, so no group offers a label with it.
fn offered(
    heads: &Heads,
    head: &Word,
    ctor: Option<&Word>,
    inner: Option<(usize, &Word)>,
) -> Option<Offer> {
    let ctor = match ctor {
        Some(c) => Some(heads.word(c)?),
        None => None,
    };
    let inner = match inner {
        Some((at, i)) => Some((at, heads.word(i)?)),
        None => None,
    };
    Some((heads.word(head)?, ctor, inner))
}

/// Follows `IfBound` to the pattern that applies in the explanation.
fn resolve<'a>(arg: &'a Arg, bound: &dyn Fn(&str) -> Option<u32>) -> &'a Arg {
    match arg {
        Arg::IfBound(key, yes, no) => match bound(key) {
            Some(_) => resolve(yes, bound),
            None => resolve(no, bound),
        },
        _ => arg,
    }
}

/// The first position of `payload` whose pattern is a constructor, and its name.
fn first_ctor<'a>(
    payload: &'a [Arg],
    bound: &dyn Fn(&str) -> Option<u32>,
) -> Option<(usize, &'a Word)> {
    let at = |(i, arg): (usize, &'a Arg)| match resolve(arg, bound) {
        Arg::Ctor(name, _) => Some((i, name)),
        _ => None,
    };
    payload.iter().enumerate().find_map(at)
}

/// Calls `f` with each name bound to a key of `arg`, and whether the label must hold it (a
/// bound key that applies: any label taking the observation holds its name).
/// (Generic, not `dyn`: a message walks its observation's few arguments once, and the calls
/// through two vtables per argument cost more than the look-ups they make.)
fn keys<B, F>(arg: &Arg, bound: &B, f: &mut F)
where
    B: Fn(&str) -> Option<u32>,
    F: FnMut(u32, bool),
{
    match arg {
        Arg::Name(key) => bound(key).into_iter().for_each(|n| f(n, true)),
        Arg::IfBound(key, yes, no) => {
            let name = bound(key);
            name.into_iter().for_each(|n| f(n, false));
            let applies = if name.is_some() { yes } else { no };
            keys(applies, bound, f);
        }
        Arg::Ctor(_, args) | Arg::Tuple(args) => args.iter().for_each(|a| keys(a, bound, f)),
        Arg::Any | Arg::Int(_) | Arg::Bool(_) | Arg::Chan(_) => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use agentpi_check::replay::{Replay, parse_observation};

    /// The legacy model's system `Monitor` as the monitor sees it (as `model.rs` loads it;
    /// loaded here so that the stepper's tests use no other module of the crate).
    fn legacy() -> (&'static Semantics<'static>, usize, Alphabet) {
        let text = include_str!("../../../../models/mcp/legacy.pi");
        let loaded = agentpi_ir::load_str("mcp/legacy.pi", text);
        assert!(!loaded.has_errors());
        let program = Box::leak(Box::new(loaded.program));
        let system = program.system("Monitor").unwrap();
        let alphabet = Alphabet::new(program, &["c2s", "s2c", "decl"], &["violation"]).unwrap();
        (
            Box::leak(Box::new(Semantics::new(program))),
            system,
            alphabet,
        )
    }

    /// Steps `labels` through the stepper and the reference: the same verdicts, expected
    /// labels and bindings of `keys` after each; returns the stepper.
    fn same_steps(labels: &[&str], keys: &[&str], renumber_at: Option<u32>) -> Box<Stepper> {
        let (sem, system, alphabet) = legacy();
        let options = Options {
            maximal: true,
            max_states: 200_000,
        };
        let mut fast = Box::new(Stepper::new(sem, system, alphabet.clone(), options).unwrap());
        let (mut reference, _) = Replay::new(sem, system, alphabet, options).unwrap();
        if let Some(at) = renumber_at {
            fast.counter = at;
        }
        for text in labels {
            let obs = parse_observation(sem.program, text).unwrap();
            let want = reference.step_explained(&obs);
            assert_eq!(fast.step_explained(&obs), want, "{text}");
            assert_eq!(fast.expected(), reference.expected(), "{text}");
            for key in keys {
                assert_eq!(fast.is_bound(key), reference.is_bound(key), "{text}: {key}");
            }
        }
        fast
    }

    /// A progress for a token no key names may be either of two requests' unnamed tokens:
    /// two explanations, each stepped whole, as the reference does.
    #[test]
    fn more_than_one_explanation_is_followed_whole() {
        let labels = [
            "c2s(req(a, initialize, _))",
            "s2c(res(a, true))",
            "c2s(note(initialized))",
            "c2s(req(b, ping, _))",
            "c2s(req(c, ping, _))",
            "s2c(prog(x))",
            "s2c(prog(x))",
            "s2c(res(b, true))",
            "s2c(prog(x))",
            "s2c(res(c, true))",
            "s2c(prog(x))",
        ];
        let fast = same_steps(&labels, &["b", "c", "x"], None);
        assert!(fast.hyps.len() <= 1, "one explanation is left at the end");
    }

    #[test]
    fn buffered_channels_are_left_to_the_reference() {
        let (sem, _, _) = legacy();
        assert!(Stepper::supports(sem));
        let text = "chan c : Bool buffer 2\nproc P = c!true . 0\nsystem S = P\n";
        let loaded = agentpi_ir::load_str("b.pi", text);
        assert!(!loaded.has_errors(), "{:?}", loaded.diagnostics);
        assert!(!Stepper::supports(&Semantics::new(&loaded.program)));
    }

    #[test]
    fn two_explanations_arise() {
        let labels = [
            "c2s(req(a, initialize, _))",
            "s2c(res(a, true))",
            "c2s(note(initialized))",
            "c2s(req(b, ping, _))",
            "c2s(req(c, ping, _))",
            "s2c(prog(x))",
        ];
        let fast = same_steps(&labels, &["b", "c", "x"], None);
        assert_eq!(fast.hyps.len(), 2);
    }

    /// A session's start, then 16 pings, each answered `lag` pings later (the last `lag`
    /// left unanswered).
    fn pings(lag: usize) -> Vec<String> {
        let mut labels: Vec<String> = ["c2s(req(a, initialize, _))", "s2c(res(a, true))"]
            .map(String::from)
            .into();
        labels.push("c2s(note(initialized))".into());
        for i in 0..16 {
            labels.push(format!("c2s(req(p{i}, ping, _))"));
            if i >= lag {
                labels.push(format!("s2c(res(p{}, true))", i - lag));
            }
        }
        labels
    }

    /// Pings and their answers, each with keys of its own, are stepped by a few remembered
    /// steps (a window of one shape, whatever its keys), with the reference's verdicts,
    /// expected labels and bindings.
    #[test]
    fn repeated_steps_are_remembered() {
        let mut labels = pings(3);
        labels.push("s2c(res(p2, true))".into());
        let labels: Vec<&str> = labels.iter().map(String::as_str).collect();
        let fast = same_steps(&labels, &["p0", "p3", "p15"], None);
        assert_eq!(fast.steps.len(), 9, "steps remembered");
        // A ping's sender, which gives out a name and makes the next, keeps its group: a
        // ping makes one group (its request's), not two.
        let made = fast.hyps[0].rest.next_id();
        assert_eq!(made, 68, "groups made");
        // With requests in flight their class stays listed, and no walk takes it: the walks
        // of a ping's window, and of an answer's, are found again.
        assert_eq!(
            fast.walk_hits.get(),
            26,
            "windows whose walks were remembered"
        );
    }

    /// A remembered step keeps how its result falls into groups: of 16 pings and their
    /// answers (each a window of the one explanation), only the steps found afresh link
    /// their result's components; the others take their remembered step's grouping.
    #[test]
    fn remembered_steps_keep_their_grouping() {
        let labels = pings(0);
        let labels: Vec<&str> = labels.iter().map(String::as_str).collect();
        let fast = same_steps(&labels, &["p0", "p15"], None);
        assert_eq!(fast.groupings, 9, "results grouped by linking");
        assert_eq!(fast.steps.len(), 9, "steps remembered");
    }

    /// Once a window's step is known, the same step on groups of the same forms is taken in
    /// place (`quick.rs`), with the reference's verdicts, expected labels and bindings: of 16
    /// pings each answered at once, all but the first few are.
    #[test]
    fn known_steps_are_taken_in_place() {
        let labels = pings(0);
        let labels: Vec<&str> = labels.iter().map(String::as_str).collect();
        let fast = same_steps(&labels, &["p0", "p7", "p15"], None);
        assert_eq!(fast.quick.hits, 26, "steps taken in place");
    }

    /// A walk remembered is taken again only while what it walked is as it was: a progress
    /// for an unnamed token walks the requests that may offer it, and the next request of
    /// that kind joins them (the same class, no list changed), so the next such progress
    /// must find it (with the reference's verdict: taken by the new request's token).
    #[test]
    fn a_walk_is_not_taken_again_past_a_change_of_what_it_walked() {
        let labels = [
            "c2s(req(a, initialize, _))",
            "s2c(res(a, true))",
            "c2s(note(initialized))",
            "c2s(req(b, ping, _))",
            "c2s(req(c, ping, t))",
            "s2c(prog(x))",
            "c2s(req(d, ping, _))",
            "s2c(prog(y))",
            "s2c(prog(y))",
        ];
        let fast = same_steps(&labels, &["b", "c", "d", "t", "x", "y"], None);
        assert_eq!(fast.hyps.len(), 1, "one explanation throughout");
    }

    /// Names numbered afresh mid-session (past `RENUMBER` stable ids) change no verdict, no
    /// expected label and no binding.
    #[test]
    fn renumbering_names_changes_nothing() {
        let labels = [
            "c2s(req(a, initialize, _))",
            "s2c(res(a, true))",
            "c2s(note(initialized))",
            "c2s(req(b, ping, _))",
            "c2s(req(c, ping, t))",
            "s2c(prog(t))",
            "s2c(res(c, true))",
            "c2s(cancel(b))",
            "s2c(res(b, true))",
            "s2c(stray_res)",
        ];
        let fast = same_steps(&labels, &["a", "b", "c", "t"], Some(RENUMBER - 3));
        assert!(fast.counter < RENUMBER, "the names were numbered afresh");
    }
}
