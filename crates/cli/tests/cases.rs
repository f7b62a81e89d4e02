//! Runs a test's independent cases a few at a time: they mostly wait on subprocesses (Python
//! and Node start-up, peers that sleep on purpose), so one after the other left the cores idle.

use std::sync::atomic::{AtomicUsize, Ordering};

/// How many cases run at once: enough to cover the waiting, few enough that a loaded machine
/// does not starve a peer past the deadlines the tests give it.
const AT_ONCE: usize = 4;

/// Calls `run` on every case, `AT_ONCE` at a time; a panicking case fails the test with its
/// own message (the first to panic, in the cases' order, is re-raised).
pub fn each_in_parallel<T: Sync>(cases: &[T], run: impl Fn(&T) + Sync) {
    let next = AtomicUsize::new(0);
    let worker = || {
        while let Some(case) = cases.get(next.fetch_add(1, Ordering::Relaxed)) {
            run(case);
        }
    };
    let panics: Vec<_> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..AT_ONCE).map(|_| scope.spawn(worker)).collect();
        workers.into_iter().filter_map(|w| w.join().err()).collect()
    });
    if let Some(panic) = panics.into_iter().next() {
        std::panic::resume_unwind(panic);
    }
}
