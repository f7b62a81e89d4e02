//! The sessions of one trace, each judged alone: several clients behind one Streamable HTTP
//! listener each have their own request ids, `initialize`, capabilities and era. Each event
//! goes to one session (a [`Session`], the model stepper), chosen by its HTTP exchange:
//!
//! - a request that carries `Mcp-Session-Id` belongs to that session (legacy);
//! - an `initialize` without one opens a new session, named by the `Mcp-Session-Id` its
//!   response assigns (`initialize@N` when the server assigns none, N the index of its
//!   exchange's head);
//! - a request without one that speaks the modern era (its `_meta` names the protocol
//!   version, or its `MCP-Protocol-Version` header is no legacy version) belongs to no
//!   session: modern requests are judged each on its own `_meta` and headers, and share the
//!   `stateless` one (which also holds a `server/discover` probe, answered or refused);
//! - any other request without a session id (a legacy client that left it out: H4; a server
//!   that assigns none) belongs to the legacy session opened last.
//!
//! An event without an exchange (stdio, process events) belongs to the `stateless` one: a
//! stdio trace is one session, judged exactly as [`Session`] alone judges it. A request body
//! comes before the head of its exchange, which holds the headers that decide. The monitor
//! writes the request's `Mcp-Session-Id` on the body's line (`mcp_session_id`, null when it
//! had none), which decides at once; for a trace without it, events are held, in order,
//! until the head of the first one's exchange is known (at most [`HOLD_LIMIT`] of them, or
//! until its client closed it; then the body alone decides), so that each session sees its
//! events in the order of the trace.

use crate::follow::Journal;
use crate::http::request_header;
use crate::session::{Era, Report, Session, SessionReport, Violation};
use crate::shape::{self, Message};
use crate::trace::{Dir, Event};
use serde_json::Value;
use std::collections::{HashMap, VecDeque};

/// How many events may wait for the head of an exchange before the first is sent on by its
/// body alone (a server that answers a long call with JSON sends its head at the end).
pub const HOLD_LIMIT: usize = 4096;

/// The versions of the legacy era, which `MCP-Protocol-Version` names after `initialize`.
const LEGACY_VERSIONS: [&str; 4] = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];

/// What a request body says about the session it belongs to.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Body {
    Initialize,
    /// A request whose `_meta` names the protocol version (the modern era).
    Modern,
    Other,
}

/// How the report names one session (its checker is in `Sessions::checkers`).
struct Unit {
    name: String,
    mcp_session_id: Option<String>,
    /// The first event of an HTTP exchange or message it took (not a process event).
    first: Option<usize>,
}

/// A violation and the session it was found in (`None` while the trace holds one session).
#[derive(Clone, Debug, PartialEq)]
pub struct Found {
    pub session: Option<String>,
    pub violation: Violation,
}

/// What [`Sessions::retained`] counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Retained {
    /// Sessions (each with its report so far).
    pub sessions: usize,
    /// Sessions that keep their model: those not over.
    pub models: usize,
    /// HTTP exchanges the sessions keep, to judge what may still come on them.
    pub exchanges: usize,
    /// Events waiting for the head of their exchange.
    pub held: usize,
}

/// The sessions of a trace, fed its events one at a time.
pub struct Sessions {
    /// Unit 0 is the `stateless` one.
    units: Vec<Unit>,
    /// The checker of each unit (taken by `finish`, which leaves the names for charts).
    checkers: Vec<Session>,
    by_id: HashMap<String, usize>,
    /// The unit of each HTTP exchange, once its head has decided.
    route: HashMap<u64, usize>,
    /// What the request body of each exchange not yet routed said.
    bodies: HashMap<u64, Body>,
    /// The sessions opened by an `initialize` routed by its body, to be named by the id
    /// their exchange's head assigns.
    naming: HashMap<u64, usize>,
    /// The legacy session opened last.
    latest: Option<usize>,
    /// Events waiting for the head of an exchange, with their indices.
    held: VecDeque<(usize, Event)>,
    next_index: usize,
    /// Whether events went by unchecked: a session opened since may have lost its first.
    gapped: bool,
    /// How many events went by unchecked, in every gap.
    unchecked: usize,
    reference: bool,
    /// The journal of each session, when they keep one (`with_journals`).
    journals: Option<Vec<Journal>>,
}

impl Default for Sessions {
    fn default() -> Self {
        Sessions::new()
    }
}

impl Sessions {
    pub fn new() -> Sessions {
        Sessions::with(false, false)
    }

    /// Sessions that step the reference replay (see [`Session::with_reference`]).
    pub fn with_reference() -> Sessions {
        Sessions::with(true, false)
    }

    /// Sessions that each keep a journal of what they ask of their model (see
    /// [`Session::with_journal`]).
    pub fn with_journals() -> Sessions {
        Sessions::with(false, true)
    }

    /// The journal of each session opened so far, in order (empty without `with_journals`).
    pub fn journals(&self) -> Vec<Journal> {
        self.journals.clone().unwrap_or_default()
    }

    fn with(reference: bool, journals: bool) -> Sessions {
        let mut sessions = Sessions {
            units: Vec::new(),
            checkers: Vec::new(),
            by_id: HashMap::new(),
            route: HashMap::new(),
            bodies: HashMap::new(),
            naming: HashMap::new(),
            latest: None,
            held: VecDeque::new(),
            next_index: 0,
            gapped: false,
            unchecked: 0,
            reference,
            journals: journals.then(Vec::new),
        };
        sessions.open("stateless".to_string(), None);
        sessions
    }

    fn open(&mut self, name: String, mcp_session_id: Option<String>) -> usize {
        let mut session = match (self.reference, &mut self.journals) {
            (true, _) => Session::with_reference(),
            (false, Some(journals)) => {
                let session = Session::with_journal();
                journals.push(session.journal());
                session
            }
            (false, None) => Session::new(),
        };
        if self.gapped {
            session.gap(0);
        }
        self.units.push(Unit {
            name,
            mcp_session_id,
            first: None,
        });
        self.checkers.push(session);
        self.units.len() - 1
    }

    /// Whether the trace so far holds more than one session.
    pub fn several(&self) -> bool {
        self.units.iter().filter(|u| u.first.is_some()).count() > 1
    }

    /// The name of the session event `event` belongs to, once the trace holds several and
    /// the event's exchange is routed (for charts of one session's events).
    pub fn session_of(&self, event: &Event) -> Option<&str> {
        if !self.several() {
            return None;
        }
        let unit = self.unit_of(event)?;
        Some(self.units.get(unit)?.name.as_str())
    }

    /// Adds a note to the report (what limited the checks).
    pub fn note(&mut self, text: String) {
        if let Some(first) = self.checkers.first_mut() {
            first.note(text);
        }
    }

    /// `dropped` events were relayed but never reached the checker: they may have been any
    /// session's, so the model checks of every session stop (see [`Session::gap`]).
    pub fn gap(&mut self, dropped: usize) {
        self.next_index += dropped;
        self.gapped = true;
        self.unchecked += dropped;
        for session in &mut self.checkers {
            session.gap(dropped);
        }
    }

    /// What the sessions keep now: how many keep their model (those not over), and the HTTP
    /// exchanges they all keep (for tests that a long trace's memory is bounded by what is
    /// live, not by what went by).
    pub fn retained(&self) -> Retained {
        let each = self.checkers.iter().map(Session::retained);
        let (models, exchanges) = each.fold((0, 0), |(m, x), (model, kept)| {
            (m + usize::from(model), x + kept)
        });
        Retained {
            sessions: self.checkers.len(),
            models,
            exchanges,
            held: self.held.len(),
        }
    }

    /// Takes the next event of the trace; returns the violations found now (in the events
    /// it releases: this one, or those that waited for its head).
    pub fn feed(&mut self, event: &Event) -> Vec<Found> {
        let index = self.next_index;
        self.next_index += 1;
        self.learn(index, event);
        if self.held.is_empty()
            && let Some(unit) = self.unit_of(event)
        {
            return self.feed_unit(unit, index, event);
        }
        self.held.push_back((index, event.clone()));
        self.release(false)
    }

    /// Ends the trace: what still waits is routed by its body alone, and checked. Called
    /// once; the sessions' names stay, for [`Sessions::session_of`].
    pub fn finish(&mut self) -> Report {
        // Violations found now are in the report.
        let _ = self.release(true);
        let mut reports = self.reports();
        let mut report = match reports.len() {
            1 => reports.remove(0).report,
            _ => sum(reports),
        };
        // The sessions opened after a gap were told of none: the trace's count is here.
        if self.unchecked > report.unchecked {
            report.unchecked = self.unchecked;
            let behind = crate::session::behind(0);
            let (prefix, _) = behind.split_at(behind.find(':').unwrap_or(0));
            report.notes.retain(|n| !n.starts_with(prefix));
            report.notes.push(crate::session::behind(self.unchecked));
        }
        report
    }

    /// Each session's report, in the order they began; the `stateless` one only if it holds
    /// a message or a finding (it holds at least the process events), else its notes go to
    /// the first.
    fn reports(&mut self) -> Vec<SessionReport> {
        let checkers = std::mem::take(&mut self.checkers);
        let mut reports: Vec<(Option<usize>, SessionReport)> = checkers
            .into_iter()
            .zip(&self.units)
            .map(|(session, u)| {
                let report = SessionReport {
                    session: u.name.clone(),
                    mcp_session_id: u.mcp_session_id.clone(),
                    report: session.finish(),
                };
                (u.first, report)
            })
            .collect();
        let empty = |r: &Report| r.messages == 0 && r.violations.is_empty();
        if reports.len() > 1 && empty(&reports[0].1.report) {
            let notes = reports.remove(0).1.report.notes;
            let first = &mut reports[0].1.report.notes;
            for note in notes {
                if !first.contains(&note) {
                    first.push(note);
                }
            }
        }
        // A session that took process events only goes last.
        reports.sort_by_key(|(first, _)| first.unwrap_or(usize::MAX));
        reports.into_iter().map(|(_, r)| r).collect()
    }

    /// What an event tells about routes: the head of an exchange decides its session, or
    /// its request body when the record says which session the request carried
    /// (`mcp_session_id`, written by `agentpi monitor --listen`).
    fn learn(&mut self, index: usize, event: &Event) {
        let Some(x) = event.exchange() else { return };
        if event.kind() == Some("http") {
            if let Some(unit) = self.naming.remove(&x) {
                self.name(unit, response_header(event, "mcp-session-id"));
            } else if !self.route.contains_key(&x) {
                let body = self.bodies.remove(&x);
                let unit = self.route_head(index, event, body);
                self.route.insert(x, unit);
            }
        } else if self.route.contains_key(&x) {
            // Routed already.
        } else if event.dir == Dir::C2s {
            self.route_body(index, x, event);
        } else if event.client_closed() && self.bodies.contains_key(&x) {
            // The client gave up before the head: none may come.
            self.route_alone(index, x);
        }
    }

    /// The session of a request body, when its line says which `Mcp-Session-Id` the request
    /// carried; else it waits for the head.
    fn route_body(&mut self, index: usize, x: u64, event: &Event) {
        let body = body_of(event);
        let unit = match event.fields.get("mcp_session_id") {
            Some(Value::String(id)) => self.by_id(id.clone()),
            Some(Value::Null) if body == Body::Initialize => {
                let unit = self.opened(index, None);
                // Named by the id its response assigns.
                self.naming.insert(x, unit);
                unit
            }
            Some(Value::Null) if body == Body::Modern => 0,
            Some(Value::Null) => self.latest.unwrap_or(0),
            _ => {
                self.bodies.insert(x, body);
                return;
            }
        };
        self.route.insert(x, unit);
    }

    /// Names session `unit` (opened by an `initialize`) by the id its response assigned,
    /// unless another session has it.
    fn name(&mut self, unit: usize, assigned: Option<&str>) {
        let Some(id) = assigned.filter(|id| !self.by_id.contains_key(*id)) else {
            return;
        };
        self.by_id.insert(id.to_string(), unit);
        self.units[unit].name = id.to_string();
        self.units[unit].mcp_session_id = Some(id.to_string());
    }

    /// The session of an exchange, from its head (request headers, and the response's
    /// `Mcp-Session-Id` for an `initialize`) and what its request body said.
    fn route_head(&mut self, index: usize, head: &Event, body: Option<Body>) -> usize {
        if let Some(id) = request_header(head, "mcp-session-id") {
            return self.by_id(id.to_string());
        }
        let assigned = response_header(head, "mcp-session-id");
        let version = request_header(head, "mcp-protocol-version");
        match body {
            Some(Body::Initialize) => self.opened(index, assigned),
            Some(Body::Modern) => 0,
            _ if version.is_some_and(|v| !LEGACY_VERSIONS.contains(&v)) => 0,
            _ => self.latest.unwrap_or(0),
        }
    }

    /// The session of `Mcp-Session-Id` `id` (a new one for an id no `initialize` was given:
    /// the trace began after it).
    fn by_id(&mut self, id: String) -> usize {
        if let Some(&unit) = self.by_id.get(&id) {
            return unit;
        }
        let unit = self.open(id.clone(), Some(id.clone()));
        self.by_id.insert(id, unit);
        self.latest = Some(unit);
        unit
    }

    /// A session opened by an `initialize` (its exchange's head at event `index`, or its
    /// body when the head never came), named by the id its response assigned.
    fn opened(&mut self, index: usize, assigned: Option<&str>) -> usize {
        let unit = match assigned {
            Some(id) if !self.by_id.contains_key(id) => {
                let unit = self.open(id.to_string(), Some(id.to_string()));
                self.by_id.insert(id.to_string(), unit);
                unit
            }
            Some(id) => self.by_id[id],
            None => self.open(format!("initialize@{index}"), None),
        };
        self.latest = Some(unit);
        unit
    }

    /// The session an event goes to, if known now.
    fn unit_of(&self, event: &Event) -> Option<usize> {
        match event.exchange() {
            None => Some(0),
            Some(x) => self.route.get(&x).copied(),
        }
    }

    /// Feeds the held events whose sessions are known, in order; with `all` (the end of the
    /// trace), or past [`HOLD_LIMIT`], the first is routed by its body alone.
    fn release(&mut self, all: bool) -> Vec<Found> {
        let mut found = Vec::new();
        while let Some((index, event)) = self.held.front() {
            let unit = match (self.unit_of(event), event.exchange()) {
                (Some(unit), _) => unit,
                (None, Some(x)) if all || self.held.len() > HOLD_LIMIT => {
                    self.route_alone(*index, x)
                }
                _ => break,
            };
            let Some((index, event)) = self.held.pop_front() else {
                break;
            };
            found.extend(self.feed_unit(unit, index, &event));
        }
        found
    }

    /// The session of exchange `x`, whose head has not come, by its request body (at event
    /// `index`) alone.
    fn route_alone(&mut self, index: usize, x: u64) -> usize {
        let body = self.bodies.remove(&x).unwrap_or(Body::Other);
        let unit = match body {
            Body::Initialize => self.opened(index, None),
            Body::Modern => 0,
            Body::Other => self.latest.unwrap_or(0),
        };
        self.route.insert(x, unit);
        unit
    }

    fn feed_unit(&mut self, unit: usize, index: usize, event: &Event) -> Vec<Found> {
        if event.is_message() || event.exchange().is_some() {
            self.units[unit].first.get_or_insert(index);
        }
        let Some(session) = self.checkers.get_mut(unit) else {
            // Finished: nothing is checked any more.
            return Vec::new();
        };
        let found = session.feed_at(index, event);
        if session.over() {
            session.retire();
        }
        let session = self.several().then(|| self.units[unit].name.clone());
        found
            .into_iter()
            .map(|violation| Found {
                session: session.clone(),
                violation,
            })
            .collect()
    }
}

/// What a request body says about its session.
fn body_of(event: &Event) -> Body {
    match shape::parse(&event.raw, event.dir).0 {
        Some(Message::Request { method, .. }) if method == "initialize" => Body::Initialize,
        Some(Message::Request {
            params: Some(params),
            ..
        }) if params
            .get("_meta")
            .and_then(|m| m.get("io.modelcontextprotocol/protocolVersion"))
            .is_some() =>
        {
            Body::Modern
        }
        _ => Body::Other,
    }
}

/// The value of response header `name` (any case) of an `http` event.
fn response_header<'e>(event: &'e Event, name: &str) -> Option<&'e str> {
    let pairs = match event.fields.get("headers") {
        Some(Value::Array(pairs)) => pairs.as_slice(),
        _ => &[],
    };
    pairs.iter().find_map(|pair| {
        let n = pair.get(0)?.as_str()?;
        n.eq_ignore_ascii_case(name)
            .then_some(pair.get(1)?.as_str()?)
    })
}

/// The report of several sessions: each session's own, and every finding of them all.
fn sum(sessions: Vec<SessionReport>) -> Report {
    let known: Vec<&Report> = sessions
        .iter()
        .map(|s| &s.report)
        .filter(|r| r.era != Era::Unknown)
        .collect();
    let era = match known.first() {
        None => Era::Unknown,
        Some(first) if known.iter().all(|r| r.era == first.era) => first.era,
        Some(_) => Era::Mixed,
    };
    let version = known.first().and_then(|r| r.protocol_version.clone());
    let one_version = known.iter().all(|r| r.protocol_version == version);
    let mut report = Report {
        era,
        protocol_version: version.filter(|_| one_version),
        messages: sessions.iter().map(|s| s.report.messages).sum(),
        violations: Vec::new(),
        open_requests: Vec::new(),
        notes: Vec::new(),
        // Every session is told of every gap: the most any was told is how many went by.
        unchecked: sessions
            .iter()
            .map(|s| s.report.unchecked)
            .max()
            .unwrap_or(0),
        sessions: Vec::new(),
    };
    for s in &sessions {
        report
            .violations
            .extend(s.report.violations.iter().cloned());
        report
            .open_requests
            .extend(s.report.open_requests.iter().cloned());
        for note in &s.report.notes {
            if !report.notes.contains(note) {
                report.notes.push(note.clone());
            }
        }
    }
    report.violations.sort_by_key(|v| v.index);
    report.open_requests.sort_by_key(|o| o.index);
    report.sessions = sessions;
    report
}
