//! Progress on stderr for explorations longer than a second, only when stderr is a terminal.
//! Workers only bump counters; this one reporter thread reads and draws them.

use crate::output;
use agentpi_check::Progress;
use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Runs `work`, drawing a progress line for `name` while it runs (if `enabled`).
pub fn while_running<T: Send>(
    enabled: bool,
    name: &str,
    counters: &Progress,
    work: impl FnOnce() -> T + Send,
) -> T {
    if !enabled || !std::io::stderr().is_terminal() {
        return work();
    }
    let done = AtomicBool::new(false);
    std::thread::scope(|scope| {
        // A thread the system refuses only costs the progress line.
        let _ =
            std::thread::Builder::new().spawn_scoped(scope, || draw_until(&done, name, counters));
        let result = work();
        done.store(true, Ordering::Relaxed);
        result
    })
}

fn draw_until(done: &AtomicBool, name: &str, counters: &Progress) {
    let started = Instant::now();
    let mut drawn = false;
    while !done.load(Ordering::Relaxed) {
        std::thread::sleep(Duration::from_millis(100));
        let elapsed = started.elapsed().as_secs_f64();
        if elapsed < 1.0 {
            continue;
        }
        let states = counters.states.load(Ordering::Relaxed);
        let rate = states as f64 / elapsed;
        let depth = counters.depth.load(Ordering::Relaxed);
        output::stderr(&format!(
            "\r{name}: {states} states, {rate:.0} states/s, depth {depth}   "
        ));
        drawn = true;
    }
    if drawn {
        output::stderr("\r\x1b[2K");
    }
}
