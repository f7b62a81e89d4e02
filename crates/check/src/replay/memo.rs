//! The transitions of recently seen states, remembered by state for the replay and the
//! monitor's stepper: a session's states recur (a sequential one's always do), so a message
//! costs a look-up instead of a step of the semantics. What it hands out is shared by `Arc`:
//! a memo, and what it gave, may move to another thread.

use agentpi_semantics::{State, Transition};
use rustc_hash::FxHashMap;
use std::cell::RefCell;
use std::sync::Arc;

/// States of at most this many components have all their visible transitions built and
/// remembered; larger ones only those that take the message in hand.
pub const SMALL_STATE: usize = 64;

/// How much a memo holds before it starts over (about 4,096 small states' worth).
const MEMO_WEIGHT: usize = 1 << 16;

/// The bound of a memo that many replays of one model share (the monitor's sessions): what
/// one session's memo held, four times over, for all of them.
pub const SHARED_WEIGHT: usize = 1 << 18;

/// Per state, its hidden and flagged transitions, and per small state its visible ones and
/// which of those raise no flag after them. What it holds is a function of the state alone
/// (for one model and alphabet), so replays of one model may share one: it changes what a
/// step costs, never what it finds.
pub struct Memo {
    hidden: FxHashMap<State, Arc<[Transition]>>,
    visible: FxHashMap<State, Arc<[Transition]>>,
    free: FxHashMap<State, Arc<[bool]>>,
    /// The memo's size: per state, (transitions + 1) x (components + 1).
    weight: usize,
    /// The size past which it starts over.
    bound: usize,
}

impl Default for Memo {
    fn default() -> Memo {
        Memo::with_bound(MEMO_WEIGHT)
    }
}

impl Memo {
    /// An empty memo that starts over past `bound` (see [`SHARED_WEIGHT`]).
    pub fn with_bound(bound: usize) -> Memo {
        Memo {
            hidden: FxHashMap::default(),
            visible: FxHashMap::default(),
            free: FxHashMap::default(),
            weight: 0,
            bound,
        }
    }

    /// The transitions of `state` (`visible` ones, or the hidden and flagged ones), from the
    /// memo or else from `compute`, then remembered.
    pub fn transitions(
        memo: &RefCell<Memo>,
        state: &State,
        visible: bool,
        compute: impl FnOnce() -> Vec<Transition>,
    ) -> Arc<[Transition]> {
        if let Some(found) = memo.borrow().table(visible).get(state) {
            return found.clone();
        }
        let found: Arc<[Transition]> = compute().into();
        // Weighed by size, not counted: states with thousands of components are as many
        // times as large, and a count alone let the memo grow to gigabytes.
        let weight = (found.len() + 1) * (state.procs.len() + 1);
        let mut memo = memo.borrow_mut();
        memo.add_weight(weight);
        memo.table_mut(visible).insert(state.clone(), found.clone());
        found
    }

    /// Which of the visible transitions of small state `state` raise no flag, if known.
    pub fn free(&self, state: &State) -> Option<Arc<[bool]>> {
        self.free.get(state).cloned()
    }

    /// Remembers which of the visible transitions of small state `state` raise no flag.
    pub fn remember_free(&mut self, state: &State, free: Arc<[bool]>) {
        self.add_weight(free.len() + 1);
        self.free.insert(state.clone(), free);
    }

    /// Counts `weight` more, starting over first when it would pass the bound.
    fn add_weight(&mut self, weight: usize) {
        if self.weight + weight > self.bound {
            self.hidden.clear();
            self.visible.clear();
            self.free.clear();
            self.weight = 0;
        }
        self.weight += weight;
    }

    fn table(&self, visible: bool) -> &FxHashMap<State, Arc<[Transition]>> {
        if visible { &self.visible } else { &self.hidden }
    }

    fn table_mut(&mut self, visible: bool) -> &mut FxHashMap<State, Arc<[Transition]>> {
        if visible {
            &mut self.visible
        } else {
            &mut self.hidden
        }
    }
}

#[cfg(test)]
mod tests {
    /// A memo can move to another thread with what it holds (a bridge side's monitor may
    /// step on its wire's reader thread).
    #[test]
    fn a_memo_is_send() {
        fn send<T: Send>() {}
        send::<super::Memo>();
    }
}
