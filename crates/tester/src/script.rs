//! A run's client side read back from its trace, and replayed against a fresh server: each
//! client message is sent once the answers that came before it in the recording have come
//! (or their deadlines passed) and at least as long after the previous message as it was
//! then. Shrinking replays subsets of a failing run; `--replay FILE` replays a saved one.

use crate::conn::{CLOSE_REASON, DROP_REASON, Target};
use crate::run::{Limits, Run};
use agentpi_mcp::transport::ClientError;
use agentpi_monitor::{Dir, Event, Report};
use serde_json::{Map, Value};
use std::collections::{HashMap, HashSet};
use std::time::{Duration, Instant};

/// One client step of a recorded run.
#[derive(Clone, Debug, PartialEq)]
pub enum Step {
    /// A client message, sent `gap` seconds after the previous step at the earliest, once
    /// the requests in `after` were answered.
    Send {
        raw: Vec<u8>,
        after: Vec<Value>,
        gap: f64,
        /// The foreign `Origin` it was sent with (the H7 probe).
        origin: Option<String>,
    },
    /// The client waited for request `id` until its deadline, then cancelled it.
    Await { id: Value },
    /// The server ended (its output closed) while the client waited: a replay waits for
    /// that too, until the timeout.
    Closed,
    /// The client closed the server's input (the run's end), `gap` after the previous step.
    Eof { after: Vec<Value>, gap: f64 },
    /// The client closed request `id`'s HTTP stream (its cancellation over modern Streamable
    /// HTTP), as [`Step::Send`] times a message.
    Close {
        id: Value,
        after: Vec<Value>,
        gap: f64,
    },
    /// The client resumed request `id`'s dropped stream with `Last-Event-ID` (legacy
    /// Streamable HTTP); a replay names the last event its own run got on that stream.
    Resume {
        id: Value,
        after: Vec<Value>,
        gap: f64,
    },
}

impl Step {
    /// The answers this step waits for before it is taken, if it waits for any.
    pub fn after_mut(&mut self) -> Option<&mut Vec<Value>> {
        match self {
            Step::Send { after, .. }
            | Step::Eof { after, .. }
            | Step::Close { after, .. }
            | Step::Resume { after, .. } => Some(after),
            Step::Await { .. } | Step::Closed => None,
        }
    }
}

/// The client steps of a trace. Answers to server requests are left out (a replay answers
/// what its server asks), and a cancellation the client sent because a deadline passed is
/// the wait it ended.
pub fn steps(events: &[Event]) -> Vec<Step> {
    let mut out = Vec::new();
    let mut answered = Vec::new();
    let mut asked: HashSet<String> = HashSet::new();
    let mut last_t = None;
    let mut expired: Option<Value> = None;
    // The request each HTTP exchange carried (a close names the exchange), and the
    // exchange of each SSE event id (a resumption names the event).
    let mut carried: HashMap<u64, Value> = HashMap::new();
    let mut sse: HashMap<String, u64> = HashMap::new();
    for e in events {
        let t = e.t.unwrap_or(0.0);
        let gap = last_t.map_or(0.0, |l: f64| (t - l).max(0.0));
        note_sse(e, &mut sse);
        if let Some(id) = resumed(e, &sse, &carried) {
            let after = std::mem::take(&mut answered);
            out.push(Step::Resume { id, after, gap });
            last_t = Some(t);
            continue;
        }
        if let Some(id) = closed(e, &carried) {
            // A close at a deadline is part of the wait it ended.
            if expired.as_ref() != Some(&id) {
                let after = std::mem::take(&mut answered);
                out.push(Step::Close { id, after, gap });
                last_t = Some(t);
            }
            continue;
        }
        if e.kind() == Some("deadline") {
            if let Some(id) = e.fields.get("id") {
                out.push(Step::Await { id: id.clone() });
                expired = Some(id.clone());
            }
            continue;
        }
        let side = e.fields.get("side").and_then(Value::as_str);
        if e.kind() == Some("eof") && side == Some("server") {
            out.push(Step::Closed);
            continue;
        }
        if e.kind() == Some("eof") && side == Some("client") {
            out.push(Step::Eof {
                after: std::mem::take(&mut answered),
                gap,
            });
            break;
        }
        let Some(m) = serde_json::from_slice::<Value>(&e.raw)
            .ok()
            .filter(|_| e.is_message())
        else {
            if e.dir == Dir::C2s {
                out.push(send(e, &mut answered, gap));
                last_t = Some(t);
            }
            continue;
        };
        let id = m.get("id").filter(|i| !i.is_null()).cloned();
        // A client's answer to a server request (a replay answers its own server).
        let is_response = m.is_object()
            && m.get("method").is_none()
            && (m.get("result").is_some() || m.get("error").is_some());
        match (e.dir, is_response) {
            (Dir::S2c, _) if m.get("method").is_none() => {
                if let Some(id) = id.filter(|i| asked.contains(&i.to_string())) {
                    answered.push(id);
                }
            }
            (Dir::C2s, false) => {
                if is_deadline_cancel(&m, expired.as_ref()) {
                    expired = None;
                    continue;
                }
                if let Some(id) = &id {
                    asked.insert(id.to_string());
                    carried.extend(e.exchange().map(|k| (k, id.clone())));
                }
                out.push(send(e, &mut answered, gap));
                last_t = Some(t);
            }
            _ => {}
        }
    }
    out
}

fn send(e: &Event, answered: &mut Vec<Value>, gap: f64) -> Step {
    let origin = e.fields.get("origin").and_then(Value::as_str);
    Step::Send {
        raw: e.raw.clone(),
        after: std::mem::take(answered),
        gap,
        origin: origin.map(String::from),
    }
}

/// The request whose stream the client chose to close at `e` (an `aborted` event of the
/// client's, with the reason of a cancellation or a drop, not of a bound that passed).
fn closed(e: &Event, carried: &HashMap<u64, Value>) -> Option<Value> {
    let reason = e.fields.get("reason").and_then(Value::as_str);
    let chosen = e.client_closed() && (reason == Some(CLOSE_REASON) || reason == Some(DROP_REASON));
    chosen.then(|| e.exchange().and_then(|k| carried.get(&k).cloned()))?
}

/// Remembers the exchange of a server message's SSE event id.
fn note_sse(e: &Event, sse: &mut HashMap<String, u64>) {
    let id = e.fields.get("sse_id").and_then(Value::as_str);
    if let (Dir::S2c, Some(id), Some(k)) = (e.dir, id, e.exchange()) {
        sse.insert(id.to_string(), k);
    }
}

/// The request whose stream the response head `e` resumed: a GET with `Last-Event-ID`
/// naming an event of that request's exchange.
fn resumed(e: &Event, sse: &HashMap<String, u64>, carried: &HashMap<u64, Value>) -> Option<Value> {
    if e.kind() != Some("http") || e.fields.get("method").and_then(Value::as_str) != Some("GET") {
        return None;
    }
    let last = agentpi_monitor::http::request_header(e, "last-event-id")?;
    carried.get(sse.get(last)?).cloned()
}

fn is_deadline_cancel(m: &Value, expired: Option<&Value>) -> bool {
    m.get("method").and_then(Value::as_str) == Some("notifications/cancelled")
        && expired.is_some_and(|id| m.pointer("/params/requestId") == Some(id))
}

/// Replays `steps` against a fresh server; the new trace and the monitor's report.
/// `stop_on_client_fault`: give up at the first finding against the client (shrinking).
pub fn replay(
    target: &Target,
    header: Map<String, Value>,
    limits: Limits,
    steps: &[Step],
    stop_on_client_fault: bool,
) -> Result<(Vec<Event>, Report), ClientError> {
    let mut run = Run::start(target, header, limits)?;
    run.stop_on_client_fault = stop_on_client_fault;
    let mut last = Instant::now();
    let mut abrupt = false;
    for step in steps {
        if run.faulted {
            break;
        }
        match step {
            Step::Send {
                raw,
                after,
                gap,
                origin,
            } => {
                wait(&mut run, after, last, *gap);
                run.send_from(raw, origin.as_deref());
                last = Instant::now();
            }
            Step::Await { id } => run.await_answer(id),
            Step::Closed => {
                let until = Instant::now() + run.limits.timeout;
                run.until(until, &|r| r.closed);
            }
            Step::Close { id, after, gap } => {
                wait(&mut run, after, last, *gap);
                run.close(id);
                last = Instant::now();
            }
            Step::Resume { id, after, gap } => {
                wait(&mut run, after, last, *gap);
                run.resume(id);
                last = Instant::now();
            }
            Step::Eof { after, gap } => {
                wait(&mut run, after, last, *gap);
                abrupt = true;
                break;
            }
        }
    }
    Ok(run.end(abrupt))
}

/// Waits for the answers `after` (each until its deadline) and until `gap` after `last`.
fn wait(run: &mut Run, after: &[Value], last: Instant, gap: f64) {
    for id in after {
        run.await_answer(id);
    }
    let until = last + Duration::from_secs_f64(gap.min(3600.0));
    run.until(until, &|_| false);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A recorded run of the Python SDK server over modern HTTP: three slow calls whose
    /// streams the client closed (its cancellations): right after sending, after the first
    /// progress, when the answer was due.
    const CLOSED: &[u8] = include_bytes!("../../../tests/tester/http_close_cancel.jsonl");

    #[test]
    fn a_chosen_close_is_a_step_of_its_own() {
        let events = agentpi_monitor::trace::parse(CLOSED).unwrap();
        let closes: Vec<Value> = steps(&events)
            .into_iter()
            .filter_map(|s| match s {
                Step::Close { id, .. } => Some(id),
                _ => None,
            })
            .collect();
        assert_eq!(closes, [Value::from(5), Value::from(6), Value::from(7)]);
    }

    /// A legacy dropped stream and its resumption are steps of their own, about the call.
    #[test]
    fn a_drop_and_its_resumption_are_steps() {
        let bytes = include_bytes!("../../../tests/tester/http_drop_resumed.jsonl");
        let events = agentpi_monitor::trace::parse(bytes).unwrap();
        let about: Vec<(&str, Value)> = steps(&events)
            .into_iter()
            .filter_map(|s| match s {
                Step::Close { id, .. } => Some(("close", id)),
                Step::Resume { id, .. } => Some(("resume", id)),
                _ => None,
            })
            .collect();
        assert_eq!(
            about,
            [("close", Value::from(9)), ("resume", Value::from(9))]
        );
    }
}
