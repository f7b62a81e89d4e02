//! The level-synchronous breadth-first search of one worker.
//!
//! Level by level, each worker expands the states it owns in key order (see
//! [`crate::expand::Event`]) and sends each successor to its owner (by fingerprint), with
//! its key: the source's key and the transition's index. An owner keeps each new state with
//! the least key it was sent with, and numbers its new states in key order: the key order
//! is the order in which the single-process engine numbers them, so the least key names the
//! same parent as the single-process engine chooses. Then every worker sends every other a
//! summary (its first findings, counts), from which all decide alike whether to stop, and
//! where: after the source that decided the last open check, or before one that met a bound
//! of the semantics (the single-process engine's points), counting only what lies before.

use crate::codec::{In, Out};
use crate::expand::{Event, Level, needed, place};
use crate::net::Net;
use agentpi_check::parts::Visited;
use agentpi_check::{End, Goals, Limit};
use agentpi_semantics::{Semantics, State};
use rustc_hash::FxHashMap;
use std::cmp::Ordering;
use timely::worker::Worker;

/// The place of the initial state's parent: none.
pub const ROOT: u64 = u64::MAX;

/// One worker's part of the search.
pub struct Part {
    pub visited: Visited,
    /// The place of each state's parent, by number.
    pub parents: Vec<u64>,
}

/// How the search ended, as every worker knows it.
pub struct Ended {
    pub end: End,
    /// The first finding of each slot (see [`crate::expand::needed`]).
    pub firsts: Vec<Option<Event>>,
    /// The source that met a bound of the semantics, when that ended it.
    pub limit: Option<Event>,
    pub states: usize,
    pub transitions: usize,
    pub expanded: usize,
    pub depth: usize,
    /// The bytes every worker's store holds.
    pub bytes: u64,
}

/// Where a level is cut: after the source with this key (every check decided), or before
/// it (a bound of the semantics).
#[derive(Clone)]
enum Cut {
    After(Vec<u32>),
    Before(Vec<u32>),
}

impl Cut {
    fn keeps(&self, key: &[u32]) -> bool {
        match self {
            Cut::After(k) => key <= &k[..],
            Cut::Before(k) => key < &k[..],
        }
    }
}

/// A worker's summary of a level, sent to every worker.
struct Summary {
    firsts: Vec<Option<Event>>,
    limit: Option<Event>,
    expanded: u64,
    transitions: u64,
    new: u64,
    over: bool,
    bytes: u64,
}

pub struct Search<'a, 's> {
    pub sem: &'s Semantics<'s>,
    pub goals: &'a Goals<'s>,
    pub max_memory: Option<u64>,
}

impl Search<'_, '_> {
    /// Explores from `initial`; every worker returns the same [`Ended`].
    pub fn run(&self, worker: &mut Worker, net: &mut Net, initial: &State) -> (Ended, Part) {
        let mut part = Part {
            visited: Visited::default(),
            parents: Vec::new(),
        };
        let mut frontier: Vec<(Vec<u32>, u32)> = Vec::new();
        if initial.fingerprint() % net.peers as u64 == net.index as u64 {
            let (n, _) = part.visited.insert(initial);
            part.parents.push(ROOT);
            frontier.push((Vec::new(), n));
        }
        let slots = needed(self.goals);
        let everything = !slots.iter().any(|&n| n);
        let mut ended = Ended {
            end: End::Complete,
            firsts: vec![None; slots.len()],
            limit: None,
            states: 1,
            transitions: 0,
            expanded: 0,
            depth: 0,
            bytes: 0,
        };
        loop {
            let mut level = Level::new(self.sem, self.goals, net.peers);
            let mut counted = Vec::with_capacity(frontier.len());
            for (key, n) in &frontier {
                let state = part.visited.state(*n);
                let e = level.expand(&state, key, place(net.index, *n));
                counted.push(if e.limit { None } else { Some(e.transitions) });
            }
            let received = net.round(worker, level.messages());
            let next = self.merge(&mut part, received);
            let summary = Summary {
                firsts: level.firsts,
                limit: level.limit,
                expanded: frontier.len() as u64,
                transitions: counted.iter().flatten().sum::<usize>() as u64,
                new: next.len() as u64,
                over: self.over(&part),
                bytes: part.visited.bytes() + 8 * part.parents.len() as u64,
            };
            let all = net.round(worker, net.to_all(&encode(&summary)));
            let all: Vec<Summary> = all.iter().map(|b| decode(b)).collect();
            ended.bytes = all.iter().map(|s| s.bytes).sum();
            let (firsts, limit) = merged(&all, slots.len());
            let cut = cut_of(&ended.firsts, &firsts, limit.as_ref(), &slots, everything);
            for (slot, first) in firsts.into_iter().enumerate() {
                let kept = first.filter(|e| cut.as_ref().is_none_or(|c| c.keeps(&e.key)));
                if ended.firsts[slot].is_none() {
                    ended.firsts[slot] = kept;
                }
            }
            if let Some(cut) = cut {
                let local = counts_within(&cut, &frontier, &counted, &next);
                let all = net.round(worker, net.to_all(&local));
                let [expanded, transitions, new] = summed(&all);
                ended.expanded += expanded;
                ended.transitions += transitions;
                ended.states += new;
                ended.end = match cut {
                    Cut::After(_) => End::Decided,
                    Cut::Before(_) => {
                        ended.limit = limit;
                        End::Limit(Limit::Cancelled)
                    }
                };
                return (ended, part);
            }
            ended.expanded += all.iter().map(|s| s.expanded as usize).sum::<usize>();
            ended.transitions += all.iter().map(|s| s.transitions as usize).sum::<usize>();
            let new: usize = all.iter().map(|s| s.new as usize).sum();
            ended.states += new;
            if all.iter().any(|s| s.over) {
                let max = self.max_memory.expect("only a bound makes a worker full");
                ended.end = End::Limit(Limit::Memory(max));
                return (ended, part);
            }
            if new == 0 {
                return (ended, part);
            }
            ended.depth += 1;
            frontier = next;
        }
    }

    /// Stores the new states among the successors received, each with the least key it came
    /// with, numbered in key order: the next frontier.
    fn merge(&self, part: &mut Part, received: Vec<Vec<u8>>) -> Vec<(Vec<u32>, u32)> {
        let mut best: FxHashMap<State, (Vec<u32>, u64)> = FxHashMap::default();
        // Each batch read, kept or dropped state by state, and let go: a level's
        // successors are never all decoded at once.
        for bytes in received {
            let mut r = In::new(&bytes);
            while !r.is_empty() {
                let read = (|| Ok::<_, &str>((r.words()?, r.u64()?, r.state()?)))();
                let (key, parent, state) = read.unwrap_or_else(|why| malformed(why));
                keep_least(part, &mut best, (key, parent, state));
            }
        }
        let mut new: Vec<(State, (Vec<u32>, u64))> = best.into_iter().collect();
        new.sort_by(|a, b| a.1.0.cmp(&b.1.0));
        new.into_iter()
            .map(|(state, (key, parent))| {
                let (n, _) = part.visited.insert(&state);
                part.parents.push(parent);
                (key, n)
            })
            .collect()
    }

    /// Whether this worker's part passed `--max-memory` (each process has its own).
    fn over(&self, part: &Part) -> bool {
        let bytes = part.visited.bytes() + 8 * part.parents.len() as u64;
        self.max_memory.is_some_and(|m| bytes > m)
    }
}

/// Keeps a successor received if it is not stored, with the least key it came with.
fn keep_least(
    part: &Part,
    best: &mut FxHashMap<State, (Vec<u32>, u64)>,
    (key, parent, state): (Vec<u32>, u64, State),
) {
    if part.visited.find(&state).is_some() {
        return;
    }
    match best.get_mut(&state) {
        Some(b) if b.0 <= key => {}
        Some(b) => *b = (key, parent),
        None => {
            best.insert(state, (key, parent));
        }
    }
}

/// The first of each slot and the first bound over every worker's summary.
fn merged(all: &[Summary], slots: usize) -> (Vec<Option<Event>>, Option<Event>) {
    let mut firsts: Vec<Option<Event>> = vec![None; slots];
    let mut limit: Option<Event> = None;
    for s in all {
        for (f, e) in firsts.iter_mut().zip(&s.firsts) {
            *f = least(f.take(), e.clone());
        }
        limit = least(limit, s.limit.clone());
    }
    (firsts, limit)
}

fn least(a: Option<Event>, b: Option<Event>) -> Option<Event> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// Where this level stops, if it does: after the source that met the last open goal, or
/// before the first source that met a bound of the semantics, whichever comes first.
fn cut_of(
    before: &[Option<Event>],
    level: &[Option<Event>],
    limit: Option<&Event>,
    needed: &[bool],
    everything: bool,
) -> Option<Cut> {
    let met = |s: usize| before[s].is_some() || level[s].is_some();
    let decided = !everything && (0..needed.len()).all(|s| !needed[s] || met(s));
    let last = (0..needed.len())
        .filter(|&s| needed[s] && before[s].is_none())
        .filter_map(|s| level[s].as_ref().map(|e| e.key.clone()))
        .max();
    let after = decided.then_some(last).flatten();
    match (after, limit) {
        (Some(a), Some(l)) => match a.cmp(&l.key) {
            Ordering::Less => Some(Cut::After(a)),
            _ => Some(Cut::Before(l.key.clone())),
        },
        (Some(a), None) => Some(Cut::After(a)),
        (None, Some(l)) => Some(Cut::Before(l.key.clone())),
        (None, None) => None,
    }
}

/// This worker's sources merged before the cut (how many, their transitions) and the new
/// states whose first source is.
fn counts_within(
    cut: &Cut,
    frontier: &[(Vec<u32>, u32)],
    counted: &[Option<usize>],
    next: &[(Vec<u32>, u32)],
) -> Vec<u8> {
    let mut expanded = 0u64;
    let mut transitions = 0u64;
    for ((key, _), c) in frontier.iter().zip(counted) {
        if cut.keeps(key)
            && let Some(t) = c
        {
            expanded += 1;
            transitions += *t as u64;
        }
    }
    let source = |key: &[u32]| key[..key.len() - 1].to_vec();
    let new = next.iter().filter(|(k, _)| cut.keeps(&source(k))).count() as u64;
    let mut out = Out::default();
    [expanded, transitions, new]
        .iter()
        .for_each(|&w| out.u64(w));
    out.0
}

fn summed(all: &[Vec<u8>]) -> [usize; 3] {
    let mut sum = [0usize; 3];
    for bytes in all {
        let mut r = In::new(bytes);
        for s in &mut sum {
            *s += r.u64().unwrap_or_else(|why| malformed(why)) as usize;
        }
    }
    sum
}

fn encode(s: &Summary) -> Vec<u8> {
    let mut out = Out::default();
    out.u32(s.firsts.len() as u32);
    s.firsts.iter().for_each(|e| event(&mut out, e.as_ref()));
    event(&mut out, s.limit.as_ref());
    [s.expanded, s.transitions, s.new, u64::from(s.over), s.bytes]
        .iter()
        .for_each(|&w| out.u64(w));
    out.0
}

fn event(out: &mut Out, e: Option<&Event>) {
    match e {
        None => out.u32(0),
        Some(e) => {
            out.u32(1);
            out.words(&e.key);
            out.u32(e.pos);
            out.u64(e.place);
        }
    }
}

fn decode(bytes: &[u8]) -> Summary {
    let mut r = In::new(bytes);
    let mut read = || -> Result<Summary, &'static str> {
        let n = r.u32()?;
        let firsts = (0..n)
            .map(|_| read_event(&mut r))
            .collect::<Result<_, _>>()?;
        let limit = read_event(&mut r)?;
        let [expanded, transitions, new, over, bytes] =
            [r.u64()?, r.u64()?, r.u64()?, r.u64()?, r.u64()?];
        Ok(Summary {
            firsts,
            limit,
            expanded,
            transitions,
            new,
            over: over != 0,
            bytes,
        })
    };
    read().unwrap_or_else(|why| malformed(why))
}

fn read_event(r: &mut In<'_>) -> Result<Option<Event>, &'static str> {
    Ok(match r.u32()? {
        0 => None,
        _ => Some(Event {
            key: r.words()?,
            pos: r.u32()?,
            place: r.u64()?,
        }),
    })
}

/// A message this build cannot read: another version of agentpi on a process of the
/// cluster. The worker stops; the others see it gone.
pub fn malformed(why: &str) -> ! {
    panic!(
        "a malformed message from another process of the cluster ({why}): is every process the same agentpi?"
    )
}
