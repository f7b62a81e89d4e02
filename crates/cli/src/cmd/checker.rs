//! The checker thread that both of `agentpi monitor`'s relays (stdio and Streamable HTTP)
//! feed: it steps the session on each event the relay queued, says each violation as it is
//! found, and draws the charts the summary shows.

use super::Format;
use crate::wire;
use agentpi_monitor::{Event, Session};
use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::Receiver;

/// Events the checker may lag behind before the relay stops waiting for it.
pub(super) const QUEUE: usize = 4096;

/// The checker thread: feeds the session, writes a line per violation to standard error
/// with `say`; `dropped` counts the events the relay could not queue (the checker fell
/// behind). The chart of each violation is drawn when it is found, from a window of the last
/// events, so that a long session keeps no more than the window. `None` ends the session.
pub(super) fn check(
    events: Receiver<Option<Event>>,
    dropped: &AtomicUsize,
    say: &dyn Fn(String),
) -> (agentpi_monitor::Report, Charts) {
    // Load both models now, while the server starts, rather than when the era is known and
    // messages are already queueing.
    let _ = agentpi_monitor::model::legacy();
    let _ = agentpi_monitor::model::modern();
    let mut session = Session::new();
    let mut window: VecDeque<Event> = VecDeque::new();
    let mut first = 0;
    let mut charts = Charts::new();
    let mut told = 0;
    while let Ok(Some(event)) = events.recv() {
        let lost = dropped.load(Ordering::Relaxed);
        if lost > told {
            session.gap(lost - told);
            first += lost - told;
            told = lost;
        }
        if window.len() == WINDOW {
            window.pop_front();
            first += 1;
        }
        window.push_back(event);
        let Some(event) = window.back() else { continue };
        let found = session.feed(event);
        if !found.is_empty() {
            let events: Vec<Event> = window.iter().cloned().collect();
            for v in found {
                say(wire::line(&v) + "\n");
                charts.insert(v.index, wire::chart(&events, first, v.index));
            }
        }
    }
    (session.finish(), charts)
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
