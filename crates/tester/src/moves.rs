//! The client's moves and the messages they are: each move is one JSON-RPC message (or one
//! deliberately malformed frame), and says which label of the protocol model it is, so that
//! the walk sends it only when the model allows it.

use crate::label::Offer;
use agentpi_monitor::Dir;
use agentpi_monitor::bind;
use serde_json::{Value, json};

/// The client's name in `clientInfo`.
pub const CLIENT: &str = "agentpi-test";
/// A tool name no server has: a call of it must be a JSON-RPC error (T5).
pub const UNKNOWN_TOOL: &str = "agentpi-no-such-tool";
/// A method no server has: it must be answered with -32601.
pub const UNKNOWN_METHOD: &str = "agentpi/no-such-method";
/// A cursor no server issued: it should be answered with -32602 (G1).
pub const INVALID_CURSOR: &str = "agentpi-invalid-cursor";
/// An `Origin` no server may accept (`.invalid` is reserved, RFC 2606): sent over HTTP with
/// one request, it must get 403 (H7: a server that takes it can be reached by DNS rebinding).
pub const FOREIGN_ORIGIN: &str = "http://agentpi-probe.invalid";
/// How long a task the tester creates is kept after it ends (milliseconds): past any run.
pub const TASK_TTL_MS: u64 = 60_000;
/// A protocol version that does not exist.
pub const UNKNOWN_VERSION: &str = "2099-12-31";

/// A frame that is not a valid JSON-RPC request (J9).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Malformed {
    /// A line that is not JSON at all: -32700.
    NotJson,
    /// A request without `"jsonrpc": "2.0"`: -32600.
    NoVersion,
    /// A request whose id is null: -32600.
    NullId,
    /// A JSON array (a batch, removed in 2025-06-18): -32600.
    Batch,
}

impl Malformed {
    pub const ALL: [Malformed; 4] = [
        Malformed::NotJson,
        Malformed::NoVersion,
        Malformed::NullId,
        Malformed::Batch,
    ];

    /// The frame; `n` makes the ids it carries unique in the run (so that no id is used
    /// twice, J3); `meta` is what a request of the era carries besides (so that the frame
    /// breaks one thing only).
    fn bytes(self, n: u64, meta: &serde_json::Map<String, Value>) -> Vec<u8> {
        let params = if meta.is_empty() {
            json!({})
        } else {
            json!({"_meta": meta})
        };
        let request = |id: Value| json!({"jsonrpc": "2.0", "id": id, "method": "tools/list", "params": params});
        let frame = match self {
            Malformed::NotJson => {
                return b"{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": ".to_vec();
            }
            Malformed::NoVersion => {
                let mut r = request(json!(format!("agentpi-no-version-{n}")));
                r.as_object_mut().map(|o| o.shift_remove("jsonrpc"));
                r
            }
            Malformed::NullId => request(Value::Null),
            Malformed::Batch => json!([request(json!(format!("agentpi-batch-{n}")))]),
        };
        frame.to_string().into_bytes()
    }
}

/// One thing the client does.
#[derive(Clone, Debug, PartialEq)]
pub enum Move {
    Initialize {
        version: String,
        roots: bool,
    },
    Initialized,
    /// `server/discover`: the modern opener, or a dual-era client's probe (legacy).
    Discover,
    Ping,
    /// A page of a list method: the first (`None`), the next, or an invalid cursor.
    List {
        method: &'static str,
        cursor: Option<String>,
    },
    Call {
        tool: String,
        args: Value,
        token: bool,
    },
    /// A `tools/call` augmented with a task (`params.task`, 2025-11-25): the server answers
    /// with the task at once, and the call's result is fetched with `tasks/result`.
    TaskCall {
        tool: String,
        args: Value,
    },
    /// `tasks/get`, `tasks/result` or `tasks/cancel` of the task `id`.
    Task {
        method: &'static str,
        id: String,
    },
    Read {
        uri: String,
    },
    Prompt {
        name: String,
        args: Value,
    },
    /// `logging/setLevel` (legacy, to a server that declared `logging`).
    SetLevel {
        level: &'static str,
    },
    /// `completion/complete` of a prompt's argument (to a server that declared
    /// `completions`).
    Complete {
        prompt: String,
        argument: String,
    },
    /// `resources/subscribe` (`on`) or `resources/unsubscribe` of a listed resource (legacy,
    /// to a server that declared `resources.subscribe`).
    Subscribe {
        uri: String,
        on: bool,
    },
    /// `subscriptions/listen` (modern) for the notification types of `filter` (what the
    /// server declared it sends).
    Listen {
        filter: Value,
    },
    /// The retry of `of` that answers an input-required result (modern, multi round-trip):
    /// the same request with a new id, the answers to what the server asked
    /// (`inputResponses`, absent when it asked nothing) and its `requestState` echoed
    /// (absent when it gave none). `round` counts the retries of one request.
    Retry {
        of: Box<Move>,
        responses: Option<Value>,
        state: Option<Value>,
        round: u32,
    },
    /// A method no server has.
    Unknown,
    /// The cancellation of request `id`: `notifications/cancelled`, or over modern
    /// Streamable HTTP (where that notification is forbidden, C5) the close of the request's
    /// stream ([`Move::closes`]).
    Cancel {
        id: u64,
    },
    Malformed(Malformed),
    /// A modern request naming a protocol version that does not exist (M4).
    BadVersion,
}

/// What the message is to the protocol model.
enum Needs {
    Request(&'static str),
    Note(&'static str),
    Cancel(u64),
    /// Not a message the model speaks of (a malformed frame): sent as a probe.
    Nothing,
}

/// The era a run speaks and its version, and whether it speaks over Streamable HTTP.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Speech {
    pub modern: bool,
    pub version: String,
    pub http: bool,
}

impl Move {
    /// The method of the request this move sends, if it sends one.
    pub fn method(&self) -> Option<&'static str> {
        Some(match self {
            Move::Initialize { .. } => "initialize",
            Move::Discover => "server/discover",
            Move::Ping => "ping",
            Move::List { method, .. } => method,
            Move::Call { .. } | Move::TaskCall { .. } => "tools/call",
            Move::Task { method, .. } => method,
            Move::Read { .. } => "resources/read",
            Move::Prompt { .. } => "prompts/get",
            Move::SetLevel { .. } => "logging/setLevel",
            Move::Complete { .. } => "completion/complete",
            Move::Subscribe { on: true, .. } => "resources/subscribe",
            Move::Subscribe { on: false, .. } => "resources/unsubscribe",
            Move::Listen { .. } => "subscriptions/listen",
            Move::Retry { of, .. } => return of.method(),
            Move::Unknown => UNKNOWN_METHOD,
            Move::BadVersion => "tools/list",
            Move::Initialized | Move::Cancel { .. } | Move::Malformed(_) => return None,
        })
    }

    /// Whether this move is the close of a request's HTTP stream rather than a message: a
    /// cancellation over modern Streamable HTTP.
    pub fn closes(&self, speech: &Speech) -> bool {
        matches!(self, Move::Cancel { .. }) && speech.modern && speech.http
    }

    fn needs(&self, speech: &Speech) -> Needs {
        match (self, self.method()) {
            (Move::Initialized, _) => Needs::Note("initialized"),
            (Move::Cancel { id }, _) => Needs::Cancel(*id),
            (Move::Malformed(_), _) => Needs::Nothing,
            (_, Some(method)) if speech.modern => {
                Needs::Request(bind::modern_request_kind(method, Dir::C2s))
            }
            (_, Some(method)) => Needs::Request(bind::request_kind(method, Dir::C2s)),
            (_, None) => Needs::Nothing,
        }
    }

    /// Whether the model takes this move now without a violation. `opening`: the era is not
    /// known yet (nothing sent, or a `server/discover` unanswered): only an opener goes.
    pub fn permitted(&self, offers: &[Offer], speech: &Speech, opening: bool) -> bool {
        if opening {
            return matches!(self, Move::Initialize { .. } | Move::Discover);
        }
        match self.needs(speech) {
            Needs::Request(kind) => offers.contains(&Offer::Request(kind.into())),
            Needs::Note(kind) => offers.contains(&Offer::Note(kind.into())),
            Needs::Cancel(id) => {
                offers.contains(&Offer::Cancel(id.to_string()))
                    || offers.contains(&Offer::LateCancel)
            }
            Needs::Nothing => true,
        }
    }

    /// The bytes of this move's message, with request id `id`.
    pub fn message(&self, id: u64, speech: &Speech) -> Vec<u8> {
        let params = self.params(id, speech);
        let message = match (self, self.method()) {
            (Move::Malformed(m), _) => return m.bytes(id, &self.meta(id, speech)),
            (Move::Initialized, _) => {
                json!({"jsonrpc": "2.0", "method": "notifications/initialized"})
            }
            (Move::Cancel { id: of }, _) => json!({"jsonrpc": "2.0",
                "method": "notifications/cancelled",
                "params": {"requestId": of, "reason": "agentpi test cancels"}}),
            (_, Some(method)) => {
                json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
            }
            (_, None) => Value::Null,
        };
        message.to_string().into_bytes()
    }

    fn params(&self, id: u64, speech: &Speech) -> Value {
        if let Move::Retry {
            of,
            responses,
            state,
            ..
        } = self
        {
            let mut params = of.params(id, speech);
            if let Some(responses) = responses {
                params["inputResponses"] = responses.clone();
            }
            if let Some(state) = state {
                params["requestState"] = state.clone();
            }
            return params;
        }
        let mut params = match self {
            Move::Initialize { version, roots } => {
                // Sampling (with tools) and elicitation (form and URL) are answered in every
                // session (`Run::serve`), so that a server that uses them is held to X4 and X5.
                let mut caps = client_capabilities();
                if *roots {
                    caps["roots"] = json!({});
                }
                json!({"protocolVersion": version, "capabilities": caps,
                       "clientInfo": {"name": CLIENT, "version": env!("CARGO_PKG_VERSION")}})
            }
            Move::List {
                cursor: Some(c), ..
            } => json!({"cursor": c}),
            Move::Call { tool, args, .. } => json!({"name": tool, "arguments": args}),
            Move::TaskCall { tool, args } => {
                json!({"name": tool, "arguments": args, "task": {"ttl": TASK_TTL_MS}})
            }
            Move::Task { id, .. } => json!({"taskId": id}),
            Move::Read { uri } => json!({"uri": uri}),
            Move::Prompt { name, args } => json!({"name": name, "arguments": args}),
            Move::SetLevel { level } => json!({"level": level}),
            Move::Complete { prompt, argument } => json!({
                "ref": {"type": "ref/prompt", "name": prompt},
                "argument": {"name": argument, "value": ""}}),
            Move::Subscribe { uri, .. } => json!({"uri": uri}),
            Move::Listen { filter } => json!({"notifications": filter}),
            _ => json!({}),
        };
        let meta = self.meta(id, speech);
        if !meta.is_empty() {
            params["_meta"] = Value::Object(meta);
        }
        params
    }

    /// The `_meta` of this move's request: the modern version, capabilities and client, and
    /// a progress token when asked for.
    fn meta(&self, id: u64, speech: &Speech) -> serde_json::Map<String, Value> {
        let mut meta = serde_json::Map::new();
        if speech.modern && !matches!(self, Move::Initialize { .. }) {
            let version = if *self == Move::BadVersion {
                UNKNOWN_VERSION
            } else {
                speech.version.as_str()
            };
            meta = modern_meta(version);
        } else if *self == Move::Discover {
            // A dual-era client's probe carries what a modern request carries.
            meta = modern_meta(agentpi_mcp::jsonrpc::MODERN_VERSION);
        }
        if matches!(self, Move::Call { token: true, .. }) {
            meta.insert("progressToken".into(), json!(format!("p{id}")));
        }
        meta
    }
}

/// The client capabilities of both eras: sampling with tools (`sampling.tools`) and
/// elicitation in form and URL modes, all of which [`answer_to`] answers. Both are declared
/// so that a server may use them: an undeclared mode or `tools` is a finding against it
/// (X4, X5), and a tester that declared less would never see them.
fn client_capabilities() -> Value {
    json!({"sampling": {"tools": {}}, "elicitation": {"form": {}, "url": {}}})
}

/// The `_meta` every modern request carries. It declares the capabilities of
/// [`client_capabilities`], so that a server that asks for input in an input-required
/// result is held to M11 and the tester's retries to M12.
fn modern_meta(version: &str) -> serde_json::Map<String, Value> {
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": version,
        "io.modelcontextprotocol/clientCapabilities": client_capabilities(),
        "io.modelcontextprotocol/clientInfo": {"name": CLIENT, "version": env!("CARGO_PKG_VERSION")},
    });
    match meta {
        Value::Object(m) => m,
        _ => serde_json::Map::new(),
    }
}

/// The result a client that declared sampling and elicitation (and roots, with `roots`)
/// gives to a server's request `method`: a fixed text, a form or URL declined (there is no
/// user to fill it in or to open it), no roots. `None` for any other method.
///
/// The sampling answer also fits a request with tools: a single text block that ends the
/// turn (`endTurn`) is a valid `CreateMessageResultWithTools` and holds no tool use, so the
/// server owes no tool result (X4).
pub fn answer_to(method: &str, roots: bool) -> Option<Value> {
    Some(match method {
        "sampling/createMessage" => json!({"role": "assistant", "model": CLIENT,
            "content": {"type": "text", "text": "agentpi"}, "stopReason": "endTurn"}),
        "elicitation/create" => json!({"action": "decline"}),
        "roots/list" if roots => json!({"roots": []}),
        _ => return None,
    })
}

/// The answers to the input requests of an input-required result: `Some(None)` when it asked
/// nothing, `None` when it asked something the tester does not answer.
pub fn input_responses(asked: Option<&Value>) -> Option<Option<Value>> {
    let Some(asked) = asked else {
        return Some(None);
    };
    let mut out = serde_json::Map::new();
    for (key, request) in asked.as_object()? {
        let method = request.get("method").and_then(Value::as_str)?;
        out.insert(key.clone(), answer_to(method, false)?);
    }
    Some(Some(Value::Object(out)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a stdio run of either era speaks.
    fn speech(modern: bool) -> Speech {
        let version = if modern { "2026-07-28" } else { "2025-11-25" };
        Speech {
            modern,
            version: version.into(),
            http: false,
        }
    }

    #[test]
    fn moves_are_messages_of_their_era() {
        let (legacy, modern) = (speech(false), speech(true));
        let call = Move::Call {
            tool: "echo".into(),
            args: json!({"message": "hi"}),
            token: true,
        };
        let raw: Value = serde_json::from_slice(&call.message(4, &legacy)).unwrap();
        assert_eq!(raw["params"]["_meta"], json!({"progressToken": "p4"}));
        let raw: Value = serde_json::from_slice(&Move::Discover.message(1, &modern)).unwrap();
        assert_eq!(
            raw["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"],
            "2026-07-28"
        );
        let offers = [Offer::Request("tools".into())];
        assert!(call.permitted(&offers, &legacy, false));
        assert!(!Move::Ping.permitted(&offers, &legacy, false));
        assert!(!call.permitted(&offers, &legacy, true));
        assert!(Move::Cancel { id: 3 }.permitted(&[Offer::LateCancel], &legacy, false));
        let http = Speech {
            http: true,
            ..modern.clone()
        };
        let cancel = Move::Cancel { id: 3 };
        assert!(cancel.permitted(&[Offer::Cancel("3".into())], &http, false));
        assert!(!cancel.permitted(&[Offer::Cancel("4".into())], &http, false));
        assert!(cancel.closes(&http) && !cancel.closes(&modern) && !call.closes(&http));
    }

    /// The retry of an input-required call: the call again under a new id, what was asked
    /// answered and the state echoed (M12); nothing is answered that the tester did not
    /// declare, and a result that asked nothing is retried with its state alone.
    #[test]
    fn a_retry_answers_what_was_asked_and_echoes_the_state() {
        let modern = speech(true);
        let asked = json!({"a": {"method": "elicitation/create"}, "b": {"method": "sampling/createMessage"}});
        let responses = input_responses(Some(&asked)).unwrap();
        let call = Move::Call {
            tool: "confirm".into(),
            args: json!({}),
            token: false,
        };
        let retry = Move::Retry {
            of: Box::new(call),
            responses: responses.clone(),
            state: Some(json!("s1")),
            round: 1,
        };
        let raw: Value = serde_json::from_slice(&retry.message(7, &modern)).unwrap();
        assert_eq!(raw["id"], 7);
        assert_eq!(raw["method"], "tools/call");
        assert_eq!(raw["params"]["name"], "confirm");
        assert_eq!(raw["params"]["requestState"], "s1");
        assert_eq!(
            raw["params"]["inputResponses"]["a"],
            json!({"action": "decline"})
        );
        assert_eq!(raw["params"]["inputResponses"]["b"]["role"], "assistant");
        let roots = json!({"r": {"method": "roots/list"}});
        assert_eq!(input_responses(Some(&roots)), None);
        assert_eq!(input_responses(None), Some(None));
        let Move::Retry { of, .. } = retry else {
            unreachable!("built above")
        };
        let bare = Move::Retry {
            of,
            responses: None,
            state: None,
            round: 1,
        };
        let raw: Value = serde_json::from_slice(&bare.message(8, &modern)).unwrap();
        assert!(raw["params"].get("inputResponses").is_none());
        assert!(raw["params"].get("requestState").is_none());
    }

    /// Both eras declare sampling with tools and both elicitation modes, and the answers fit
    /// what was declared: a URL elicitation declined, a sampling request with tools answered
    /// by a text that ends the turn, with no tool use left for the server to answer (X4).
    #[test]
    fn both_eras_declare_sampling_tools_and_url_elicitation() {
        let (legacy, modern) = (speech(false), speech(true));
        let init = Move::Initialize {
            version: "2025-11-25".into(),
            roots: false,
        };
        let raw: Value = serde_json::from_slice(&init.message(0, &legacy)).unwrap();
        let declared = &raw["params"]["capabilities"];
        let raw: Value = serde_json::from_slice(&Move::Discover.message(1, &modern)).unwrap();
        let meta = &raw["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"];
        for caps in [declared, meta] {
            assert_eq!(caps["sampling"], json!({"tools": {}}));
            assert_eq!(caps["elicitation"], json!({"form": {}, "url": {}}));
        }
        assert_eq!(
            answer_to("elicitation/create", false),
            Some(json!({"action": "decline"}))
        );
        let sampled = answer_to("sampling/createMessage", false).unwrap();
        assert_eq!(sampled["stopReason"], "endTurn");
        assert_eq!(sampled["content"]["type"], "text");
    }
}
