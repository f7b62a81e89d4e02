//! The worker threads of one process: timely's `execute_from`, but each thread with the
//! CLI's stack (timely's own are the platform's default, 2 MiB, and the semantics recurse
//! as deeply as the CLI's 16 MiB allow: `docs/limits.md`).

use std::any::Any;
use std::sync::Arc;
use timely::communication::allocator::{Allocator, AllocatorBuilder, Thread};
use timely::worker::Worker;

/// A worker's result, or what it panicked with.
pub type Joined<T> = Result<T, Box<dyn Any + Send>>;

/// Each worker thread's stack: the CLI's (`agentpi_cli::STACK_BYTES`).
pub const STACK: usize = 16 * 1024 * 1024;

/// Runs `run` on a worker for each of `builders`, each on its own thread, and waits for
/// all; then ends the network threads (`network`), which panics when one of them did (a
/// connection broke). Each worker's result, or what it panicked with.
pub fn execute<T, F>(
    builders: Vec<AllocatorBuilder>,
    network: Box<dyn Any + Send>,
    config: timely::WorkerConfig,
    run: F,
) -> Result<Vec<Joined<T>>, String>
where
    T: Send + 'static,
    F: Fn(&mut Worker) -> T + Send + Sync + 'static,
{
    let run = Arc::new(run);
    let mut threads = Vec::new();
    for (index, builder) in builders.into_iter().enumerate() {
        let (run, config) = (run.clone(), config.clone());
        let thread = std::thread::Builder::new()
            .name(format!("cluster-worker-{index}"))
            .stack_size(STACK)
            .spawn(move || {
                let mut worker =
                    Worker::new(config, build(builder), Some(std::time::Instant::now()));
                let result = run(&mut worker);
                while worker.has_dataflows() {
                    worker.step_or_park(None);
                }
                result
            })
            .map_err(|e| format!("cannot start a worker thread with a {STACK}-byte stack: {e}"))?;
        threads.push(thread);
    }
    let results = threads.into_iter().map(|t| t.join()).collect();
    drop(network);
    Ok(results)
}

/// The allocator a builder makes (timely's `build` is its own crate's).
fn build(builder: AllocatorBuilder) -> Allocator {
    match builder {
        AllocatorBuilder::Thread(_) => Allocator::Thread(Thread::default()),
        AllocatorBuilder::Process(p) => Allocator::Process(p.build()),
        AllocatorBuilder::Tcp(t) => Allocator::Tcp(t.build()),
    }
}
