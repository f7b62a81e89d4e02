//! Expanding one frontier state: what it tells the checks (findings, each at its place in
//! breadth-first order) and its successors, kept for this worker or batched for their owners.

use crate::codec::{Out, owner};
use agentpi_check::{Cached, Goals};
use agentpi_semantics::{Label, Semantics, State};
use rustc_hash::{FxHashMap, FxHashSet};

/// A successor's key: its source's rank in its level (see [`crate::ranks`]) and the
/// transition's index among the source's. Keys order a level's new states as the
/// single-process engine numbers them (by parent's number, then transition).
pub type Key = (u64, u32);

/// Where a finding is in the single-process engine's order: its source's rank in its level,
/// its position in the source (the transition's index for a fault, the edge's for a label
/// goal, 0 for a state), and the source's place (see [`place`]).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Event {
    pub rank: u64,
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
    /// The successors this worker owns, with their transitions' indices: never encoded.
    pub local: Vec<(u32, State)>,
}

/// One worker's expander, for a whole search (its caches kept from level to level).
pub struct Expander<'a, 's> {
    pub sem: &'s Semantics<'s>,
    pub goals: &'a Goals<'s>,
    pub peers: usize,
    pub me: usize,
    /// The first finding of each slot among this level's sources of this worker, and the
    /// first of them that met a bound of the semantics.
    pub firsts: Vec<Option<Event>>,
    pub limit: Option<Event>,
    /// The single-process engine's successors (moves cached per component).
    cached: Cached<'s, 's>,
    /// Successors for their owners, one batch for each worker, sent in chunks.
    batches: Vec<Out>,
    held: usize,
    /// A successor's encoding, before it is known whose it is.
    scratch: Out,
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

impl<'a, 's> Expander<'a, 's> {
    pub fn new(sem: &'s Semantics<'s>, goals: &'a Goals<'s>, peers: usize, me: usize) -> Self {
        let slots = needed(goals).len();
        Expander {
            sem,
            goals,
            peers,
            me,
            firsts: vec![None; slots],
            limit: None,
            cached: Cached::new(sem),
            batches: (0..peers).map(|_| Out::default()).collect(),
            held: 0,
            scratch: Out::default(),
            labels: FxHashMap::default(),
            texts: FxHashMap::default(),
        }
    }

    /// Forgets the findings of the level before.
    pub fn begin_level(&mut self) {
        self.firsts.iter_mut().for_each(|f| *f = None);
        self.limit = None;
    }

    /// Expands `state`, the source at `place` with rank `rank` in its level.
    pub fn expand(&mut self, state: &State, rank: u64, place: u64) -> Expanded {
        let ts = self.cached.successors_where(state, &|_| true);
        let at = |pos: u32| Event { rank, pos, place };
        if ts
            .iter()
            .any(|t| t.fault.as_ref().is_some_and(|f| f.kind.is_limit()))
        {
            self.limit.get_or_insert_with(|| at(0));
            return Expanded {
                transitions: 0,
                limit: true,
                local: Vec::new(),
            };
        }
        let (mut moves, mut faults) = (false, false);
        let mut edges: Vec<(&Label, &State, &[agentpi_semantics::Actor])> = Vec::new();
        let mut printed: FxHashSet<(u32, Hashed<'_>)> = FxHashSet::default();
        let mut sent: FxHashSet<Hashed<'_>> = FxHashSet::default();
        let mut local = Vec::new();
        for (pos, t) in ts.iter().enumerate() {
            if t.fault.is_some() {
                faults = true;
                self.firsts[FAULT].get_or_insert_with(|| at(pos as u32));
                continue;
            }
            moves = true;
            let target = Hashed::new(&t.target);
            let edge = (&t.label, &t.target, &t.actors[..]);
            if !edges.contains(&edge) {
                edges.push(edge);
                let index = edges.len() as u32 - 1;
                self.learn(&t.label);
                let seen = &self.labels[&t.label];
                for &k in &seen.goals {
                    self.firsts[2 + k].get_or_insert_with(|| at(index));
                }
                printed.insert((seen.printed, target));
            }
            if sent.insert(target) && !self.send(&t.target, (rank, pos as u32), place) {
                local.push(pos);
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
        let transitions = printed.len();
        Expanded {
            transitions,
            limit: false,
            local: keep(ts, &local),
        }
    }

    /// Batches `target` for its owner, with its key and parent; false when this worker owns
    /// it (then nothing is encoded past what says whose it is).
    fn send(&mut self, target: &State, (rank, index): Key, parent: u64) -> bool {
        if self.peers == 1 {
            return false;
        }
        self.scratch.0.clear();
        self.scratch.state(target);
        let to = owner(&self.scratch.0, self.peers);
        if to == self.me {
            return false;
        }
        let batch = &mut self.batches[to];
        let before = batch.0.len();
        batch.u64(rank);
        batch.u32(index);
        batch.u64(parent);
        batch.0.extend_from_slice(&self.scratch.0);
        self.held += batch.0.len() - before;
        true
    }

    /// The bytes batched and not yet sent.
    pub fn held(&self) -> usize {
        self.held
    }

    /// The batches of successors, each for its owner (emptied).
    pub fn messages(&mut self) -> Vec<(u32, Vec<u8>)> {
        self.held = 0;
        let batches = self.batches.iter_mut().enumerate();
        let full = batches.filter(|(_, b)| !b.0.is_empty());
        full.map(|(w, b)| (w as u32, std::mem::take(&mut b.0)))
            .collect()
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

/// A target with its hash, worked out once: the sets of one source's targets (distinct
/// targets, distinct printed edges) look each up, and hashing a whole state twice was a
/// tenth of a worker's instructions.
#[derive(Clone, Copy)]
struct Hashed<'a> {
    hash: u64,
    state: &'a State,
}

impl<'a> Hashed<'a> {
    fn new(state: &'a State) -> Self {
        use std::hash::BuildHasher;
        Hashed {
            hash: rustc_hash::FxBuildHasher.hash_one(state),
            state,
        }
    }
}

impl PartialEq for Hashed<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.hash == other.hash && self.state == other.state
    }
}

impl Eq for Hashed<'_> {}

impl std::hash::Hash for Hashed<'_> {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        h.write_u64(self.hash);
    }
}

/// The targets of the transitions at `positions` (increasing), moved out.
fn keep(ts: Vec<agentpi_semantics::Transition>, positions: &[usize]) -> Vec<(u32, State)> {
    let mut wanted = positions.iter().peekable();
    let mut out = Vec::with_capacity(positions.len());
    for (pos, t) in ts.into_iter().enumerate() {
        if wanted.next_if_eq(&&pos).is_some() {
            out.push((pos as u32, t.target));
        }
    }
    out
}
