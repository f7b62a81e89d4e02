//! `ToLegacy` without processes: scripted messages from each side, and what the bridge writes
//! in answer, one case per exchange of the model. The real peers are in
//! crates/cli/tests/bridge_legacy.rs; these pin what they cannot reach: the K-round bound, a
//! request that declared no elicitation, a refused session, a retry whose `requestState` names
//! nothing, a cancel, the server's `roots/list` between calls and its `ping`, a request
//! without the modern version, the timeout, and a broken stream (a held call's: the loss of
//! the session; a call only sent: not).

use agentpi_bridge::engine::{Engine, To};
use agentpi_bridge::model::model;
use agentpi_bridge::side::Side;
use agentpi_bridge::to_legacy::ToLegacy;
use serde_json::Value;
use std::time::{Duration, Instant};

/// A line from the client (`c`) or the server (`s`), `t` the timeout's tick, `x` the
/// server's end (the model's `down`), `b` the broken stream of the bridge's request (a line
/// with its id) in the session in use (`o`: in a session already known lost), or what the
/// bridge must have written since the last step (`C` to the client, `S` to the server, a
/// piece of a line; an empty piece: nothing; `C1`, `S1`: exactly one line, with the piece),
/// `l` the session lost (HTTP 404) at the bridge's request (a line with its id), `N` no note
/// of the bridge so far.
type Step = (&'static str, &'static str);

struct Case {
    name: &'static str,
    steps: &'static [Step],
}

const INITIALIZED: &str = r#"{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{"listChanged":true},"logging":{}},"serverInfo":{"name":"old","version":"1"}}}"#;
const DISCOVER: &str = r#"{"jsonrpc":"2.0","id":"d","method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;
const CALL: &str = r#"{"jsonrpc":"2.0","id":"c1","method":"tools/call","params":{"name":"ask","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}},"progressToken":7}}}"#;
const BARE_CALL: &str = r#"{"jsonrpc":"2.0","id":"c1","method":"tools/call","params":{"name":"ask","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;
const CALL_5: &str = r#"{"jsonrpc":"2.0","id":"c5","method":"tools/call","params":{"name":"ask","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}}}"#;
const BARE_CALL_9: &str = r#"{"jsonrpc":"2.0","id":"c9","method":"tools/call","params":{"name":"add","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;
/// The answer to the bridge's second `initialize` (id 3: after the first and the call).
const REINITIALIZED: &str = r#"{"jsonrpc":"2.0","id":3,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"old","version":"1"}}}"#;
/// The bridge's first call in the legacy session, as far as its broken stream tells.
const SENT_CALL: &str = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call"}"#;
const ELICIT_A: &str =
    r#"{"jsonrpc":"2.0","id":"e1","method":"elicitation/create","params":{"message":"name?"}}"#;
const ELICIT_B: &str =
    r#"{"jsonrpc":"2.0","id":"e2","method":"elicitation/create","params":{"message":"again?"}}"#;
const ELICIT_C: &str =
    r#"{"jsonrpc":"2.0","id":"e3","method":"elicitation/create","params":{"message":"more?"}}"#;
const RETRY_1: &str = r#"{"jsonrpc":"2.0","id":"c2","method":"tools/call","params":{"name":"ask","inputResponses":{"agentpi-bridge-held-1":{"action":"accept","content":{"n":"Ada"}}},"requestState":"agentpi-bridge-held-1","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}}}"#;
const RETRY_2: &str = r#"{"jsonrpc":"2.0","id":"c3","method":"tools/call","params":{"name":"ask","inputResponses":{"agentpi-bridge-held-2":{"action":"accept","content":{}}},"requestState":"agentpi-bridge-held-2","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}}}"#;

const RETRY_1_TOKEN: &str = r#"{"jsonrpc":"2.0","id":"c2","method":"tools/call","params":{"name":"ask","inputResponses":{"agentpi-bridge-held-1":{"action":"accept","content":{"n":"Ada"}}},"requestState":"agentpi-bridge-held-1","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}},"progressToken":"r2"}}}"#;
const PROGRESS_2: &str = r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":2,"progress":1,"total":3}}"#;
const PROGRESS_7: &str = r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":7,"progress":1}}"#;

const CALL_LOG: &str = r#"{"jsonrpc":"2.0","id":"c1","method":"tools/call","params":{"name":"ask","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}},"io.modelcontextprotocol/logLevel":"info"}}}"#;
const LOG: &str =
    r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"hi"}}"#;

const CASES: &[Case] = &[
    // A log line (`TLLog`): of the one held call whose modern request opted in (its
    // `logLevel`), relayed to it; none while the call waits for its retry (no request in
    // flight), none to a retry that did not opt in (M9): noted.
    Case {
        name: "log-line-of-the-held-call",
        steps: &[
            ("s", INITIALIZED),
            ("c", CALL_LOG),
            ("s", LOG),
            ("C1", r#""method":"notifications/message""#),
            ("N", ""),
            // Below the request's level (`info`): dropped (noted).
            (
                "s",
                r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"debug","data":"lo"}}"#,
            ),
            ("C", ""),
            ("s", ELICIT_A),
            ("C", r#""resultType":"input_required""#),
            ("s", LOG),
            ("C", ""),
            ("c", RETRY_1),
            ("s", LOG),
            ("C", ""),
            ("s", r#"{"jsonrpc":"2.0","id":2,"result":{"content":[]}}"#),
            ("C1", r#""id":"c2","result""#),
        ],
    },
    // Progress (`TLProgress`): the legacy call carries a token of its own (its id); the
    // server's progress of it goes to the modern request that carries the call now, under
    // that request's token: the call's (7), then its retry's ("r2"); a retry that asked for
    // none gets none (noted); a progress under a token the server was never given, or after
    // the answer, is dropped.
    Case {
        name: "progress-follows-the-held-call",
        steps: &[
            ("s", INITIALIZED),
            ("c", CALL),
            ("S1", r#""progressToken":2"#),
            ("s", PROGRESS_2),
            (
                "C1",
                r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":7,"progress":1,"total":3}}"#,
            ),
            ("N", ""),
            ("s", PROGRESS_7),
            ("C", ""),
            ("s", ELICIT_A),
            ("C", r#""resultType":"input_required""#),
            ("c", RETRY_1_TOKEN),
            ("S1", r#""id":"e1""#),
            ("s", PROGRESS_2),
            ("C1", r#""progressToken":"r2","progress":1"#),
            ("s", ELICIT_B),
            ("C", r#""resultType":"input_required""#),
            ("c", RETRY_2),
            ("s", PROGRESS_2),
            ("C", ""),
            ("s", r#"{"jsonrpc":"2.0","id":2,"result":{"content":[]}}"#),
            ("C1", r#""id":"c3","result""#),
            ("s", PROGRESS_2),
            ("C", ""),
        ],
    },
    // The stream of a call held for its retry breaks (the legacy server restarts): the
    // model's `lost` in `TLWaitRetry`. A new session is opened at once (`TLReopen`), and the
    // retry gets `gone` (`TLLost`), nothing sent to the server for it.
    Case {
        name: "held-stream-broken",
        steps: &[
            ("s", INITIALIZED),
            ("c", CALL),
            ("S1", r#""id":2,"method":"tools/call""#),
            ("s", ELICIT_A),
            ("C", r#""resultType":"input_required""#),
            ("b", SENT_CALL),
            ("S1", r#""id":3,"method":"initialize""#),
            ("C", ""),
            ("s", REINITIALIZED),
            ("S1", r#""method":"notifications/initialized""#),
            ("c", RETRY_1),
            ("C1", r#""id":"c2","error""#),
            ("C", "its stream broke"),
            ("S", ""),
            // A second break of the same loss (another stream of the lost session) finds
            // the call lost already: nothing more.
            ("o", SENT_CALL),
            ("S", ""),
            ("C", ""),
        ],
    },
    // A retry that comes while the lost call's session is opened again waits for it (the
    // model's `TLReopen` then `TLLost`), then gets `gone`.
    Case {
        name: "retry-during-reopening",
        steps: &[
            ("s", INITIALIZED),
            ("c", CALL),
            ("s", ELICIT_A),
            ("b", SENT_CALL),
            ("S1", r#""method":"initialize""#),
            ("c", RETRY_1),
            ("C", ""),
            ("S", ""),
            ("s", REINITIALIZED),
            ("S1", r#""method":"notifications/initialized""#),
            ("C1", r#""id":"c2","error""#),
        ],
    },
    // The stream of a call only sent breaks: it may have run, so it is not sent again and no
    // session is opened; its broken stream stays its error (the transport's).
    Case {
        name: "sent-stream-broken",
        steps: &[
            ("s", INITIALIZED),
            ("c", BARE_CALL_9),
            ("S1", r#""id":2,"method":"tools/call""#),
            ("b", SENT_CALL),
            ("S", ""),
            ("C", ""),
        ],
    },
    // The server goes away with a call held for its retry and one in flight: the one in
    // flight gets `gone` (an error naming the exit), the held one nothing now (`TLGone`
    // would give its retry `gone`); nothing is written to the server.
    Case {
        name: "server-gone",
        steps: &[
            ("s", INITIALIZED),
            ("c", CALL),
            ("s", ELICIT_A),
            ("C", r#""resultType":"input_required""#),
            ("c", BARE_CALL_9),
            ("x", ""),
            ("C", r#""id":"c9","error""#),
            ("C", "the server exited (status 3)"),
            ("S", ""),
        ],
    },
    // The server goes away while the session lost under a held call is opened again (it
    // never comes back): the model's `down` in the re-opening (`TLWaitRetry` to `TLGone`);
    // the retry that waited for it gets `gone`; nothing noted, nothing to the server.
    Case {
        name: "server-gone-while-reopening-held",
        steps: &[
            ("s", INITIALIZED),
            ("c", CALL),
            ("s", ELICIT_A),
            ("b", SENT_CALL),
            ("S1", r#""method":"initialize""#),
            ("c", RETRY_1),
            ("C", ""),
            ("x", ""),
            ("C1", r#""id":"c2","error""#),
            ("S", ""),
            ("N", ""),
        ],
    },
    // ... and while it is opened again for a call that met the 404 (`TLSent`): the call in
    // flight gets `gone` (`MGone`) from its copy, not a note.
    Case {
        name: "server-gone-while-reopening-sent",
        steps: &[
            ("s", INITIALIZED),
            ("c", BARE_CALL_9),
            ("S1", r#""id":2,"method":"tools/call""#),
            ("l", SENT_CALL),
            ("S1", r#""method":"initialize""#),
            ("x", ""),
            ("C1", r#""id":"c9","error""#),
            ("S", ""),
            ("N", ""),
        ],
    },
    // The server goes away during the handshake: the request that waited for the session
    // gets `gone` from a copy of `TLGone`.
    Case {
        name: "server-gone-at-start",
        steps: &[
            ("c", DISCOVER),
            ("x", ""),
            ("C", r#""id":"d","error""#),
            ("C", "the server exited (status 3)"),
            ("S", ""),
        ],
    },
    Case {
        name: "session",
        steps: &[
            ("S", r#""method":"initialize""#),
            (
                "S",
                r#""capabilities":{"elicitation":{"form":{},"url":{}},"sampling":{}}"#,
            ),
            // A request before the session is open waits for it.
            ("c", DISCOVER),
            ("C", ""),
            ("s", INITIALIZED),
            ("S", r#""method":"notifications/initialized""#),
            ("C", r#""id":"d","result":{"#),
            ("C", r#""supportedVersions":["2026-07-28"]"#),
            // Not carried: list changes. `logging` is (a held call's lines go to the modern
            // request that opted in, at its level).
            ("C", r#""capabilities":{"tools":{},"logging":{}}"#),
            (
                "C",
                r#""io.modelcontextprotocol/serverInfo":{"name":"old","version":"1"}"#,
            ),
            ("s", r#"{"jsonrpc":"2.0","id":"p","method":"ping"}"#),
            ("S", r#"{"jsonrpc":"2.0","id":"p","result":{}}"#),
        ],
    },
    Case {
        name: "elicitation-round",
        steps: &[
            ("s", INITIALIZED),
            ("c", CALL),
            // The modern `_meta` stripped, the progress token the legacy call's own (its id).
            (
                "S",
                r#""id":2,"method":"tools/call","params":{"name":"ask","_meta":{"progressToken":2}}"#,
            ),
            ("s", ELICIT_A),
            ("C", r#""id":"c1","result":{"#),
            ("C", r#""resultType":"input_required""#),
            ("C", r#""requestState":"agentpi-bridge-held-1""#),
            ("S", ""),
            ("c", RETRY_1),
            (
                "S",
                r#"{"jsonrpc":"2.0","id":"e1","result":{"action":"accept","content":{"n":"Ada"}}}"#,
            ),
            ("s", r#"{"jsonrpc":"2.0","id":2,"result":{"content":[]}}"#),
            (
                "C",
                r#""id":"c2","result":{"content":[],"resultType":"complete""#,
            ),
        ],
    },
    // Two calls in flight, one held for its retry: each copy gets only its own answers, and
    // each answer reaches only its own modern request (`C1`: exactly one line).
    Case {
        name: "two-calls",
        steps: &[
            ("s", INITIALIZED),
            ("c", CALL),
            ("S", r#""id":2,"method":"tools/call""#),
            // A call that could not be asked waits while one that could is open (the turn,
            // `TLTurn`): the server's elicitation can only be `c1`'s.
            ("c", BARE_CALL_9),
            ("S", ""),
            ("s", ELICIT_A),
            ("C1", r#""id":"c1","result":{"#),
            ("c", RETRY_1),
            ("S1", r#"{"jsonrpc":"2.0","id":"e1","result":{"#),
            (
                "s",
                r#"{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"A"}]}}"#,
            ),
            (
                "C1",
                r#""id":"c2","result":{"content":[{"type":"text","text":"A"}]"#,
            ),
            // `c1`'s call ended: `c9` is sent now.
            ("S1", r#""id":3,"method":"tools/call""#),
            (
                "s",
                r#"{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"B"}]}}"#,
            ),
            (
                "C1",
                r#""id":"c9","result":{"content":[{"type":"text","text":"B"}]"#,
            ),
            ("N", ""),
        ],
    },
    // Two calls that could be asked: the second waits for the first to end, so each
    // elicitation goes to the one call open (the first held call took both before).
    Case {
        name: "two-asking-calls",
        steps: &[
            ("s", INITIALIZED),
            ("c", CALL),
            ("S1", r#""id":2,"method":"tools/call""#),
            ("c", CALL_5),
            ("S", ""),
            ("s", ELICIT_A),
            ("C1", r#""id":"c1","result":{"#),
            ("c", RETRY_1),
            ("S1", r#"{"jsonrpc":"2.0","id":"e1","result":{"#),
            ("s", r#"{"jsonrpc":"2.0","id":2,"result":{"content":[]}}"#),
            ("C1", r#""id":"c2","result""#),
            ("S1", r#""id":3,"method":"tools/call""#),
            ("s", ELICIT_B),
            ("C1", r#""id":"c5","result":{"#),
            ("C1", r#""message":"again?""#),
            ("N", ""),
        ],
    },
    // Calls that could not be asked share the session; one that could waits for them all.
    Case {
        name: "bare-calls-share-the-session",
        steps: &[
            ("s", INITIALIZED),
            ("c", BARE_CALL),
            ("S1", r#""id":2,"method":"tools/call""#),
            ("c", BARE_CALL_9),
            ("S1", r#""id":3,"method":"tools/call""#),
            ("c", CALL_5),
            ("S", ""),
            ("s", r#"{"jsonrpc":"2.0","id":2,"result":{"content":[]}}"#),
            ("C1", r#""id":"c1","result""#),
            ("S", ""),
            ("s", r#"{"jsonrpc":"2.0","id":3,"result":{"content":[]}}"#),
            ("C1", r#""id":"c9","result""#),
            ("S1", r#""id":4,"method":"tools/call""#),
            ("N", ""),
        ],
    },
    // A call that waits for its turn and is cancelled is never sent (noted); one the server's
    // end finds waiting gets `gone`.
    Case {
        name: "a-waiting-call-cancelled",
        steps: &[
            ("s", INITIALIZED),
            ("c", CALL),
            ("c", CALL_5),
            (
                "c",
                r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"c5"}}"#,
            ),
            ("S", ""),
            ("s", r#"{"jsonrpc":"2.0","id":2,"result":{"content":[]}}"#),
            ("C1", r#""id":"c1","result""#),
            ("S", ""),
        ],
    },
    Case {
        name: "server-gone-with-a-call-waiting",
        steps: &[
            ("s", INITIALIZED),
            ("c", CALL),
            ("c", CALL_5),
            ("x", ""),
            ("C", r#""id":"c1","error""#),
            ("C", r#""id":"c5","error""#),
            ("C", "the server exited (status 3)"),
            ("S", ""),
        ],
    },
    Case {
        name: "k-rounds",
        steps: &[
            ("s", INITIALIZED),
            ("c", CALL),
            ("s", ELICIT_A),
            ("c", RETRY_1),
            ("s", ELICIT_B),
            ("C", r#""requestState":"agentpi-bridge-held-2""#),
            ("c", RETRY_2),
            ("s", ELICIT_C),
            // A K+1st round: the legacy call cancelled, the client gets an error.
            (
                "S",
                r#""method":"notifications/cancelled","params":{"requestId":2"#,
            ),
            ("C", r#""id":"c3","error""#),
            ("C", "more than K = 2 times"),
        ],
    },
    // Each capability on its own (M11): a request that declared elicitation only does not
    // get the server's sampling request; the bridge refuses it for the user (`TLAsked` with
    // `need` = `sample`), and the call goes on.
    Case {
        name: "undeclared-sampling",
        steps: &[
            ("s", INITIALIZED),
            ("c", CALL),
            (
                "s",
                r#"{"jsonrpc":"2.0","id":"m","method":"sampling/createMessage","params":{}}"#,
            ),
            ("C", ""),
            (
                "S",
                r#"{"jsonrpc":"2.0","id":"m","error":{"code":-32601,"message":"agentpi bridge: the modern client did not declare this capability for the request"}}"#,
            ),
        ],
    },
    Case {
        name: "bare-declined",
        steps: &[
            ("s", INITIALIZED),
            ("c", BARE_CALL),
            ("s", ELICIT_A),
            (
                "S",
                r#"{"jsonrpc":"2.0","id":"e1","result":{"action":"decline"}}"#,
            ),
            ("C", ""),
        ],
    },
    Case {
        name: "session-refused",
        steps: &[
            (
                "s",
                r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"no"}}"#,
            ),
            ("S", ""),
            ("c", DISCOVER),
            ("C", r#""id":"d","error""#),
            ("C", "refused the session"),
        ],
    },
    Case {
        name: "unknown-retry",
        steps: &[
            ("s", INITIALIZED),
            ("c", RETRY_1),
            ("S", ""),
            ("C", r#""id":"c2","error""#),
            ("C", "names no held call"),
        ],
    },
    Case {
        name: "cancel",
        steps: &[
            ("s", INITIALIZED),
            ("c", CALL),
            (
                "c",
                r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"c1"}}"#,
            ),
            (
                "S",
                r#""method":"notifications/cancelled","params":{"requestId":2"#,
            ),
            ("S", r#""requestId":2"#),
            // The answer that crossed the cancel is dropped.
            ("s", r#"{"jsonrpc":"2.0","id":2,"result":{"content":[]}}"#),
            ("C", ""),
        ],
    },
    Case {
        name: "roots-between-calls",
        steps: &[
            ("s", INITIALIZED),
            ("s", r#"{"jsonrpc":"2.0","id":"r","method":"roots/list"}"#),
            ("S", r#""id":"r","error""#),
        ],
    },
    Case {
        name: "no-modern-version",
        steps: &[
            ("s", INITIALIZED),
            (
                "c",
                r#"{"jsonrpc":"2.0","id":4,"method":"tools/list","params":{}}"#,
            ),
            ("C", r#""code":-32022"#),
            ("S", ""),
        ],
    },
    Case {
        name: "timeout",
        steps: &[
            ("s", INITIALIZED),
            ("c", CALL),
            ("s", ELICIT_A),
            ("C", r#""resultType":"input_required""#),
            ("t", ""),
            (
                "S",
                r#""method":"notifications/cancelled","params":{"requestId":2"#,
            ),
            // The retry after the timeout names nothing any more.
            ("c", RETRY_1),
            ("C", r#""id":"c2","error""#),
            ("S", ""),
        ],
    },
];

/// The exchanges over `--upstream`, where each call's stream names it: no turn, so two calls
/// that could be asked are both sent at once.
const OVER_HTTP: &[Case] = &[Case {
    name: "two-asking-calls-over-http",
    steps: &[
        ("s", INITIALIZED),
        ("c", CALL),
        ("S1", r#""id":2,"method":"tools/call""#),
        ("c", CALL_5),
        ("S1", r#""id":3,"method":"tools/call""#),
        ("N", ""),
    ],
}];

fn check(case: &Case) {
    check_on(case, false);
}

/// `case` against a bridge on stdio, or over HTTP (`by_stream`).
fn check_on(case: &Case, by_stream: bool) {
    let model = model().unwrap();
    let now = Instant::now();
    let (legacy, modern) = Side::pair(None, now).unwrap();
    let mut bridge = ToLegacy::new(model, modern, legacy, Duration::ZERO).unwrap();
    if by_stream {
        bridge = bridge.by_stream();
    }
    let mut written: Vec<(To, String)> = Vec::new();
    let take = |bridge: &mut ToLegacy| {
        bridge
            .take_out()
            .into_iter()
            .map(|(to, bytes)| (to, String::from_utf8(bytes).unwrap()))
            .collect::<Vec<_>>()
    };
    written.extend(take(&mut bridge));
    for (k, (who, text)) in case.steps.iter().enumerate() {
        let at = format!("{} step {}", case.name, k + 1);
        match *who {
            "c" => bridge.client(text.as_bytes()),
            "s" => bridge.server(text.as_bytes()),
            "t" => bridge.tick(Instant::now() + Duration::from_secs(1)),
            "x" => bridge.server_gone("exited (status 3)"),
            "l" => {
                bridge.session_lost(text.as_bytes(), true);
            }
            "N" => {
                assert_eq!(bridge.notes(), &[] as &[String], "{at}");
                continue;
            }
            "b" | "o" => {
                bridge.stream_broken(text.as_bytes(), *who == "b");
            }
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
                        "{at}: {text} not in {lines:?}"
                    );
                }
                continue;
            }
        }
        written = take(&mut bridge);
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
fn over_http_calls_take_no_turn() {
    for case in OVER_HTTP {
        check_on(case, true);
    }
}

#[test]
fn the_checks_of_the_direction_hold() {
    let model = model().unwrap();
    let held = agentpi_bridge::model::check(model, agentpi_bridge::model::TO_LEGACY_SYSTEMS);
    assert_eq!(held, Ok(47));
    let refined =
        agentpi_bridge::refine::failures(model, "ModernDirect", "ModernBridged", &["lc2s", "ls2c"]);
    assert_eq!(refined, Ok(()));
}
