//! Breadth-first exploration of a system's state space into a [`Graph`].
//!
//! The frontier is taken in chunks: the successors of a chunk are computed in parallel and
//! merged in frontier order as they come ([`pipeline`]), so state numbers, edges and
//! everything printed from them are the same whatever the thread count. Breadth-first order
//! makes the parent links give shortest paths.
//!
//! Exploration stops at the first of: the whole state space seen; every property decided (see
//! [`Goals`]); a resource bound reached, checked at every state, so a bound of N states stores
//! exactly N.

mod ahead;
mod dfs;
mod gate;
mod pipeline;
use pipeline::Workers;

use crate::engine::{Actors, Assembled, Buffers, Engine, Expansion, FastSucc, Miss, Target};
use crate::graph::{Edge, End, FaultEdge, Graph, Limit};
use crate::store::{Join, Key, Levels, Store, Writer};
use crate::symmetry::Symmetry;
use agentpi_semantics::{Actor, Fault, Label, Semantics, State, Transition};
use rustc_hash::{FxHashMap, FxHashSet};
use std::mem::take;

/// Resource bounds and parallelism of one exploration.
#[derive(Clone, Debug, Default)]
pub struct Options {
    pub max_states: Option<usize>,
    /// An estimate of the bytes the store may hold.
    pub max_memory: Option<u64>,
    /// Threads computing successors, the one merging them included; 0 means one per core.
    pub threads: usize,
    /// Keep each edge's renaming of fresh names (`leads to` follows bound channels with it).
    pub keep_renamings: bool,
    /// Keep no edges: every check is decided while exploring (see [`crate::graph`]).
    pub drop_edges: bool,
    /// Symmetry reduction (see [`crate::symmetry`]): the same properties as partial-order
    /// reduction; `check_system` turns it off for others.
    pub symmetry: bool,
    /// Partial-order reduction (see [`crate::por`]): only for deadlocks, assertions,
    /// `never` and `reachable`, whose verdicts it keeps; `check_system` turns it off for
    /// other properties.
    pub por: bool,
    /// Depth first, on one thread (see `explore/dfs.rs`): counterexamples are real paths
    /// but not always shortest. Only for the checks decided while exploring, with
    /// `drop_edges` and without reductions (otherwise exploration is breadth first).
    pub depth_first: bool,
    /// Set from another thread to stop exploring: polled where the bounds are, so the run
    /// ends as at a bound ([`Limit::Cancelled`]), its undecided verdicts `unknown`.
    pub cancel: Option<std::sync::Arc<std::sync::atomic::AtomicBool>>,
}

/// A label to watch for: true for a label that decides a property.
pub type LabelGoal<'a> = Box<dyn Fn(&Label) -> bool + Sync + 'a>;

/// A state to watch for: true for a state that decides a property.
pub type StateGoal<'a> = Box<dyn Fn(&State) -> bool + Sync + 'a>;

/// What exploration watches for, so that it can stop as soon as every property has its
/// verdict: a deadlock, a fault, or a transition whose label matches. With `whole` set (some
/// property needs the whole state space) or nothing to watch, it explores everything.
#[derive(Default)]
pub struct Goals<'a> {
    pub deadlock: bool,
    pub fault: bool,
    pub labels: Vec<LabelGoal<'a>>,
    /// Checked on every state as it is expanded (state predicates).
    pub states: Vec<StateGoal<'a>>,
    pub whole: bool,
}

impl Goals<'_> {
    fn everything(&self) -> bool {
        self.whole
            || (!self.deadlock && !self.fault && self.labels.is_empty() && self.states.is_empty())
    }
}

/// Counters a progress reporter may read while exploration runs.
#[derive(Debug, Default)]
pub struct Progress {
    pub states: std::sync::atomic::AtomicUsize,
    pub transitions: std::sync::atomic::AtomicUsize,
    pub depth: std::sync::atomic::AtomicUsize,
}

/// How many frontier states have their successors computed at once: enough to keep every
/// thread busy, few enough that the successors of one chunk take little memory.
const CHUNK: usize = 4096;
/// At most how many times the merge fills the cache for one state before it takes the
/// reference path (see [`Run::merge_missing`]).
const MISSING_ROUNDS: usize = 4;

/// Explores from `initial`.
pub fn explore(
    sem: &Semantics<'_>,
    initial: State,
    options: &Options,
    goals: &Goals<'_>,
    progress: &Progress,
) -> Graph {
    explore_named(sem, (initial, &[]), options, goals, progress)
}

/// Explores from `initial`, whose instances are named `instances` (as
/// `Semantics::initial_with_instances` names them: symmetry reduction finds its classes
/// there).
pub fn explore_named(
    sem: &Semantics<'_>,
    (initial, instances): (State, &[String]),
    options: &Options,
    goals: &Goals<'_>,
    progress: &Progress,
) -> Graph {
    let mut run = Run::new(sem, options, goals);
    // Depth first keeps no edges and uses no reduction (see `check_system`); asked for more,
    // exploration is breadth first.
    if options.depth_first && options.drop_edges && !options.por && !options.symmetry {
        return depth_first(run, initial, progress);
    }
    let pool = match Workers::new(options.threads) {
        Ok((pool, note)) => {
            run.graph.threads_note = note;
            pool
        }
        Err(e) => {
            run.graph.end = run.stop(Limit::Threads(e));
            return run.finish(progress);
        }
    };
    let key = run.graph.store.intern(&initial);
    run.graph.store.insert(&key);
    if options.symmetry {
        let interner = run.graph.store.interner_mut();
        run.graph.symmetry = Symmetry::of(sem.program, instances, interner, &key.ids);
    }
    let mut engine = Engine::new(sem, options.por);
    engine.prepare(&mut run.graph.store, 0);
    hold_labels_to_goals(&mut engine, goals);
    let (mut next, mut level_end) = (0usize, 1usize);
    // Kept from chunk to chunk, so that their room is reused (see `Buffers`).
    let free = pipeline::Free::default();
    while next < run.graph.state_count() {
        let chunk_end = (next + run.chunk()).min(level_end);
        if let Some(end) = run.chunk_of(&pool, &mut engine, next..chunk_end, &free) {
            run.graph.end = end;
            return run.finish(progress);
        }
        next = chunk_end;
        if next == level_end && next < run.graph.state_count() {
            level_end = run.graph.state_count();
            run.graph.max_depth += 1;
        }
        record(progress, &run.graph);
    }
    run.finish(progress)
}

/// Explores depth first, on this thread (see `explore/dfs.rs`).
fn depth_first(mut run: Run<'_, '_, '_>, initial: State, progress: &Progress) -> Graph {
    let key = run.graph.store.intern(&initial);
    run.graph.store.insert(&key);
    let mut engine = Engine::new(run.sem, run.options.por);
    engine.prepare(&mut run.graph.store, 0);
    hold_labels_to_goals(&mut engine, run.goals);
    if let Some(end) = run.depth_first(&mut engine, progress) {
        run.graph.end = end;
    }
    run.finish(progress)
}

/// What a worker made of one frontier state.
enum Expanded {
    /// By the engine's fast path: the transitions, the ids of new targets, and the stubborn
    /// set to expand by (partial-order reduction), if any.
    Fast(Vec<FastSucc>, Vec<u32>, Option<Vec<u32>>),
    /// By the reference semantics, with what the engine's cache was missing: the state holds
    /// fresh names (see [`Run::merge_missing`]).
    Slow(Keyed, Vec<Miss>),
    /// Not expanded: what the engine's cache was missing (the merge fills it and expands
    /// the state then, see [`Run::merge_missing`]).
    Missing(Vec<Miss>),
}

fn expand(
    sem: &Semantics<'_>,
    engine: &Engine<'_, '_>,
    store: &Store,
    s: u32,
    buffers: Buffers,
) -> Expanded {
    match engine.expand(store, s, buffers) {
        Expansion::Fast(succ, arena, reduced) => Expanded::Fast(succ, arena, reduced),
        Expansion::Slow(misses) if !misses.is_empty() => Expanded::Missing(misses),
        Expansion::Slow(misses) => {
            Expanded::Slow(keyed(store, sem.successors(&store.state(s))), misses)
        }
    }
}

/// One exploration in progress.
struct Run<'g, 's, 'p> {
    sem: &'s Semantics<'p>,
    /// The graph's number of each of the engine's labels (`u32::MAX`: not seen yet).
    engine_labels: Vec<u32>,
    /// The graph's number of each set of actors of the fast path.
    engine_actors: crate::engine::ActorNumbers,
    options: &'g Options,
    goals: &'g Goals<'g>,
    graph: Graph,
    names: Names,
    /// Which label goals have been met.
    met: Vec<bool>,
    fault_found: bool,
    /// For each label seen on an edge, the goals it meets (`None`: not held to them yet).
    label_goals: Vec<Option<Box<[u32]>>>,
    /// Each label's number among labels as printed (restricted channels kept).
    printed: Vec<u32>,
    printed_index: FxHashMap<String, u32>,
    /// The edges of the source being merged.
    current: SourceEdges,
    /// The tree of the last source that reached a state not stored before (most targets
    /// share most of it).
    near: (u32, Levels),
    /// How many states the last chunk added (the room the next one is given at first).
    last_added: usize,
    /// The states the current chunk added, kept when the workers may have expanded sources
    /// before the merge stored their targets (`recent_kept`). Not on one thread: each source
    /// is expanded after every earlier one is merged, so a target it did not find is new,
    /// or one of its own targets met twice, which the store finds; hashing every new
    /// state's ids twice for this table was a percent of philosophers' instructions.
    recent: Recent,
    recent_kept: bool,
    /// Whether the source being merged was expanded before every earlier one was merged, so
    /// that a target it did not find stored is looked for in `recent` (else it is new, or
    /// one of its own met twice, which the store finds).
    early: bool,
    /// An empty store, put in the graph's place while the store is shared.
    placeholder: Option<Store>,
    /// The queue contents the merge numbered ahead while the workers ran (see
    /// `explore/ahead.rs`), and whether it may (only while they run: on one thread a
    /// source with a new content is merged at once and the cache filled).
    ahead: ahead::Ahead,
    ahead_on: bool,
    /// Whether the merge may run alongside the workers: not when state goals read states,
    /// `--max-memory` (which
    /// weighs the store as it grows) or symmetry reduction (which interns) needs the store.
    alongside: bool,
}

impl<'g, 's, 'p> Run<'g, 's, 'p> {
    fn new(sem: &'s Semantics<'p>, options: &'g Options, goals: &'g Goals<'g>) -> Self {
        Run {
            sem,
            engine_labels: Vec::new(),
            engine_actors: Default::default(),
            options,
            goals,
            graph: Graph::new(!options.drop_edges, goals.labels.len(), goals.states.len()),
            names: Names::default(),
            met: vec![false; goals.labels.len()],
            fault_found: false,
            label_goals: Vec::new(),
            printed: Vec::new(),
            printed_index: FxHashMap::default(),
            current: SourceEdges::default(),
            near: (u32::MAX, Levels::default()),
            last_added: 0,
            recent: Recent::default(),
            recent_kept: true,
            early: true,
            placeholder: None,
            ahead: ahead::Ahead::default(),
            ahead_on: false,
            // State goals read each state as it is expanded, from the store.
            alongside: !options.symmetry && options.max_memory.is_none() && goals.states.is_empty(),
        }
    }

    /// Expands and merges the frontier states of `range`. While the workers run, they read
    /// the store and the merge adds to it (it holds the store's [`Writer`]): the merge takes
    /// what it can that way (most sources of most chunks), and the rest once they are done.
    fn chunk_of(
        &mut self,
        pool: &Workers,
        engine: &mut Engine<'s, 'p>,
        range: std::ops::Range<usize>,
        free: &pipeline::Free,
    ) -> Option<End> {
        let before = self.graph.state_count();
        self.recent.clear();
        let alone = self.alongside && pipeline::alone(pool, range.len());
        self.recent_kept = !alone;
        if self.alongside {
            let (states, nodes) = self.room_wanted();
            let join = |a: &(dyn Fn() + Sync), b: &(dyn Fn() + Sync)| pool.join(a, b);
            let join = pool.parallel().then_some(&join as Join<'_>);
            self.graph.store.make_room_with(states, nodes, join);
        }
        let end = match alone {
            true => self.chunk_alone(engine, range, free),
            false => self.chunk_shared(pool, engine, range, free),
        };
        self.last_added = self.graph.state_count() - before;
        end
    }

    /// [`Run::chunk_of`] with the workers: a source the merge refuses while they run (its
    /// expansion missed the engine's cache, most often) is merged in a pause, the workers
    /// stepping aside between two states (`explore/gate.rs`), and the chunk goes on
    /// alongside them. Before, it and every later source of its chunk were merged after
    /// the workers, by one thread: a bounded buffer (`bench/check/buffer.pi`) met such a
    /// source early in nearly every chunk, and 659,740 of its 745,472 sources were merged
    /// so. (Stopping the workers at a refusal and starting them again for the rest of the
    /// chunk, and a pause under a lock taken per block, cost more than they saved: a worker
    /// woken, or waited for, at each one.) Without the merge alongside (`Run::alongside`) a
    /// chunk is expanded whole and merged after the workers.
    fn chunk_shared(
        &mut self,
        pool: &Workers,
        engine: &mut Engine<'s, 'p>,
        range: std::ops::Range<usize>,
        free: &pipeline::Free,
    ) -> Option<End> {
        let mut writer = self.graph.store.take_writer();
        // A placeholder kept for this: a new empty store each time allocated its indices.
        let mut store = self.placeholder.take().unwrap_or_default();
        std::mem::swap(&mut store, &mut self.graph.store);
        let gate = gate::Gate::new(gate::Held { engine, store });
        let readers = pipeline::Gated {
            sem: self.sem,
            gate: &gate,
            free,
        };
        let (mut end, mut back) = (None, Vec::new());
        self.ahead_on = true;
        let merge =
            |s, expanded, when: pipeline::When<'_>, reading: &mut gate::Reading<'_, '_, 's, 'p>| {
                let held = reading.get();
                let shared = (&held.store, &mut writer);
                let merged = (&mut end, &mut back, free);
                let flow = self.merge_alongside(held.engine, shared, (s, expanded, when), merged);
                match flow {
                    pipeline::Flow::Refuse(expanded) if self.alongside => reading.pause(|held| {
                        let merged = (&mut end, &mut back, free);
                        self.merge_paused(held, (s, expanded), merged)
                    }),
                    flow => flow,
                }
            };
        let leftovers = pipeline::expand_in_order(pool, &readers, range, merge);
        self.ahead_on = false;
        let gate::Held { engine, mut store } = gate.into_inner();
        std::mem::swap(&mut store, &mut self.graph.store);
        self.placeholder = Some(store);
        self.graph.store.give_writer(writer);
        // Before anything reads a state stored with a content numbered ahead, and before
        // the leftovers, which came after every source that numbered one.
        self.ahead.fill(engine, &mut self.graph.store);
        self.ahead.forget();
        let end = end.or_else(|| self.merge_leftovers(engine, leftovers, &mut back, free));
        free.give(&mut back);
        end
    }

    /// [`Run::chunk_of`] on this thread alone: each source merged right after it is
    /// expanded; one the merge refuses (its expansion missed something in the engine's
    /// cache, most often) is merged at once, the cache filled, and the sources after it
    /// are expanded with that (see `pipeline::expand_alone`).
    fn chunk_alone(
        &mut self,
        engine: &mut Engine<'s, 'p>,
        mut range: std::ops::Range<usize>,
        free: &pipeline::Free,
    ) -> Option<End> {
        let (mut end, mut back) = (None, Vec::new());
        while !range.is_empty() && end.is_none() {
            let mut writer = self.graph.store.take_writer();
            // A placeholder kept for this: a new empty store each time allocated its indices.
            let mut store = self.placeholder.take().unwrap_or_default();
            std::mem::swap(&mut store, &mut self.graph.store);
            let readers = pipeline::Readers {
                sem: self.sem,
                engine,
                store: &store,
                free,
            };
            let refused = pipeline::expand_alone(&readers, range.clone(), |s, expanded| {
                let shared = (&store, &mut writer);
                let merged = (&mut end, &mut back, free);
                let when = pipeline::When::Right;
                self.merge_alongside(readers.engine, shared, (s, expanded, when), merged)
            });
            std::mem::swap(&mut store, &mut self.graph.store);
            self.placeholder = Some(store);
            self.graph.store.give_writer(writer);
            let Some((s, expanded)) = refused else {
                break;
            };
            let mut spare = back.pop().unwrap_or_default();
            self.early = false;
            end = self.merge(engine, s, expanded, true, &mut spare);
            give_back(&mut back, spare, free);
            range.start = s as usize + 1;
        }
        free.give(&mut back);
        end
    }

    /// The room the store is given before a chunk: for a quarter more states than the last
    /// chunk added, and for the nodes they would add if each differed from its source in one
    /// component (a node a level). The merge takes what does not fit after the workers.
    fn room_wanted(&self) -> (usize, usize) {
        let states = self.last_added + self.last_added / 4 + 32;
        let len = self.near.1.ids().len().max(2);
        let levels = (usize::BITS - (len - 1).leading_zeros()) as usize;
        (states, states * levels)
    }

    /// Merges, in order, the sources the merge refused while the workers ran. The first was
    /// expanded with the engine's cache as it is (the merges alongside do not change it),
    /// the later ones perhaps not once it is merged.
    fn merge_leftovers(
        &mut self,
        engine: &mut Engine<'s, 'p>,
        leftovers: Vec<(u32, Expanded)>,
        back: &mut Vec<Buffers>,
        free: &pipeline::Free,
    ) -> Option<End> {
        // Expanded before the sources before them were merged.
        self.early = true;
        for (i, (s, expanded)) in leftovers.into_iter().enumerate() {
            // Room emptied by an earlier merge: a state the workers could not expand (a
            // component or a queue not cached) is expanded here, into vectors that grew
            // from nothing every time.
            let mut spare = back.pop().unwrap_or_default();
            if let Some(end) = self.merge(engine, s, expanded, i == 0, &mut spare) {
                return Some(end);
            }
            give_back(back, spare, free);
        }
        None
    }

    /// Merges a source while the workers run, if it needs nothing they are reading and the
    /// store has room for its new targets: a fast expansion with transitions, none into a
    /// state the workers could not put in ids (a new queue content is numbered ahead while
    /// the workers run: `explore/ahead.rs`). `when`: whether it was expanded ahead of the
    /// merge, with the source's tree if the thread that expanded it read it, swapped into
    /// [`Run::near`] (the merge walks up from it).
    fn merge_alongside(
        &mut self,
        engine: &Engine<'s, 'p>,
        (store, writer): (&Store, &mut Writer),
        (source, expanded, when): (u32, Expanded, pipeline::When<'_>),
        (end, back, free): (&mut Option<End>, &mut Vec<Buffers>, &pipeline::Free),
    ) -> pipeline::Flow {
        let mut expanded = expanded;
        let merged = match &mut expanded {
            Expanded::Fast(succ, arena, _) => {
                let targets = Targets::of(succ);
                self.alongside
                    && !targets.need_store(self.ahead_on)
                    && (targets.queued == 0 || self.number_ahead(engine, store, succ, arena))
                    && store.room(targets.new + targets.queued, targets.longest)
            }
            _ => false,
        };
        if !merged {
            return pipeline::Flow::Refuse(expanded);
        }
        let Expanded::Fast(succ, arena, reduced) = expanded else {
            unreachable!("merged only a fast expansion")
        };
        self.early = matches!(when, pipeline::When::Early(_));
        if let pipeline::When::Early(Some(tree)) = when {
            std::mem::swap(&mut self.near.1, tree);
            self.near.0 = source;
        }
        let mut spare = Buffers::default();
        self.graph.alongside += 1;
        let mut dest = Dest::Shared(store, writer);
        let assembled = (succ, arena, reduced);
        *end = self.merge_ready(engine, &mut dest, source, assembled, &mut spare);
        give_back(back, spare, free);
        match end {
            Some(_) => pipeline::Flow::Stop,
            None => pipeline::Flow::Next,
        }
    }

    /// Merges a source the merge refused alongside the workers, while they step aside (see
    /// `explore/gate.rs`): as the first leftover of the chunk was merged after them, the
    /// queue contents numbered ahead first (they came before it), then the source by
    /// [`Run::merge`], with `fresh` false (its expansion may be older than the last pause).
    /// Then room for the states to come, if the source took it.
    fn merge_paused(
        &mut self,
        held: &mut gate::Held<'_, 's, 'p>,
        (source, expanded): (u32, Expanded),
        (end, back, free): (&mut Option<End>, &mut Vec<Buffers>, &pipeline::Free),
    ) -> pipeline::Flow {
        std::mem::swap(&mut held.store, &mut self.graph.store);
        self.ahead.fill(held.engine, &mut self.graph.store);
        self.early = true;
        let mut spare = back.pop().unwrap_or_default();
        *end = self.merge(held.engine, source, expanded, false, &mut spare);
        give_back(back, spare, free);
        let (states, nodes) = self.room_wanted();
        let longest = self.near.1.ids().len();
        if !self.graph.store.room(states / 4, longest) {
            self.graph.store.make_room(states, nodes);
        }
        std::mem::swap(&mut held.store, &mut self.graph.store);
        match end {
            Some(_) => pipeline::Flow::Stop,
            None => pipeline::Flow::Next,
        }
    }

    /// Puts in each target into a queue content the cache lacks the id that content is
    /// numbered ahead with (see `explore/ahead.rs`): what [`Run::learn`] does without
    /// filling the cache, so in the same order. Whether every one has its id.
    fn number_ahead(
        &mut self,
        engine: &Engine<'s, 'p>,
        store: &Store,
        succ: &mut [FastSucc],
        arena: &mut [u32],
    ) -> bool {
        if !self.ahead_on {
            return true; // then `needs_store` refused every source with such a target
        }
        for t in succ {
            let FastSucc::To { target, .. } = t else {
                continue;
            };
            let Target::Queued(start, len, miss) = target else {
                continue;
            };
            let Some(id) = self.ahead.id(engine, store.interner(), miss) else {
                return false;
            };
            let (start, len) = (*start, *len);
            place_queue(&mut arena[start as usize..(start + len) as usize], id);
            *target = Target::New { start, len };
        }
        true
    }

    /// How many frontier states to expand at once: [`CHUNK`], or fewer near a bound, so that
    /// no more successors are computed than the bound can still take.
    fn chunk(&self) -> usize {
        let states = self.graph.state_count();
        let mut chunk = CHUNK;
        if let Some(max) = self.options.max_states {
            chunk = chunk.min(max.saturating_sub(states));
        }
        if let Some(max) = self.options.max_memory {
            let bytes = self.graph.bytes();
            let per_state = (bytes / states.max(1) as u64).max(1);
            let left = max.saturating_sub(bytes) / per_state;
            chunk = chunk.min(left as usize);
        }
        chunk.max(1)
    }

    /// Adds the transitions of `source`; returns how exploration ends if it must stop here.
    /// A source whose transitions would pass a bound is left unexpanded, whole. The fast
    /// path's vectors are given back emptied in `spare`. `fresh`: `expanded` was computed
    /// with the engine's cache as it is (else earlier merges may have filled it since).
    fn merge(
        &mut self,
        engine: &mut Engine<'s, 'p>,
        source: u32,
        expanded: Expanded,
        fresh: bool,
        spare: &mut Buffers,
    ) -> Option<End> {
        match expanded {
            Expanded::Fast(succ, arena, reduced) => {
                self.merge_own(engine, source, (succ, arena, reduced), spare)
            }
            Expanded::Slow(transitions, misses) => {
                let end = self.merge_slow(source, transitions);
                if end.is_none() {
                    engine.fill(&mut self.graph.store, misses);
                    hold_labels_to_goals(engine, self.goals);
                }
                end
            }
            Expanded::Missing(misses) => self.merge_missing(engine, source, (misses, fresh), spare),
        }
    }

    /// Fills what the fast path missed for `source` and expands it by the fast path then, a
    /// few rounds (what an input receives is known once its queue is); by the reference
    /// semantics when a round makes no progress (a large component is filled only when missed
    /// twice, see `Engine::fill_now`). The reference path costs many times the fast one, and
    /// a model whose buffers keep new contents (`bench/check/buffer.pi`) missed something in
    /// two states of five. Under partial-order reduction too: a source the reference path
    /// expands is expanded in full, so which sources take it decides the states `--por`
    /// stores, and it must not depend on what the cache held when a worker met the source
    /// (it did: one thread and two stored different reduced state spaces).
    ///
    /// Misses found before earlier merges filled the cache (not `fresh`) are found again
    /// first, so that a source takes the same rounds whenever its expansion was computed,
    /// hence the same path and the same cache for any thread count.
    fn merge_missing(
        &mut self,
        engine: &mut Engine<'s, 'p>,
        source: u32,
        (mut misses, fresh): (Vec<Miss>, bool),
        spare: &mut Buffers,
    ) -> Option<End> {
        if !fresh {
            match engine.expand(&self.graph.store, source, take(spare)) {
                Expansion::Fast(succ, arena, reduced) => {
                    let assembled = (succ, arena, reduced);
                    return self.merge_own(engine, source, assembled, spare);
                }
                Expansion::Slow(now) if !now.is_empty() => misses = now,
                Expansion::Slow(_) => misses.clear(),
            }
        }
        for _ in 0..MISSING_ROUNDS {
            if misses.is_empty() {
                break;
            }
            let filled = engine.fill(&mut self.graph.store, misses.clone());
            hold_labels_to_goals(engine, self.goals);
            // Nothing filled (large components met once): the cache misses exactly what it
            // missed, so expanding again would only find that out again.
            if !filled {
                break;
            }
            match engine.expand(&self.graph.store, source, take(spare)) {
                Expansion::Fast(succ, arena, reduced) => {
                    let assembled = (succ, arena, reduced);
                    return self.merge_own(engine, source, assembled, spare);
                }
                Expansion::Slow(next) if !next.is_empty() && next != misses => misses = next,
                Expansion::Slow(_) => break,
            }
        }
        let store = &self.graph.store;
        let transitions = keyed(store, self.sem.successors(&store.state(source)));
        self.merge_slow(source, transitions)
    }

    /// Merges a fast expansion with the store its own: the queue contents its workers
    /// computed and found nowhere are interned first, each filling the engine's cache entry
    /// that gives it (in frontier order, so the cache is the same for any thread count).
    fn merge_own(
        &mut self,
        engine: &mut Engine<'s, 'p>,
        source: u32,
        (mut succ, mut arena, reduced): Assembled,
        spare: &mut Buffers,
    ) -> Option<End> {
        self.learn(engine, &mut succ, &mut arena);
        let assembled = (succ, arena, reduced);
        self.merge_ready(engine, &mut Dest::Own, source, assembled, spare)
    }

    /// Fills the cache entries of the queue contents the workers computed (see
    /// [`Target::Queued`]), so that the next source that meets one takes it from the cache,
    /// and puts each content's id in its target's ids, the queues in key order (by id).
    fn learn(&mut self, engine: &mut Engine<'s, 'p>, succ: &mut [FastSucc], arena: &mut [u32]) {
        for t in succ {
            let FastSucc::To { target, .. } = t else {
                continue;
            };
            let Target::Queued(start, len, miss) = target else {
                continue;
            };
            let (start, len) = (*start, *len);
            // An array of one, not a vector: a vector was an allocation a target.
            engine.fill(&mut self.graph.store, [(**miss).clone()]);
            let ids = &mut arena[start as usize..(start + len) as usize];
            place_queue(ids, engine.queue_for(miss));
            *target = Target::New { start, len };
        }
    }

    /// Merges a fast expansion: what [`Run::merge`] does without changing the engine.
    fn merge_ready(
        &mut self,
        engine: &Engine<'s, 'p>,
        dest: &mut Dest<'_>,
        source: u32,
        (mut succ, mut arena, reduced): Assembled,
        spare: &mut Buffers,
    ) -> Option<End> {
        self.graph.fast += 1;
        if let Some(set) = reduced
            && !self.reaches_older(source, &succ, &arena, &set)
        {
            self.graph.reduced += 1;
            keep_only(&mut succ, &set);
        }
        let end = self.merge_fast(engine, dest, source, &mut succ, &mut arena);
        succ.clear();
        arena.clear();
        *spare = Buffers { succ, arena };
        end
    }

    fn merge_slow(&mut self, source: u32, transitions: Keyed) -> Option<End> {
        if let Some(fault) = limit_fault(transitions.iter().map(|(_, t)| t.fault.as_ref())) {
            return Some(self.stop(Limit::Model(fault.clone())));
        }
        let transitions = self.complete_keys(transitions);
        let new = transitions
            .iter()
            .filter_map(|(key, _)| key.as_ref().map(|k| &k.ids[..]));
        if let Some(limit) = self.bound_passed(&self.graph.store, new, transitions.len()) {
            return Some(self.stop(limit));
        }
        let (mut moves, mut faults) = (false, false);
        for (key, mut t) in transitions {
            let label = self.names.label(&mut self.graph, t.label);
            match (t.fault, key) {
                (Some(fault), _) => {
                    faults = true;
                    self.fault(source, label, fault);
                }
                (None, Some(key)) => {
                    moves = true;
                    let target = self.target(&mut Dest::Own, source, &key.ids);
                    let actors = self.names.actors(&mut self.graph, t.actors);
                    self.edge(source, target, label, actors, &mut t.renaming);
                }
                (None, None) => unreachable!("every transition has its key (complete_keys)"),
            }
        }
        self.expanded(source, moves, faults)
    }

    fn merge_fast(
        &mut self,
        engine: &Engine<'s, 'p>,
        dest: &mut Dest<'_>,
        source: u32,
        succ: &mut [FastSucc],
        arena: &mut Vec<u32>,
    ) -> Option<End> {
        // One pass for both: a limit of the semantics met, and targets to intern.
        let mut named = false;
        for t in succ.iter() {
            match t {
                FastSucc::Fault { fault, .. } if fault.kind.is_limit() => {
                    return Some(self.stop(Limit::Model(fault.clone())));
                }
                FastSucc::To {
                    target: Target::State(_),
                    ..
                } => named = true,
                _ => {}
            }
        }
        if named {
            self.intern_named(succ, arena);
        }
        let new = succ.iter().filter_map(|t| match t {
            FastSucc::To {
                target: Target::New { start, len },
                ..
            } => Some(&arena[*start as usize..(start + len) as usize]),
            _ => None,
        });
        let store = match dest {
            Dest::Shared(store, _) => store,
            Dest::Own => &self.graph.store,
        };
        if let Some(limit) = self.bound_passed(store, new, succ.len()) {
            return Some(self.stop(limit));
        }
        let (mut moves, mut faults) = (false, false);
        // By reference: moving each transition out and dropping its target cost a call a
        // transition; the caller clears `succ`.
        for t in succ.iter_mut() {
            match t {
                FastSucc::Fault { label, fault, .. } => {
                    faults = true;
                    let label = self.engine_label(engine, *label);
                    self.fault(source, label, fault.clone());
                }
                FastSucc::To {
                    label,
                    actors,
                    target,
                    renaming,
                } => {
                    moves = true;
                    let label = self.engine_label(engine, *label);
                    let target = match *target {
                        Target::Known(t) => t,
                        Target::New { start, len } => {
                            let ids = &arena[start as usize..(start + len) as usize];
                            self.target(dest, source, ids)
                        }
                        Target::State(_) | Target::Queued(..) => {
                            unreachable!("interned by intern_named, filled by learn")
                        }
                    };
                    let actors = self.fast_actors(*actors);
                    self.edge(source, target, label, actors, renaming);
                }
            }
        }
        self.expanded(source, moves, faults)
    }

    /// Interns, in frontier order, the targets with fresh names the workers did not find, turning each into ids in the arena.
    fn intern_named(&mut self, succ: &mut [FastSucc], arena: &mut Vec<u32>) {
        for t in succ {
            if let FastSucc::To { target, .. } = t
                && let Target::State(state) = target
            {
                let key = self.graph.store.intern(state);
                let start = arena.len() as u32;
                arena.extend_from_slice(&key.ids);
                let len = key.ids.len() as u32;
                *target = Target::New { start, len };
            }
        }
    }

    /// The cycle proviso, for targets the workers could not number: with symmetry reduction a
    /// new target may stand for an older state (its representative), and a stubborn set that
    /// reaches a state numbered no higher than its source is not used.
    fn reaches_older(
        &mut self,
        source: u32,
        succ: &[FastSucc],
        arena: &[u32],
        set: &[u32],
    ) -> bool {
        let Some(symmetry) = self.graph.symmetry.clone() else {
            return false;
        };
        let mut scratch = Levels::default();
        set.iter().any(|&t| match &succ[t as usize] {
            FastSucc::To {
                target: Target::New { start, len },
                ..
            } => {
                let ids = &arena[*start as usize..(start + len) as usize];
                let rep = symmetry.representative(self.graph.store.interner_mut(), ids);
                let found = self.graph.store.find_near(None, &rep, &mut scratch);
                found.is_some_and(|n| n <= source)
            }
            _ => false,
        })
    }

    /// Ends the expansion of `source`: its edges are complete; a state without transitions
    /// may be a deadlock.
    fn expanded(&mut self, source: u32, moves: bool, faults: bool) -> Option<End> {
        if self.graph.edges_kept {
            self.graph.kept.push_state(&self.current.edges);
        }
        self.current.clear();
        self.graph.expanded += 1;
        if !moves && !faults && self.goals.deadlock && self.graph.first_deadlock.is_none() {
            let state = self.graph.state(source);
            if !self.sem.is_valid_end(&state) {
                self.graph.first_deadlock = Some(source);
            }
        }
        self.hold_state_to_goals(source);
        self.decided().then_some(End::Decided)
    }

    /// Records `source` for the state goals it is the first to meet (states are expanded in
    /// breadth-first order, so the first is one nearest the start).
    fn hold_state_to_goals(&mut self, source: u32) {
        let open = |g: &Graph| g.first_states.iter().any(Option::is_none);
        if !open(&self.graph) {
            return;
        }
        let state = self.graph.state(source);
        let goals = self.goals.states.iter();
        for (first, goal) in self.graph.first_states.iter_mut().zip(goals) {
            if first.is_none() && goal(&state) {
                *first = Some(source);
            }
        }
    }

    fn stop(&mut self, limit: Limit) -> End {
        self.graph.limit = Some(limit.clone());
        End::Limit(limit)
    }

    /// The graph's number of a set of actors of the fast path.
    fn fast_actors(&mut self, actors: Actors) -> u32 {
        if let Some(known) = self.engine_actors.get(actors) {
            return known;
        }
        let number = self.names.actors(&mut self.graph, actors.to_vec());
        self.engine_actors.insert(actors, number);
        number
    }

    /// The graph's number of one of the engine's labels.
    #[inline]
    fn engine_label(&mut self, engine: &Engine<'s, 'p>, label: u32) -> u32 {
        match self.engine_labels.get(label as usize) {
            Some(&known) if known != u32::MAX => known,
            _ => self.new_engine_label(engine, label),
        }
    }

    /// [`Run::engine_label`] the first time the label is met.
    #[cold]
    fn new_engine_label(&mut self, engine: &Engine<'s, 'p>, label: u32) -> u32 {
        let i = label as usize;
        let text = engine.labels.items[i].clone();
        let number = self.names.label(&mut self.graph, text);
        if self.engine_labels.len() <= i {
            self.engine_labels.resize(i + 1, u32::MAX);
        }
        self.engine_labels[i] = number;
        number
    }

    /// The number of the target with this key, storing it (reached from `source` by the
    /// edge about to be added) when new.
    fn target(&mut self, dest: &mut Dest<'_>, source: u32, ids: &[u32]) -> u32 {
        let interner = self.graph.store.interner_mut();
        let represented;
        let ids = match &self.graph.symmetry {
            Some(symmetry) => {
                represented = symmetry.representative(interner, ids);
                &represented[..]
            }
            _ => ids,
        };
        let hash = self.recent_kept.then(|| hash_ids(ids));
        if let Some(hash) = hash
            && self.early
            && let Some(known) = self.recent.find(hash, ids)
        {
            return known;
        }
        let (target, new) = match dest {
            Dest::Shared(store, writer) => {
                read_near(&mut self.near, store, source);
                let added = store.insert_shared(writer, Some(&self.near.1), ids);
                added.expect("the merge made room for the whole source")
            }
            Dest::Own => {
                read_near(&mut self.near, &self.graph.store, source);
                let store = &mut self.graph.store;
                store.find_or_insert(Some(&self.near.1), ids)
            }
        };
        if new {
            self.graph.parent.push(source);
            if let Some(hash) = hash {
                self.recent.insert(hash, ids, target);
            }
        }
        target
    }

    /// Interns, in frontier order, the targets that held a component the store did not know
    /// when the workers looked them up.
    fn complete_keys(&mut self, transitions: Keyed) -> Keyed {
        let store = &mut self.graph.store;
        let complete = |(key, t): (Option<Key>, Transition)| match (key, &t.fault) {
            (None, None) => (Some(store.intern(&t.target)), t),
            (key, _) => (key, t),
        };
        transitions.into_iter().map(complete).collect()
    }

    /// The bound that merging these transitions (`count` of them, with the keys `keys` of
    /// targets not known before) would pass: more states or memory than the options allow.
    /// (Their new components are interned already and counted.) Far from the bounds, as
    /// nearly always, every key counted as a new state passes neither, and none is looked
    /// up; near them, each is looked up in the store, and those met twice are counted once.
    fn bound_passed<'k>(
        &self,
        store: &Store,
        keys: impl Iterator<Item = &'k [u32]> + Clone,
        count: usize,
    ) -> Option<Limit> {
        let cancelled = self.options.cancel.as_ref();
        if cancelled.is_some_and(|c| c.load(std::sync::atomic::Ordering::Relaxed)) {
            return Some(Limit::Cancelled);
        }
        if self.options.max_states.is_none() && self.options.max_memory.is_none() {
            return None;
        }
        // At most this many new states: if they pass no bound, fewer do not either.
        let bytes = |keys: &mut dyn Iterator<Item = &[u32]>| match self.options.max_memory {
            Some(_) => keys.map(|ids| store.state_bytes(ids)).sum(),
            None => 0,
        };
        self.bound_passed_by(keys.clone().count(), bytes(&mut keys.clone()), count)?;
        let mut new: FxHashSet<&[u32]> = FxHashSet::default();
        let mut scratch = Levels::default();
        for ids in keys {
            if store.find_near(None, ids, &mut scratch).is_none() {
                new.insert(ids);
            }
        }
        self.bound_passed_by(new.len(), bytes(&mut new.iter().copied()), count)
    }

    /// The bound that `states` new states storing `bytes` ([`Store::state_bytes`], counted
    /// only under `--max-memory`) and `count` transitions would pass.
    fn bound_passed_by(&self, states: usize, bytes: u64, count: usize) -> Option<Limit> {
        // A new state also adds an edge and a parent link.
        let bytes = bytes + states as u64 * 4;
        let edges = match self.graph.edges_kept {
            true => count as u64 * self.graph.kept.edge_bytes(),
            false => 0,
        };
        // Every state but the first has its parent link.
        let states = self.graph.parent.len() + 1 + states;
        if let Some(max) = self.options.max_states.filter(|&m| states > m) {
            return Some(Limit::States(max));
        }
        let bytes = self.graph.bytes() + bytes + edges;
        self.options
            .max_memory
            .filter(|&m| bytes > m)
            .map(Limit::Memory)
    }

    /// A faulty transition (an assertion or a run-time error).
    fn fault(&mut self, source: u32, label: u32, fault: Fault) {
        self.graph.faults.push(FaultEdge {
            source,
            label,
            fault,
        });
        self.fault_found = true;
    }

    /// A transition into a stored state, kept once per (label, target, actors): counted once
    /// per printed label and target, held to the label goals, and stored when edges are kept.
    fn edge(
        &mut self,
        source: u32,
        target: u32,
        label: u32,
        actors: u32,
        renaming: &mut agentpi_semantics::Renaming,
    ) {
        let edge = Edge {
            label,
            target,
            actors,
        };
        let printed = self.printed(label);
        let Some((index, first)) = self.current.insert(edge, printed, &self.printed) else {
            return;
        };
        if first {
            self.graph.transitions += 1;
        }
        self.hold_to_goals(label);
        let goals = self.label_goals[label as usize].as_deref().unwrap_or(&[]);
        for &k in goals {
            self.graph.first_matches[k as usize].get_or_insert((source, index));
        }
        if self.options.keep_renamings && self.graph.edges_kept {
            self.graph.kept.push_renaming(take(renaming));
        }
    }

    /// The number of a label among labels as printed (restricted channels kept): transitions
    /// are counted once per source, printed label and target.
    #[inline]
    fn printed(&mut self, label: u32) -> u32 {
        let i = label as usize;
        if i >= self.printed.len() {
            self.print_up_to(i);
        }
        self.printed[i]
    }

    #[cold]
    fn print_up_to(&mut self, i: usize) {
        while self.printed.len() <= i {
            let text = self.sem.label_text(&self.graph.labels[self.printed.len()]);
            let next = self.printed_index.len() as u32;
            self.printed
                .push(*self.printed_index.entry(text).or_insert(next));
        }
    }

    /// The goals a label meets, worked out when an edge first carries it (a fault is no
    /// edge).
    fn hold_to_goals(&mut self, label: u32) {
        let i = label as usize;
        if self.label_goals.len() <= i {
            self.label_goals.resize(i + 1, None);
        }
        if self.label_goals[i].is_some() {
            return;
        }
        let label = &self.graph.labels[i];
        let goals = self.goals.labels.iter().zip(0..);
        let met: Box<[u32]> = goals.filter(|(g, _)| g(label)).map(|(_, k)| k).collect();
        for &k in met.iter() {
            self.met[k as usize] = true;
        }
        self.label_goals[i] = Some(met);
    }

    fn decided(&self) -> bool {
        let goals = self.goals;
        !goals.everything()
            && (!goals.deadlock || self.graph.first_deadlock.is_some())
            && (!goals.fault || self.fault_found)
            && self.met.iter().all(|&m| m)
            && self.graph.first_states.iter().all(Option::is_some)
    }

    fn finish(self, progress: &Progress) -> Graph {
        record(progress, &self.graph);
        self.graph
    }
}

/// The edges of the source being merged, each (label, target, actors) once.
#[derive(Default)]
struct SourceEdges {
    edges: Vec<Edge>,
    /// Past a few dozen edges, the edges already there, for a quick look-up.
    index: FxHashSet<Edge>,
    /// The (printed label, target) pairs counted.
    printed: FxHashSet<(u32, u32)>,
}

impl SourceEdges {
    /// Adds an edge not there yet, printed `printed` (`print` gives each label's printed
    /// number): its index, and whether it is the first of the source printed so into its
    /// target. One pass over the edges before it (those into the same target) answers both.
    fn insert(&mut self, edge: Edge, printed: u32, print: &[u32]) -> Option<(u32, bool)> {
        const SCAN: usize = 32;
        let n = self.edges.len();
        let first = if n < SCAN {
            let mut first = true;
            for e in self.edges.iter().filter(|e| e.target == edge.target) {
                if *e == edge {
                    return None;
                }
                first &= print[e.label as usize] != printed;
            }
            first
        } else {
            if n == SCAN {
                self.index.extend(self.edges.iter().copied());
                let pairs = self
                    .edges
                    .iter()
                    .map(|e| (print[e.label as usize], e.target));
                self.printed.extend(pairs);
            }
            if !self.index.insert(edge) {
                return None;
            }
            self.printed.insert((printed, edge.target))
        };
        self.edges.push(edge);
        Some((n as u32, first))
    }

    /// Empties it for the next source.
    fn clear(&mut self) {
        self.edges.clear();
        self.index.clear();
        self.printed.clear();
    }
}

/// Whether a property sees each of the engine's labels (what partial-order reduction may not
/// leave out), for the labels added since last time.
fn hold_labels_to_goals(engine: &mut Engine<'_, '_>, goals: &Goals<'_>) {
    while engine.visible.len() < engine.labels.items.len() {
        let label = &engine.labels.items[engine.visible.len()];
        let seen = goals.labels.iter().any(|g| g(label));
        engine.visible.push(seen);
    }
}

/// What merging a fast expansion alongside the workers asks of its transitions, found in one
/// pass, not one for each question.
struct Targets {
    /// Targets the workers did not find stored, and those into a new queue content (see
    /// `explore/ahead.rs`).
    new: usize,
    queued: usize,
    /// The most ids of any of them.
    longest: usize,
    /// Whether some target holds fresh names the store has not interned: the merge interns
    /// it, in frontier order.
    named: bool,
    /// Whether there is no transition (a deadlock, perhaps, which is told by the state).
    none: bool,
}

impl Targets {
    fn of(succ: &[FastSucc]) -> Self {
        let mut targets = Targets {
            new: 0,
            queued: 0,
            longest: 0,
            named: false,
            none: succ.is_empty(),
        };
        for t in succ {
            let FastSucc::To { target, .. } = t else {
                continue;
            };
            match target {
                Target::Known(_) => {}
                Target::New { len, .. } => {
                    targets.new += 1;
                    targets.longest = targets.longest.max(*len as usize);
                }
                Target::Queued(_, len, _) => {
                    targets.queued += 1;
                    targets.longest = targets.longest.max(*len as usize);
                }
                Target::State(_) => targets.named = true,
            }
        }
        targets
    }

    /// Whether merging them needs the store itself: with no transition, or with a target
    /// the workers could not put in ids (one into a new queue content only unless `ahead`:
    /// contents numbered ahead, see `explore/ahead.rs`).
    fn need_store(&self, ahead: bool) -> bool {
        self.none || self.named || (self.queued > 0 && !ahead)
    }
}

/// Puts a queue content's id in the placeholder a worker left for it (the last of a
/// target's ids), and the queues back in key order (by id).
fn place_queue(ids: &mut [u32], id: u32) {
    *ids.last_mut().expect("a placeholder") = id;
    let split = ids.partition_point(|&id| !crate::intern::Interner::is_queue(id));
    ids[split..].sort_unstable();
}

/// Keeps an emptied expansion's vectors for the workers, a block at a time.
fn give_back(back: &mut Vec<Buffers>, spare: Buffers, free: &pipeline::Free) {
    back.push(spare);
    if back.len() == pipeline::BLOCK {
        free.give(back);
    }
}

fn record(progress: &Progress, graph: &Graph) {
    use std::sync::atomic::Ordering::Relaxed;
    progress.states.store(graph.state_count(), Relaxed);
    progress.transitions.store(graph.transitions, Relaxed);
    progress.depth.store(graph.max_depth, Relaxed);
}

/// Transitions, each with its target's key when the workers could compute it.
type Keyed = Vec<(Option<Key>, Transition)>;

/// Pairs each transition with its target's key, computed here in the parallel part when the
/// store knows every component of the target already (nearly always: a step moves one or two
/// components, and those into states seen before); the merge interns the rest in frontier
/// order, so the store is the same whatever the thread count.
fn keyed(store: &Store, transitions: Vec<Transition>) -> Keyed {
    let key = |mut t: Transition| {
        let key = t.fault.is_none().then(|| store.lookup(&t.target)).flatten();
        if key.is_some() {
            // The merge needs only the key: the target is freed here, in parallel.
            t.target = empty_state();
        }
        (key, t)
    };
    transitions.into_iter().map(key).collect()
}

fn empty_state() -> State {
    State {
        procs: Box::default(),
        queues: Box::default(),
        fresh: 0,
    }
}

/// The states the merge of one chunk added, by their ids: most of a chunk's new targets are
/// reached again by later sources of the chunk, which a worker may have expanded before the
/// merge stored them, and a hash of their ids in this small table finds them faster than
/// walking up the store's tree.
#[derive(Default)]
struct Recent {
    ids: Vec<u32>,
    /// (start in `ids`, length, state number) of each.
    states: Vec<(u32, u32, u32)>,
    index: hashbrown::HashTable<u32>,
}

impl Recent {
    /// The number of the state with `ids`, whose [`hash_ids`] is `hash`.
    fn find(&self, hash: u64, ids: &[u32]) -> Option<u32> {
        let same = |&k: &u32| self.slice(k) == ids;
        self.index
            .find(hash, same)
            .map(|&k| self.states[k as usize].2)
    }

    /// Adds state `number`, whose ids are `ids`, their [`hash_ids`] `hash` (computed once
    /// for a look-up and the insertion that follows it).
    fn insert(&mut self, hash: u64, ids: &[u32], number: u32) {
        let k = self.states.len() as u32;
        self.states
            .push((self.ids.len() as u32, ids.len() as u32, number));
        self.ids.extend_from_slice(ids);
        let (all, states) = (&self.ids, &self.states);
        let rehash = |&j: &u32| {
            let (start, len, _) = states[j as usize];
            hash_ids(&all[start as usize..(start + len) as usize])
        };
        self.index.insert_unique(hash, k, rehash);
    }

    fn slice(&self, k: u32) -> &[u32] {
        let (start, len, _) = self.states[k as usize];
        &self.ids[start as usize..(start + len) as usize]
    }

    fn clear(&mut self) {
        self.ids.clear();
        self.states.clear();
        self.index.clear();
    }
}

fn hash_ids(ids: &[u32]) -> u64 {
    use std::hash::BuildHasher;
    rustc_hash::FxBuildHasher.hash_one(ids)
}

/// Where the merge stores new states.
enum Dest<'x> {
    /// The graph's own store.
    Own,
    /// The store the workers are reading, with its writer.
    Shared(&'x Store, &'x mut Writer),
}

/// Reads the tree of `source` into `near`, unless it is there already (most targets share
/// most of their source's tree), or this thread has it from expanding `source`. Read into
/// the same room every time: a fresh tree per source was a tenth of the merge's
/// instructions, in allocations.
fn read_near(near: &mut (u32, Levels), store: &Store, source: u32) {
    if near.0 != source {
        if !crate::engine::take_source(store, source, &mut near.1) {
            store.read_levels(source, &mut near.1);
        }
        near.0 = source;
    }
}

/// Keeps the transitions whose indices are in `set` (ascending).
fn keep_only(succ: &mut Vec<FastSucc>, set: &[u32]) {
    let mut keep = set.iter().copied().peekable();
    let mut i = 0u32;
    succ.retain(|_| {
        let kept = keep.next_if_eq(&i).is_some();
        i += 1;
        kept
    });
}

/// A limit of the semantics met by one of the transitions.
fn limit_fault<'f>(faults: impl Iterator<Item = Option<&'f Fault>>) -> Option<&'f Fault> {
    faults.flatten().find(|f| f.kind.is_limit())
}

/// The interned labels and actor sets.
#[derive(Default)]
struct Names {
    labels: FxHashMap<Label, u32>,
    actor_sets: FxHashMap<Vec<Actor>, u32>,
}

impl Names {
    fn label(&mut self, graph: &mut Graph, label: Label) -> u32 {
        if let Some(&known) = self.labels.get(&label) {
            return known;
        }
        let next = graph.labels.len() as u32;
        *self.labels.entry(label.clone()).or_insert_with(|| {
            graph.labels.push(label);
            next
        })
    }

    fn actors(&mut self, graph: &mut Graph, actors: Vec<Actor>) -> u32 {
        if let Some(&known) = self.actor_sets.get(&actors) {
            return known;
        }
        let next = graph.actor_sets.len() as u32;
        *self.actor_sets.entry(actors.clone()).or_insert_with(|| {
            graph.actor_sets.push(actors);
            next
        })
    }
}

#[cfg(test)]
mod tests {
    use super::SourceEdges;
    use crate::graph::Edge;

    /// `SourceEdges::insert` against a plain count, below and past the edges it scans (32):
    /// an edge met again is refused, and an edge is the first of its printed label into its
    /// target only if no earlier edge kept has both (labels 0 and 1 print the same).
    #[test]
    fn source_edges_keep_each_edge_once_and_count_each_printed_label_once() {
        let print = [0, 0, 1, 2];
        let mut edges = SourceEdges::default();
        let mut kept: Vec<Edge> = Vec::new();
        let mut firsts = 0;
        for round in 0..3u32 {
            for i in 0..40u32 {
                let edge = Edge {
                    label: (i + round) % 4,
                    target: i % 13,
                    actors: i % 2,
                };
                let printed = print[edge.label as usize];
                let got = edges.insert(edge, printed, &print);
                let known = kept.contains(&edge);
                let first = !kept
                    .iter()
                    .any(|e| e.target == edge.target && print[e.label as usize] == printed);
                match got {
                    None => assert!(known, "{edge:?} refused, not kept before"),
                    Some((index, counted)) => {
                        assert!(!known, "{edge:?} kept twice");
                        assert_eq!(index as usize, kept.len());
                        assert_eq!(counted, first, "{edge:?} counted");
                        kept.push(edge);
                        firsts += usize::from(counted);
                    }
                }
            }
        }
        assert!(kept.len() > 32, "past the scan: {}", kept.len());
        assert!(
            firsts < kept.len(),
            "some edges share a printed label and target"
        );
    }
}
