//! The level-synchronous breadth-first search of one worker.
//!
//! Level by level, each worker expands the states it owns in rank order (their numbers in
//! the single-process engine's order, see [`crate::ranks`]) and sends each successor to its
//! owner (by fingerprint) with its key: the source's rank and the transition's index. The
//! successors go in chunks as they are made, and an owner stores each as it comes, keeping
//! for each new state the least key it came with: the key order is the order in which the
//! single-process engine numbers a level, so the least key names the same parent as the
//! single-process engine chooses. Then the new states are ranked, and every worker sends
//! every other a summary (its first findings, counts), from which all decide alike whether
//! to stop, and where: after the source that decided the last open check, or before one that
//! met a bound of the semantics (the single-process engine's points), counting only what
//! lies before.

use crate::codec::{In, Out, malformed, owner};
use crate::expand::{Event, Expander, Key, needed, place};
use crate::net::Net;
use crate::ranks::Ranker;
use agentpi_check::parts::Visited;
use agentpi_check::{End, Goals, Limit};
use agentpi_semantics::{Semantics, State};
use timely::worker::Worker;

/// The place of the initial state's parent: none.
pub const ROOT: u64 = u64::MAX;

/// How many sources a worker expands between two looks at what arrived (each look ends a
/// chunk, with or without successors: see [`crate::net`]).
const POLL: usize = 64;

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

/// Where a level is cut: after the source of this rank (every check decided), or before it
/// (a bound: of the semantics, `Limit::Cancelled` until its fault is known, or
/// `--max-states`).
#[derive(Clone)]
enum Cut {
    After(u64),
    Before(u64, Limit),
}

impl Cut {
    fn keeps(&self, rank: u64) -> bool {
        match *self {
            Cut::After(k) => rank <= k,
            Cut::Before(k, _) => rank < k,
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
    /// The worker, and how many new states it ranks (see [`Ranker`]).
    from: u64,
    ranked: u64,
    over: bool,
    bytes: u64,
}

/// One worker's expansion of its part of a level.
struct Level {
    /// The transitions each source counts (`None`: it met a bound of the semantics).
    counted: Vec<Option<usize>>,
    /// This worker's new states: their least keys and numbers.
    new: Vec<(Key, u32)>,
    /// The most bytes of successors this worker held at once, sent or received.
    in_flight: u64,
}

pub struct Search<'a, 's> {
    pub sem: &'s Semantics<'s>,
    pub goals: &'a Goals<'s>,
    pub max_memory: Option<u64>,
    pub max_states: Option<usize>,
    /// The bytes of successors a worker batches for others before it ships them.
    pub chunk: usize,
}

impl Search<'_, '_> {
    /// Explores from `initial`; every worker returns the same [`Ended`].
    pub fn run(&self, worker: &mut Worker, net: &mut Net, initial: &State) -> (Ended, Part) {
        let mut part = Part {
            visited: Visited::default(),
            parents: Vec::new(),
        };
        let mut expander = Expander::new(self.sem, self.goals, net.peers, net.index);
        let mut frontier: Vec<(u64, u32)> = Vec::new();
        if owner_of(initial, net.peers) == net.index {
            let (n, _) = part.visited.insert(initial);
            part.parents.push(ROOT);
            frontier.push((0, n));
        }
        // How many states the level being expanded has, over every worker.
        let mut sources = 1u64;
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
            let level = self.level(worker, net, &mut expander, &mut part, &frontier);
            let ranker = Ranker::gather(worker, net, &level.new, sources);
            let held = 16 * level.new.len() + 12 * frontier.len() + 24 * ranker.len() as usize;
            let summary = Summary {
                firsts: expander.firsts.clone(),
                limit: expander.limit.clone(),
                expanded: frontier.len() as u64,
                transitions: level.counted.iter().flatten().sum::<usize>() as u64,
                new: level.new.len() as u64,
                from: net.index as u64,
                ranked: ranker.len(),
                over: self.over(&part, held as u64 + level.in_flight),
                bytes: part.visited.bytes() + 8 * part.parents.len() as u64,
            };
            crate::stats::level(
                net,
                ended.depth,
                summary.bytes,
                held as u64,
                level.in_flight,
            );
            let all = net.round(worker, net.to_all(&encode(&summary)));
            let all: Vec<Summary> = all.iter().map(|b| decode(b)).collect();
            ended.bytes = all.iter().map(|s| s.bytes).sum();
            let (firsts, limit) = merged(&all, slots.len());
            let new: u64 = all.iter().map(|s| s.new).sum();
            let bound = self.states_bound(worker, net, &all, &ranker, ended.states as u64 + new);
            let bound = bound.map(|rank| (rank, self.max_states.unwrap_or_default()));
            let cut = cut_of(
                &ended.firsts,
                &firsts,
                limit.as_ref(),
                bound,
                &slots,
                everything,
            );
            for (slot, first) in firsts.into_iter().enumerate() {
                let kept = first.filter(|e| cut.as_ref().is_none_or(|c| c.keeps(e.rank)));
                if ended.firsts[slot].is_none() {
                    ended.firsts[slot] = kept;
                }
            }
            if let Some(cut) = cut {
                let local = counts_within(&cut, &frontier, &level);
                let all = net.round(worker, net.to_all(&local));
                let [expanded, transitions, new] = summed(&all);
                ended.expanded += expanded;
                ended.transitions += transitions;
                ended.states += new;
                ended.end = match cut {
                    Cut::After(_) => End::Decided,
                    Cut::Before(_, Limit::Cancelled) => {
                        ended.limit = limit;
                        End::Limit(Limit::Cancelled)
                    }
                    Cut::Before(_, bound) => End::Limit(bound),
                };
                return (ended, part);
            }
            ended.expanded += all.iter().map(|s| s.expanded as usize).sum::<usize>();
            ended.transitions += all.iter().map(|s| s.transitions as usize).sum::<usize>();
            ended.states += new as usize;
            if all.iter().any(|s| s.over) {
                let max = self.max_memory.expect("only a bound makes a worker full");
                ended.end = End::Limit(Limit::Memory(max));
                return (ended, part);
            }
            if new == 0 {
                return (ended, part);
            }
            let first = first_rank(&all, net.index as u64);
            drop(level);
            frontier = ranker.ranks(worker, net, first);
            sources = new;
            ended.depth += 1;
        }
    }

    /// Expands this worker's sources of a level (`frontier`, by rank), sending the
    /// successors in chunks as they are made and storing those that come here as they come.
    fn level(
        &self,
        worker: &mut Worker,
        net: &mut Net,
        expander: &mut Expander<'_, '_>,
        part: &mut Part,
        frontier: &[(u64, u32)],
    ) -> Level {
        expander.begin_level();
        let mut arrivals = Arrivals {
            start: part.visited.len() as u32,
            part,
            keys: Vec::new(),
        };
        let mut counted = Vec::with_capacity(frontier.len());
        let mut in_flight = 0;
        for (i, &(rank, n)) in frontier.iter().enumerate() {
            let state = arrivals.part.visited.state(n);
            let at = place(net.index, n);
            let e = expander.expand(&state, rank, at);
            counted.push(if e.limit { None } else { Some(e.transitions) });
            for (index, target) in e.local {
                arrivals.take((rank, index), at, &target);
            }
            let full = expander.held() >= self.chunk;
            if full || (i + 1) % POLL == 0 {
                in_flight = in_flight.max(expander.held() as u64);
                let out = match full {
                    true => expander.messages(),
                    false => Vec::new(),
                };
                net.next(worker, out, &mut |bytes| arrivals.take_bytes(&bytes));
            }
        }
        in_flight = in_flight.max(expander.held() as u64);
        for (to, bytes) in expander.messages() {
            net.send(to, bytes);
        }
        net.end(worker, &mut |bytes| arrivals.take_bytes(&bytes));
        let new = arrivals.keys.iter().enumerate();
        let start = arrivals.start;
        Level {
            counted,
            new: new.map(|(i, &k)| (k, start + i as u32)).collect(),
            in_flight: in_flight + net.most(),
        }
    }

    /// With `--max-states`, when the level's new states (`states` with those before) pass
    /// it: the rank of the source of the first state past it, where the single-process
    /// engine stops (before that source, whose new states it would not take). Its ranker
    /// tells every worker.
    fn states_bound(
        &self,
        worker: &mut Worker,
        net: &mut Net,
        all: &[Summary],
        ranker: &Ranker,
        states: u64,
    ) -> Option<u64> {
        let max = self.max_states? as u64;
        if states <= max {
            return None;
        }
        let new: u64 = all.iter().map(|s| s.new).sum();
        // The rank in this level of the first state past the bound (the first new one when
        // those before pass it already, as with a bound of 0).
        let past = max.saturating_sub(states - new);
        let first = first_rank(all, net.index as u64);
        let mine = (first..first + ranker.len()).contains(&past);
        let out = match mine {
            true => {
                let mut out = Out::default();
                out.u64(ranker.source_of(past - first));
                net.to_all(&out.0)
            }
            false => Vec::new(),
        };
        let told = net.round(worker, out);
        let bytes = told
            .first()
            .unwrap_or_else(|| malformed("no bound's source"));
        Some(In::new(bytes).u64().unwrap_or_else(|why| malformed(why)))
    }

    /// Whether this worker passed `--max-memory` (each process has its own): its part of
    /// the store and parent links, and what it held for the level (keys, successors in
    /// flight).
    fn over(&self, part: &Part, held: u64) -> bool {
        let bytes = part.visited.bytes() + 8 * part.parents.len() as u64 + held;
        self.max_memory.is_some_and(|m| bytes > m)
    }
}

/// The worker that owns `state` among `peers` (see [`owner`]).
pub fn owner_of(state: &State, peers: usize) -> usize {
    if peers == 1 {
        return 0;
    }
    let mut out = Out::default();
    out.state(state);
    owner(&out.0, peers)
}

/// A level's new states as they come: each stored at once (not held decoded until the
/// level ends), with the least key it came with.
struct Arrivals<'p> {
    part: &'p mut Part,
    /// The number of the level's first new state, and each new state's least key so far.
    start: u32,
    keys: Vec<Key>,
}

impl Arrivals<'_> {
    /// A successor with its key and its source's place.
    fn take(&mut self, key: Key, parent: u64, state: &State) {
        let (n, new) = self.part.visited.insert(state);
        if new {
            self.part.parents.push(parent);
            self.keys.push(key);
        } else if n >= self.start {
            let i = (n - self.start) as usize;
            if key < self.keys[i] {
                self.keys[i] = key;
                self.part.parents[n as usize] = parent;
            }
        }
    }

    /// A batch of successors from another worker.
    fn take_bytes(&mut self, bytes: &[u8]) {
        let mut r = In::new(bytes);
        while !r.is_empty() {
            let read = (|| Ok::<_, &str>(((r.u64()?, r.u32()?), r.u64()?, r.state()?)))();
            let (key, parent, state) = read.unwrap_or_else(|why| malformed(why));
            self.take(key, parent, &state);
        }
    }
}

/// The rank of the first state that worker `me` ranks: how many the workers before it rank.
fn first_rank(all: &[Summary], me: u64) -> u64 {
    let before = all.iter().filter(|s| s.from < me);
    before.map(|s| s.ranked).sum()
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
/// before the first source that met a bound of the semantics, or before the one whose new
/// states pass `--max-states` (`bound`: its rank, and the bound), whichever comes first (at
/// one source: the semantics' bound, then `--max-states`, then the goals, as the
/// single-process engine looks at a source).
fn cut_of(
    before: &[Option<Event>],
    level: &[Option<Event>],
    limit: Option<&Event>,
    bound: Option<(u64, usize)>,
    needed: &[bool],
    everything: bool,
) -> Option<Cut> {
    let met = |s: usize| before[s].is_some() || level[s].is_some();
    let decided = !everything && (0..needed.len()).all(|s| !needed[s] || met(s));
    let last = (0..needed.len())
        .filter(|&s| needed[s] && before[s].is_none())
        .filter_map(|s| level[s].as_ref().map(|e| e.rank))
        .max();
    let after = decided.then_some(last).flatten();
    // Candidates by (rank, which comes first at one source).
    let candidates = [
        limit.map(|l| (l.rank, 0, Cut::Before(l.rank, Limit::Cancelled))),
        bound.map(|(r, max)| (r, 1, Cut::Before(r, Limit::States(max)))),
        after.map(|a| (a, 2, Cut::After(a))),
    ];
    let first = candidates
        .into_iter()
        .flatten()
        .min_by_key(|(r, k, _)| (*r, *k));
    first.map(|(_, _, cut)| cut)
}

/// This worker's sources merged before the cut (how many, their transitions) and the new
/// states whose first source is.
fn counts_within(cut: &Cut, frontier: &[(u64, u32)], level: &Level) -> Vec<u8> {
    let mut expanded = 0u64;
    let mut transitions = 0u64;
    for ((rank, _), c) in frontier.iter().zip(&level.counted) {
        if cut.keeps(*rank)
            && let Some(t) = c
        {
            expanded += 1;
            transitions += *t as u64;
        }
    }
    let new = level
        .new
        .iter()
        .filter(|((source, _), _)| cut.keeps(*source));
    let new = new.count() as u64;
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
    let words = [s.expanded, s.transitions, s.new, s.from, s.ranked];
    words.iter().for_each(|&w| out.u64(w));
    [u64::from(s.over), s.bytes]
        .iter()
        .for_each(|&w| out.u64(w));
    out.0
}

fn event(out: &mut Out, e: Option<&Event>) {
    match e {
        None => out.u32(0),
        Some(e) => {
            out.u32(1);
            out.u64(e.rank);
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
        let [expanded, transitions, new, from, ranked] =
            [r.u64()?, r.u64()?, r.u64()?, r.u64()?, r.u64()?];
        let [over, bytes] = [r.u64()?, r.u64()?];
        Ok(Summary {
            firsts,
            limit,
            expanded,
            transitions,
            new,
            from,
            ranked,
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
            rank: r.u64()?,
            pos: r.u32()?,
            place: r.u64()?,
        }),
    })
}
