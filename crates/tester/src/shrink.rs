//! Shrinking a failing run: delta debugging (ddmin) over its client steps, each candidate
//! replayed against a fresh server. A candidate counts only if it still fails the same rule,
//! `agentpi trace check` of its trace reports that rule too (the saved trace must keep the
//! evidence: the `initialize` that set the version a batch broke, say), and every client
//! message in it is still one the protocol model allows (no finding against the client), so
//! the lifecycle and the requests a cancellation names stay in. A replay that waits for a
//! deadline or for the server's end costs the whole timeout: at most [`MAX_WAITING`] of them.

use crate::conn::Target;
use crate::run::Limits;
use crate::script::{self, Step};
use crate::verdict::Verdict;
use agentpi_monitor::Event;
use serde_json::{Map, Value};

/// The most replays one shrink spends.
pub const MAX_TRIES: usize = 20;

/// The most replays of one shrink that wait for a request's deadline or for the server to
/// end (each costs the timeout); candidates that would wait are skipped after that.
pub const MAX_WAITING: usize = 2;

/// A shrunk run: its verdict (whose trace is saved) and how many replays it took.
#[derive(Debug)]
pub struct Shrunk {
    pub verdict: Verdict,
    pub tries: usize,
}

struct Shrinker<'a> {
    target: &'a Target,
    limits: &'a Limits,
    header: &'a Map<String, Value>,
    rule: &'a str,
    tries: usize,
    waiting: usize,
    best: Option<Verdict>,
    /// The failing run opened with `initialize`, and sent `notifications/initialized`.
    initialize: bool,
    initialized: bool,
}

/// Shrinks `failing` (a run that fails `rule`) to few client steps; `None` when no replay
/// fails the rule again (a failure that depends on timing the replay did not meet).
pub fn shrink(
    target: &Target,
    limits: &Limits,
    header: &Map<String, Value>,
    failing: &Verdict,
    rule: &str,
) -> Option<Shrunk> {
    let first = failing.failure(rule)?;
    let mut s = Shrinker {
        target,
        limits,
        header,
        rule,
        tries: 0,
        waiting: 0,
        best: None,
        initialize: false,
        initialized: false,
    };
    let all = script::steps(&failing.events);
    s.initialize = all
        .iter()
        .any(|st| method(st).as_deref() == Some("initialize"));
    s.initialized = all
        .iter()
        .any(|st| method(st).as_deref() == Some("notifications/initialized"));
    // The likeliest minima first (the opening and listing with the request the finding is
    // about; then with the last two steps too), then the run cut at the failure, then the
    // whole run.
    let cut = &failing.events[..=first.index.min(failing.events.len() - 1)];
    let prefix = script::steps(cut);
    let subject = subject(&failing.events[first.index]);
    let candidates = [
        core(&prefix, subject.as_ref(), 0),
        core(&prefix, subject.as_ref(), 2),
        prefix.clone(),
        script::steps(&failing.events),
    ];
    let mut tried: Vec<Vec<Step>> = Vec::new();
    let mut found = None;
    for c in candidates {
        if !tried.contains(&c) && s.fails(&c) {
            found = Some(c);
            break;
        }
        tried.push(c);
    }
    let steps = found?;
    s.ddmin(steps);
    let tries = s.tries;
    s.best.map(|verdict| Shrunk { verdict, tries })
}

impl Shrinker<'_> {
    /// Replays `steps`; true (and remembered as the best so far) if the rule fails again
    /// with no finding against the client.
    fn fails(&mut self, steps: &[Step]) -> bool {
        let waits = steps
            .iter()
            .any(|s| matches!(s, Step::Await { .. } | Step::Closed));
        if self.tries >= MAX_TRIES
            || (waits && self.waiting >= MAX_WAITING)
            || !self.plausible(steps)
        {
            return false;
        }
        self.tries += 1;
        self.waiting += usize::from(waits);
        let Ok((events, report)) = script::replay(
            self.target,
            self.header.clone(),
            self.limits.clone(),
            steps,
            true,
        ) else {
            return false;
        };
        let verdict = Verdict::of(events, report);
        let ok = verdict.client.is_empty()
            && verdict.failure(self.rule).is_some()
            && crate::verdict::checked(&verdict.events, self.rule);
        if ok {
            self.best = Some(verdict);
        }
        ok
    }

    /// Whether `steps` can be a run whose client messages the model allows, so that a replay
    /// is worth its server's start: in a run that opened with `initialize`, every other
    /// message needs it before (L1), and every request but a ping needs
    /// `notifications/initialized` before (L6). A candidate that breaks this would stop at
    /// its first message as a fault of the client.
    fn plausible(&self, steps: &[Step]) -> bool {
        let mut opened = !self.initialize;
        let mut ready = !self.initialized;
        for step in steps {
            let Some(m) = message(step) else {
                continue;
            };
            match m.get("method").and_then(Value::as_str) {
                Some("initialize") => opened = true,
                Some("notifications/initialized") if opened => ready = true,
                Some("server/discover") => {}
                Some("ping") if opened => {}
                _ if !opened => return false,
                Some(_) if m.get("id").is_some() && !ready => return false,
                _ => {}
            }
        }
        true
    }

    /// Removes chunks of steps while the rule still fails (the complements of ddmin; a
    /// chunk alone rarely opens a session).
    fn ddmin(&mut self, mut steps: Vec<Step>) {
        let mut n = 2;
        while steps.len() >= 2 && self.tries < MAX_TRIES {
            let chunk = steps.len().div_ceil(n);
            let mut reduced = false;
            for start in (0..steps.len()).step_by(chunk) {
                let rest = without(&steps, start, (start + chunk).min(steps.len()));
                if self.fails(&rest) {
                    steps = rest;
                    n = (n - 1).max(2);
                    reduced = true;
                    break;
                }
            }
            if !reduced {
                if n >= steps.len() {
                    break;
                }
                n = (2 * n).min(steps.len());
            }
        }
    }
}

/// `steps` without those in `from..to`; the answers a removed step waited for are waited
/// for by the next step kept (so that what followed them still follows them).
fn without(steps: &[Step], from: usize, to: usize) -> Vec<Step> {
    let mut carried = Vec::new();
    let mut out = Vec::new();
    for (i, step) in steps.iter().enumerate() {
        let mut step = step.clone();
        if (from..to).contains(&i) {
            carried.extend(step.after_mut().map(std::mem::take).unwrap_or_default());
            continue;
        }
        if let Some(after) = step.after_mut() {
            after.splice(0..0, carried.drain(..));
        }
        out.push(step);
    }
    out
}

/// The request a finding is about: the id of the response it is at, or of the request
/// whose deadline passed.
fn subject(event: &Event) -> Option<Value> {
    if event.kind() == Some("deadline") {
        return event.fields.get("id").cloned();
    }
    let m: Value = serde_json::from_slice(&event.raw).ok()?;
    m.get("id").filter(|id| !id.is_null()).cloned()
}

/// The opening steps (initialize, initialized, discover), the tool listing (what the
/// judgments of calls rest on), every step about request `subject` (sending it, cancelling
/// it, waiting for it) and the last `last` sending steps: a guess at a minimal run.
fn core(steps: &[Step], subject: Option<&Value>, last: usize) -> Vec<Step> {
    let sends: Vec<usize> = (0..steps.len())
        .filter(|&i| matches!(steps[i], Step::Send { .. }))
        .collect();
    let tail = sends.len().saturating_sub(last);
    let lasts = &sends[tail..];
    let about = |s: &Step| {
        subject.is_some_and(|id| {
            sends_id(s, id)
                || names(s).as_ref() == Some(id)
                || matches!(s, Step::Await { id: a } | Step::Close { id: a, .. } | Step::Resume { id: a, .. } if a == id)
        })
    };
    let keep = |i: usize, s: &Step| {
        lasts.contains(&i) || opening(s) || about(s) || matches!(s, Step::Eof { .. } | Step::Closed)
    };
    let mut out = steps.to_vec();
    for i in (0..steps.len()).rev() {
        if !keep(i, &steps[i]) {
            out = without(&out, i, i + 1);
        }
    }
    out
}

fn message(step: &Step) -> Option<Value> {
    match step {
        Step::Send { raw, .. } => serde_json::from_slice(raw).ok(),
        _ => None,
    }
}

fn method(step: &Step) -> Option<String> {
    message(step)?.get("method")?.as_str().map(String::from)
}

fn opening(step: &Step) -> bool {
    let method = message(step).and_then(|m| m.get("method")?.as_str().map(String::from));
    matches!(
        method.as_deref(),
        Some("initialize" | "notifications/initialized" | "server/discover" | "tools/list")
    )
}

/// The request a cancellation names.
fn names(step: &Step) -> Option<Value> {
    message(step)?.pointer("/params/requestId").cloned()
}

fn sends_id(step: &Step, id: &Value) -> bool {
    message(step).is_some_and(|m| m.get("id") == Some(id) && m.get("method").is_some())
}

/// How many client messages a trace holds.
pub fn client_messages(events: &[Event]) -> usize {
    events
        .iter()
        .filter(|e| e.dir == agentpi_monitor::Dir::C2s)
        .count()
}
