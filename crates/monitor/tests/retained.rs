//! What `Sessions` keeps of a long HTTP trace is bounded by what is live, not by what went by:
//! a legacy session's exchanges are forgotten once judged (nothing later can look at them),
//! and a session whose DELETE was answered drops its model. Synthetic traces as `agentpi
//! monitor --listen` records them (request bodies with `mcp_session_id`, heads with both sets
//! of headers), clean, so that the counts are those of a session judged whole.

use agentpi_monitor::Sessions;
use agentpi_monitor::sessions::Retained;
use agentpi_monitor::trace::{self, Event};
use serde_json::{Value, json};

const VERSION: &str = "2025-11-25";

/// Writes the lines of a trace, numbering exchanges in order.
#[derive(Default)]
struct Trace {
    lines: Vec<Value>,
    exchange: u64,
}

impl Trace {
    /// One POST of `body` in session `sid` (none for the `initialize`), answered `status`
    /// with `content_type` and the messages `answers` (an SSE stream when more than one).
    fn post(&mut self, sid: Option<&str>, body: Value, status: u64, answers: &[Value]) {
        let x = self.exchange;
        self.exchange += 1;
        self.lines
            .push(json!({"dir": "c2s", "raw": body.to_string(), "exchange": x,
            "mcp_session_id": sid, "connection": 0}));
        let mut asked = vec![json!(["accept", "application/json, text/event-stream"])];
        if let Some(sid) = sid {
            asked.push(json!(["mcp-session-id", sid]));
            asked.push(json!(["mcp-protocol-version", VERSION]));
        }
        let mut answered = match answers.len() {
            0 => vec![json!(["content-length", "0"])],
            1 => vec![json!(["content-type", "application/json"])],
            _ => vec![json!(["content-type", "text/event-stream"])],
        };
        if sid.is_none() {
            answered.push(json!(["mcp-session-id", format!("s-{x}")]));
        }
        self.head("POST", status, asked, answered);
        for answer in answers {
            self.lines
                .push(json!({"dir": "s2c", "raw": answer.to_string(), "exchange": x}));
        }
    }

    fn head(&mut self, method: &str, status: u64, asked: Vec<Value>, answered: Vec<Value>) {
        let x = self.exchange - 1;
        self.lines
            .push(json!({"dir": "event", "event": "http", "method": method,
            "path": "/mcp", "status": status, "headers": answered,
            "request_headers": asked, "exchange": x}));
    }

    /// A legacy session: `initialize`, `initialized`, `requests` requests (`tools/list` as
    /// JSON and `tools/call` on an SSE stream with a progress notification, in turn), and a
    /// DELETE when `ends`.
    fn session(&mut self, requests: u64, ends: bool) {
        let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params":
            {"protocolVersion": VERSION, "capabilities": {},
             "clientInfo": {"name": "c", "version": "1"}}});
        let result = json!({"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": VERSION,
            "capabilities": {"tools": {}}, "serverInfo": {"name": "s", "version": "1"}}});
        let sid = format!("s-{}", self.exchange);
        self.post(None, init, 200, &[result]);
        let sid = Some(sid.as_str());
        let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        self.post(sid, initialized, 202, &[]);
        for n in 1..=requests {
            let (request, answers) = exchange(n);
            self.post(sid, request, 200, &answers);
        }
        if ends {
            self.exchange += 1;
            let asked = vec![
                json!(["mcp-session-id", sid]),
                json!(["mcp-protocol-version", VERSION]),
            ];
            self.head("DELETE", 200, asked, vec![json!(["content-length", "0"])]);
        }
    }

    fn events(&self) -> Vec<Event> {
        let text: Vec<String> = self.lines.iter().map(Value::to_string).collect();
        trace::parse(text.join("\n").as_bytes()).unwrap()
    }
}

/// Request `n` of a session and what answers it.
fn exchange(n: u64) -> (Value, Vec<Value>) {
    if n % 2 == 1 {
        let request = json!({"jsonrpc": "2.0", "id": n, "method": "tools/list"});
        let tools = json!([{"name": "t", "inputSchema": {"type": "object"}}]);
        let result = json!({"jsonrpc": "2.0", "id": n, "result": {"tools": tools}});
        return (request, vec![result]);
    }
    let request = json!({"jsonrpc": "2.0", "id": n, "method": "tools/call", "params":
        {"name": "t", "arguments": {}, "_meta": {"progressToken": n}}});
    let progress = json!({"jsonrpc": "2.0", "method": "notifications/progress", "params":
        {"progressToken": n, "progress": 1}});
    let result = json!({"jsonrpc": "2.0", "id": n, "result":
        {"content": [{"type": "text", "text": "ok"}]}});
    (request, vec![progress, result])
}

/// Feeds `ended` sessions of `requests` requests that each end with a DELETE, then one of
/// `long` requests that stays open; what the sessions keep at the end, and the violations.
fn check(ended: usize, requests: u64, long: u64) -> (Retained, usize) {
    let mut trace = Trace::default();
    for _ in 0..ended {
        trace.session(requests, true);
    }
    trace.session(long, false);
    let mut sessions = Sessions::new();
    for event in &trace.events() {
        sessions.feed(event);
    }
    let retained = sessions.retained();
    (retained, sessions.finish().violations.len())
}

/// Whatever the traffic, the sessions keep one model (the open session's) and no exchange;
/// each session (and the `stateless` one) keeps its report.
#[test]
fn what_is_kept_does_not_grow_with_the_traffic() {
    let cases = [
        (0, 0, 10),
        (0, 0, 4000),
        (1, 10, 10),
        (300, 10, 10),
        (300, 40, 2000),
    ];
    for (ended, requests, long) in cases {
        let (retained, violations) = check(ended, requests, long);
        let expected = Retained {
            sessions: ended + 2,
            models: 1,
            exchanges: 0,
            held: 0,
        };
        let case = format!("{ended} sessions of {requests} requests, one of {long}");
        assert_eq!(retained, expected, "{case}");
        assert_eq!(violations, 0, "{case}");
    }
}
