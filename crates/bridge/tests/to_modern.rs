//! `ToModern` without processes: scripted messages from each side, and what the bridge writes
//! in answer, one case per exchange of the model. The real peers are in
//! crates/cli/tests/bridge_run.rs; these pin what they cannot reach: the K-round bound, a
//! client that declared no capability, a server that does not speak 2026-07-28, a message no
//! transition takes.

use agentpi_bridge::engine::Engine;
use agentpi_bridge::model::model;
use agentpi_bridge::side::Side;
use agentpi_bridge::to_modern::{To, ToModern};
use serde_json::Value;
use std::time::Instant;

/// A line from the client (`c`) or the server (`s`), `x` the server's end (the model's
/// `down`), or what the bridge must have written
/// since the last check: (`C` to the client, `S` to the server, a piece of each line; `C1`,
/// `S1`: exactly one line, with that piece).
type Step = (&'static str, &'static str);

struct Case {
    name: &'static str,
    steps: &'static [Step],
}

const INIT_ELICIT: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"elicitation":{}},"clientInfo":{"name":"t","version":"1"}}}"#;
const INIT_BARE: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
const DISCOVERED: &str = r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{},"resources":{"subscribe":true}},"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"srv","version":"9"}}}}"#;
const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
const CALL: &str =
    r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"confirm","arguments":{}}}"#;
const ASKS_2: &str = r#"{"jsonrpc":"2.0","id":2,"result":{"resultType":"input_required","inputRequests":{"a":{"method":"elicitation/create","params":{"message":"ok?","requestedSchema":{"type":"object","properties":{}}}}},"requestState":"s1"}}"#;
const ASKS_BOTH: &str = r#"{"jsonrpc":"2.0","id":2,"result":{"resultType":"input_required","inputRequests":{"a":{"method":"elicitation/create","params":{"message":"ok?","requestedSchema":{"type":"object","properties":{}}}},"b":{"method":"sampling/createMessage","params":{"messages":[],"maxTokens":5}}},"requestState":"s1"}}"#;
const INIT_SAMPLE: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"sampling":{}},"clientInfo":{"name":"t","version":"1"}}}"#;
const ASKS_3: &str = r#"{"jsonrpc":"2.0","id":4,"result":{"resultType":"input_required","inputRequests":{"a":{"method":"elicitation/create","params":{"message":"ok?","requestedSchema":{"type":"object","properties":{}}}}},"requestState":"s2"}}"#;
const ASKS_5: &str = r#"{"jsonrpc":"2.0","id":6,"result":{"resultType":"input_required","inputRequests":{"a":{"method":"elicitation/create","params":{"message":"ok?","requestedSchema":{"type":"object","properties":{}}}}},"requestState":"s3"}}"#;

const CALL_TOKEN: &str = r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"confirm","arguments":{},"_meta":{"progressToken":"tok"}}}"#;
const PROGRESS_2: &str = r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":2,"progress":1,"total":3}}"#;
const PROGRESS_4: &str = r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":4,"progress":2,"total":3}}"#;
const PROGRESS_TOK: &str = r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"tok","progress":3}}"#;

const DISCOVERED_LOGGING: &str = r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{},"logging":{}},"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"srv","version":"9"}}}}"#;
const LOG_LINE: &str =
    r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"hi"}}"#;

const CASES: &[Case] = &[
    // A log line (`TMLog`): of the call in flight, relayed (the server declared `logging`);
    // after the call's answer no transition takes it: dropped (noted). Without `logging`
    // declared the call's copy takes it and drops it (X6, bridge_logging.rs).
    Case {
        name: "log-line-of-a-call",
        steps: &[
            ("c", INIT_BARE),
            ("s", DISCOVERED_LOGGING),
            ("C", r#""logging":{}"#),
            ("c", INITIALIZED),
            ("c", CALL),
            ("s", LOG_LINE),
            ("C1", r#""data":"hi""#),
            (
                "s",
                r#"{"jsonrpc":"2.0","id":2,"result":{"resultType":"complete","content":[]}}"#,
            ),
            ("C1", r#""id":5,"result""#),
            ("s", LOG_LINE),
            ("C", ""),
        ],
    },
    // Progress (`TMProgress`): each round's request carries a token of its own (its id), and
    // the server's progress of whichever round reaches the client under the client's own
    // token; a progress of a round that is over, or under the client's token (which the
    // server was never given), is dropped; so is one after the final answer.
    Case {
        name: "progress-every-round",
        steps: &[
            ("c", INIT_ELICIT),
            ("s", DISCOVERED),
            ("c", INITIALIZED),
            ("c", CALL_TOKEN),
            ("S1", r#""progressToken":2"#),
            ("s", PROGRESS_2),
            (
                "C1",
                r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"tok","progress":1,"total":3}}"#,
            ),
            ("s", ASKS_2),
            ("C1", r#""id":3,"method":"elicitation/create""#),
            // The round is over: its progress no transition takes.
            ("s", PROGRESS_2),
            ("C", ""),
            (
                "c",
                r#"{"jsonrpc":"2.0","id":3,"result":{"action":"accept","content":{}}}"#,
            ),
            ("S1", r#""progressToken":4"#),
            ("s", PROGRESS_4),
            ("C1", r#""progressToken":"tok","progress":2"#),
            ("s", PROGRESS_TOK),
            ("C", ""),
            (
                "s",
                r#"{"jsonrpc":"2.0","id":4,"result":{"resultType":"complete","content":[]}}"#,
            ),
            ("C1", r#"{"jsonrpc":"2.0","id":5,"result":{"content":[]}}"#),
            ("s", PROGRESS_4),
            ("C", ""),
        ],
    },
    // A call that asked for no progress gets no token on the modern side.
    Case {
        name: "no-token-no-progress",
        steps: &[
            ("c", INIT_ELICIT),
            ("s", DISCOVERED),
            ("c", INITIALIZED),
            ("c", CALL),
            (
                "S1",
                r#""_meta":{"io.modelcontextprotocol/protocolVersion""#,
            ),
            ("s", PROGRESS_2),
            ("C", ""),
        ],
    },
    Case {
        name: "handshake",
        steps: &[
            ("c", INIT_ELICIT),
            ("S", r#""method":"server/discover""#),
            (
                "S",
                r#""io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}"#,
            ),
            ("s", DISCOVERED),
            // The version the client offered; the server's info from discover's `_meta`.
            ("C", r#""protocolVersion":"2025-06-18""#),
            ("C", r#""serverInfo":{"name":"srv","version":"9"}"#),
            // The server's capabilities as it declared them: a resource subscription is
            // carried through `subscriptions/listen` (no `listChanged` here, so no list-changes
            // listen opens and the ids below stay the call's).
            (
                "C",
                r#""capabilities":{"tools":{},"resources":{"subscribe":true}}"#,
            ),
            ("c", INITIALIZED),
            ("c", r#"{"jsonrpc":"2.0","id":9,"method":"ping"}"#),
            ("C", r#"{"jsonrpc":"2.0","id":9,"result":{}}"#),
        ],
    },
    Case {
        name: "no-modern-version",
        steps: &[
            ("c", INIT_ELICIT),
            (
                "s",
                r#"{"jsonrpc":"2.0","id":1,"result":{"supportedVersions":["2027-01-01"]}}"#,
            ),
            ("C", r#""id":0,"error""#),
            ("C", "does not speak 2026-07-28"),
            // The session never opened: a request is one no transition takes.
            ("c", CALL),
            ("C", "no transition of mcp/bridge's ToModern takes it"),
        ],
    },
    Case {
        name: "one-round",
        steps: &[
            ("c", INIT_ELICIT),
            ("s", DISCOVERED),
            ("c", INITIALIZED),
            ("c", CALL),
            ("S", r#""id":2,"method":"tools/call""#),
            ("s", ASKS_2),
            ("C", r#""id":3,"method":"elicitation/create""#),
            (
                "c",
                r#"{"jsonrpc":"2.0","id":3,"result":{"action":"accept","content":{}}}"#,
            ),
            // The retry: a new id, the answer under its key, the state echoed.
            ("S", r#""id":4,"method":"tools/call""#),
            (
                "S",
                r#""inputResponses":{"a":{"action":"accept","content":{}}},"requestState":"s1""#,
            ),
            (
                "s",
                r#"{"jsonrpc":"2.0","id":4,"result":{"resultType":"complete","content":[]}}"#,
            ),
            // One final result under the client's id, without `resultType`.
            ("C", r#"{"jsonrpc":"2.0","id":5,"result":{"content":[]}}"#),
        ],
    },
    Case {
        name: "k-rounds",
        steps: &[
            ("c", INIT_ELICIT),
            ("s", DISCOVERED),
            ("c", INITIALIZED),
            ("c", CALL),
            ("s", ASKS_2),
            (
                "c",
                r#"{"jsonrpc":"2.0","id":3,"result":{"action":"accept"}}"#,
            ),
            ("s", ASKS_3),
            ("C", r#""id":5,"method":"elicitation/create""#),
            (
                "c",
                r#"{"jsonrpc":"2.0","id":5,"result":{"action":"accept"}}"#,
            ),
            ("S", r#""id":6,"method":"tools/call""#),
            // A third round is more than K = 2: the client gets an error, nothing is retried.
            ("s", ASKS_5),
            ("C", r#""id":5,"error""#),
            ("C", "more than K = 2 times"),
        ],
    },
    Case {
        name: "server-error",
        steps: &[
            ("c", INIT_ELICIT),
            ("s", DISCOVERED),
            ("c", INITIALIZED),
            ("c", CALL),
            (
                "s",
                r#"{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"no tool"}}"#,
            ),
            (
                "C",
                r#"{"jsonrpc":"2.0","id":5,"error":{"code":-32602,"message":"no tool"}}"#,
            ),
        ],
    },
    Case {
        name: "crossed-answer",
        steps: &[
            ("c", INIT_ELICIT),
            ("s", DISCOVERED),
            ("c", INITIALIZED),
            ("c", CALL),
            (
                "c",
                r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5}}"#,
            ),
            (
                "S",
                r#""method":"notifications/cancelled","params":{"requestId":2"#,
            ),
            // The server's answer crossed the cancel: dropped, nothing to the client.
            (
                "s",
                r#"{"jsonrpc":"2.0","id":2,"result":{"resultType":"complete","content":[]}}"#,
            ),
            ("C", ""),
        ],
    },
    // The client cancels its call while the bridge's elicitation for it is pending: the
    // modern request is over (it ended with `input_required`), so nothing goes to the server;
    // the bridge withdraws its elicitation (the model's `cancel(r)`), never retries, and drops
    // the answer that crossed the withdrawal (the Python SDK 1.x answers a cancelled request
    // with an error).
    Case {
        name: "cancel-mid-elicitation",
        steps: &[
            ("c", INIT_ELICIT),
            ("s", DISCOVERED),
            ("c", INITIALIZED),
            ("c", CALL),
            ("s", ASKS_2),
            ("C", r#""id":3,"method":"elicitation/create""#),
            (
                "c",
                r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5}}"#,
            ),
            (
                "C",
                r#""method":"notifications/cancelled","params":{"requestId":3"#,
            ),
            ("S", ""),
            (
                "c",
                r#"{"jsonrpc":"2.0","id":3,"error":{"code":0,"message":"Request cancelled"}}"#,
            ),
            ("C", ""),
            ("S", ""),
            // The session goes on.
            ("c", r#"{"jsonrpc":"2.0","id":9,"method":"ping"}"#),
            ("C", r#"{"jsonrpc":"2.0","id":9,"result":{}}"#),
        ],
    },
    // The server goes away with one call asking the client and another in flight: the
    // pending elicitation is withdrawn, then each call gets `gone` (an error naming the
    // exit); nothing more goes to the server.
    Case {
        name: "server-gone",
        steps: &[
            ("c", INIT_ELICIT),
            ("s", DISCOVERED),
            ("c", INITIALIZED),
            ("c", CALL),
            ("s", ASKS_2),
            ("C", r#""id":3,"method":"elicitation/create""#),
            (
                "c",
                r#"{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"add","arguments":{}}}"#,
            ),
            ("x", ""),
            (
                "C",
                r#""method":"notifications/cancelled","params":{"requestId":3"#,
            ),
            ("C", r#""id":5,"error""#),
            ("C", r#""id":8,"error""#),
            ("C", "the server exited (status 3)"),
            ("S", ""),
        ],
    },
    // The server goes away during `server/discover`: the client's `initialize` gets `gone`.
    Case {
        name: "server-gone-at-start",
        steps: &[
            ("c", INIT_ELICIT),
            ("x", ""),
            ("C", r#""id":0,"error""#),
            ("C", "the server exited (status 3)"),
        ],
    },
    // Two calls in flight, one asking the client: each copy gets only its own answers, and
    // each answer reaches only its own client request (`C1`: exactly one line).
    Case {
        name: "two-calls",
        steps: &[
            ("c", INIT_ELICIT),
            ("s", DISCOVERED),
            ("c", INITIALIZED),
            ("c", CALL),
            ("S", r#""id":2,"method":"tools/call""#),
            ("s", ASKS_2),
            ("C1", r#""id":3,"method":"elicitation/create""#),
            (
                "c",
                r#"{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"add","arguments":{}}}"#,
            ),
            ("S", r#""id":4,"method":"tools/call""#),
            (
                "s",
                r#"{"jsonrpc":"2.0","id":4,"result":{"resultType":"complete","content":[{"type":"text","text":"B"}]}}"#,
            ),
            (
                "C1",
                r#"{"jsonrpc":"2.0","id":8,"result":{"content":[{"type":"text","text":"B"}]}}"#,
            ),
            // A stale answer for the first call's ended request reaches no one.
            (
                "s",
                r#"{"jsonrpc":"2.0","id":2,"result":{"resultType":"complete","content":[]}}"#,
            ),
            ("C", ""),
            (
                "c",
                r#"{"jsonrpc":"2.0","id":3,"result":{"action":"accept","content":{}}}"#,
            ),
            ("S", r#""id":5,"method":"tools/call""#),
            ("S", r#""requestState":"s1""#),
            (
                "s",
                r#"{"jsonrpc":"2.0","id":5,"result":{"resultType":"complete","content":[{"type":"text","text":"A"}]}}"#,
            ),
            (
                "C1",
                r#"{"jsonrpc":"2.0","id":5,"result":{"content":[{"type":"text","text":"A"}]}}"#,
            ),
        ],
    },
    // X1: a server that asks for input the client never declared (it breaks M11). An
    // undeclared elicitation is declined in the retry, the client never asked; beside a
    // declared one, only the declared one is asked.
    Case {
        name: "undeclared-elicitation-declined",
        steps: &[
            ("c", INIT_BARE),
            ("S", r#""io.modelcontextprotocol/clientCapabilities":{}"#),
            ("s", DISCOVERED),
            ("c", INITIALIZED),
            ("c", CALL),
            ("s", ASKS_2),
            ("C", ""),
            ("S1", r#""inputResponses":{"a":{"action":"decline"}}"#),
            ("S1", r#""requestState":"s1""#),
            (
                "s",
                r#"{"jsonrpc":"2.0","id":3,"result":{"resultType":"complete","content":[]}}"#,
            ),
            ("C1", r#"{"jsonrpc":"2.0","id":5,"result":{"content":[]}}"#),
        ],
    },
    Case {
        name: "undeclared-sampling-refused",
        steps: &[
            ("c", INIT_ELICIT),
            ("s", DISCOVERED),
            ("c", INITIALIZED),
            ("c", CALL),
            ("s", ASKS_BOTH),
            // Neither is asked: sampling has no refusal, so the call ends; nothing is retried.
            ("S", ""),
            ("C1", r#""id":5,"error""#),
            (
                "C1",
                "sampling/createMessage, which this client did not declare",
            ),
        ],
    },
    Case {
        name: "undeclared-beside-declared",
        steps: &[
            ("c", INIT_SAMPLE),
            ("s", DISCOVERED),
            ("c", INITIALIZED),
            ("c", CALL),
            ("s", ASKS_BOTH),
            ("C1", r#""id":3,"method":"sampling/createMessage""#),
            (
                "c",
                r#"{"jsonrpc":"2.0","id":3,"result":{"role":"assistant","content":{"type":"text","text":"noon"},"model":"m"}}"#,
            ),
            ("S1", r#""a":{"action":"decline"}"#),
            ("S1", r#""b":{"role":"assistant""#),
        ],
    },
    Case {
        name: "task-refused",
        steps: &[
            ("c", INIT_ELICIT),
            ("s", DISCOVERED),
            ("c", INITIALIZED),
            (
                "c",
                r#"{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"x","task":{"ttl":1}}}"#,
            ),
            ("C", "task-augmented requests are not carried"),
        ],
    },
    // Subscriptions (`TMSubs`): the list-changes listen opens at `notifications/initialized`;
    // a subscribe opens the resource's listen and is answered at its acknowledgement; what a
    // listen carries is relayed without its `subscriptionId` while it stands; an update of
    // another URI, one that crossed the unsubscribe, one outside any listen for a URI not
    // subscribed: dropped.
    Case {
        name: "subscriptions",
        steps: &[
            ("c", INIT_BARE),
            ("s", DISCOVERED_LISTS),
            ("C1", r#""resources":{"listChanged":true,"subscribe":true}"#),
            ("c", INITIALIZED),
            (
                "S1",
                r#""id":2,"method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true,"resourcesListChanged":true}"#,
            ),
            (
                "s",
                r#"{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":2}}}"#,
            ),
            ("C", ""),
            ("c", SUBSCRIBE),
            (
                "S1",
                r#""id":3,"method":"subscriptions/listen","params":{"notifications":{"resourceSubscriptions":["memo://a"]}"#,
            ),
            ("C", ""),
            (
                "s",
                r#"{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":3}}}"#,
            ),
            ("C1", r#"{"jsonrpc":"2.0","id":7,"result":{}}"#),
            (
                "s",
                r#"{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"memo://a","_meta":{"io.modelcontextprotocol/subscriptionId":3}}}"#,
            ),
            (
                "C1",
                r#"{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"memo://a"}}"#,
            ),
            (
                "s",
                r#"{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"memo://b","_meta":{"io.modelcontextprotocol/subscriptionId":3}}}"#,
            ),
            ("C", ""),
            (
                "s",
                r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":2}}}"#,
            ),
            (
                "C1",
                r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{}}"#,
            ),
            (
                "c",
                r#"{"jsonrpc":"2.0","id":8,"method":"resources/unsubscribe","params":{"uri":"memo://a"}}"#,
            ),
            (
                "S1",
                r#""method":"notifications/cancelled","params":{"requestId":3"#,
            ),
            ("C1", r#"{"jsonrpc":"2.0","id":8,"result":{}}"#),
            (
                "s",
                r#"{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"memo://a","_meta":{"io.modelcontextprotocol/subscriptionId":3}}}"#,
            ),
            ("C", ""),
            (
                "s",
                r#"{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"memo://a"}}"#,
            ),
            ("C", ""),
        ],
    },
    Case {
        name: "subscription-refused",
        steps: &[
            ("c", INIT_BARE),
            ("s", DISCOVERED),
            ("c", INITIALIZED),
            ("S", ""),
            ("c", SUBSCRIBE),
            ("S1", r#""id":2,"method":"subscriptions/listen""#),
            (
                "s",
                r#"{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"no listen"}}"#,
            ),
            (
                "C1",
                r#"{"jsonrpc":"2.0","id":7,"error":{"code":-32601,"message":"no listen"}}"#,
            ),
        ],
    },
    // A listen the server ends once acknowledged is opened again after its back-off (the
    // tick), its updates relayed again; an update starts the count again; ended twice more
    // with nothing between, it is opened twice more, then given up (the third end): nothing
    // is written, and a new subscribe opens a listen at once.
    Case {
        name: "listen-ended-opened-again",
        steps: &[
            ("c", INIT_BARE),
            ("s", DISCOVERED),
            ("c", INITIALIZED),
            ("c", SUBSCRIBE),
            ("S1", LISTEN2),
            ("s", ACK2),
            ("C1", r#""id":7,"result":{}"#),
            ("s", END2),
            ("S", ""),
            ("C", ""),
            ("t", ""),
            ("S1", LISTEN3),
            ("s", ACK3),
            ("C", ""),
            ("s", UPD3),
            (
                "C1",
                r#""method":"notifications/resources/updated","params":{"uri":"memo://a"}}"#,
            ),
            ("s", END3),
            ("t", ""),
            ("S1", LISTEN4),
            ("s", ACK4),
            ("s", END4),
            ("t", ""),
            ("S1", LISTEN5),
            ("s", ACK5),
            ("s", END5),
            ("S", ""),
            ("t", ""),
            ("S", ""),
            ("C", ""),
            ("c", SUBSCRIBE),
            ("S1", LISTEN6),
            ("s", ACK6),
            ("C1", r#""id":7,"result":{}"#),
        ],
    },
    // An unsubscribe while a re-open waits for its back-off: the listen is written at once
    // (the model sent it), and once acknowledged it is cancelled and the unsubscribe answered.
    Case {
        name: "unsubscribe-while-opening-again",
        steps: &[
            ("c", INIT_BARE),
            ("s", DISCOVERED),
            ("c", INITIALIZED),
            ("c", SUBSCRIBE),
            ("S1", LISTEN2),
            ("s", ACK2),
            ("s", END2),
            ("c", UNSUBSCRIBE),
            ("S1", LISTEN3),
            ("C", ""),
            ("s", ACK3),
            (
                "S1",
                r#""method":"notifications/cancelled","params":{"requestId":3"#,
            ),
            ("C1", r#""id":8,"result":{}"#),
            ("t", ""),
            ("S", ""),
        ],
    },
    Case {
        name: "subscribe-before-initialized",
        steps: &[
            ("c", INIT_BARE),
            ("s", DISCOVERED),
            ("c", SUBSCRIBE),
            ("S", ""),
            ("C1", "no transition of mcp/bridge's ToModern takes it"),
        ],
    },
];

const DISCOVERED_LISTS: &str = r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{"listChanged":true},"resources":{"listChanged":true,"subscribe":true}}}}"#;
const ACK2: &str = r#"{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":2}}}"#;
const ACK3: &str = r#"{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":3}}}"#;
const ACK4: &str = r#"{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":4}}}"#;
const ACK5: &str = r#"{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":5}}}"#;
const ACK6: &str = r#"{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":6}}}"#;
const END2: &str = r#"{"jsonrpc":"2.0","id":2,"result":{"resultType":"complete"}}"#;
const END3: &str = r#"{"jsonrpc":"2.0","id":3,"result":{"resultType":"complete"}}"#;
const END4: &str = r#"{"jsonrpc":"2.0","id":4,"result":{"resultType":"complete"}}"#;
const END5: &str = r#"{"jsonrpc":"2.0","id":5,"result":{"resultType":"complete"}}"#;
const LISTEN2: &str = r#""id":2,"method":"subscriptions/listen""#;
const LISTEN3: &str = r#""id":3,"method":"subscriptions/listen""#;
const LISTEN4: &str = r#""id":4,"method":"subscriptions/listen""#;
const LISTEN5: &str = r#""id":5,"method":"subscriptions/listen""#;
const LISTEN6: &str = r#""id":6,"method":"subscriptions/listen""#;
const UPD3: &str = r#"{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"memo://a","_meta":{"io.modelcontextprotocol/subscriptionId":3}}}"#;
const UNSUBSCRIBE: &str =
    r#"{"jsonrpc":"2.0","id":8,"method":"resources/unsubscribe","params":{"uri":"memo://a"}}"#;
const SUBSCRIBE: &str =
    r#"{"jsonrpc":"2.0","id":7,"method":"resources/subscribe","params":{"uri":"memo://a"}}"#;

fn check(case: &Case) {
    let model = model().unwrap();
    let now = Instant::now();
    let (legacy, modern) = Side::pair(None, now).unwrap();
    let mut bridge = ToModern::new(model, legacy, modern).unwrap();
    let mut written: Vec<(To, String)> = Vec::new();
    for (k, (who, text)) in case.steps.iter().enumerate() {
        let at = format!("{} step {}", case.name, k + 1);
        match *who {
            "c" => bridge.client(text.as_bytes()),
            "s" => bridge.server(text.as_bytes()),
            "x" => bridge.server_gone("exited (status 3)"),
            // Time enough for every back-off.
            "t" => bridge.tick(Instant::now() + std::time::Duration::from_secs(3600)),
            to => {
                let one = to.ends_with('1');
                let to = if to.starts_with('C') {
                    To::Client
                } else {
                    To::Server
                };
                let lines: Vec<&String> = written
                    .iter()
                    .filter(|(t, _)| *t == to)
                    .map(|(_, l)| l)
                    .collect();
                if text.is_empty() {
                    assert!(lines.is_empty(), "{at}: wrote {lines:?}");
                } else if one {
                    assert!(
                        lines.len() == 1 && lines[0].contains(text),
                        "{at}: {lines:?}"
                    );
                } else {
                    assert!(
                        lines.iter().any(|l| l.contains(text)),
                        "{at}: {text} not in {lines:?}; notes {:?}",
                        bridge.notes()
                    );
                }
                continue;
            }
        }
        written = bridge
            .take_out()
            .into_iter()
            .map(|(to, bytes)| (to, String::from_utf8(bytes).unwrap()))
            .collect();
        for (_, line) in &written {
            serde_json::from_str::<Value>(line).unwrap();
        }
    }
}

#[test]
fn each_exchange_of_the_model() {
    for case in CASES {
        check(case);
    }
}

#[test]
fn the_checks_of_the_direction_hold() {
    let model = model().unwrap();
    let held = agentpi_bridge::model::check(model, agentpi_bridge::model::TO_MODERN_SYSTEMS);
    assert_eq!(held, Ok(68));
    let refined =
        agentpi_bridge::refine::failures(model, "LegacyDirect", "LegacyBridged", &["mc2s", "ms2c"]);
    assert_eq!(refined, Ok(()));
}

/// A bridge edited to carry one round too many: the checks of the direction see it, so the
/// bridge would not start (`run::to_modern` stops with status 1 on this `Err`).
#[test]
fn an_edited_bridge_does_not_pass_its_checks() {
    let bundled = agentpi_bridge::model::BRIDGE;
    let guard = "if c != bare and r < K then TMAsk(i, c, r, elicitation, l)";
    assert!(bundled.contains(guard));
    let edited = bundled.replace(
        guard,
        "if c != bare and r <= K then TMAsk(i, c, r, elicitation, l)",
    );
    let model = agentpi_bridge::model::load(&edited).unwrap();
    let model: &'static _ = Box::leak(Box::new(model));
    let failed =
        agentpi_bridge::model::check(model, agentpi_bridge::model::TO_MODERN_SYSTEMS).unwrap_err();
    let failed: Vec<&str> = failed.iter().map(String::as_str).collect();
    assert_eq!(
        failed,
        // As docs/bridge.md's table of mistakes says: the K-round check, and the range of
        // `Round` (a fault, reported as the assertions check) before a retry beyond it.
        [
            "LegacyBridged: assertions: Violated",
            "LegacyBridged: never ls2c(req(K, elicitation)): Violated",
            "LegacyCrashBridged: assertions: Violated",
            "LegacyRudeBridged: assertions: Violated",
        ]
    );
}
