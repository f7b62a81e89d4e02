//! The model-guided client of one run. Each move is sent only when the protocol model of the
//! era (through the monitor's `Session::allowed`) takes it from the client without a
//! violation; the choices are the seeded generator's. What the walk learns (cursors, the
//! results it waited for) comes only from answers it waited for, so that a seed gives the
//! same client messages whatever the server's timing.

use crate::label;
use crate::moves::{Move, Speech};
use crate::rng::Rng;
use crate::run::Run;
use agentpi_monitor::session::Era;
use serde_json::Value;
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

/// The most pages read of one list (a server whose cursors never end).
const MAX_PAGES: usize = 50;

/// The most retries of one request that keeps answering input-required.
const MAX_ROUNDS: u32 = 3;

/// What the client waits for after a move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wait {
    /// The answer (until the request's deadline).
    Answer,
    /// Nothing: the request stays in flight.
    No,
    /// The first progress notification, a listen's acknowledgement, or the answer, at most
    /// this long.
    Progress(Duration),
    /// This long, whatever comes (a close timed to race the answer).
    For(Duration),
}

/// The walk of one run.
pub struct Walk {
    pub run: Run,
    pub rng: Rng,
    pub speech: Speech,
    next_id: u64,
    /// The next cursor of each list, from the last page waited for.
    cursors: BTreeMap<&'static str, String>,
    /// Requests whose answer the walk waited for, with their results (`None`: an error).
    pub awaited: Vec<(u64, &'static str, Option<Value>)>,
    /// Moves the model did not allow when they came up.
    pub refused: Vec<String>,
    /// The capabilities the server declared in this run.
    pub capabilities: Value,
    /// The malformed frames sent (each kind at most once a run: a null id twice would be
    /// the client reusing an id).
    pub malformed: Vec<crate::moves::Malformed>,
    /// A ping went unanswered: later moves show the server alive by other requests (each
    /// unanswered ping costs its deadline, and L13 has failed already).
    pub pings_ignored: bool,
    /// The `Origin` header of the next message (the H7 probe), if any.
    origin: Option<&'static str>,
}

impl Walk {
    pub fn new(run: Run, rng: Rng, speech: Speech) -> Walk {
        Walk {
            run,
            rng,
            speech,
            next_id: 0,
            cursors: BTreeMap::new(),
            awaited: Vec::new(),
            refused: Vec::new(),
            capabilities: Value::Null,
            malformed: Vec::new(),
            pings_ignored: false,
            origin: None,
        }
    }

    /// Sends `mv` if the model allows it, then waits as asked; the request id, if any.
    pub fn go(&mut self, mv: Move, wait: Wait) -> Option<u64> {
        if self.run.closed {
            return None;
        }
        let opening = self.run.era() == Era::Unknown;
        let offers = if opening {
            Vec::new()
        } else {
            label::offers(&self.run.allowed())
        };
        let opener = opening && self.speech.modern && mv.method().is_some();
        if !opener && !mv.permitted(&offers, &self.speech, opening) {
            self.refused.push(format!("{mv:?}"));
            return None;
        }
        if let Move::Cancel { id } = mv
            && mv.closes(&self.speech)
        {
            self.close(id);
            return None;
        }
        let id = mv.method().map(|_| {
            self.next_id += 1;
            self.next_id
        });
        // A malformed frame's own ids are numbered after the requests' (never reused).
        let n = id.unwrap_or(self.next_id + 1000);
        if let Move::Malformed(kind) = &mv {
            let kind = *kind;
            self.malformed.push(kind);
        }
        self.run
            .send_from(&mv.message(n, &self.speech), self.origin.take());
        if let Some(id) = id {
            self.wait(id, &mv, wait);
            if wait == Wait::Answer {
                self.give_input(id, &mv);
            }
        }
        id
    }

    /// Retries request `id` when its answer was an input-required result (modern): a client
    /// that declared sampling and elicitation answers what the server asked and echoes its
    /// state (M12), for at most [`MAX_ROUNDS`] rounds. Nothing is retried when the server
    /// asked for what the tester cannot answer (M11 fails it).
    fn give_input(&mut self, id: u64, mv: &Move) {
        let Some(result) = self.result_for(id).filter(|_| self.speech.modern) else {
            return;
        };
        if result.get("resultType").and_then(Value::as_str) != Some("input_required") {
            return;
        }
        let (of, round) = match mv {
            Move::Retry { of, round, .. } => (of.clone(), round + 1),
            other => (Box::new(other.clone()), 1),
        };
        let responses = crate::moves::input_responses(result.get("inputRequests"));
        let (Some(responses), true) = (responses, round <= MAX_ROUNDS) else {
            return;
        };
        let state = result.get("requestState").cloned();
        let retry = Move::Retry {
            of,
            responses,
            state,
            round,
        };
        self.go(retry, Wait::Answer);
    }

    /// Cancels request `id` over modern Streamable HTTP by closing its stream; a stream
    /// already ended (the answer came whole) has nothing to close.
    fn close(&mut self, id: u64) {
        if !self.run.close(&Value::from(id)) {
            self.refused
                .push(format!("close of the ended stream of request {id}"));
        }
    }

    /// Drops the SSE stream of request `id` (legacy Streamable HTTP, where a dropped stream
    /// is no cancellation, C6) and resumes it with `Last-Event-ID`, as a client that lost its
    /// connection does; whether both were made (a stream already ended has nothing to drop;
    /// events without ids cannot be resumed).
    pub fn drop_and_resume(&mut self, id: u64) -> bool {
        let id = Value::from(id);
        if !self.run.close(&id) {
            self.refused
                .push(format!("drop of the ended stream of request {id}"));
            return false;
        }
        self.run.resume(&id)
    }

    /// [`Walk::go`] with a foreign `Origin` header (the H7 probe; over stdio a plain move).
    pub fn go_foreign(&mut self, mv: Move, wait: Wait) -> Option<u64> {
        self.origin = Some(crate::moves::FOREIGN_ORIGIN);
        let id = self.go(mv, wait);
        self.origin = None;
        id
    }

    fn wait(&mut self, id: u64, mv: &Move, wait: Wait) {
        let key = id.to_string();
        match wait {
            Wait::No => {}
            Wait::For(d) => self.run.settle(d),
            Wait::Progress(most) => {
                let seen = |run: &Run| {
                    run.requests
                        .get(&key)
                        .is_some_and(|s| s.progress > 0 || s.acknowledged || s.answer.is_some())
                };
                self.run.until(Instant::now() + most, &seen);
            }
            Wait::Answer => {
                self.run.await_answer(&Value::from(id));
                if mv == &Move::Ping
                    && self
                        .run
                        .requests
                        .get(&key)
                        .is_some_and(|s| s.answer.is_none())
                {
                    self.pings_ignored = true;
                }
                let answer = self.run.requests.get(&key).and_then(|s| s.answer.clone());
                if let (Some(answer), Some(method)) = (answer, mv.method()) {
                    self.answered(id, mv, method, &answer);
                }
            }
        }
    }

    fn answered(&mut self, id: u64, mv: &Move, method: &'static str, answer: &Value) {
        let result = answer.get("result").cloned();
        if let (Move::List { method: list, .. }, Some(result)) = (mv, &result) {
            match result.get("nextCursor").and_then(Value::as_str) {
                Some(next) => self.cursors.insert(list, next.to_string()),
                None => self.cursors.remove(list),
            };
        }
        if matches!(mv, Move::Initialize { .. } | Move::Discover)
            && let Some(caps) = result.as_ref().and_then(|r| r.get("capabilities"))
        {
            self.capabilities = caps.clone();
        }
        self.awaited.push((id, method, result));
    }

    /// The result of awaited request `id`, if it succeeded.
    pub fn result_for(&self, id: u64) -> Option<&Value> {
        let awaited = self.awaited.iter().rev().find(|(i, _, _)| *i == id);
        awaited.and_then(|(_, _, r)| r.as_ref())
    }

    /// The result of the latest awaited request of `method`, if it succeeded.
    pub fn result_of(&self, method: &str) -> Option<&Value> {
        self.awaited
            .iter()
            .rev()
            .find(|(_, m, _)| *m == method)
            .and_then(|(_, _, r)| r.as_ref())
    }

    /// Reads every page of `method`, stopping at a cursor seen before; the items under
    /// `key` of every page.
    pub fn list_all(&mut self, method: &'static str, key: &str) -> Vec<Value> {
        let mut items = Vec::new();
        let mut seen = Vec::new();
        let mut cursor = None;
        for _ in 0..MAX_PAGES {
            self.cursors.remove(method);
            let Some(id) = self.go(Move::List { method, cursor }, Wait::Answer) else {
                break;
            };
            if let Some(result) = self.result_for(id) {
                let got = result.get(key).and_then(Value::as_array);
                items.extend(got.into_iter().flatten().cloned());
            }
            match self.cursors.get(method) {
                Some(next) if !seen.contains(next) => {
                    seen.push(next.clone());
                    cursor = Some(next.clone());
                }
                _ => break,
            }
        }
        items
    }

    /// Whether the server declared capability `name` in this run.
    pub fn declared(&self, name: &str) -> bool {
        self.capabilities
            .get(name)
            .is_some_and(|v| !v.is_null() && *v != Value::Bool(false))
    }

    /// Ids of requests answered while the walk waited (a late cancellation names one);
    /// never `initialize`, which is never cancelled (L9).
    pub fn answered_ids(&self) -> Vec<u64> {
        self.awaited
            .iter()
            .filter(|(_, m, _)| *m != "initialize")
            .map(|(id, _, _)| *id)
            .collect()
    }
}
