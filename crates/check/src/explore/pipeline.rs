//! One chunk of the frontier expanded by the threads, each expansion merged in frontier order
//! as soon as it and every earlier one are done, by whichever thread is free to.
//!
//! The threads take blocks of [`BLOCK`] states in frontier order from a shared counter, so
//! blocks finish nearly in order. Between blocks a thread merges every block ready in order
//! unless another thread is merging; when the next block to merge is the next to take, it
//! takes it and merges each state right after expanding it, as one thread does (the states
//! after it find its new targets stored, and its transitions are merged from its own cache).
//! The merge trails the expansions closely and no thread waits while there is work. Expansions are handed over in order whatever the
//! timing, so the merge, hence every number and all output, is the same for any thread count.
//! The threads read the engine's cache and the store under their gate (`explore/gate.rs`),
//! stepping aside between two states when the merge pauses them to merge a source that
//! changes what they read.

use super::gate::{Gate, Reading};
use super::{Expanded, expand};
use crate::engine::{Buffers, Engine};
use crate::store::{Levels, Store};
use agentpi_semantics::Semantics;
use std::ops::Range;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// At most how many states a worker expands before handing them over: enough that handing
/// over costs little, few enough that the merge waits little for the first and last. Each
/// thread mostly merges the blocks it expanded, so the merge's own lines (the chunk's table
/// of new states, `Recent`, the rest of `Run`) move to the other core once a block, and a
/// target was stored by the other core mostly when first reached in the other thread's
/// block: blocks of 128 states, not 32, took 2 to 13 % of two threads' CPU off
/// philosophers N = 12, Peterson N = 4 and filter N = 4, the most when lines move slowly
/// between the cores (docs/history/check-speed.md, session 58, par15).
pub(super) const BLOCK: usize = 128;

/// At least how many states a block holds (a chunk is cut into blocks of [`BLOCK`], or of
/// a sixteenth of it when that is less, but not fewer than this): a narrow chunk in blocks
/// of 128 would leave a thread little to take.
const MIN_BLOCK: usize = 32;

/// The states of a block in a chunk of `states` states.
fn block_size(states: usize) -> usize {
    (states / 16).clamp(MIN_BLOCK, BLOCK)
}

/// The threads that expand states besides the one that merges them.
pub(super) struct Workers {
    pool: Arc<rayon::ThreadPool>,
    /// How many of the pool's threads work: one fewer than asked (the calling thread is
    /// the other), the pool never smaller than one, so it may hold a thread that never
    /// works. Every pool thread woken for a job it could not take would spin on a core
    /// the others need.
    count: usize,
}

impl Workers {
    /// Threads for `threads` in all, counting this one (0: one per core). A pool the system
    /// refuses (no threads left, or no address space for their stacks) is asked for again
    /// with half as many workers, down to one: the output does not depend on the thread
    /// count, so fewer threads only take longer. With it comes what was refused, if
    /// anything; `Err` says why not even one worker could start.
    pub(super) fn new(threads: usize) -> Result<(Self, Option<String>), String> {
        let threads = match threads {
            0 => std::thread::available_parallelism().map_or(1, usize::from),
            n => n,
        };
        let (mut workers, mut refused) = ((threads - 1).max(1), None);
        loop {
            match pool_of(workers) {
                Ok(pool) => {
                    let count = (threads - 1).min(workers);
                    let note = refused
                        .map(|e| format!("{threads} threads asked, {} started ({e})", count + 1));
                    return Ok((Workers { pool, count }, note));
                }
                Err(e) if workers > 1 => {
                    refused.get_or_insert(e.to_string());
                    workers /= 2;
                    // The threads the refused pool did start are ending: give their stacks
                    // a moment to be unmapped before asking for the next.
                    std::thread::sleep(std::time::Duration::from_millis(20));
                }
                Err(e) => return Err(format!("cannot start a worker thread: {e}")),
            }
        }
    }
}

impl Workers {
    /// Whether there is a worker besides this thread.
    pub(super) fn parallel(&self) -> bool {
        self.count > 0
    }

    /// Runs `a` and `b`, on a worker and this thread at once when there is a worker.
    pub(super) fn join(&self, a: &(dyn Fn() + Sync), b: &(dyn Fn() + Sync)) {
        if self.count == 0 {
            a();
            b();
            return;
        }
        self.pool.in_place_scope(|scope| {
            scope.spawn(|_| b());
            a();
        });
    }
}

/// The pool of the last exploration, kept for the next one of the same size (a `check` of
/// several systems): a new pool while the last one's threads are still ending would hold
/// their address space twice, which a tight `ulimit -v` refuses.
static LAST_POOL: Mutex<Option<(usize, Arc<rayon::ThreadPool>)>> = Mutex::new(None);

/// The stack of each worker: spawning recurses once per nested process call, up to
/// `agentpi_semantics::MAX_CALL_DEPTH`, which fits in half of this (docs/limits.md). Every
/// worker reserves it in address space, which a tight `ulimit -v` counts.
const WORKER_STACK: usize = 16 * 1024 * 1024;

/// A pool of `workers` threads with [`WORKER_STACK`]s.
fn pool_of(workers: usize) -> Result<Arc<rayon::ThreadPool>, rayon::ThreadPoolBuildError> {
    let mut last = LAST_POOL
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some((size, pool)) = last.as_ref().filter(|(size, _)| *size == workers) {
        debug_assert_eq!(*size, workers);
        return Ok(Arc::clone(pool));
    }
    *last = None; // the last pool's threads end before the new pool asks for its own
    let pool = Arc::new(
        rayon::ThreadPoolBuilder::new()
            .num_threads(workers)
            .stack_size(WORKER_STACK)
            .build()?,
    );
    *last = Some((workers, Arc::clone(&pool)));
    Ok(pool)
}

/// Chunks of fewer states than this are expanded by the merging thread alone.
const ALONE_BELOW: usize = 3 * MIN_BLOCK + 1;

/// What the merge did with an expansion.
pub(super) enum Flow {
    /// Merged: go on.
    Next,
    /// Not merged (it needs what the workers are reading, and the merge does not pause them:
    /// no merge alongside them at all): this one and every later one are handed back, in
    /// order, once the workers are done.
    Refuse(Expanded),
    /// Exploration ends here: the later expansions are dropped.
    Stop,
}

/// When an expansion was computed, against its merge.
pub(super) enum When<'t> {
    /// Right before it, after every earlier source was merged: a target it did not find
    /// stored is new, or one of its own met twice.
    Right,
    /// Before every earlier source was merged (a block expanded ahead of the merge): a target
    /// it did not find stored may have been stored since. With the source's tree, if the
    /// thread that expanded it read it.
    Early(Option<&'t mut Levels>),
}

/// Emptied vectors of expansions for the workers to fill again (see `Buffers`), and emptied
/// blocks. They go round between the threads and none is freed: a thread freeing what another
/// allocated made the two wait on each other's locks in glibc's allocator.
#[derive(Default)]
pub(super) struct Free {
    buffers: Mutex<Vec<Buffers>>,
    blocks: Mutex<Vec<Block>>,
}

/// A block's expansions, each with its source's tree as the thread that expanded it read it
/// (whether it has it, and the tree): the merge walks up from the source's tree to store
/// new targets, and read again from the store on the thread that merges the block it was 4%
/// of the instructions of Peterson N = 4 on two threads, and a cache miss a node.
#[derive(Default)]
struct Block {
    expanded: Vec<Expanded>,
    trees: Vec<(bool, Levels)>,
}

impl Free {
    /// Gives back the emptied vectors of `back`, leaving it empty with its room.
    pub(super) fn give(&self, back: &mut Vec<Buffers>) {
        self.buffers.lock().expect("no thread panics").append(back);
    }

    /// Up to a block's worth of emptied vectors into `out`.
    fn take(&self, out: &mut Vec<Buffers>) {
        let mut buffers = self.buffers.lock().expect("no thread panics");
        let keep = buffers.len().saturating_sub(BLOCK);
        out.extend(buffers.drain(keep..));
    }

    fn give_block(&self, block: Block) {
        self.blocks.lock().expect("no thread panics").push(block);
    }

    fn take_block(&self) -> Block {
        let block = self.blocks.lock().expect("no thread panics").pop();
        block.unwrap_or_else(|| Block {
            expanded: Vec::with_capacity(BLOCK),
            trees: Vec::with_capacity(BLOCK),
        })
    }
}

/// What the merging thread reads alone: the semantics, the engine's cache and the store.
pub(super) struct Readers<'a, 's, 'p> {
    pub(super) sem: &'a Semantics<'p>,
    pub(super) engine: &'a Engine<'s, 'p>,
    pub(super) store: &'a Store,
    pub(super) free: &'a Free,
}

/// What the threads of a shared chunk read: the semantics, and the engine's cache and the
/// store behind their gate, which the merge changes only in a pause (see `explore/gate.rs`).
pub(super) struct Gated<'a, 'e, 's, 'p> {
    pub(super) sem: &'a Semantics<'p>,
    pub(super) gate: &'a Gate<'e, 's, 'p>,
    pub(super) free: &'a Free,
}

/// The merge of a shared chunk: a source's expansion, when it was computed, and the merging
/// thread's access to the engine and the store (to read them, or to change them in a pause).
pub(super) trait Merge<'e, 's, 'p>: Send {
    fn merge(
        &mut self,
        s: u32,
        expanded: Expanded,
        when: When<'_>,
        reading: &mut Reading<'_, 'e, 's, 'p>,
    ) -> Flow;
}

impl<'e, 's, 'p, F> Merge<'e, 's, 'p> for F
where
    F: FnMut(u32, Expanded, When<'_>, &mut Reading<'_, 'e, 's, 'p>) -> Flow + Send,
{
    fn merge(
        &mut self,
        s: u32,
        expanded: Expanded,
        when: When<'_>,
        reading: &mut Reading<'_, 'e, 's, 'p>,
    ) -> Flow {
        self(s, expanded, when, reading)
    }
}

/// Expands the states of `range` on the workers and this thread, handing each expansion
/// to `merge` in frontier order as soon as it and every earlier one are done. The threads
/// take blocks in turn; one that takes the next block to merge while no other thread is
/// merging merges each of its states right after expanding it, as one thread does; the
/// others' blocks are merged by whichever thread finds them ready and the merge free. So no
/// thread waits while there is work. Returns, in order, those `merge` refused and all after
/// them (none once it said [`Flow::Stop`]).
pub(super) fn expand_in_order<'e, 's, 'p>(
    workers: &Workers,
    readers: &Gated<'_, 'e, 's, 'p>,
    range: Range<usize>,
    mut merge: impl Merge<'e, 's, 'p>,
) -> Vec<(u32, Expanded)> {
    let blocks = Blocks {
        size: block_size(range.len()),
        range,
        counter: AtomicUsize::new(0),
    };
    let mut order = InOrder::new(blocks.range.start, blocks.size);
    if alone(workers, blocks.range.len()) {
        alone_all(readers, blocks.range, &mut order, &mut merge);
        return order.leftovers;
    }
    let shared = Shared {
        done: Mutex::new((0..blocks.count()).map(|_| None).collect()),
        merging: Mutex::new((order, merge)),
        stopped: AtomicBool::new(false),
        blocks,
    };
    workers.pool.in_place_scope(|scope| {
        for _ in 0..workers.count {
            let shared = &shared;
            scope.spawn(move |_| shared.work(readers));
        }
        shared.work(readers);
    });
    let (order, _) = shared.merging.into_inner().expect("no thread panics");
    order.leftovers
}

/// What the threads of one chunk share: the blocks to take, the expanded blocks not merged
/// yet, and the merge, which one thread at a time holds.
struct Shared<F> {
    blocks: Blocks,
    /// Each block's expansions, from when it is expanded until it is merged.
    done: Mutex<Vec<Option<Block>>>,
    merging: Mutex<(InOrder, F)>,
    /// Set once the merge said stop: the blocks left are not expanded.
    stopped: AtomicBool,
}

impl<F> Shared<F> {
    /// One thread's part: merge what is ready if no other thread is merging, and expand the
    /// next block, each state merged right after it if every earlier block is merged (see
    /// [`Shared::front`]), else for whichever thread finds it ready. With no block left,
    /// merge what is ready, waiting for the merge if another thread holds it. Every block is
    /// merged: the last thread to take the merge at its end took it after every block was
    /// put in `done`.
    fn work<'e, 's, 'p>(&self, readers: &Gated<'_, 'e, 's, 'p>)
    where
        F: Merge<'e, 's, 'p>,
    {
        let reading = &mut Reading::new(readers.gate);
        while !self.stopped.load(Ordering::Relaxed) {
            if let Ok(mut merging) = self.merging.try_lock() {
                self.merge_ready(&mut merging, readers.free, reading);
                if self.front(&mut merging, readers, reading) {
                    continue;
                }
            }
            let Some((b, block)) = self.blocks.expand_next(readers, reading) else {
                break;
            };
            self.done.lock().expect("no thread panics")[b] = Some(block);
        }
        // Waiting for the merge, which may pause: without a guard.
        reading.leave();
        let mut merging = self.merging.lock().expect("no thread panics");
        self.merge_ready(&mut merging, readers.free, reading);
    }

    /// Takes the next block to merge if no thread has taken it, and merges each of its states
    /// right after expanding it, as one thread does (see `alone_all`): the states after it
    /// then find its new targets stored, and its transitions are merged from this thread's
    /// cache. Whether it took one.
    fn front<'e, 's, 'p>(
        &self,
        (order, merge): &mut (InOrder, F),
        readers: &Gated<'_, 'e, 's, 'p>,
        reading: &mut Reading<'_, 'e, 's, 'p>,
    ) -> bool
    where
        F: Merge<'e, 's, 'p>,
    {
        let Some(states) = self.blocks.take(order.next) else {
            return false;
        };
        order.next += 1;
        let mut buffers = Vec::with_capacity(BLOCK);
        readers.free.take(&mut buffers);
        for s in states {
            let room = buffers.pop().unwrap_or_default();
            let held = reading.get();
            let expanded = expand(readers.sem, held.engine, &held.store, s as u32, room);
            order.hand(s as u32, expanded, When::Right, merge, reading);
            if order.state == State::Stopped {
                self.stopped.store(true, Ordering::Relaxed);
                break;
            }
        }
        readers.free.give(&mut buffers);
        true
    }

    /// Hands every block ready in order to the merge.
    fn merge_ready<'e, 's, 'p>(
        &self,
        (order, merge): &mut (InOrder, F),
        free: &Free,
        reading: &mut Reading<'_, 'e, 's, 'p>,
    ) where
        F: Merge<'e, 's, 'p>,
    {
        while let Some(block) = self.next_ready(order.next) {
            order.arrive(block, merge, free, reading);
        }
        if order.state == State::Stopped {
            self.stopped.store(true, Ordering::Relaxed);
        }
    }

    /// Block `b`'s expansions, if it is done.
    fn next_ready(&self, b: usize) -> Option<Block> {
        let mut done = self.done.lock().expect("no thread panics");
        done.get_mut(b).and_then(Option::take)
    }
}

/// Whether a chunk of `states` states is expanded by the merging thread alone: with no
/// worker, or when the chunk is small (a narrow level of the state space: waking a worker
/// took longer than the few blocks it would take).
pub(super) fn alone(workers: &Workers, states: usize) -> bool {
    workers.count == 0 || states < ALONE_BELOW
}

/// What [`expand_in_order`] does with no worker: each state merged right after it is
/// expanded, not a block at a time. The states after it then find its new targets stored
/// (expanded before the block was merged, they did not: their ids were copied out and the
/// merge found them again by hashing them), and its transitions are merged while they are in
/// cache. The merge sees the same expansions in the same order, so the same numbers.
fn alone_all<'e, 's, 'p>(
    readers: &Gated<'_, 'e, 's, 'p>,
    range: Range<usize>,
    order: &mut InOrder,
    merge: &mut impl Merge<'e, 's, 'p>,
) {
    let reading = &mut Reading::new(readers.gate);
    let mut buffers = Vec::with_capacity(BLOCK);
    for s in range {
        if order.state == State::Stopped {
            break;
        }
        if buffers.is_empty() {
            readers.free.take(&mut buffers);
        }
        let room = buffers.pop().unwrap_or_default();
        let held = reading.get();
        let expanded = expand(readers.sem, held.engine, &held.store, s as u32, room);
        order.hand(s as u32, expanded, When::Right, merge, reading);
    }
    readers.free.give(&mut buffers);
}

/// Expands the states of `range` on this thread, each merged right after it is expanded,
/// until `merge` refuses one: that one with its expansion, for the caller to merge once it
/// may change what the workers read (fill the engine's cache), and go on after it. The
/// states after it are then expanded with what it filled, not before (every one of them
/// missed what it missed, and took the slower merge after the chunk: the bounded buffer's
/// new queue contents made nearly every state of `bench/check/buffer.pi` one of those).
/// `None`: every state merged, or `merge` said stop.
pub(super) fn expand_alone(
    readers: &Readers<'_, '_, '_>,
    range: Range<usize>,
    mut merge: impl FnMut(u32, Expanded) -> Flow,
) -> Option<(u32, Expanded)> {
    let (sem, engine, store) = (readers.sem, readers.engine, readers.store);
    let mut buffers = Vec::with_capacity(BLOCK);
    let mut refused = None;
    for s in range {
        if buffers.is_empty() {
            readers.free.take(&mut buffers);
        }
        let room = buffers.pop().unwrap_or_default();
        match merge(s as u32, expand(sem, engine, store, s as u32, room)) {
            Flow::Next => {}
            Flow::Stop => break,
            Flow::Refuse(expanded) => {
                refused = Some((s as u32, expanded));
                break;
            }
        }
    }
    readers.free.give(&mut buffers);
    refused
}

/// The states of a chunk, taken a block at a time in frontier order.
struct Blocks {
    range: Range<usize>,
    /// The states of a block ([`block_size`]).
    size: usize,
    counter: AtomicUsize,
}

impl Blocks {
    fn count(&self) -> usize {
        self.range.len().div_ceil(self.size)
    }

    /// The states of block `b`, if it is the next not taken yet (and taken now).
    fn take(&self, b: usize) -> Option<Range<usize>> {
        let start = self.range.start + b * self.size;
        if start >= self.range.end {
            return None;
        }
        let taken = self
            .counter
            .compare_exchange(b, b + 1, Ordering::Relaxed, Ordering::Relaxed);
        taken.ok()?;
        Some(start..(start + self.size).min(self.range.end))
    }

    /// Expands the next block not taken yet, if any: (its number, its expansions).
    fn expand_next(
        &self,
        readers: &Gated<'_, '_, '_, '_>,
        reading: &mut Reading<'_, '_, '_, '_>,
    ) -> Option<(usize, Block)> {
        let b = self.counter.fetch_add(1, Ordering::Relaxed);
        let start = self.range.start + b * self.size;
        if start >= self.range.end {
            return None;
        }
        let mut buffers = Vec::with_capacity(BLOCK);
        readers.free.take(&mut buffers);
        let states = start..(start + self.size).min(self.range.end);
        let mut block = readers.free.take_block();
        for (i, s) in states.enumerate() {
            // Between two states: the merge may be waiting to pause.
            reading.step_aside();
            let held = reading.get();
            let (engine, store) = (&*held.engine, &held.store);
            let room = buffers.pop().unwrap_or_default();
            block
                .expanded
                .push(expand(readers.sem, engine, store, s as u32, room));
            if block.trees.len() == i {
                block.trees.push(Default::default());
            }
            let (has, tree) = &mut block.trees[i];
            *has = crate::engine::copy_source(store, s as u32, tree);
        }
        Some((b, block))
    }
}

/// Where the merge is in a chunk.
struct InOrder {
    /// The next block to merge.
    next: usize,
    first_state: usize,
    /// The states of a block.
    size: usize,
    state: State,
    leftovers: Vec<(u32, Expanded)>,
}

#[derive(PartialEq)]
enum State {
    Merging,
    Refused,
    Stopped,
}

impl InOrder {
    fn new(first_state: usize, size: usize) -> Self {
        InOrder {
            next: 0,
            first_state,
            size,
            state: State::Merging,
            leftovers: Vec::new(),
        }
    }

    /// Block `next`, done: each of its states goes to `merge`, in order.
    fn arrive<'e, 's, 'p>(
        &mut self,
        mut block: Block,
        merge: &mut impl Merge<'e, 's, 'p>,
        free: &Free,
        reading: &mut Reading<'_, 'e, 's, 'p>,
    ) {
        let first = self.first_state + self.next * self.size;
        self.next += 1;
        let states = (first as u32..).zip(block.expanded.drain(..));
        for ((s, expanded), (has, tree)) in states.zip(block.trees.iter_mut()) {
            let when = When::Early(has.then_some(tree));
            self.hand(s, expanded, when, merge, reading);
        }
        free.give_block(block);
    }

    /// Hands the expansion of `s` to `merge`, saying whether it was expanded ahead of the
    /// merge, with its tree if so and the thread that expanded it read it (the merge swaps it
    /// with the tree it held, whose room comes back here).
    fn hand<'e, 's, 'p>(
        &mut self,
        s: u32,
        expanded: Expanded,
        when: When<'_>,
        merge: &mut impl Merge<'e, 's, 'p>,
        reading: &mut Reading<'_, 'e, 's, 'p>,
    ) {
        if self.state != State::Merging {
            if self.state == State::Refused {
                self.leftovers.push((s, expanded));
            }
            return;
        }
        match merge.merge(s, expanded, when, reading) {
            Flow::Next => {}
            Flow::Refuse(expanded) => {
                self.state = State::Refused;
                self.leftovers.push((s, expanded));
            }
            Flow::Stop => self.state = State::Stopped,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A full chunk is cut into blocks of [`BLOCK`] states, a narrower one into sixteen of at
    /// least [`MIN_BLOCK`]; the chunks expanded alone are those of fewer than four blocks of
    /// 32 (as before blocks grew), and every block but the last of a chunk is full.
    #[test]
    fn a_chunk_is_cut_into_blocks_of_128_states_when_wide() {
        assert_eq!(block_size(4096), 128);
        assert_eq!(block_size(2048), 128);
        assert_eq!(block_size(1024), 64);
        assert_eq!(block_size(100), 32);
        assert_eq!(ALONE_BELOW, 97);
        for len in [97, 100, 1000, 4095, 4096] {
            let blocks = Blocks {
                size: block_size(len),
                range: 10..10 + len,
                counter: AtomicUsize::new(0),
            };
            let taken: Vec<_> = (0..blocks.count()).filter_map(|b| blocks.take(b)).collect();
            let states: Vec<_> = taken.iter().flat_map(Clone::clone).collect();
            assert_eq!(states, (10..10 + len).collect::<Vec<_>>(), "{len} states");
            let short = taken.iter().filter(|r| r.len() < blocks.size).count();
            assert!(short <= 1 && taken.last().is_some(), "{len} states");
            assert!(blocks.count() >= 4, "{len} states");
        }
    }
}
