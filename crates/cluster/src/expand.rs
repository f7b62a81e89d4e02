//! Expanding one frontier state: what it tells the checks (findings, each at its place in
//! breadth-first order) and the successors to send to their owners.

use crate::codec::Out;
use crate::net::Msg;
use agentpi_check::Goals;
use agentpi_semantics::{Label, Semantics, State};
use rustc_hash::{FxHashMap, FxHashSet};

/// Where a finding is in the single-process engine's order: its source's key (the indices
/// of the transitions that first reach it from the initial state, compared as words: the
/// order in which breadth first numbers states), its position in the source (the
/// transition's index for a fault, the edge's for a label goal, 0 for a state), and the
/// source's place (see [`place`]).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Event {
    pub key: Vec<u32>,
    pub pos: u32,
    pub place: u64,
}

/// A state's place: the worker that owns it and its number there.
pub fn place(worker: usize, local: u32) -> u64 {
    ((worker as u64) << 32) | u64::from(local)
}

/// The finding slots: a deadlock, the first fault, then each label goal, then each state
/// goal (see [`Goals`]).
pub const DEADLOCK: usize = 0;
pub const FAULT: usize = 1;

/// The slots of `goals`, and which of them must be met for every check to be decided.
pub fn needed(goals: &Goals<'_>) -> Vec<bool> {
    let mut needed = vec![goals.deadlock, goals.fault];
    needed.extend(goals.labels.iter().map(|_| true));
    needed.extend(goals.states.iter().map(|_| true));
    needed
}

/// What expanding one source gave.
pub struct Expanded {
    /// Distinct (printed label, target) pairs: the transitions the report counts.
    pub transitions: usize,
    /// Set when a transition met a bound of the semantics: the source is not merged.
    pub limit: bool,
}

/// One worker's expansion of its part of a level.
pub struct Level<'a, 's> {
    pub sem: &'s Semantics<'s>,
    pub goals: &'a Goals<'s>,
    pub peers: usize,
    /// The first finding of each slot among this worker's sources, and the first source
    /// that met a bound of the semantics.
    pub firsts: Vec<Option<Event>>,
    pub limit: Option<Event>,
    /// Successors for their owners, one batch for each worker (a message each per level:
    /// timely's cost is per message).
    batches: Vec<Out>,
    /// What each label seen so far is, worked out once (as the single-process engine does).
    labels: FxHashMap<Label, Seen>,
    /// The number of each printed label text.
    texts: FxHashMap<String, u32>,
}

/// What a label is to the search: the number of its printed text (transitions are counted
/// per printed label and target) and the label goals it meets.
struct Seen {
    printed: u32,
    goals: Vec<usize>,
}

impl<'a, 's> Level<'a, 's> {
    pub fn new(sem: &'s Semantics<'s>, goals: &'a Goals<'s>, peers: usize) -> Self {
        let slots = needed(goals).len();
        Level {
            sem,
            goals,
            peers,
            firsts: vec![None; slots],
            limit: None,
            batches: (0..peers).map(|_| Out::default()).collect(),
            labels: FxHashMap::default(),
            texts: FxHashMap::default(),
        }
    }

    /// Expands `state`, the source at `place` with key `key`.
    pub fn expand(&mut self, state: &State, key: &[u32], place: u64) -> Expanded {
        let ts = self.sem.successors(state);
        let at = |pos: u32| Event {
            key: key.to_vec(),
            pos,
            place,
        };
        if ts
            .iter()
            .any(|t| t.fault.as_ref().is_some_and(|f| f.kind.is_limit()))
        {
            self.limit.get_or_insert_with(|| at(0));
            return Expanded {
                transitions: 0,
                limit: true,
            };
        }
        let (mut moves, mut faults) = (false, false);
        let mut edges: Vec<(&Label, &State, &[agentpi_semantics::Actor])> = Vec::new();
        let mut printed: FxHashSet<(u32, &State)> = FxHashSet::default();
        let mut sent: FxHashSet<&State> = FxHashSet::default();
        for (pos, t) in ts.iter().enumerate() {
            if t.fault.is_some() {
                faults = true;
                self.firsts[FAULT].get_or_insert_with(|| at(pos as u32));
                continue;
            }
            moves = true;
            let edge = (&t.label, &t.target, &t.actors[..]);
            if !edges.contains(&edge) {
                edges.push(edge);
                let index = edges.len() as u32 - 1;
                self.learn(&t.label);
                let seen = &self.labels[&t.label];
                for &k in &seen.goals {
                    self.firsts[2 + k].get_or_insert_with(|| at(index));
                }
                printed.insert((seen.printed, &t.target));
            }
            if sent.insert(&t.target) {
                let owner = t.target.fingerprint() % self.peers as u64;
                let m = &mut self.batches[owner as usize];
                m.key(key, pos as u32);
                m.u64(place);
                m.state(&t.target);
            }
        }
        if !moves && !faults && self.goals.deadlock && !self.sem.is_valid_end(state) {
            self.firsts[DEADLOCK].get_or_insert_with(|| at(0));
        }
        let first_state = 2 + self.goals.labels.len();
        for (k, goal) in self.goals.states.iter().enumerate() {
            if self.firsts[first_state + k].is_none() && goal(state) {
                self.firsts[first_state + k] = Some(at(0));
            }
        }
        Expanded {
            transitions: printed.len(),
            limit: false,
        }
    }

    /// The batches of successors, each for its owner.
    pub fn messages(&mut self) -> Vec<Msg> {
        let batches = std::mem::take(&mut self.batches).into_iter().enumerate();
        let full = batches.filter(|(_, b)| !b.0.is_empty());
        full.map(|(w, b)| (w as u32, b.0)).collect()
    }

    /// Works out what `label` is (see [`Seen`]) the first time it is met.
    fn learn(&mut self, label: &Label) {
        if !self.labels.contains_key(label) {
            let next = self.texts.len() as u32;
            let text = self.sem.label_text(label);
            let printed = *self.texts.entry(text).or_insert(next);
            let goals = (self.goals.labels.iter().enumerate())
                .filter(|(_, g)| g(label))
                .map(|(k, _)| k)
                .collect();
            self.labels.insert(label.clone(), Seen { printed, goals });
        }
    }
}
