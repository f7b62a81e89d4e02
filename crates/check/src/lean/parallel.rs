//! Work split over a few threads, with results in the order of the work, not of the threads:
//! what the liveness product and its search do on several threads does not depend on how many.

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

/// `work(0)`, ..., `work(count - 1)` on up to `threads` threads (the calling thread one of
/// them), each taking the next piece of work as it is free; the results in order. A thread
/// that cannot be started leaves its share to the others.
pub(crate) fn run<R: Send>(
    threads: usize,
    count: usize,
    work: impl Fn(usize) -> R + Sync,
) -> Vec<R> {
    let threads = resolve(threads);
    if threads <= 1 || count <= 1 {
        return (0..count).map(work).collect();
    }
    let next = AtomicUsize::new(0);
    let take = || {
        let mut done = Vec::new();
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            if i >= count {
                return done;
            }
            done.push((i, work(i)));
        }
    };
    let mut all = std::thread::scope(|scope| {
        let helpers: Vec<_> = (1..threads.min(count))
            .filter_map(|_| std::thread::Builder::new().spawn_scoped(scope, take).ok())
            .collect();
        let mut all = take();
        for helper in helpers {
            // A panic on a helper is a bug: it goes on here.
            all.extend(
                helper
                    .join()
                    .unwrap_or_else(|p| std::panic::resume_unwind(p)),
            );
        }
        all
    });
    all.sort_unstable_by_key(|&(i, _)| i);
    all.into_iter().map(|(_, r)| r).collect()
}

/// The threads meant by a count of `threads`: 0 is one per core (as for exploring).
pub(crate) fn resolve(threads: usize) -> usize {
    match threads {
        0 => std::thread::available_parallelism().map_or(1, usize::from),
        n => n,
    }
}

/// [`run`] with a job of its own for each piece of work (a part of an array to write, say),
/// taken by whichever thread does that piece.
pub(crate) fn each<T: Send, R: Send>(
    threads: usize,
    jobs: Vec<T>,
    work: impl Fn(T) -> R + Sync,
) -> Vec<R> {
    let slots: Vec<Mutex<Option<T>>> = jobs.into_iter().map(|j| Mutex::new(Some(j))).collect();
    run(threads, slots.len(), |i| {
        let job = slots[i].lock().unwrap_or_else(|p| p.into_inner()).take();
        work(job.expect("each job is taken once"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_come_in_the_order_of_the_work() {
        for threads in 1..4 {
            let squares = run(threads, 1000, |i| i * i);
            assert_eq!(squares, (0..1000).map(|i| i * i).collect::<Vec<_>>());
            let jobs: Vec<Vec<u32>> = (0..10).map(|i| vec![i; 3]).collect();
            let sums = each(threads, jobs, |j| j.iter().sum::<u32>());
            assert_eq!(sums, (0..10).map(|i| 3 * i).collect::<Vec<_>>());
        }
    }
}
