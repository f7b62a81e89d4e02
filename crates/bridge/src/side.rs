//! One side of the bridge, monitored live with its era's checks: every message that crosses
//! it goes to a `Sessions` of the monitor exactly as `agentpi monitor` feeds them, and to
//! the side's trace (`--record DIR`: `DIR/legacy.jsonl`, `DIR/modern.jsonl`, the MONITOR.md
//! format). On the legacy side the bridge is the server (`s2c` is what it writes); on the
//! modern side it is the client (`c2s` is what it writes).
//!
//! A message is timed when it crosses but handed to the side's judge (`judge`: both sides'
//! monitors and traces on a thread of their own) later (`settle`), after the bridge has written
//! what it makes of it, as `agentpi monitor` relays first and checks on another thread: the
//! monitors are off the path of a request. Every other event settles what waits first, so
//! the monitor and the trace see everything in order, with the same times.

use crate::judge::Judge;
use agentpi_monitor::{Dir, Event, Report};
use serde_json::{Map, Value};
use std::fs::File;
use std::path::Path;
use std::time::Instant;

pub struct Side {
    pub name: &'static str,
    judge: Judge,
    start: Instant,
    /// The side is Streamable HTTP: its transport records each message with its exchange
    /// (`event`), so what the bridge hands `message` is not recorded twice.
    http: bool,
    /// Messages that crossed, timed, not yet judged nor recorded (`settle`).
    waiting: Vec<Event>,
}

impl Side {
    /// The legacy and the modern side, judged on one thread, recording to
    /// `DIR/legacy.jsonl` and `DIR/modern.jsonl` when `dir` is given.
    pub fn pair(dir: Option<&Path>, start: Instant) -> Result<(Side, Side), String> {
        const NAMES: [&str; 2] = ["legacy", "modern"];
        let record = |name: &str| match dir {
            None => Ok(None),
            Some(dir) => {
                let path = dir.join(format!("{name}.jsonl"));
                File::create(&path)
                    .map(Some)
                    .map_err(|e| format!("cannot write `{}`: {e}", path.display()))
            }
        };
        let records = [record(NAMES[0])?, record(NAMES[1])?];
        let [legacy, modern] = Judge::pair(NAMES, records)?;
        let side = |name, judge| Side {
            name,
            judge,
            start,
            http: false,
            waiting: Vec::new(),
        };
        Ok((side(NAMES[0], legacy), side(NAMES[1], modern)))
    }

    /// A message that crossed this side, `dir` as this side's monitor sees it: timed now,
    /// judged and recorded at the next `settle`.
    pub fn message(&mut self, dir: Dir, raw: &[u8]) {
        if self.http {
            return;
        }
        let event = Event::message(self.start.elapsed().as_secs_f64(), dir, raw);
        self.waiting.push(event);
    }

    /// The messages that crossed since the last time, handed to the judge, in order.
    pub fn settle(&mut self) {
        self.judge.send(std::mem::take(&mut self.waiting));
    }

    /// A process or stream event (`spawn`, `exit`, `eof`).
    pub fn process(&mut self, kind: &str, fields: Map<String, Value>) {
        let event = Event::process(self.start.elapsed().as_secs_f64(), kind, fields);
        self.waiting.push(event);
        self.settle();
    }

    /// From now on the side's transport records its messages itself (`event`), with their
    /// HTTP exchange.
    pub fn set_http(&mut self) {
        self.http = true;
    }

    /// Seconds since the bridge started, as the side's trace writes them.
    pub fn now(&self) -> f64 {
        (self.start.elapsed().as_secs_f64() * 1e6).round() / 1e6
    }

    /// An event of the side's transport (a message with its exchange, an `http` head, an
    /// `aborted` stream), recorded and monitored as it is.
    pub fn event(&mut self, event: &Event) {
        self.waiting.push(event.clone());
        self.settle();
    }

    /// The side's report once everything that crossed is judged, and whether its record is
    /// incomplete.
    pub fn finish(&mut self) -> (Report, bool) {
        self.settle();
        self.judge.finish()
    }
}
