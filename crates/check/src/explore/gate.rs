//! The engine's cache and the store of a shared chunk, read by every thread and changed by the
//! merge in a pause: the other threads step aside between two states, the merge changes them
//! alone, and everyone goes on, so that a source the merge cannot take alongside the readers
//! (its expansion missed the cache) costs a pause, not the rest of its chunk.
//!
//! A pause must be cheap: a model of queues pauses every 200 sources or so. So a thread
//! holds its read guard from state to state and lets go only when a pause is asked for (a
//! flag it reads between two states), and nobody sleeps: the merge asks for the write guard
//! with `try_write` until it has it, the others wait for the flag to fall before taking
//! their read guard again with `try_read`. A thread blocks on nothing while it holds a read
//! guard (it lets go before waiting for the merge), so the pausing thread always gets in.

use crate::engine::Engine;
use crate::store::Store;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{RwLock, RwLockReadGuard, TryLockError};

/// What the threads read and the merge changes in a pause.
pub(super) struct Held<'e, 's, 'p> {
    pub(super) engine: &'e mut Engine<'s, 'p>,
    pub(super) store: Store,
}

/// [`Held`] behind its lock, with the flag that asks the readers to step aside.
pub(super) struct Gate<'e, 's, 'p> {
    lock: RwLock<Held<'e, 's, 'p>>,
    pause: AtomicBool,
}

impl<'e, 's, 'p> Gate<'e, 's, 'p> {
    pub(super) fn new(held: Held<'e, 's, 'p>) -> Self {
        Gate {
            lock: RwLock::new(held),
            pause: AtomicBool::new(false),
        }
    }

    pub(super) fn into_inner(self) -> Held<'e, 's, 'p> {
        self.lock.into_inner().expect("no thread panics")
    }

    /// A read guard, once no pause is asked for or under way.
    fn enter(&self) -> RwLockReadGuard<'_, Held<'e, 's, 'p>> {
        let mut spins = 0u32;
        loop {
            if !self.pause.load(Ordering::Acquire) {
                match self.lock.try_read() {
                    Ok(guard) => return guard,
                    Err(TryLockError::WouldBlock) => {}
                    Err(TryLockError::Poisoned(_)) => panic!("no thread panics"),
                }
            }
            wait(&mut spins);
        }
    }
}

/// Spins a while, then lets other threads run (more threads than cores).
fn wait(spins: &mut u32) {
    *spins += 1;
    match *spins < 256 {
        true => std::hint::spin_loop(),
        false => std::thread::yield_now(),
    }
}

/// One thread's access to a [`Gate`]: its read guard, kept from state to state.
pub(super) struct Reading<'g, 'e, 's, 'p> {
    gate: &'g Gate<'e, 's, 'p>,
    guard: Option<RwLockReadGuard<'g, Held<'e, 's, 'p>>>,
}

impl<'g, 'e, 's, 'p> Reading<'g, 'e, 's, 'p> {
    pub(super) fn new(gate: &'g Gate<'e, 's, 'p>) -> Self {
        Reading { gate, guard: None }
    }

    /// The engine and the store, read under this thread's guard (taken now if it let go).
    pub(super) fn get(&mut self) -> &Held<'e, 's, 'p> {
        if self.guard.is_none() {
            self.guard = Some(self.gate.enter());
        }
        self.guard.as_deref().expect("just taken")
    }

    /// Lets go of the guard if a pause is asked for: called between two states.
    pub(super) fn step_aside(&mut self) {
        if self.gate.pause.load(Ordering::Relaxed) {
            self.guard = None;
        }
    }

    /// Lets go of the guard: before waiting for anything another thread holds.
    pub(super) fn leave(&mut self) {
        self.guard = None;
    }

    /// Runs `f` with the engine and the store this thread's alone: asks the others to step
    /// aside and waits until they have.
    pub(super) fn pause<R>(&mut self, f: impl FnOnce(&mut Held<'e, 's, 'p>) -> R) -> R {
        self.guard = None;
        self.gate.pause.store(true, Ordering::Relaxed);
        let mut spins = 0u32;
        let mut held = loop {
            match self.gate.lock.try_write() {
                Ok(held) => break held,
                Err(TryLockError::WouldBlock) => wait(&mut spins),
                Err(TryLockError::Poisoned(_)) => panic!("no thread panics"),
            }
        };
        let out = f(&mut held);
        drop(held);
        self.gate.pause.store(false, Ordering::Release);
        out
    }
}
