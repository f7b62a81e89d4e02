//! The rules the monitor reports (ids of reference/mcp.md section 1.10): level, the spec
//! clause, and what the rule says. `docs/monitor.md` has the table of every rule id and where
//! it is enforced.

/// One rule: id, level, clause of the specification, and a sentence.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rule {
    pub id: &'static str,
    pub level: &'static str,
    pub spec: &'static str,
    pub says: &'static str,
}

const fn rule(
    id: &'static str,
    level: &'static str,
    spec: &'static str,
    says: &'static str,
) -> Rule {
    Rule {
        id,
        level,
        spec,
        says,
    }
}

/// Every rule the monitor can report.
pub const RULES: &[Rule] = &[
    rule(
        "J1",
        "MUST",
        "basic/index",
        "a message is a UTF-8 JSON object with \"jsonrpc\": \"2.0\"",
    ),
    rule(
        "J2",
        "MUST",
        "basic/index",
        "a request id is a string or an integer, never null",
    ),
    rule(
        "J3",
        "MUST",
        "basic/index",
        "a sender never reuses a request id within the session",
    ),
    rule(
        "J4",
        "MUST",
        "basic/index",
        "a sender never reuses the id of one of its requests in flight",
    ),
    rule(
        "J5",
        "MUST",
        "basic/index",
        "a response has the request's id and exactly one of `result` (an object) and `error` (integer code, message)",
    ),
    rule(
        "J6",
        "MUST",
        "basic/index",
        "a response answers exactly one request in flight",
    ),
    rule(
        "J8",
        "MUST",
        "basic/index",
        "no JSON-RPC batches (arrays) since 2025-06-18",
    ),
    rule(
        "J10",
        "MUST",
        "basic/index",
        "every result has `resultType`",
    ),
    rule(
        "J13",
        "MUST",
        "schema",
        "params and results have the shape of their method",
    ),
    rule(
        "L1",
        "MUST",
        "basic/lifecycle",
        "the first client message is `initialize`",
    ),
    rule(
        "L2",
        "MUST",
        "basic/lifecycle",
        "`initialize` params have protocolVersion, capabilities and clientInfo",
    ),
    rule(
        "L3",
        "MUST",
        "basic/lifecycle",
        "the initialize result has protocolVersion, capabilities and serverInfo",
    ),
    rule(
        "L6",
        "MUST",
        "basic/lifecycle",
        "after the initialize result the client sends notifications/initialized (before other requests)",
    ),
    rule(
        "L7",
        "SHOULD",
        "basic/lifecycle",
        "the client sends no request but ping before the initialize result",
    ),
    rule(
        "L8",
        "SHOULD",
        "basic/lifecycle",
        "the server sends nothing but ping and log messages before notifications/initialized",
    ),
    rule(
        "L9",
        "MUST",
        "basic/lifecycle",
        "initialize is sent once and never cancelled",
    ),
    rule(
        "M1",
        "MUST",
        "basic/versioning",
        "every client request carries _meta protocolVersion and clientCapabilities",
    ),
    rule(
        "M13",
        "MUST",
        "basic/subscriptions",
        "a listen's stream starts with its acknowledgement and names a listen in flight",
    ),
    rule(
        "C5",
        "MUST",
        "basic/patterns/cancellation",
        "the server cancels nothing but a subscriptions/listen",
    ),
    rule(
        "M6",
        "MUST",
        "basic/transports/stdio",
        "the server sends no request and the client no response",
    ),
    rule(
        "C1",
        "MUST",
        "basic/utilities/cancellation",
        "a cancellation names a request its sender issued",
    ),
    rule(
        "C3",
        "SHOULD",
        "basic/utilities/cancellation",
        "no response after the receiver got the cancellation",
    ),
    rule(
        "C4",
        "MUST",
        "basic/patterns/cancellation",
        "no further message for a request after its cancellation",
    ),
    rule(
        "P1",
        "MUST",
        "basic/utilities/progress",
        "a progress token is a string or integer, unique among active requests",
    ),
    rule(
        "P2",
        "MUST",
        "basic/utilities/progress",
        "progress names a token the peer gave in a request",
    ),
    rule(
        "P3",
        "MUST",
        "basic/utilities/progress",
        "progress strictly increases per token",
    ),
    rule(
        "P4",
        "MUST",
        "basic/utilities/progress",
        "no progress after the request's response",
    ),
    rule(
        "T1",
        "MUST",
        "server/tools",
        "tools/* only if the server declared `tools`",
    ),
    rule(
        "T2",
        "MUST",
        "server/tools",
        "each tool has a name and an object inputSchema",
    ),
    rule(
        "T4",
        "MUST",
        "server/tools",
        "structuredContent validates against the tool's outputSchema",
    ),
    rule(
        "T6",
        "SHOULD",
        "server/tools",
        "tools/list_changed only if `tools.listChanged` was declared",
    ),
    rule(
        "X1",
        "MUST",
        "basic/lifecycle",
        "features are used only if the peer declared them",
    ),
    rule(
        "X2",
        "MUST",
        "server/resources",
        "resources/subscribe and updates only with `resources.subscribe`",
    ),
    rule(
        "X6",
        "MUST",
        "server/utilities/logging",
        "log messages and logging/setLevel only with `logging`",
    ),
    rule(
        "S2",
        "MUST",
        "basic/transports",
        "the server writes nothing but MCP messages to stdout",
    ),
    rule(
        "S3",
        "MUST",
        "basic/transports",
        "the client writes nothing but MCP messages to stdin",
    ),
    rule(
        "H1",
        "MUST",
        "basic/transports#streamable-http",
        "each client message is the body of its own POST whose Accept lists application/json and text/event-stream",
    ),
    rule(
        "H2",
        "MUST",
        "basic/transports#streamable-http",
        "a POST of a notification or response is answered 202 without a body, or 4xx",
    ),
    rule(
        "H3",
        "MUST",
        "basic/transports#streamable-http",
        "a POST of a request is answered application/json or text/event-stream",
    ),
    rule(
        "H4",
        "MUST",
        "basic/transports#session-management",
        "the session id is visible ASCII and echoed on every later request; a terminated session gets 404; after a 404 the client initialises again",
    ),
    rule(
        "H5",
        "MUST",
        "basic/transports#protocol-version-header",
        "every request after initialization carries MCP-Protocol-Version; an invalid one gets 400",
    ),
    rule(
        "H6",
        "MUST",
        "basic/transports#listening-for-messages-from-the-server",
        "a GET is answered with an SSE stream or 405, carries no response unless resuming, and a resumption replays only its stream, after Last-Event-ID",
    ),
    rule(
        "H8",
        "MUST",
        "basic/transports/streamable-http",
        "MCP-Protocol-Version, Mcp-Method and Mcp-Name equal the body; otherwise 400 with -32020",
    ),
    rule(
        "H9",
        "MUST",
        "basic/transports/streamable-http",
        "protocol errors go with their HTTP status (-32022 and -32021: 400, -32601: 404)",
    ),
    rule(
        "H10",
        "MUST",
        "basic/transports/streamable-http",
        "no requests on a response stream, the response ends it (SHOULD), GET and DELETE get 405 (SHOULD)",
    ),
    rule(
        "J11",
        "MUST",
        "basic/index",
        "error codes in -32020..-32099 only as 2026-07-28 defines them; never -32002 or -32042",
    ),
    rule(
        "J12",
        "MUST",
        "basic/index",
        "`_meta` keys: dot-separated labels and `/`, then a name; reserved prefixes only as the specification uses them",
    ),
    rule(
        "L11",
        "SHOULD",
        "basic/lifecycle",
        "stdio shutdown: the client closes the server's stdin first, then waits, then SIGTERM, then SIGKILL",
    ),
    rule(
        "M2",
        "SHOULD",
        "basic/index",
        "a modern request carries `_meta` clientInfo, a result `_meta` serverInfo",
    ),
    rule(
        "M4",
        "MUST",
        "basic/versioning",
        "an unsupported version is refused with -32022 naming `data.supported` and `data.requested`",
    ),
    rule(
        "M5",
        "MUST",
        "basic/index",
        "a missing client capability is refused with -32021 naming `data.requiredCapabilities`",
    ),
    rule(
        "M9",
        "MUST",
        "server/utilities/logging",
        "log messages only for a request that asked for them with `_meta` logLevel",
    ),
    rule(
        "M10",
        "MUST",
        "server/utilities/pagination",
        "complete results of discovery, listings and reads carry `ttlMs` and `cacheScope` (one scope for every page); input_required results none",
    ),
    rule(
        "M11",
        "MUST",
        "basic/patterns/mrtr",
        "input_required only for tools/call, prompts/get and resources/read, with inputRequests or requestState, asking only for declared client capabilities",
    ),
    rule(
        "M12",
        "MUST",
        "basic/patterns/mrtr",
        "a retry has a new id, echoes requestState unchanged and answers exactly the input requests asked",
    ),
    rule(
        "M14",
        "MUST",
        "basic/utilities/progress",
        "progress and log notifications relate to a request in flight and are not sent on a listen stream",
    ),
    rule(
        "G2",
        "MUST",
        "server/utilities/pagination",
        "the client sends only cursors the server issued",
    ),
    rule(
        "G3",
        "SHOULD",
        "server/utilities/pagination",
        "a next cursor advances: neither the page's own cursor nor an empty string",
    ),
    rule(
        "T5",
        "SHOULD",
        "server/tools",
        "an unknown tool is a JSON-RPC error, not a tool result with isError",
    ),
    rule("X3", "MUST", "client/roots", "root URIs are file:// URIs"),
    rule(
        "X4",
        "MUST",
        "client/sampling",
        "sampling with tools only when the client declared sampling.tools; tool uses and tool results pair up",
    ),
    rule(
        "X5",
        "MUST",
        "client/elicitation",
        "elicitation only in declared modes; URL mode names its elicitationId; -32042 only for URL mode",
    ),
    rule(
        "C2",
        "MUST",
        "basic/utilities/cancellation",
        "a task-augmented request is cancelled with tasks/cancel, not notifications/cancelled",
    ),
    rule(
        "T8",
        "MUST",
        "basic/utilities/tasks",
        "a task-augmented tools/call only where the server declared tasks.requests.tools.call and the tool allows tasks; a tool requiring a task refuses a plain call with -32601",
    ),
    rule(
        "X7",
        "MUST",
        "basic/utilities/tasks",
        "a task has a string id, starts working, carries createdAt and lastUpdatedAt, never leaves a terminal status; tasks/cancel of a terminal task is -32602; related-task metadata names the task",
    ),
];

/// The rule with this id (`C3`, case-insensitive).
pub fn find(id: &str) -> Option<&'static Rule> {
    RULES.iter().find(|r| r.id.eq_ignore_ascii_case(id))
}
