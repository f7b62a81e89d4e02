//! The replay's rules on one (window) state, those of `agentpi_check::replay::explain`
//! (the same code): the transitions that take an observation, then the closure over hidden
//! and flag steps that keeps the explanations with the fewest flags, and what the model
//! would have accepted instead. Each explanation also carries where its names came from
//! (`track`), so that a window's result can be put back among the components it was cut
//! from.

use super::split::Bindings;
use agentpi_check::replay::explain::{self, Explanation, Steps, dedup, match_observation};
use agentpi_check::replay::memo::{Memo, SMALL_STATE};
use agentpi_check::replay::{Alphabet, Class, Flag, Key, Observation, Options, ReplayError};
use agentpi_semantics::{DEAD, Label, Semantics, State, Transition};
use std::cell::RefCell;
use std::hash::{Hash, Hasher};
use std::rc::Rc;
use std::sync::Arc;

/// The id a key bound outside the window stands for: no window name has it.
const OUTSIDE: u32 = u32::MAX;

/// One explanation of a window: its state and the keys bound to its names (sorted by key).
#[derive(Clone, Debug)]
pub struct Hyp {
    pub state: State,
    pub names: Vec<(Key, u32)>,
    /// (stable id, id in `state`) of each name the window held when it was cut.
    pub track: Vec<(u32, u32)>,
    /// The explanation's bindings and the window's names: a key bound to a name outside
    /// the window is bound, but to no name here.
    pub elsewhere: Rc<Outside>,
    /// The hash of `state` and `names`, computed once: a closure looks each explanation up
    /// several times.
    hash: u64,
    /// The hash of `state` alone (the keys of `names` differ from request to request).
    state_hash: u64,
}

/// What a window needs to know of the bindings outside it.
#[derive(Debug, Default)]
pub struct Outside {
    pub bindings: Rc<Bindings>,
    /// The stable ids of the names the window held when it was cut, sorted.
    pub window: Vec<u32>,
}

/// Explanations are told apart as the reference tells them: by state and bindings. Where
/// their names came from does not tell them apart (the names of a window are its own), nor
/// do the keys bound outside it (the same for every explanation of one window).
impl PartialEq for Hyp {
    fn eq(&self, other: &Hyp) -> bool {
        self.hash == other.hash && self.state == other.state && self.names == other.names
    }
}

impl Eq for Hyp {}

impl Hash for Hyp {
    fn hash<H: Hasher>(&self, h: &mut H) {
        h.write_u64(self.hash);
    }
}

impl Hyp {
    pub fn new(
        state: State,
        names: Vec<(Key, u32)>,
        track: Vec<(u32, u32)>,
        elsewhere: Rc<Outside>,
    ) -> Hyp {
        let mut hasher = rustc_hash::FxHasher::default();
        state.hash(&mut hasher);
        let state_hash = hasher.finish();
        Hyp::hashed(state, state_hash, names, track, elsewhere)
    }

    /// [`Hyp::new`], with the hash of `state` known.
    pub fn hashed(
        state: State,
        state_hash: u64,
        names: Vec<(Key, u32)>,
        track: Vec<(u32, u32)>,
        elsewhere: Rc<Outside>,
    ) -> Hyp {
        let mut hasher = rustc_hash::FxHasher::default();
        hasher.write_u64(state_hash);
        names.hash(&mut hasher);
        Hyp {
            state,
            names,
            track,
            elsewhere,
            hash: hasher.finish(),
            state_hash,
        }
    }

    /// The hash of its state.
    pub fn state_hash(&self) -> u64 {
        self.state_hash
    }

    pub fn bound_elsewhere(&self, key: &str) -> bool {
        let outside = &self.elsewhere;
        let id = outside.bindings.by_key.get(key);
        id.is_some_and(|id| outside.window.binary_search(id).is_err())
    }
}

/// The rules, with the memo of transitions they share across messages (and with the other
/// sessions of their model: [`crate::model::Model::start`]).
pub struct Rules {
    pub sem: &'static Semantics<'static>,
    pub alphabet: Alphabet,
    pub options: Options,
    memo: Rc<RefCell<Memo>>,
}

impl Rules {
    pub fn new(
        sem: &'static Semantics<'static>,
        alphabet: Alphabet,
        options: Options,
        memo: Rc<RefCell<Memo>>,
    ) -> Rules {
        Rules {
            sem,
            alphabet,
            options,
            memo,
        }
    }

    pub fn class(&self, label: &Label) -> Class {
        self.alphabet.class(self.sem, label)
    }

    /// The explanations right after `obs` (before the closure), or `None` when no state can
    /// take it.
    pub fn take(&self, hyps: &[Hyp], obs: &Observation) -> Option<Vec<Hyp>> {
        let mut seeds = Vec::new();
        for hyp in hyps {
            let takes = |l: &Label| {
                self.class(l) == Class::Visible
                    && match_observation(self.sem, obs, l, hyp).is_some()
            };
            let found: Arc<[Transition]> = if hyp.state.procs.len() <= SMALL_STATE {
                self.remembered(&hyp.state, true)
            } else {
                self.sem.successors_where(&hyp.state, &takes).into()
            };
            for t in found.iter().filter(|t| t.fault.is_none()) {
                if let Some(new) = match_observation(self.sem, obs, &t.label, hyp) {
                    seeds.push(hyp.advance(&new, t));
                }
            }
        }
        if seeds.is_empty() {
            return None;
        }
        dedup(&mut seeds);
        Some(seeds)
    }

    /// The visible labels `hyp` would accept next without a flag, printed with bound names
    /// shown by their keys (in transition order, with repeats).
    pub fn expected(&self, hyp: &Hyp) -> Result<Vec<String>, ReplayError> {
        let found: Arc<[Transition]> = if hyp.state.procs.len() <= SMALL_STATE {
            self.remembered(&hyp.state, true)
        } else {
            let visible = |l: &Label| self.class(l) == Class::Visible;
            self.sem.successors_where(&hyp.state, &visible).into()
        };
        let free = self.flag_free(hyp, &found)?;
        let taken = found.iter().zip(free.iter());
        Ok(taken
            .filter(|(t, free)| t.fault.is_none() && **free)
            .map(|(t, _)| self.render(&t.label, hyp))
            .collect())
    }

    /// For each of `found` (the visible transitions of `hyp`'s state), whether the closure
    /// after it raises no flag: a matter of the state alone (bindings only say how labels
    /// print), so remembered per small state, as its transitions are.
    fn flag_free(&self, hyp: &Hyp, found: &[Transition]) -> Result<Arc<[bool]>, ReplayError> {
        let small = hyp.state.procs.len() <= SMALL_STATE;
        if let Some(known) = self.memo.borrow().free(&hyp.state).filter(|_| small) {
            return Ok(known);
        }
        let mut free = Vec::with_capacity(found.len());
        for t in found {
            let clean = t.fault.is_none() && self.close(vec![hyp.advance(&[], t)])?.1.is_empty();
            free.push(clean);
        }
        let free: Arc<[bool]> = free.into();
        if small {
            let mut memo = self.memo.borrow_mut();
            memo.remember_free(&hyp.state, free.clone());
        }
        Ok(free)
    }

    fn remembered(&self, state: &State, visible: bool) -> Arc<[Transition]> {
        let wanted = |l: &Label| (self.class(l) == Class::Visible) == visible;
        let compute = || self.sem.successors_where(state, &wanted);
        Memo::transitions(&self.memo, state, visible, compute)
    }

    /// Closes `seeds` over hidden and flag steps, fewest flags first (a 0-1 breadth-first
    /// search). Returns the explanations with the fewest flags and those flags.
    pub fn close(&self, seeds: Vec<Hyp>) -> Result<(Vec<Hyp>, Vec<Flag>), ReplayError> {
        self.close_seeing(seeds, &mut |_| {})
    }

    /// [`Rules::close`], showing `seen` every state it settles.
    pub fn close_seeing(
        &self,
        seeds: Vec<Hyp>,
        seen: &mut dyn FnMut(&State),
    ) -> Result<(Vec<Hyp>, Vec<Flag>), ReplayError> {
        explain::close(self, seeds, seen)
    }

    fn render(&self, label: &Label, hyp: &Hyp) -> String {
        explain::render(self.sem, label, hyp)
    }
}

impl Steps for Rules {
    fn semantics(&self) -> &Semantics<'_> {
        self.sem
    }

    fn options(&self) -> &Options {
        &self.options
    }

    fn class(&self, label: &Label) -> Class {
        Rules::class(self, label)
    }

    fn hidden(&self, state: &State) -> Arc<[Transition]> {
        self.remembered(state, false)
    }
}

/// Every binding (and every tracked name) follows `t` into the target's numbering; those of
/// vanished names are dropped.
impl Explanation for Hyp {
    fn state(&self) -> &State {
        &self.state
    }

    fn names(&self) -> &[(Key, u32)] {
        &self.names
    }

    /// A key bound to a name outside the window is bound, to no name a window label holds.
    fn bound(&self, key: &str) -> Option<u32> {
        let at = self.names.binary_search_by(|(k, _)| (**k).cmp(key));
        at.ok()
            .map(|i| self.names[i].1)
            .or_else(|| self.bound_elsewhere(key).then_some(OUTSIDE))
    }

    fn advance(&self, new: &[(Key, u32)], t: &Transition) -> Hyp {
        let to = |id: u32| t.renaming.get(id as usize).copied().unwrap_or(DEAD);
        let mut names: Vec<(Key, u32)> = self
            .names
            .iter()
            .chain(new)
            .map(|(k, id)| (k, to(*id)))
            .filter(|&(_, id)| id != DEAD)
            .map(|(k, id)| (k.clone(), id))
            .collect();
        names.sort();
        let track = self
            .track
            .iter()
            .filter_map(|&(stable, id)| (to(id) != DEAD).then_some((stable, to(id))))
            .collect();
        Hyp::new(t.target.clone(), names, track, self.elsewhere.clone())
    }
}
