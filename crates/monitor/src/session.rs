//! The checker of one session: fed trace events one at a time, it runs the shape checks of
//! each message, binds it to labels of the protocol model and steps the model; a label the
//! model takes only with a flag is a violation of the flagged rule.

use crate::bind;
use crate::crossing::Crossings;
use crate::exchange::Exchange;
use crate::follow::{Asked, Follow, Journal};
use crate::http::{self, HeaderArgs, Http};
use crate::ids_used::IdsUsed;
use crate::ledger::{self, Ledger};
use crate::model;
use crate::observations::Pool;
use crate::request_key;
use crate::requests::Requests;
use crate::rules;
use crate::schema::{self, Part};
use crate::schema_seen::Seen;
use crate::shape::{self, Finding, Message};
use crate::skeleton::{Answered, Skeletons};
use crate::trace::{Dir, Event};
use agentpi_check::replay::{Arg, Key, Observation, Verdict};
use rustc_hash::{FxHashMap, FxHashSet};
use serde_json::{Map, Value, json};
use std::collections::HashMap;
use std::rc::Rc;

/// One broken rule.
#[derive(Clone, Debug, PartialEq)]
pub struct Violation {
    pub rule: String,
    pub level: String,
    pub index: usize,
    pub dir: Dir,
    pub message: String,
    pub spec: String,
    /// What the model would have accepted instead.
    pub expected: Vec<String>,
    /// The offending message's bytes.
    pub raw: Vec<u8>,
}

/// A request not answered (nor cancelled) by the end of the trace.
#[derive(Clone, Debug, PartialEq)]
pub struct OpenRequest {
    pub index: usize,
    pub dir: Dir,
    pub id: Value,
    pub method: String,
}

/// The protocol era of a session.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Era {
    Unknown,
    Legacy,
    Modern,
    /// Sessions of both eras (a report of several sessions only: each session has one era).
    Mixed,
}

impl Era {
    pub fn as_str(self) -> &'static str {
        match self {
            Era::Unknown => "unknown",
            Era::Legacy => "legacy",
            Era::Modern => "modern",
            Era::Mixed => "mixed",
        }
    }
}

/// Everything the session found.
#[derive(Clone, Debug, PartialEq)]
pub struct Report {
    pub era: Era,
    pub protocol_version: Option<String>,
    pub messages: usize,
    pub violations: Vec<Violation>,
    pub open_requests: Vec<OpenRequest>,
    /// What limited the checks (the model gave up, the checker fell behind, ...).
    pub notes: Vec<String>,
    /// How many events went by unchecked (the live checker fell behind: docs/monitor.md,
    /// *When the checker falls behind*); 0 for a trace checked whole. Written to the JSON
    /// report only when not 0, so that a report of everything reads as it always did.
    pub unchecked: usize,
    /// Each session's own report, when the trace holds more than one (`Sessions`: several
    /// clients through one HTTP listener); empty for a trace of one session. The fields above
    /// then sum them up: every violation and open request, each of one session.
    pub sessions: Vec<SessionReport>,
}

/// The note of a report that left `n` events unchecked.
pub(crate) fn behind(n: usize) -> String {
    format!(
        "the checker fell behind: {n} events were relayed unchecked; the checks that rest on what came before (the model's, the per-request and per-session rules) stopped at the first, and requests in flight then are not listed as open"
    )
}

/// The report of one session of a trace that holds several.
#[derive(Clone, Debug, PartialEq)]
pub struct SessionReport {
    /// How the report names it: the `Mcp-Session-Id` the server assigned, `stateless` for
    /// what belongs to no session (modern requests), `initialize@N` for a legacy session the
    /// server gave no id (opened by the `initialize` at event N).
    pub session: String,
    /// The `Mcp-Session-Id`, when the server assigned one.
    pub mcp_session_id: Option<String>,
    pub report: Report,
}

impl Report {
    /// The report as MONITOR.md fixes it (plus `raw` per violation and `notes`; with several
    /// sessions, `sessions` and the `session` of each violation and open request).
    pub fn to_json(&self) -> Value {
        let owner = self.owners();
        let session = |index: usize| owner.get(&index).map(|s| json!(s));
        let violations: Vec<Value> = self
            .violations
            .iter()
            .map(|v| with_session(violation_json(v), session(v.index)))
            .collect();
        let open: Vec<Value> = self
            .open_requests
            .iter()
            .map(|o| with_session(open_json(o), session(o.index)))
            .collect();
        let mut report = json!({"era": self.era.as_str(), "protocol_version": self.protocol_version,
               "messages": self.messages, "violations": violations, "open_requests": open,
               "notes": self.notes});
        if self.unchecked > 0 {
            report["unchecked"] = json!(self.unchecked);
        }
        if !self.sessions.is_empty() {
            let sessions: Vec<Value> = self.sessions.iter().map(SessionReport::to_json).collect();
            report["sessions"] = json!(sessions);
        }
        report
    }

    /// The session of each violation and open request, by event index (several sessions
    /// only: each event belongs to one).
    pub fn owners(&self) -> HashMap<usize, &str> {
        let mut owner = HashMap::new();
        for s in &self.sessions {
            let indices = s.report.violations.iter().map(|v| v.index);
            let open = s.report.open_requests.iter().map(|o| o.index);
            owner.extend(indices.chain(open).map(|i| (i, s.session.as_str())));
        }
        owner
    }
}

impl SessionReport {
    fn to_json(&self) -> Value {
        let r = &self.report;
        let named = |v: Value| with_session(v, Some(json!(self.session)));
        let violations: Vec<Value> = r
            .violations
            .iter()
            .map(|v| named(violation_json(v)))
            .collect();
        let open: Vec<Value> = r
            .open_requests
            .iter()
            .map(|o| named(open_json(o)))
            .collect();
        json!({"session": self.session, "mcp_session_id": self.mcp_session_id,
               "era": r.era.as_str(), "protocol_version": r.protocol_version,
               "messages": r.messages, "violations": violations, "open_requests": open,
               "notes": r.notes})
    }
}

fn violation_json(v: &Violation) -> Value {
    json!({"rule": v.rule, "level": v.level, "index": v.index, "dir": v.dir.as_str(),
           "message": v.message, "spec": v.spec, "expected": v.expected,
           "raw": String::from_utf8_lossy(&v.raw)})
}

fn open_json(o: &OpenRequest) -> Value {
    json!({"index": o.index, "dir": o.dir.as_str(), "id": o.id, "method": o.method})
}

/// `value` with a `session` field, when there is one to name.
fn with_session(mut value: Value, session: Option<Value>) -> Value {
    if let Some(session) = session {
        value["session"] = session;
    }
    value
}

/// A request in flight, by key (`c2s:5`: request 5 sent by the client).
#[derive(Clone, Debug)]
struct Pending {
    index: usize,
    dir: Dir,
    id: Value,
    /// Shared with the last request's when the same ([`Session::method_of`]).
    method: Rc<str>,
    params: Option<Value>,
}

/// How many messages wait for the era to be known before it is taken to be legacy.
const ERA_WINDOW: usize = 64;

/// The checker of one session.
pub struct Session {
    era: Era,
    protocol_version: Option<String>,
    replay: Option<Follow>,
    /// Step the reference replay of `agentpi_check` instead of the monitor's own.
    reference: bool,
    /// Where to write what the session asks of its model (`with_journal`).
    journal: Option<Journal>,
    next_index: usize,
    messages: usize,
    /// Messages seen while the era is unknown, with their indices.
    waiting: Vec<(usize, Event)>,
    // By the fast hash, as the stepper's bindings hold the same keys: several look-ups a
    // message (and no output depends on the order of a table here: the standard one's is
    // random already).
    ids_used: IdsUsed,
    /// Each request in flight once, with its key (found by an answer's integer id).
    requests: Requests<Pending>,
    /// Requests cancelled, and whether a response after that crossed the cancellation.
    cancelled: Crossings,
    tokens_used: FxHashSet<String>,
    progress: FxHashMap<String, f64>,
    schemas: Map<String, Value>,
    violations: Vec<Violation>,
    notes: Vec<String>,
    /// Events relayed that the checker never saw.
    unchecked: usize,
    /// Whether events went by unchecked (here, or before this session began: see
    /// [`Session::gap`]): from then on only the rules a message breaks alone are reported.
    gapped: bool,
    /// The version a `server/discover` probe asked for, until its answer tells the era.
    probe_version: Option<String>,
    /// The HTTP exchanges of a trace recorded by `agentpi monitor --listen`.
    http: Http,
    /// Whether the message being checked came over HTTP.
    over_http: bool,
    /// The method (and whether it asked for a task) of the request the message in hand
    /// answers with a result: what its schema is (J13).
    answered: Option<Answered>,
    /// The `x-mcp-header` arguments of each listed tool (H8).
    header_args: HeaderArgs,
    /// What the per-exchange rules remember (cursors, listings, retries, capabilities).
    ledger: Ledger,
    /// Messages of each side whose envelope was broken, not yet answered with an error whose
    /// id is null (JSON-RPC's answer to a message whose id cannot be trusted).
    unreadable: HashMap<Dir, usize>,
    /// The request each HTTP POST exchange carried (its id) and what became of it, until
    /// the response on its stream.
    streams: HashMap<u64, (Value, Fate)>,
    /// The client connection of each HTTP exchange whose request body said it.
    connections: HashMap<u64, u64>,
    /// The client connection of the event in hand, when it tells modern clients apart (see
    /// [`Session::key`]).
    sender: Option<u64>,
    /// The buffers of the last message's observations, for the next.
    pool: Pool,
    /// The last clean flat message of each side, which the next may be read from.
    skeletons: Skeletons,
    /// Per side, the era under which the last message of its skeleton was checked clean,
    /// its one observation stepped by a step taken in place (which the stepper keeps for
    /// the next message of that kind: [`Session::kind_fast`]).
    kind_ok: [Option<Era>; 2],
    /// The method of the last request, for the next (most are of one method).
    last_method: Option<Rc<str>>,
}

/// The rules a message breaks by itself, whatever came before it: its JSON-RPC envelope
/// (J1), its id's type (J2), its error codes (J11), its `_meta` keys (J12). The only ones a
/// session still reports after a gap (see [`Session::gap`]).
const PER_MESSAGE: &[&str] = &["J1", "J2", "J11", "J12"];

impl Default for Session {
    fn default() -> Self {
        Session::new()
    }
}

impl Session {
    pub fn new() -> Session {
        Session {
            era: Era::Unknown,
            protocol_version: None,
            replay: None,
            reference: false,
            journal: None,
            next_index: 0,
            messages: 0,
            waiting: Vec::new(),
            ids_used: IdsUsed::default(),
            requests: Requests::default(),
            cancelled: Crossings::default(),
            tokens_used: FxHashSet::default(),
            progress: FxHashMap::default(),
            schemas: Map::new(),
            violations: Vec::new(),
            notes: Vec::new(),
            unchecked: 0,
            gapped: false,
            probe_version: None,
            http: Http::default(),
            over_http: false,
            answered: None,
            ledger: Ledger::default(),
            header_args: HeaderArgs::default(),
            unreadable: HashMap::new(),
            streams: HashMap::new(),
            connections: HashMap::new(),
            sender: None,
            pool: Pool::default(),
            skeletons: Skeletons::default(),
            kind_ok: [None, None],
            last_method: None,
        }
    }

    /// A session that steps the reference replay (`agentpi_check::replay`) instead of the
    /// monitor's own: the same findings, at a cost per message that grows with the requests
    /// in flight. For differential tests.
    pub fn with_reference() -> Session {
        Session {
            reference: true,
            ..Session::new()
        }
    }

    /// A session that writes down every question it asks of its model and the answer
    /// (`journal`): what tests hold the model's replay to an oracle of their own with.
    pub fn with_journal() -> Session {
        Session {
            journal: Some(Journal::default()),
            ..Session::new()
        }
    }

    /// What the session asks of its model, written as it goes (shared: it may be read after
    /// `finish`); empty without `with_journal`.
    pub fn journal(&self) -> Journal {
        self.journal.clone().unwrap_or_default()
    }

    /// The era the messages so far tell (`Unknown` until one does).
    pub fn era(&self) -> Era {
        self.era
    }

    /// The protocol version negotiated (or named by a modern request), once known.
    pub fn protocol_version(&self) -> Option<&str> {
        self.protocol_version.as_deref()
    }

    /// The `Mcp-Param-{Name}` headers a modern client sends over HTTP with request `raw`:
    /// its tool's `x-mcp-header` arguments, as the tool listings seen so far declare them,
    /// each value encoded as the transport asks. What H8 holds the client to.
    pub fn param_headers(&self, raw: &[u8]) -> Vec<(String, String)> {
        let (Era::Modern, (Some(message), _)) = (self.era, shape::parse(raw, Dir::C2s)) else {
            return Vec::new();
        };
        let expected = self.header_args.expected(&message).into_iter();
        expected
            .map(|(header, value)| (header, http::encode_header_value(&value)))
            .collect()
    }

    /// What the protocol model would take next from side `dir` without a violation, as its
    /// labels (`c2s(req(new r, tools, new t))`, `c2s(cancel(c2s:3))`, bound names shown by
    /// their keys): what a conforming peer may send now. `agentpi test` chooses the client's
    /// next message among these, so that it asks the same model the checks step. Empty while
    /// the era is unknown or after the model checks stopped.
    pub fn allowed(&self, dir: Dir) -> Vec<String> {
        let Some(replay) = self.replay.as_ref().filter(|_| self.waiting.is_empty()) else {
            return Vec::new();
        };
        let prefix = format!("{}(", dir.as_str());
        let mut labels = replay.expected().unwrap_or_default();
        labels.retain(|l| l.starts_with(&prefix));
        labels
    }

    /// Adds a note to the report (what limited the checks).
    pub fn note(&mut self, text: String) {
        if !self.notes.contains(&text) {
            self.notes.push(text);
        }
    }

    /// `dropped` events were relayed but never reached the checker (it fell behind; 0: they
    /// came before this session began and may have been its own). What the session saw no
    /// longer tells what it is in: a later message may be right because of what was lost
    /// (its request, the `initialize` that negotiated its version, a listing). So every
    /// check that rests on what came before stops, the model's and the ledger's and the
    /// per-request ones, and only the rules a message breaks by itself go on
    /// ([`PER_MESSAGE`]): a gap gives "unchecked", never a violation.
    pub fn gap(&mut self, dropped: usize) {
        self.next_index += dropped;
        self.unchecked += dropped;
        self.gapped = true;
        self.replay = None;
        self.ledger.forget();
        // Their answers may be among the lost events: not listed as open at the end.
        self.requests.clear();
    }

    /// Whether the session is over: a legacy session whose id was ended (by its DELETE, or
    /// a 404), with no request in flight and its model still kept. Nothing the model could
    /// still say about it is left to say.
    pub fn over(&self) -> bool {
        let quiet = self.requests.is_empty() && self.waiting.is_empty();
        self.era == Era::Legacy && self.http.terminated() && quiet && self.replay.is_some()
    }

    /// Drops what only a live session needs (the model and what follows requests and
    /// streams), keeping its findings, its message count, the ids it used (J3) and its HTTP
    /// state (H4: a terminated session's requests get 404): what a session that is
    /// [`Session::over`] costs while the trace goes on. A message that still comes for it
    /// gets the shape and HTTP checks, not the model's.
    pub fn retire(&mut self) {
        self.replay = None;
        self.cancelled = Crossings::default();
        self.tokens_used = FxHashSet::default();
        self.progress = FxHashMap::default();
        self.schemas = Map::new();
        self.header_args = HeaderArgs::default();
        self.streams = HashMap::new();
        self.connections = HashMap::new();
    }

    /// Whether the session keeps its model (it was not retired, nor stopped by a gap), and
    /// how many HTTP exchanges it keeps: what tests of a long trace's memory count.
    pub fn retained(&self) -> (bool, usize) {
        (self.replay.is_some(), self.http.retained())
    }

    /// Takes the next event of the trace; returns the violations it revealed (messages held
    /// back while the era is unknown are checked once it is known).
    pub fn feed(&mut self, event: &Event) -> Vec<Violation> {
        let index = self.next_index;
        self.next_index += 1;
        // A client's close waits on the era as a head does: whether it cancels depends on it.
        let head = event.kind() == Some("http") || event.client_closed();
        let before = self.violations.len();
        if !event.is_message() && !head {
            if event.dir == Dir::Event {
                let found = self.ledger.process(event);
                self.report(index, event, found);
            }
            return self.violations[before..].to_vec();
        }
        if event.is_message() {
            self.messages += 1;
        }
        if self.era == Era::Unknown {
            self.waiting.push((index, event.clone()));
            if !head {
                self.era = self.detect(event);
            }
            if self.era == Era::Unknown && self.waiting.len() < ERA_WINDOW {
                return Vec::new();
            }
            self.start();
        } else {
            self.check(index, event);
        }
        self.violations[before..].to_vec()
    }

    /// How many messages were stepped by their kind ([`Session::kind_fast`]).
    #[cfg(test)]
    fn kind_hits(&self) -> u64 {
        match &self.replay {
            Some(Follow::Stepper(st)) => st.kind_hits(),
            _ => 0,
        }
    }

    /// Takes event `index` of a trace whose other events went to other sessions
    /// (`Sessions`): the same as [`Session::feed`], with the trace's own numbering.
    pub(crate) fn feed_at(&mut self, index: usize, event: &Event) -> Vec<Violation> {
        self.next_index = index;
        self.feed(event)
    }

    /// Ends the session: checks what still waits on the era and returns the report.
    pub fn finish(mut self) -> Report {
        if !self.waiting.is_empty() {
            self.start();
        }
        if self.unchecked > 0 {
            self.note(behind(self.unchecked));
        }
        let mut open: Vec<OpenRequest> = self
            .requests
            .iter()
            .filter(|(k, _)| !self.cancelled.is_cancelled(k))
            .map(|(_, p)| OpenRequest {
                index: p.index,
                dir: p.dir,
                id: p.id.clone(),
                method: p.method.to_string(),
            })
            .collect();
        open.sort_by_key(|o| o.index);
        Report {
            era: self.era,
            protocol_version: self.protocol_version,
            messages: self.messages,
            violations: self.violations,
            open_requests: open,
            notes: self.notes,
            unchecked: self.unchecked,
            sessions: Vec::new(),
        }
    }

    /// The era this message tells, if it does.
    fn detect(&mut self, event: &Event) -> Era {
        let (Some(message), _) = shape::parse(&event.raw, event.dir) else {
            return Era::Unknown;
        };
        match (event.dir, message) {
            (Dir::C2s, Message::Request { method, params, .. }) => {
                let meta = params
                    .as_ref()
                    .and_then(|p| p.get("_meta"))
                    .and_then(|m| m.get("io.modelcontextprotocol/protocolVersion"))
                    .and_then(Value::as_str)
                    .map(String::from);
                if method == "server/discover" {
                    // A probe: its answer tells the era (an error: the client falls back).
                    self.probe_version = meta;
                    Era::Unknown
                } else if method == "initialize" && self.probe_version.is_some() {
                    // The probe is unanswered: a client that gave up waiting falls back to
                    // `initialize`, and a slow modern server may still answer the probe (and
                    // refuse the handshake). The answers tell the era.
                    Era::Unknown
                } else if meta.is_some() {
                    self.protocol_version = meta;
                    Era::Modern
                } else {
                    Era::Legacy
                }
            }
            (Dir::C2s, Message::Notification { .. }) => Era::Legacy,
            (Dir::S2c, Message::Response { outcome: Ok(r), .. })
                if r.get("supportedVersions").is_some() =>
            {
                self.protocol_version = self.probe_version.take();
                Era::Modern
            }
            // The result of an `initialize` held back while a probe was unanswered.
            (Dir::S2c, Message::Response { outcome: Ok(r), .. })
                if r.get("serverInfo").is_some() && r.get("protocolVersion").is_some() =>
            {
                Era::Legacy
            }
            _ => Era::Unknown,
        }
    }

    /// Starts the model of the era and checks the messages that waited for it.
    fn start(&mut self) {
        let model = match self.era {
            Era::Legacy => Some(model::legacy()),
            Era::Modern => Some(model::modern()),
            Era::Unknown | Era::Mixed => None,
        };
        // After a gap the model would start from the middle of the session.
        if let Some(model) = model.filter(|_| !self.gapped) {
            match model.and_then(|m| m.start(self.reference)) {
                Ok(replay) => self.replay = Some(self.journaled(replay)),
                Err(e) => self.note(format!("the {} model cannot start: {e}", self.era.as_str())),
            }
        }
        for (index, event) in std::mem::take(&mut self.waiting) {
            self.check(index, &event);
        }
    }

    /// `replay`, journaled when the session keeps a journal.
    fn journaled(&self, replay: Follow) -> Follow {
        let Some(journal) = &self.journal else {
            return replay;
        };
        journal.borrow_mut().push(Asked::Start(self.era.as_str()));
        Follow::Journaled(Box::new(replay), journal.clone())
    }

    fn check(&mut self, index: usize, event: &Event) {
        self.sender = self.sender_of(event);
        if event.client_closed() {
            self.closed(index, event);
            return;
        }
        if event.dir == Dir::Event {
            let cx = context(self.era, self.protocol_version.as_deref(), &[]);
            if let Some(k) = event.exchange() {
                self.cancelled.headed(k);
            }
            let found = self.http.head(event, cx);
            self.report_http(index, event, found);
            self.refused_without_message(index, event);
            return;
        }
        if self.era != Era::Modern && !event.relayed() {
            // What a server sent on a stream the client had dropped, which the HTTP proxy
            // went on reading: the client never got it, and in the legacy era the drop
            // cancels nothing (C6), so there is nothing to judge (a resumed stream may replay
            // it: that is the first time the client gets it).
            return;
        }
        self.over_http = event.exchange().is_some();
        let (message, mut findings) = self.skeletons.parse(&event.raw, event.dir);
        if self.over_http {
            for (rule, text) in &mut findings {
                if matches!(*rule, "S2" | "S3") {
                    // The stdio rules' HTTP twin: a body that is no JSON at all.
                    (*rule, *text) = ("J1", "the body is not JSON".to_string());
                }
            }
        }
        let enveloped = !findings.is_empty();
        if enveloped {
            *self.unreadable.entry(event.dir).or_default() += 1;
        }
        self.report(index, event, findings);
        let Some(message) = message else { return };
        let side = match event.dir {
            Dir::C2s => 0,
            _ => 1,
        };
        let kindable = !self.over_http && !enveloped && self.skeletons.read_from();
        if kindable
            && self.kind_ok[side] == Some(self.era)
            && self.kind_fast(index, event, side, &message)
        {
            self.skeletons.give_back(message);
            return;
        }
        let violations_before = self.violations.len();
        if self.over_http {
            let again = self.http.redelivered(event);
            let params = self.header_args.expected(&message);
            let cx = context(self.era, self.protocol_version.as_deref(), &params);
            let found = self.http.message(event, &message, cx);
            self.report_http(index, event, found);
            if again {
                // Checked when it first came (H6 says what is wrong with sending it again).
                return;
            }
        }
        let modern = self.era == Era::Modern;
        let mut found = Vec::new();
        let observations = match &*message {
            Message::Request { id, method, params } => {
                found.extend(shape::params(method, params.as_ref(), modern, event.dir));
                let p = params.as_ref();
                found.extend(self.ledger.request(id, event.dir, method, p, modern));
                let obs = self.request(index, event.dir, id, method, p, &mut found);
                if let (Some(x), Dir::C2s) = (event.exchange(), event.dir) {
                    self.posted(x, id, &obs);
                }
                obs
            }
            Message::Notification { method, params } => {
                found.extend(shape::params(method, params.as_ref(), modern, event.dir));
                let p = params.as_ref();
                found.extend(self.ledger.notification(event.dir, method, p, modern));
                if modern && event.dir == Dir::S2c {
                    found.extend(self.listen_stream(method, p));
                    if method == "notifications/message" {
                        found.extend(self.log_message());
                    }
                }
                self.notification(event.dir, method, params.as_ref(), event.t, &mut found)
            }
            Message::Response { id, outcome } => match self.on_stream(event, id) {
                // Its request reused the id of one in flight (J4): the model has no name
                // for it.
                Some(Fate::Again) => Vec::new(),
                Some(Fate::Superseded(closed)) => {
                    found.extend(late_answer(id, outcome, closed, event.t));
                    Vec::new()
                }
                _ => match self.refusal(event, id, outcome) {
                    Refusal::OfRequest(asked) if asked.is_null() => {
                        // A request whose id is null (J2) refused: the answer JSON-RPC asks
                        // for a malformed message, outside the model as that message is.
                        self.answer_unreadable(event.dir);
                        self.requests.remove(&self.key(Dir::C2s, &Value::Null));
                        Vec::new()
                    }
                    Refusal::OfRequest(asked) => {
                        self.response(event.dir, &asked, outcome, event.t, &mut found)
                    }
                    Refusal::OfOther => Vec::new(),
                    Refusal::No => self.response(event.dir, id, outcome, event.t, &mut found),
                },
            },
        };
        let answered = self.answered.take();
        if !enveloped && found.is_empty() {
            let version = self.protocol_version.as_deref();
            // A pass of the skeleton the message was read from holds for it (`skeleton.rs`).
            if !self.skeletons.passed(version, answered.as_ref()) {
                match self.schema(&message, answered.as_ref()) {
                    Some(finding) => found.push(finding),
                    None => (self.skeletons).pass(version, answered.as_ref()),
                }
            }
        }
        self.report(index, event, found);
        // Described only for a finding (most messages make none).
        let what = || describe(&message);
        for obs in &observations {
            self.step(index, event, obs, &what);
        }
        // The observation `kind_fast` stands for: a new request's `req`, an answer's `res`.
        let template = match (&*message, observations.as_slice()) {
            (Message::Request { .. }, [obs]) => is_ctor(obs, "req"),
            (Message::Response { .. }, [obs]) => is_ctor(obs, "res"),
            _ => false,
        };
        self.pool.recycle(observations);
        let clean = template
            && self.violations.len() == violations_before
            && !self.over_http
            && !self.gapped
            && self.skeletons.in_hand();
        let kept = clean
            && match &mut self.replay {
                Some(Follow::Stepper(st)) => st.kind_remember(side),
                _ => false,
            };
        self.kind_ok[side] = kept.then_some(self.era);
        // Read from (or kept as) its side's skeleton: lent, not copied (`skeleton.rs`).
        self.skeletons.give_back(message);
    }

    /// A message of the kind of the last of its side (read from the skeleton that one was
    /// read from or kept as: the same bytes but for its id), checked as [`Session::check`]
    /// and [`Session::request`] or [`Session::response`] check it, in their order, but
    /// without building its observation: it is that one's with this key, and the stepper
    /// takes the step that one took when the look-up of this window (read again) is the one
    /// that step was found by (`Stepper::kind_ready`). Every state-dependent rule of the
    /// session (ids used, cancellations, crossings, the ledger, the schema pass) is asked
    /// here as there; anything that would build another observation (an `initialize`, a
    /// `_meta` that may hold a progress token, an id used before, a closed stream, a
    /// stray or crossed answer, a result that teaches the session schemas) takes the long
    /// way. `false`: nothing was done.
    fn kind_fast(&mut self, index: usize, event: &Event, side: usize, message: &Message) -> bool {
        if self.gapped {
            return false;
        }
        let modern = self.era == Era::Modern;
        let dir = event.dir;
        let mut found = Vec::new();
        let answered = match message {
            Message::Request { id, method, params } => {
                if method == "initialize"
                    || params.as_ref().is_some_and(|p| p.get("_meta").is_some())
                {
                    return false;
                }
                let key = self.key(dir, id);
                let used = self.ids_used.contains(dir, id, self.sender, &key);
                if used || self.cancelled.was_closed(&key) {
                    return false;
                }
                let Some(Follow::Stepper(st)) = &mut self.replay else {
                    return false;
                };
                if !st.kind_ready(side, &key) {
                    return false;
                }
                // As `check` and `request` do, in their order.
                add(
                    &mut found,
                    shape::params(method, params.as_ref(), modern, dir),
                );
                let p = params.as_ref();
                add(&mut found, self.ledger.request(id, dir, method, p, modern));
                if modern && dir == Dir::S2c {
                    found.push(("M6", format!("the server sent request `{method}`")));
                }
                self.ids_used.insert(dir, id, self.sender, &key);
                let pending = Pending {
                    index,
                    dir,
                    id: id.clone(),
                    method: self.method_of(method),
                    params: params.clone(),
                };
                self.requests.insert(dir, id, self.sender, key, pending);
                None
            }
            Message::Response { id, outcome } => {
                if modern && dir == Dir::C2s {
                    return false;
                }
                // Whether its method teaches the session (schemas, a version) is read in
                // place: the method is not copied for a message that takes its kind's step.
                let entry = (self.requests)
                    .find(dir.other(), id, self.sender)
                    .map(|(k, p)| {
                        let teaches = matches!(&*p.method, "tools/list" | "initialize");
                        (k.clone(), teaches)
                    });
                let Some((key, teaches)) = entry else {
                    return false;
                };
                if teaches || self.cancelled.crossed(&key, event.t) {
                    return false;
                }
                let Some(Follow::Stepper(st)) = &mut self.replay else {
                    return false;
                };
                if !st.kind_ready(side, &key) {
                    return false;
                }
                let (_, p) = (self.requests)
                    .take(dir.other(), id, self.sender)
                    .expect("found above");
                self.answer_rules(&p, outcome, &mut found);
                match outcome {
                    Ok(_) => {
                        let task = p.params.as_ref().is_some_and(|p| p.get("task").is_some());
                        Some((p.method, task))
                    }
                    Err(_) => None,
                }
            }
            Message::Notification { .. } => return false,
        };
        if found.is_empty() {
            let version = self.protocol_version.as_deref();
            if !self.skeletons.passed(version, answered.as_ref()) {
                match self.schema(message, answered.as_ref()) {
                    Some(finding) => found.push(finding),
                    None => (self.skeletons).pass(version, answered.as_ref()),
                }
            }
        }
        let clean = found.is_empty();
        self.report(index, event, found);
        if let Some(Follow::Stepper(st)) = &mut self.replay {
            st.kind_apply();
        }
        if !clean {
            self.kind_ok[side] = None;
        }
        true
    }

    /// Request `id` came in POST exchange `x`, taken by the model as `obs` says (a new
    /// request, or `again`: the id of one in flight).
    fn posted(&mut self, x: u64, id: &Value, obs: &[Observation]) {
        let first = obs.first().and_then(|o| o.args.first());
        let again = matches!(first, Some(Arg::Ctor(name, _)) if name == "again");
        let key = self.key(Dir::C2s, id);
        if !again {
            self.cancelled.request(&key, x);
        }
        let fate = if again { Fate::Again } else { Fate::Live };
        self.streams.insert(x, (id.clone(), fate));
    }

    /// What a server response on an HTTP POST stream answers, when it has the id of the
    /// request that stream carried (over HTTP a response comes on its request's own stream).
    fn on_stream(&mut self, event: &Event, id: &Value) -> Option<Fate> {
        let x = event.exchange().filter(|_| event.dir == Dir::S2c)?;
        match self.streams.get(&x) {
            Some((asked, _)) if asked == id => self.streams.remove(&x).map(|(_, fate)| fate),
            _ => None,
        }
    }

    /// Whether response `id` is the JSON-RPC error with a null id that came with an HTTP error
    /// status (what the transport asks of a server that cannot accept a message: "an HTTP
    /// error status code (e.g., 400 Bad Request) ... MAY comprise a JSON-RPC error response
    /// that has no id", and a 400 for an unsupported `MCP-Protocol-Version`): it answers the
    /// message its exchange carried, a request (which it settles) or a notification or
    /// response (outside the model, as a refused notification is).
    fn refusal(&self, event: &Event, id: &Value, outcome: &Result<Value, Value>) -> Refusal {
        let Some(x) = event.exchange() else {
            return Refusal::No;
        };
        let refused = self.http.status(x).is_some_and(|s| s >= 400);
        if event.dir != Dir::S2c || !id.is_null() || outcome.is_ok() || !refused {
            return Refusal::No;
        }
        match self.cancelled.request_in(x) {
            None => Refusal::OfOther,
            Some(key) => self
                .requests
                .get(key)
                .map_or(Refusal::No, |p| Refusal::OfRequest(p.id.clone())),
        }
    }

    /// An HTTP error status whose response carries no message (no body, or one that is no
    /// JSON-RPC: a 404 for a terminated session, the proxy's 502) answers the request of its
    /// exchange: the request is settled, as by an error.
    fn refused_without_message(&mut self, index: usize, event: &Event) {
        let (Some(x), Some(false)) = (event.exchange(), http::error_status(event)) else {
            return;
        };
        let Some(id) = self
            .cancelled
            .request_in(x)
            .and_then(|key| self.requests.get(key))
            .map(|p| p.id.clone())
        else {
            return;
        };
        let mut found = Vec::new();
        let obs = self.response(Dir::S2c, &id, &Err(json!({})), event.t, &mut found);
        self.report(index, event, found);
        let status = event.fields.get("status").map_or(Value::Null, Value::clone);
        let what = format!("HTTP status {status} for request {id}");
        for o in obs {
            self.step(index, event, &o, &|| what.clone());
        }
    }

    /// The client closed an HTTP exchange before its response ended (an `aborted` event
    /// with `closed_by: client`). In the modern era that
    /// is the cancellation of the request the exchange carried (reference/mcp.md 1.5, C5),
    /// bound as `c2s(cancel(r))`, so what the server sends for it afterwards is judged as
    /// after a cancel (C4). In the legacy era a dropped connection is no cancellation (C6):
    /// nothing to bind. A close of an exchange already answered cancels nothing.
    fn closed(&mut self, index: usize, event: &Event) {
        let key = event
            .exchange()
            .and_then(|x| self.cancelled.request_in(x))
            .map(str::to_string);
        let Some(key) = key.filter(|k| self.era == Era::Modern && self.bound(k)) else {
            return;
        };
        self.cancelled.close(key.clone(), event.t);
        let name = Arg::Name(Key::from(key.as_str()));
        let obs = Observation::new("c2s", vec![ctor("cancel", vec![name])]);
        let id = self.requests.get(key.as_str()).map(|p| p.id.to_string());
        let id = id.unwrap_or_else(|| key[4..].to_string());
        let what = format!("the client's close of the stream of request {id}");
        self.step(index, event, &obs, &|| what.clone());
    }

    /// Reports `findings`; inlined, so that a message with none (most) makes no call.
    #[inline]
    fn report(&mut self, index: usize, event: &Event, findings: Vec<Finding>) {
        if !findings.is_empty() {
            self.report_all(index, event, findings);
        }
    }

    fn report_all(&mut self, index: usize, event: &Event, findings: Vec<Finding>) {
        for (rule, text) in findings {
            self.violation(index, event, rule, text, Vec::new());
        }
    }

    fn report_http(&mut self, index: usize, event: &Event, found: Vec<http::Found>) {
        for f in found {
            let before = self.violations.len();
            self.violation(index, event, f.rule, f.text, Vec::new());
            if f.should && self.violations.len() > before {
                let last = self.violations.len() - 1;
                self.violations[last].level = "SHOULD".to_string();
            }
        }
    }

    fn violation(
        &mut self,
        index: usize,
        event: &Event,
        rule: &str,
        text: String,
        expected: Vec<String>,
    ) {
        if self.gapped && !PER_MESSAGE.contains(&rule.to_uppercase().as_str()) {
            return;
        }
        let (level, spec) = match rules::find(rule) {
            Some(r) => (r.level, r.spec),
            // A MODEL finding: the model of the session's era refused the message.
            None if self.era == Era::Modern => ("MUST", "models/mcp/modern.pi"),
            None => ("MUST", "models/mcp/legacy.pi"),
        };
        let v = Violation {
            rule: rule.to_uppercase(),
            level: level.to_string(),
            index,
            dir: event.dir,
            message: text,
            spec: spec.to_string(),
            expected,
            // An `http` event has no bytes of its own: its line shows the headers at fault.
            raw: if event.dir == Dir::Event {
                event.to_line().into_bytes()
            } else {
                event.raw.clone()
            },
        };
        let repeat = self
            .violations
            .iter()
            .any(|old| old.index == index && old.rule == v.rule);
        if !repeat {
            self.violations.push(v);
        }
    }

    fn bound(&self, key: &str) -> bool {
        self.replay.as_ref().is_some_and(|r| r.is_bound(key))
    }

    /// J13, for a message no other rule found fault with (one finding per fault, the most
    /// specific): a request or notification whole, a result by the method it answers
    /// (`answered`: that method, and whether the request asked for a task).
    fn schema(&self, message: &Message, answered: Option<&Answered>) -> Option<Finding> {
        let (part, method, id, body) = match message {
            Message::Request { id, method, params } => {
                (Part::Request, method.as_str(), Some(id), params.as_ref())
            }
            Message::Notification { method, params } => {
                (Part::Notification, method.as_str(), None, params.as_ref())
            }
            Message::Response {
                outcome: Ok(result),
                ..
            } => {
                let (method, task) = answered?;
                (Part::Result { task: *task }, &**method, None, Some(result))
            }
            Message::Response { .. } => return None,
        };
        // A result's `protocolVersion` is at its top, a request's in its params.
        let named = body.and_then(|b| b.get("protocolVersion"));
        let version = self.schema_version(method, named)?;
        let seen = Seen::of(version, part, method, id, body);
        if seen.as_ref().is_some_and(Seen::matched) {
            return None;
        }
        let value = match part {
            Part::Result { .. } => std::borrow::Cow::Borrowed(body?),
            _ => std::borrow::Cow::Owned(message.to_value()),
        };
        let found = schema::mismatch(version, part, method, &value);
        if found.is_none() {
            seen.iter().for_each(Seen::remember);
        }
        found.map(|e| ("J13", e))
    }

    /// The version whose schema a message of `method` is held to: the one negotiated (the
    /// one `initialize` names, for its own messages); `None` for a version without a schema.
    fn schema_version(&self, method: &str, named: Option<&Value>) -> Option<schema::Version> {
        let name = match (method, named) {
            ("initialize", Some(v)) => v.as_str(),
            _ => self.protocol_version.as_deref(),
        };
        schema::Version::of(name?)
    }

    fn request(
        &mut self,
        index: usize,
        dir: Dir,
        id: &Value,
        method: &str,
        params: Option<&Value>,
        found: &mut Vec<Finding>,
    ) -> Vec<Observation> {
        // Over HTTP the same clause is H10 (no requests on a response stream).
        if self.era == Era::Modern && dir == Dir::S2c && !self.over_http {
            found.push(("M6", format!("the server sent request `{method}`")));
        }
        let key = self.key(dir, id);
        let reused = !self.ids_used.insert(dir, id, self.sender, &key);
        if reused && self.era != Era::Modern {
            found.push((
                "J3",
                format!("request id {id} was used before by the same sender"),
            ));
        }
        let token = params
            .and_then(|p| p.get("_meta"))
            .and_then(|m| m.get("progressToken"));
        let mut tok = Arg::Any;
        if let Some(token) = token {
            let tok_key = format!("tok:{}", self.key(dir, token));
            if self.bound(&tok_key) {
                found.push(("P1", format!("progress token {token} is already in use")));
            } else {
                tok = Arg::Name(Key::from(tok_key.as_str()));
            }
            self.tokens_used.insert(tok_key);
        }
        if self.cancelled.was_closed(&key) {
            // The old request's stream is closed, so it is no longer in flight: the id names
            // a new request (J4 forbids reusing the id of a request in flight only). What the
            // server still sends for the old one comes on the old stream.
            if let Some(old) = self.cancelled.exchange_of(&key)
                && let Some((_, fate)) = self.streams.get_mut(&old)
            {
                *fate = Fate::Superseded(self.cancelled.cancelled_at(&key));
            }
            self.cancelled.reuse(&key);
            if let Some(replay) = &mut self.replay {
                replay.forget(&key);
            }
        }
        let mut obs = self.pool.list();
        let head = dir.as_str();
        if self.bound(&key) {
            obs.push(self.pool.ctor(head, "again", []));
        } else {
            let kind = if self.era == Era::Modern {
                bind::modern_request_kind(method, dir)
            } else {
                bind::request_kind(method, dir)
            };
            let kind = ctor(kind, vec![]);
            let name = Arg::Name(key.clone());
            obs.push(self.pool.ctor(head, "req", [name, kind, tok]));
            let method = self.method_of(method);
            self.requests.insert(
                dir,
                id,
                self.sender,
                key,
                Pending {
                    index,
                    dir,
                    id: id.clone(),
                    method,
                    params: params.cloned(),
                },
            );
        }
        if method == "initialize" && dir == Dir::C2s && self.era == Era::Legacy {
            let caps = params.and_then(|p| p.get("capabilities"));
            obs.extend(declarations(caps, false));
        }
        obs
    }

    fn response(
        &mut self,
        dir: Dir,
        id: &Value,
        outcome: &Result<Value, Value>,
        t: Option<f64>,
        found: &mut Vec<Finding>,
    ) -> Vec<Observation> {
        if self.era == Era::Modern && dir == Dir::C2s {
            found.push(("M6", "the client sent a response".to_string()));
        }
        if id.is_null() && outcome.is_err() && self.answer_unreadable(dir) {
            // The answer JSON-RPC asks for a malformed message (J9): outside the model, as
            // the message it answers is.
            return Vec::new();
        }
        // The request's own key when it is in flight (found by its id: no new copy).
        let entry = self.requests.take(dir.other(), id, self.sender);
        let (key, pending) = match entry {
            Some((key, pending)) => (key, Some(pending)),
            None => (self.key(dir.other(), id), None),
        };
        let bound = self.bound(&key);
        let mut obs = self.pool.list();
        let head = dir.as_str();
        let crossed = self.cancelled.crossed(&key, t);
        if bound && crossed {
            let name = Arg::Name(key);
            obs.push(self.pool.ctor(head, "crossed", [name]));
        } else if bound || (self.replay.is_none() && pending.is_some()) {
            let name = Arg::Name(key);
            let ok = Arg::Bool(outcome.is_ok());
            obs.push(self.pool.ctor(head, "res", [name, ok]));
        } else {
            obs.push(self.pool.ctor(head, "stray_res", []));
        }
        let Some(p) = pending else {
            return obs;
        };
        self.answer_rules(&p, outcome, found);
        let Ok(result) = outcome else {
            return obs;
        };
        let task = p.params.as_ref().is_some_and(|p| p.get("task").is_some());
        match &*p.method {
            "tools/list" => {
                self.remember_schemas(result);
                self.header_args.listed(result);
            }
            // In a modern session a legacy handshake's result negotiates nothing: the
            // session's version stays (the schemas of later messages are its), and the
            // modern model has no capability gates (no `decl`: a declaration would be
            // refused, a false MODEL; as for the client's, in `request`).
            "initialize" if dir == Dir::S2c && self.era != Era::Modern => {
                if let Some(v) = result.get("protocolVersion").and_then(Value::as_str) {
                    self.protocol_version = Some(v.to_string());
                }
                obs.extend(declarations(result.get("capabilities"), true));
            }
            _ => {}
        }
        // The request is settled: its method moves to what the schema check reads.
        self.answered = Some((p.method, task));
        obs
    }

    /// The rules an answer to request `p` breaks by what it says (the ledger's, and a
    /// result's shape), asked alike by [`Session::response`] and [`Session::kind_fast`].
    fn answer_rules(
        &mut self,
        p: &Pending,
        outcome: &Result<Value, Value>,
        found: &mut Vec<Finding>,
    ) {
        let modern = self.era == Era::Modern;
        let x = Exchange {
            method: &p.method,
            params: p.params.as_ref(),
            outcome,
            requester: p.dir,
            modern,
        };
        add(found, self.ledger.answer(&p.id, &x));
        if let Ok(result) = outcome {
            add(
                found,
                shape::result(&p.method, p.params.as_ref(), result, modern, &self.schemas),
            );
        }
    }

    /// Whether an error with a null id sent in direction `dir` answers a malformed message of
    /// the other side still unanswered (and counts it answered).
    fn answer_unreadable(&mut self, dir: Dir) -> bool {
        match self.unreadable.get_mut(&dir.other()) {
            Some(n) if *n > 0 => {
                *n -= 1;
                true
            }
            _ => false,
        }
    }

    /// M9 and M14 for a modern log message, against the client's requests in flight.
    fn log_message(&self) -> Option<Finding> {
        let in_flight: Vec<Option<&Value>> = self
            .requests
            .iter()
            .filter(|(k, p)| p.dir == Dir::C2s && !self.cancelled.is_cancelled(k))
            .map(|(_, p)| p.params.as_ref())
            .collect();
        ledger::log_message(&in_flight)
    }

    /// M13 and M14 for a modern server notification that names a listen stream, against
    /// the filter of that listen (if it is in flight).
    fn listen_stream(&self, method: &str, params: Option<&Value>) -> Option<Finding> {
        let id = subscription_id(params)?;
        let listen = self
            .requests
            .get(&self.key(Dir::C2s, id))
            .filter(|p| &*p.method == "subscriptions/listen");
        ledger::listen_stream(method, listen.and_then(|p| p.params.as_ref()))
    }

    fn remember_schemas(&mut self, result: &Value) {
        let tools = result.get("tools").and_then(Value::as_array);
        for tool in tools.into_iter().flatten() {
            if let (Some(name), Some(schema)) = (
                tool.get("name").and_then(Value::as_str),
                tool.get("outputSchema"),
            ) {
                self.schemas.insert(name.to_string(), schema.clone());
            }
        }
    }

    fn notification(
        &mut self,
        dir: Dir,
        method: &str,
        params: Option<&Value>,
        t: Option<f64>,
        found: &mut Vec<Finding>,
    ) -> Vec<Observation> {
        let head = dir.as_str();
        let field = |k: &str| params.and_then(|p| p.get(k));
        let (name, arg) = match method {
            "notifications/cancelled" => {
                let Some(rid) = field("requestId") else {
                    return Vec::new();
                };
                let key = self.cancel_key(dir, rid);
                self.reference(&key, "cancel", self.ids_used.contains_key(&key))
            }
            "notifications/progress" => {
                let Some(token) = field("progressToken") else {
                    return Vec::new();
                };
                let key = format!("tok:{}", self.key(dir.other(), token));
                if let Some(value) = field("progress").and_then(Value::as_f64) {
                    let last = self.progress.insert(key.clone(), value);
                    if last.is_some_and(|l| value <= l) {
                        found.push((
                            "P3",
                            format!("progress {value} for token {token} does not increase"),
                        ));
                    }
                }
                self.reference(&key, "prog", self.tokens_used.contains(&key))
            }
            _ => match self.subscription(dir, method, params) {
                Some(found) => found,
                None => {
                    let modern = self.era == Era::Modern;
                    (
                        "note",
                        Some(ctor(bind::note_kind(method, dir, modern), vec![])),
                    )
                }
            },
        };
        if name == "cancel" && arg.is_some() {
            let rid = field("requestId").unwrap_or(&Value::Null);
            let key = self.cancel_key(dir, rid);
            self.cancelled.cancel(key, t);
        }
        let args = arg.into_iter().collect();
        vec![Observation::new(head, vec![ctor(name, args)])]
    }

    /// The request a cancellation names: the canceller's own, except that a modern server
    /// cancels the client's `subscriptions/listen`.
    fn cancel_key(&self, dir: Dir, rid: &Value) -> String {
        let owner = if self.era == Era::Modern && dir == Dir::S2c {
            dir.other()
        } else {
            dir
        };
        let key = self.key(owner, rid);
        if self.sender.is_none() || owner != Dir::C2s || self.bound(&key) {
            return key.to_string();
        }
        // Over HTTP a notification is a POST of its own, on whatever connection: it names
        // the client's request with that id on any connection, the one in flight when just
        // one is, else one that was issued (a late cancellation, not a stray one).
        let prefix = format!("c2s:{rid}#");
        let of_id = |k: &&Key| {
            k.strip_prefix(&prefix)
                .is_some_and(|c| c.parse::<u64>().is_ok())
        };
        let mut live = self.requests.keys().filter(of_id);
        if let (Some(only), None) = (live.next(), live.next()) {
            return only.to_string();
        }
        let issued = self.ids_used.least_of_id(rid);
        issued.unwrap_or_else(|| key.to_string())
    }

    /// `method`, shared with the last request's when the same.
    fn method_of(&mut self, method: &str) -> Rc<str> {
        match &self.last_method {
            Some(last) if **last == *method => last.clone(),
            _ => {
                let new: Rc<str> = Rc::from(method);
                self.last_method = Some(new.clone());
                new
            }
        }
    }

    /// The name a request of `requester` with id `id` has in the model (and the key of what
    /// is kept about it). A sender's ids are its own: over Streamable HTTP in the modern era,
    /// where requests carry no session, a client is known only by its connection, so a
    /// client's request is named with the connection it came on (`c2s:ID#CONNECTION`), and
    /// two clients that use the same id at once are not taken for one that reused it (J4,
    /// P1). What that cannot tell: one client that reuses an id it has in flight on a second
    /// connection (HTTP/1.1 carries one request at a time per connection) looks like two
    /// clients, and is not reported. A record without connections (from before they were
    /// written) is judged as one sender.
    fn key(&self, requester: Dir, id: &Value) -> Key {
        // One shared string that the tables, the observation and the bindings all hold.
        request_key::of(requester, id, self.sender)
    }

    /// The client connection of the request `event` belongs to, when it tells clients apart:
    /// over HTTP in the modern era (the request body's line names it, `connection`).
    fn sender_of(&mut self, event: &Event) -> Option<u64> {
        let x = event.exchange()?;
        if self.era != Era::Modern {
            // Only modern clients are told apart: a legacy session keeps no connection.
            return None;
        }
        if let Some(connection) = event.connection() {
            self.connections.insert(x, connection);
        }
        self.connections.get(&x).copied()
    }

    /// A modern notification on a listen's stream (its `_meta` names the subscription):
    /// `ack`, `sub_note`, or `stray_sub` when no listen of that id is in flight.
    fn subscription(
        &self,
        dir: Dir,
        method: &str,
        params: Option<&Value>,
    ) -> Option<(&'static str, Option<Arg>)> {
        // A log message is never part of a listen's stream, whatever it carries (M14): it
        // is bound as a log message.
        if self.era != Era::Modern || dir != Dir::S2c || method == "notifications/message" {
            return None;
        }
        let id = subscription_id(params)?;
        let key = self.key(Dir::C2s, id);
        if !self.bound(&key) {
            return Some(("stray_sub", None));
        }
        let name = if method == "notifications/subscriptions/acknowledged" {
            "ack"
        } else {
            "sub_note"
        };
        Some((name, Some(Arg::Name(key))))
    }

    /// `cancel(k)` / `prog(k)` for a live key; `late_...` for one seen before, `stray_...`
    /// for one never seen.
    fn reference(&self, key: &str, live: &'static str, seen: bool) -> (&'static str, Option<Arg>) {
        if self.bound(key) {
            return (live, Some(Arg::Name(Key::from(key))));
        }
        let name = match (live, seen) {
            ("cancel", true) => "late_cancel",
            ("cancel", false) => "stray_cancel",
            (_, true) => "late_prog",
            _ => "stray_prog",
        };
        (name, None)
    }

    /// Steps the model by `obs`, reporting what it flags or refuses of the message `what`
    /// describes.
    fn step(&mut self, index: usize, event: &Event, obs: &Observation, what: &dyn Fn() -> String) {
        let Some(replay) = self.replay.as_mut() else {
            return;
        };
        let (verdict, expected) = match replay.step_explained(obs) {
            Ok(v) => v,
            Err(e) => {
                self.replay = None;
                self.note(format!("model checks stopped at message {index}: {e}"));
                return;
            }
        };
        let rules: Vec<String> = match verdict {
            Verdict::Accepted => return,
            Verdict::Flagged(flags) => flags.iter().map(|f| flag_rule(&f.text)).collect(),
            Verdict::Refused => vec!["MODEL".to_string()],
        };
        for rule in rules {
            let says = rules::find(&rule)
                .map_or("the protocol model cannot take this message", |r| r.says);
            self.violation(
                index,
                event,
                &rule,
                format!("{}: {says}", what()),
                expected.clone(),
            );
        }
    }
}

/// What became of the request an HTTP POST stream carried, for the response on it.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Fate {
    /// In the model, by its id.
    Live,
    /// It reused the id of a request in flight (J4): not in the model.
    Again,
    /// Its client closed the stream (at this time) and a later request has its id.
    Superseded(Option<f64>),
}

/// C4 for a response on a stream its client closed (at `closed`) whose id a later request
/// now has: outside the model, which holds the id for the later request. Within the race
/// window it crossed the close.
fn late_answer(
    id: &Value,
    outcome: &Result<Value, Value>,
    closed: Option<f64>,
    t: Option<f64>,
) -> Option<Finding> {
    if let (Some(closed), Some(t)) = (closed, t)
        && t - closed <= crate::crossing::RACE_WINDOW
    {
        return None;
    }
    let kind = if outcome.is_ok() { "result" } else { "error" };
    let says = rules::find("C4").map_or("", |r| r.says);
    Some((
        "C4",
        format!(
            "{kind} for request {id} on the stream the client closed (a later request has its id): {says}"
        ),
    ))
}

/// What an error with a null id answers over HTTP (see `Session::refusal`).
enum Refusal {
    /// The request of its exchange, by its id.
    OfRequest(Value),
    /// The notification or response its exchange carried.
    OfOther,
    /// Not an HTTP refusal: judged by its id.
    No,
}

/// `found.extend(more)`, without the call for none (nearly every message: an empty list's
/// extend was a call and a drop, twice a message).
#[inline]
fn add(found: &mut Vec<Finding>, more: Vec<Finding>) {
    if !more.is_empty() {
        found.extend(more);
    }
}

/// Whether `obs` is `head(name(...))`.
fn is_ctor(obs: &Observation, name: &str) -> bool {
    matches!(obs.args.as_slice(), [Arg::Ctor(n, _)] if n == name)
}

/// The listen stream a modern notification names in `_meta`.
fn subscription_id(params: Option<&Value>) -> Option<&Value> {
    params?
        .get("_meta")?
        .get("io.modelcontextprotocol/subscriptionId")
}

/// What the HTTP rules need to know of the session.
fn context<'a>(
    era: Era,
    version: Option<&'a str>,
    param_headers: &'a [(String, String)],
) -> http::Context<'a> {
    http::Context {
        modern: era == Era::Modern,
        version,
        param_headers,
    }
}

/// A constructor named by the monitor (held without a copy: a message makes a few).
fn ctor(name: &'static str, args: Vec<Arg>) -> Arg {
    Arg::Ctor(name.into(), args)
}

/// `decl(k)` for each kind a capability object declares.
fn declarations(caps: Option<&Value>, server: bool) -> Vec<Observation> {
    let Some(caps) = caps else { return Vec::new() };
    bind::declared(caps, server)
        .into_iter()
        .map(|k| Observation::new("decl", vec![ctor(k, vec![])]))
        .collect()
}

/// `violation(c3)` -> `C3`.
fn flag_rule(text: &str) -> String {
    let inner = text
        .strip_prefix("violation(")
        .and_then(|t| t.strip_suffix(')'))
        .unwrap_or(text);
    inner.to_uppercase()
}

/// A message in a few words, for violation texts.
fn describe(message: &Message) -> String {
    match message {
        Message::Request { id, method, .. } => format!("request {id} `{method}`"),
        Message::Notification { method, params } => {
            let detail = match method.as_str() {
                "notifications/cancelled" => params
                    .as_ref()
                    .and_then(|p| p.get("requestId"))
                    .map(|r| format!(" of request {r}")),
                "notifications/progress" => params
                    .as_ref()
                    .and_then(|p| p.get("progressToken"))
                    .map(|t| format!(" for token {t}")),
                _ => None,
            };
            format!("`{method}`{}", detail.unwrap_or_default())
        }
        Message::Response { id, outcome } => {
            let kind = if outcome.is_ok() { "result" } else { "error" };
            format!("{kind} for request {id}")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c2s(raw: &str) -> Event {
        Event::message(0.0, Dir::C2s, raw.as_bytes())
    }

    fn s2c(raw: &str) -> Event {
        Event::message(0.0, Dir::S2c, raw.as_bytes())
    }

    /// Pings each answered at once, then pings all in flight and their answers: from the
    /// second of each kind on, a message is stepped by its kind (the step of the last of its
    /// side, its window read again), and the session finds what the reference replay finds;
    /// an id used again (J3) and an answer to no request take the long way and are found.
    #[test]
    fn messages_of_a_kind_take_its_step() {
        let ping = |n: usize| c2s(&format!(r#"{{"jsonrpc":"2.0","id":{n},"method":"ping"}}"#));
        let pong = |n: usize| s2c(&format!(r#"{{"jsonrpc":"2.0","id":{n},"result":{{}}}}"#));
        let mut events = vec![
            c2s(
                r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
            ),
            s2c(
                r#"{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}"#,
            ),
            c2s(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#),
        ];
        for n in 1..=16 {
            events.extend([ping(n), pong(n)]);
        }
        events.extend((17..=32).map(ping));
        events.extend((17..=32).map(pong));
        events.extend([ping(40), ping(40), pong(40), pong(41)]);
        // A cancelled request's answer (crossed: it is not stepped as `res`), then a live one.
        let cancel = c2s(
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":50}}"#,
        );
        events.extend([ping(50), cancel, pong(50), ping(51), pong(51)]);
        let mut session = Session::new();
        let mut reference = Session::with_reference();
        for (i, event) in events.iter().enumerate() {
            let found = session.feed(event);
            assert_eq!(found, reference.feed(event), "event {i}");
        }
        assert_eq!(session.kind_hits(), 62);
        let rules: Vec<&str> = session.violations.iter().map(|v| v.rule.as_str()).collect();
        assert!(rules.contains(&"J3"), "{rules:?}");
        assert_eq!(session.finish().to_json(), reference.finish().to_json());
    }

    /// The model says what a client may send: `initialize` first; then, once the server
    /// declared tools and the client said it is initialized, tool requests and the
    /// cancellation of a request in flight.
    #[test]
    fn allowed_follows_the_lifecycle_and_declarations() {
        let mut session = Session::new();
        session.feed(&c2s(
            r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
        ));
        let waiting = session.allowed(Dir::C2s);
        assert!(waiting.iter().any(|l| l.contains("ping")), "{waiting:?}");
        assert!(!waiting.iter().any(|l| l.contains("tools")), "{waiting:?}");
        session.feed(&s2c(
            r#"{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}"#,
        ));
        session.feed(&c2s(
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        ));
        session.feed(&c2s(
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}}"#,
        ));
        let operating = session.allowed(Dir::C2s);
        assert!(
            operating.iter().any(|l| l.contains("tools")),
            "{operating:?}"
        );
        assert!(
            operating.contains(&"c2s(cancel(c2s:1))".to_string()),
            "{operating:?}"
        );
        assert!(
            !operating.iter().any(|l| l.contains("stray")),
            "{operating:?}"
        );
        assert!(
            session
                .allowed(Dir::S2c)
                .iter()
                .all(|l| l.starts_with("s2c("))
        );
        assert_eq!(session.era(), Era::Legacy);
    }

    /// Over Streamable HTTP, an error with a null id that comes with an HTTP error status
    /// answers the request its exchange carried (a TypeScript server refusing the Python
    /// SDK's `server/discover` probe with 400), as does an error status without a message
    /// (a 404 without a body): neither is J6, and neither request is left open.
    #[test]
    fn an_http_error_status_answers_its_request() {
        let lines = [
            r#"{"dir":"c2s","exchange":0,"raw":"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"server/discover\",\"params\":{\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\"}}}"}"#,
            r#"{"dir":"event","event":"http","method":"POST","path":"/mcp","status":400,"headers":[["content-type","application/json"]],"request_headers":[["accept","application/json, text/event-stream"]],"exchange":0}"#,
            r#"{"dir":"s2c","exchange":0,"raw":"{\"jsonrpc\":\"2.0\",\"error\":{\"code\":-32000,\"message\":\"Bad Request\"},\"id\":null}"}"#,
            r#"{"dir":"c2s","exchange":1,"raw":"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}"}"#,
            r#"{"dir":"event","event":"http","method":"POST","path":"/mcp","status":404,"headers":[],"request_headers":[["accept","application/json, text/event-stream"]],"exchange":1}"#,
        ];
        let events = crate::trace::parse(lines.join("\n").as_bytes()).unwrap();
        let mut session = Session::new();
        for event in &events {
            assert_eq!(session.feed(event), Vec::new());
        }
        let report = session.finish();
        assert_eq!(report.violations, Vec::new());
        assert_eq!(report.open_requests, Vec::new());
    }

    /// An error with a null id answers a malformed client message (JSON-RPC asks for it);
    /// a second one answers nothing: J6.
    #[test]
    fn a_null_id_error_answers_a_malformed_message_once() {
        let mut session = Session::new();
        session.feed(&c2s(
            r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
        ));
        session.feed(&s2c(
            r#"{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}"#,
        ));
        session.feed(&c2s(
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        ));
        session.feed(&c2s("{not json"));
        let error =
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}"#;
        assert_eq!(session.feed(&s2c(error)), Vec::new());
        let again = session.feed(&s2c(error));
        let rules: Vec<&str> = again.iter().map(|v| v.rule.as_str()).collect();
        assert_eq!(rules, ["J6"]);
    }
}
