//! The checker thread that both of `agentpi monitor`'s relays (stdio and Streamable HTTP)
//! feed: it steps the sessions (one over stdio; one per client behind an HTTP listener) on
//! each event the relay queued, says each violation as it is found, and draws the charts the
//! summary shows.

use super::Format;
use super::queue::{Batch, Queue, weight};
use crate::wire;
use agentpi_monitor::{Event, Sessions};
use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::Receiver;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How many events the checker steps between offers of its core to a relay thread. A
/// flood's batch is hundreds of events, milliseconds of checking; the scheduler lets a
/// running thread finish its slice before a woken one of higher priority takes the core, and
/// the relay's round trips waited for it (a flood's p99: up to 7 ms without the yield, about 3
/// with it).
const YIELD_EVERY: usize = 2;

/// The checker thread: feeds the session the batches of `events` (taking each off `queue`'s
/// budget once checked), writes a line per violation to standard error
/// with `say`; `dropped` counts the events the relay could not queue (the checker fell
/// behind). The chart of each violation is drawn when it is found, from a window of the last
/// events, so that a long session keeps no more than the window. `None` ends the session.
/// With `hurry` set (the session is over and the checker is still far behind: see
/// [`join`]), the events still queued are counted as unchecked rather than checked.
pub(super) fn check(
    events: Receiver<Batch>,
    queue: &Queue,
    dropped: &AtomicUsize,
    hurry: &AtomicBool,
    say: &dyn Fn(String),
) -> (agentpi_monitor::Report, Charts) {
    // The checker runs below the relay and the peers: the traffic never waits for the
    // checks, and on a machine a flood keeps busy the checker takes the CPU that is left;
    // when it falls too far behind, the report says how much went unchecked.
    agentpi_monitor::record::judge_thread();
    let mut checker = Checker {
        session: Sessions::new(),
        window: VecDeque::new(),
        first: 0,
        charts: Charts::new(),
    };
    let mut told = 0;
    while let Ok(Some(batch)) = events.recv() {
        told = checker.note_drops(dropped, told);
        let n = batch.len();
        let w = weight(&batch);
        for (i, event) in batch.into_iter().enumerate() {
            if hurry.load(Ordering::Relaxed) {
                checker.session.gap(n - i);
                break;
            }
            checker.feed(event, say);
            if i % YIELD_EVERY == YIELD_EVERY - 1 {
                std::thread::yield_now();
            }
        }
        queue.taken(w);
    }
    // Events dropped after the last batch: their requests' answers may be among them.
    if checker.note_drops(dropped, told) > 0 {
        // A drop is told when the next batch arrives, but happened after the batches queued
        // before it: the answers of requests in those batches may be among the lost events,
        // so no request the checker saw is claimed open (a flood's tail listed hundreds).
        checker.session.gap(0);
    }
    (checker.session.finish(), checker.charts)
}

/// Reads `--drain`: how long the checker may go on once the session is over (a flood can
/// leave it far behind, and the monitor must end soon after the server does).
pub(super) fn drain_seconds(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(s) if s.is_finite() && (0.0..=86_400.0).contains(&s) => Ok(s),
        _ => Err(format!(
            "`{text}` is not a number of seconds from 0 to 86400"
        )),
    }
}

/// Waits for the checker thread, which has been told the session is over: for at most
/// `drain` seconds, then it is hurried (what it has not checked yet is reported unchecked).
pub(super) fn join(
    checker: JoinHandle<(agentpi_monitor::Report, Charts)>,
    hurry: &AtomicBool,
    drain: f64,
) -> Option<(agentpi_monitor::Report, Charts)> {
    let deadline = Instant::now() + Duration::from_secs_f64(drain);
    while !checker.is_finished() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(5));
    }
    hurry.store(true, Ordering::Relaxed);
    checker.join().ok()
}

/// The sessions, and the last events for the charts (`first`: the index of the window's
/// first event).
struct Checker {
    session: Sessions,
    window: VecDeque<Event>,
    first: usize,
    charts: Charts,
}

impl Checker {
    /// Tells the session about events the relay dropped since `told` of them were told;
    /// returns how many are told now.
    fn note_drops(&mut self, dropped: &AtomicUsize, told: usize) -> usize {
        let lost = dropped.load(Ordering::Relaxed);
        if lost > told {
            self.session.gap(lost - told);
            self.first += lost - told;
        }
        lost.max(told)
    }

    /// Checks one event; draws a chart for each violation it shows.
    fn feed(&mut self, event: Event, say: &dyn Fn(String)) {
        if self.window.len() == WINDOW {
            self.window.pop_front();
            self.first += 1;
        }
        self.window.push_back(event);
        let Some(event) = self.window.back() else {
            return;
        };
        let found = self.session.feed(event);
        if found.is_empty() {
            return;
        }
        let events: Vec<Event> = self.window.iter().cloned().collect();
        for f in found {
            let (v, session) = (f.violation, f.session.as_deref());
            say(wire::line(&v, session) + "\n");
            let keep = |e: &Event| session.is_none() || self.session.session_of(e) == session;
            let chart = wire::chart_of_session(&events, self.first, v.index, session, &keep);
            self.charts.insert(v.index, chart);
        }
    }
}

pub(super) type Charts = HashMap<usize, String>;
/// Events kept for the charts.
const WINDOW: usize = 128;

/// The summary written to standard error at the end.
pub(super) fn summary(format: Format, report: &agentpi_monitor::Report, charts: &Charts) -> String {
    match format {
        Format::Json => report.to_json().to_string() + "\n",
        Format::Text => {
            let chart_of = |i: usize| charts.get(&i).cloned().unwrap_or_default();
            wire::text("agentpi monitor", report, &chart_of)
        }
    }
}
