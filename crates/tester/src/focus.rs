//! What each run sets out to exercise. A run opens the session (a lifecycle variant of its
//! era), lists the tools, then plays its focus: listing with pagination, tool calls with
//! valid or invalid arguments, cancellation at each point of a call, concurrent requests,
//! malformed frames, end of input with a call in flight, or a random walk. Every move goes
//! through `Walk::go`, so the protocol model has the last word on what is sent.

use crate::args;
use crate::know::{Knowledge, LISTS};
use crate::moves::{INVALID_CURSOR, Malformed, Move, UNKNOWN_TOOL, UNKNOWN_VERSION};
use crate::slow;
use crate::walk::{Wait, Walk};
use agentpi_mcp::jsonrpc::LEGACY_VERSION;
use serde_json::{Value, json};
use std::time::Duration;

/// The focus of a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Focus {
    Lists,
    Lifecycle,
    Calls,
    Invalid,
    Cancel,
    Concurrent,
    Malformed,
    Eof,
    Random,
}

impl Focus {
    /// The runs of a test take these in turn, then random walks.
    pub const PLAN: [Focus; 8] = [
        Focus::Lists,
        Focus::Lifecycle,
        Focus::Calls,
        Focus::Invalid,
        Focus::Cancel,
        Focus::Concurrent,
        Focus::Malformed,
        Focus::Eof,
    ];

    pub fn of_run(run: usize) -> Focus {
        Focus::PLAN.get(run).copied().unwrap_or(Focus::Random)
    }

    pub fn name(self) -> &'static str {
        match self {
            Focus::Lists => "lists",
            Focus::Lifecycle => "lifecycle",
            Focus::Calls => "calls",
            Focus::Invalid => "invalid",
            Focus::Cancel => "cancel",
            Focus::Concurrent => "concurrent",
            Focus::Malformed => "malformed",
            Focus::Eof => "eof",
            Focus::Random => "random",
        }
    }
}

/// How a legacy session opens.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Opening {
    Standard,
    /// An older version than the newest (2025-06-18).
    Older,
    /// A version that does not exist: the server must answer one it supports (L4).
    Unknown,
    /// A dual-era client's `server/discover` probe first (M16), then `initialize`.
    Probe,
    /// A `ping` while `initialize` is in flight (allowed by L7).
    EarlyPing,
    /// The client declares roots (and answers `roots/list`).
    Roots,
}

/// What a run may call and how it was asked to behave.
pub struct Scope<'a> {
    pub know: &'a Knowledge,
    pub allow_writes: bool,
}

/// Opens the session and plays `focus`; whether the run ends abruptly (input closed with
/// requests in flight). The lifecycle run opens with a version that does not exist (L4);
/// random walks open in any of the ways a legacy client may.
pub fn play(walk: &mut Walk, focus: Focus, scope: &Scope) -> bool {
    let opening = match focus {
        Focus::Lifecycle if !walk.speech.modern => Opening::Unknown,
        Focus::Random => pick_opening(walk, scope.know),
        _ => Opening::Standard,
    };
    if !open(walk, opening) {
        return false;
    }
    body(walk, focus, scope)
}

/// Plays `focus` in an open session.
pub fn body(walk: &mut Walk, focus: Focus, scope: &Scope) -> bool {
    if focus != Focus::Lists && walk.declared("tools") {
        walk.list_all("tools/list", "tools");
    }
    match focus {
        Focus::Lists => lists(walk),
        Focus::Lifecycle => lifecycle(walk),
        Focus::Calls => calls(walk, scope),
        Focus::Invalid => invalid(walk, scope),
        Focus::Cancel => cancel(walk, scope),
        Focus::Concurrent => concurrent(walk, scope),
        Focus::Malformed => malformed(walk),
        Focus::Eof => return eof(walk, scope),
        Focus::Random => random(walk, scope),
    }
    false
}

fn pick_opening(walk: &mut Walk, know: &Knowledge) -> Opening {
    if walk.speech.modern {
        return Opening::Standard;
    }
    let mut ways = vec![
        Opening::Standard,
        Opening::Older,
        Opening::Unknown,
        Opening::EarlyPing,
        Opening::Roots,
    ];
    if know.refuses_discover {
        ways.push(Opening::Probe);
    }
    *walk.rng.pick(&ways).unwrap_or(&Opening::Standard)
}

/// Opens the session; false when it could not be (the run then only ends).
pub fn open(walk: &mut Walk, opening: Opening) -> bool {
    if walk.speech.modern {
        walk.go(Move::Discover, Wait::Answer);
        return walk.result_of("server/discover").is_some();
    }
    let version = match opening {
        Opening::Older => "2025-06-18",
        Opening::Unknown => UNKNOWN_VERSION,
        _ => LEGACY_VERSION,
    };
    if opening == Opening::Probe {
        walk.go(Move::Discover, Wait::Answer);
    }
    let roots = opening == Opening::Roots;
    walk.run.roots = roots;
    let init = Move::Initialize {
        version: version.into(),
        roots,
    };
    if opening == Opening::EarlyPing {
        let id = walk.go(init, Wait::No);
        walk.go(Move::Ping, Wait::Answer);
        if let Some(id) = id {
            walk.run.await_answer(&Value::from(id));
            note_initialize(walk, id);
        }
    } else {
        walk.go(init, Wait::Answer);
    }
    if walk.result_of("initialize").is_none() {
        return false;
    }
    walk.go(Move::Initialized, Wait::No);
    true
}

/// An `initialize` answered while the walk waited for something else: its result still
/// tells what the server declared.
fn note_initialize(walk: &mut Walk, id: u64) {
    let answer = walk
        .run
        .requests
        .get(&id.to_string())
        .and_then(|s| s.answer.clone());
    let result = answer.and_then(|a| a.get("result").cloned());
    if let Some(caps) = result.as_ref().and_then(|r| r.get("capabilities")) {
        walk.capabilities = caps.clone();
    }
    walk.awaited.push((id, "initialize", result));
}

/// Every declared list through all its pages, then each with a cursor nobody issued (G1).
fn lists(walk: &mut Walk) {
    for (method, cap, key) in LISTS {
        if walk.declared(cap) {
            walk.list_all(method, key);
        }
    }
    for (method, cap, _) in LISTS {
        if walk.declared(cap) {
            let cursor = Some(INVALID_CURSOR.to_string());
            walk.go(Move::List { method, cursor }, Wait::Answer);
        }
    }
    ping(walk, Wait::Answer);
}

/// A version that does not exist (modern), a ping, and over HTTP a request from a foreign
/// `Origin` (H7).
fn lifecycle(walk: &mut Walk) {
    if walk.speech.modern {
        walk.go(Move::BadVersion, Wait::Answer);
    }
    ping(walk, Wait::Answer);
    if walk.speech.http {
        walk.go_foreign(alive(walk), Wait::Answer);
    }
}

/// A ping (legacy); once a ping went unanswered, a listing of tools instead.
fn ping(walk: &mut Walk, wait: Wait) -> Option<u64> {
    if walk.speech.modern {
        return None;
    }
    if walk.pings_ignored {
        return walk.go(alive(walk), wait);
    }
    walk.go(Move::Ping, wait)
}

/// A request that shows the server is still there.
fn alive(walk: &Walk) -> Move {
    if walk.speech.modern {
        Move::Discover
    } else if walk.pings_ignored {
        Move::List {
            method: "tools/list",
            cursor: None,
        }
    } else {
        Move::Ping
    }
}

/// Each callable tool once with valid arguments (some with a progress token), a few
/// resources read and prompts got, then the optional features the server declared.
fn calls(walk: &mut Walk, scope: &Scope) {
    // A modern listing must not change as a side effect of other requests (M8): the first
    // page is read before the calls and again after them.
    let relist = scope.know.modern && scope.know.declared("tools");
    let first_page = || Move::List {
        method: "tools/list",
        cursor: None,
    };
    if relist {
        walk.go(first_page(), Wait::Answer);
    }
    let mut tools = scope.know.callable(scope.allow_writes);
    walk.rng.shuffle(&mut tools);
    for tool in tools.into_iter().take(16) {
        if let Some(mv) = valid_call(walk, tool, false) {
            walk.go(mv, Wait::Answer);
            filler(walk, scope);
        }
    }
    for resource in scope.know.resources.iter().take(2) {
        if let Some(uri) = resource.get("uri").and_then(Value::as_str) {
            walk.go(Move::Read { uri: uri.into() }, Wait::Answer);
        }
    }
    for prompt in scope.know.prompts.iter().take(2) {
        if let Some(mv) = prompt_move(prompt) {
            walk.go(mv, Wait::Answer);
        }
    }
    crate::features::features(walk, scope.know);
    for tool in scope
        .know
        .task_callable(scope.allow_writes)
        .into_iter()
        .take(2)
    {
        task_call(walk, tool);
    }
    if relist {
        walk.go(first_page(), Wait::Answer);
    }
}

/// How long a slow call is asked to take: long enough that a call cancelled at once, or
/// after its first progress, would still run well past the race window (0.5 s), so that an
/// answer the server should not send is seen late (C3, C4: `facts::cancels`); well inside
/// the deadline.
fn slow_seconds(walk: &Walk) -> f64 {
    (walk.run.limits.timeout.as_secs_f64() * 0.6).min(1.2)
}

/// A call of `tool` with valid arguments; the numbers that say how long it takes set so
/// that it takes about a second (`slow`) or no time at all.
fn valid_call(walk: &mut Walk, tool: &Value, slow: bool) -> Option<Move> {
    let name = tool.get("name")?.as_str()?.to_string();
    let schema = tool
        .get("inputSchema")
        .cloned()
        .unwrap_or(json!({"type": "object"}));
    let seconds = slow.then(|| slow_seconds(walk));
    let args = slow::timed(&schema, args::valid(&schema, &mut walk.rng)?, seconds);
    let token = slow || walk.rng.chance(50);
    Some(Move::Call {
        tool: name,
        args,
        token,
    })
}

/// The callable tool most likely to be slow: one with a duration-like argument, or one
/// that says it is long-running; else any.
fn slow_tool<'a>(scope: &Scope<'a>) -> Option<&'a Value> {
    let tools = scope.know.callable(scope.allow_writes);
    let by_arg = |t: &&&Value| t.get("inputSchema").is_some_and(slow::has_duration);
    // Whole words: server-everything's get-structured-content returns content "along with"
    // an output schema, and was taken for its slow tool.
    let by_text = |t: &&&Value| {
        let text = t.get("description").and_then(Value::as_str).unwrap_or("");
        text.to_lowercase()
            .split(|c: char| !c.is_alphanumeric())
            .any(|w| w == "long" || w == "slow")
    };
    let found = tools
        .iter()
        .find(by_arg)
        .or_else(|| tools.iter().find(by_text));
    found.or(tools.first()).copied()
}

fn prompt_move(prompt: &Value) -> Option<Move> {
    let name = prompt.get("name")?.as_str()?.to_string();
    let mut args = serde_json::Map::new();
    for arg in prompt
        .get("arguments")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        if arg.get("required") == Some(&Value::Bool(true))
            && let Some(n) = arg.get("name").and_then(Value::as_str)
        {
            args.insert(n.into(), json!("agentpi"));
        }
    }
    Some(Move::Prompt {
        name,
        args: Value::Object(args),
    })
}

/// Invalid arguments for callable tools (T10), an unknown tool (T5), an unknown method.
fn invalid(walk: &mut Walk, scope: &Scope) {
    let mut tools = scope.know.callable(scope.allow_writes);
    walk.rng.shuffle(&mut tools);
    for tool in tools.into_iter().take(6) {
        let name = tool.get("name").and_then(Value::as_str).unwrap_or_default();
        let schema = tool
            .get("inputSchema")
            .cloned()
            .unwrap_or(json!({"type": "object"}));
        if let Some((args, _)) = args::invalid(&schema, &mut walk.rng) {
            let mv = Move::Call {
                tool: name.into(),
                args,
                token: false,
            };
            walk.go(mv, Wait::Answer);
        }
    }
    let unknown = Move::Call {
        tool: UNKNOWN_TOOL.into(),
        args: json!({}),
        token: false,
    };
    walk.go(unknown, Wait::Answer);
    walk.go(Move::Unknown, Wait::Answer);
}

/// A slow call cancelled at each point: right after it is sent, while in flight (after its
/// first progress), and after its answer (a crossing); then a ping. Over modern Streamable
/// HTTP, where the cancellation closes the call's stream and an answered call's stream has
/// ended, the crossing close is made when the answer is due: it races the response.
fn cancel(walk: &mut Walk, scope: &Scope) {
    let Some(tool) = slow_tool(scope) else {
        return;
    };
    let crossing = if walk.speech.modern && walk.speech.http {
        Wait::For(Duration::from_secs_f64(slow_seconds(walk)))
    } else {
        Wait::Answer
    };
    let mut points = [
        Wait::No,
        Wait::Progress(Duration::from_millis(600)),
        crossing,
    ];
    walk.rng.shuffle(&mut points);
    for wait in points {
        let Some(mv) = valid_call(walk, tool, true) else {
            return;
        };
        if let Some(id) = walk.go(mv, wait) {
            walk.go(Move::Cancel { id }, Wait::No);
        }
    }
    ping(walk, Wait::Answer);
    if walk.speech.http && !walk.speech.modern {
        dropped(walk, tool);
    }
    if let Some(tool) = scope.know.task_callable(scope.allow_writes).first() {
        task_cancelled(walk, tool);
    }
}

/// C6 (legacy Streamable HTTP): a slow call whose SSE stream the client drops after its
/// first progress, then resumes with `Last-Event-ID`; its answer must still come.
fn dropped(walk: &mut Walk, tool: &Value) {
    let Some(mv) = valid_call(walk, tool, true) else {
        return;
    };
    let progress = Wait::Progress(Duration::from_millis(600));
    if let Some(id) = walk.go(mv, progress)
        && walk.drop_and_resume(id)
    {
        walk.run.await_answer(&Value::from(id));
    }
}

/// A call with a task (2025-11-25): the task as the call's answer, then `tasks/get` once,
/// `tasks/result` (which waits for the task's end) and `tasks/get` again, which must report
/// the end it came to (X7). A fixed number of messages, so that a seed sends the same ones
/// whatever the server's timing.
fn task_call(walk: &mut Walk, tool: &Value) {
    let Some(task) = start_task(walk, tool) else {
        return;
    };
    for method in ["tasks/get", "tasks/result", "tasks/get"] {
        let id = task.clone();
        walk.go(Move::Task { method, id }, Wait::Answer);
    }
}

/// A call with a task, cancelled at once with `tasks/cancel` (C2: never the notification),
/// then `tasks/get`, which must say `cancelled` or the end the task reached first.
fn task_cancelled(walk: &mut Walk, tool: &Value) {
    let Some(task) = start_task(walk, tool) else {
        return;
    };
    for method in ["tasks/cancel", "tasks/get"] {
        let id = task.clone();
        walk.go(Move::Task { method, id }, Wait::Answer);
    }
}

/// Calls `tool` with a task and valid arguments; the task's id from the answer.
fn start_task(walk: &mut Walk, tool: &Value) -> Option<String> {
    let Move::Call {
        tool: name, args, ..
    } = valid_call(walk, tool, false)?
    else {
        return None;
    };
    let id = walk.go(Move::TaskCall { tool: name, args }, Wait::Answer)?;
    let result = walk.result_for(id)?;
    result.pointer("/task/taskId")?.as_str().map(String::from)
}

/// Several requests in flight at once (a slow call among them, with a ping during it),
/// then every answer awaited.
fn concurrent(walk: &mut Walk, scope: &Scope) {
    // A modern server that sends notifications gets a listen open the whole time (M13, and
    // M14: progress of the calls goes on their own streams, not the listen's).
    let listen = listen_filter(scope.know).and_then(|filter| {
        let progress = Wait::Progress(Duration::from_secs(2));
        walk.go(Move::Listen { filter }, progress)
    });
    if let Some(tool) = slow_tool(scope)
        && let Some(mv) = valid_call(walk, tool, true)
    {
        walk.go(mv, Wait::No);
        ping(walk, Wait::Answer);
    }
    let n = 3 + walk.rng.below(4);
    for _ in 0..n {
        if let Some(mv) = any_move(walk, scope) {
            walk.go(mv, Wait::No);
        }
    }
    walk.run.await_all();
    if let Some(id) = listen {
        // Over modern HTTP a close of the listen's stream; over stdio notifications/cancelled.
        walk.go(Move::Cancel { id }, Wait::No);
    }
}

/// What a `subscriptions/listen` asks for: the notifications the modern server declared it
/// sends (list changes, and updates of its first resource if it takes subscriptions); none
/// when it declared none.
fn listen_filter(know: &Knowledge) -> Option<Value> {
    if !know.modern {
        return None;
    }
    let caps = &know.capabilities;
    let mut filter = serde_json::Map::new();
    for (cap, key) in [
        ("tools", "toolsListChanged"),
        ("prompts", "promptsListChanged"),
        ("resources", "resourcesListChanged"),
    ] {
        if caps[cap]["listChanged"] == Value::Bool(true) {
            filter.insert(key.into(), Value::Bool(true));
        }
    }
    let first = know.resources.first().and_then(|r| r["uri"].as_str());
    if let (Value::Bool(true), Some(uri)) = (&caps["resources"]["subscribe"], first) {
        filter.insert("resourceSubscriptions".into(), serde_json::json!([uri]));
    }
    (!filter.is_empty()).then_some(Value::Object(filter))
}

/// Malformed frames, each followed by a request that shows the server is still there.
fn malformed(walk: &mut Walk) {
    let mut kinds = Malformed::ALL;
    walk.rng.shuffle(&mut kinds);
    let n = 2 + walk.rng.below(3);
    for kind in kinds.into_iter().take(n) {
        walk.go(Move::Malformed(kind), Wait::No);
        let mv = alive(walk);
        walk.go(mv, Wait::Answer);
    }
}

/// A slow call in flight when the client closes the server's input.
fn eof(walk: &mut Walk, scope: &Scope) -> bool {
    if let Some(tool) = slow_tool(scope)
        && let Some(mv) = valid_call(walk, tool, true)
    {
        walk.go(mv, Wait::Progress(Duration::from_millis(300)));
    }
    true
}

/// A random walk: moves drawn from everything the client may do, some left in flight.
fn random(walk: &mut Walk, scope: &Scope) {
    let n = 4 + walk.rng.below(7);
    for _ in 0..n {
        let fresh: Vec<Malformed> = Malformed::ALL
            .into_iter()
            .filter(|k| !walk.malformed.contains(k))
            .collect();
        let mv = if walk.rng.chance(15) && !fresh.is_empty() {
            walk.rng.pick(&fresh).map(|k| Move::Malformed(*k))
        } else {
            any_move(walk, scope)
        };
        let Some(mv) = mv else { continue };
        let wait = if walk.rng.chance(70) {
            Wait::Answer
        } else {
            Wait::No
        };
        walk.go(mv, wait);
    }
}

/// Sometimes (one move in four), a move drawn from everything the client may do.
fn filler(walk: &mut Walk, scope: &Scope) {
    if walk.rng.chance(25)
        && let Some(mv) = any_move(walk, scope)
    {
        walk.go(mv, Wait::Answer);
    }
}

/// One move drawn from what a client may do in the operating phase.
fn any_move(walk: &mut Walk, scope: &Scope) -> Option<Move> {
    let tools = scope.know.callable(scope.allow_writes);
    let lists = scope.know.lists();
    let answered = walk.answered_ids();
    match walk.rng.below(7) {
        0 if !walk.speech.modern && !walk.pings_ignored => Some(Move::Ping),
        1 if !lists.is_empty() => {
            let method = *walk.rng.pick(&lists)?;
            Some(Move::List {
                method,
                cursor: None,
            })
        }
        2 | 3 if !tools.is_empty() => {
            let tool = *walk.rng.pick(&tools)?;
            valid_call(walk, tool, false)
        }
        4 if !tools.is_empty() => {
            let tool = *walk.rng.pick(&tools)?;
            let schema = tool.get("inputSchema").cloned().unwrap_or(json!({}));
            let (args, _) = args::invalid(&schema, &mut walk.rng)?;
            let name = tool.get("name")?.as_str()?.to_string();
            Some(Move::Call {
                tool: name,
                args,
                token: false,
            })
        }
        5 if !answered.is_empty() => Some(Move::Cancel {
            id: *walk.rng.pick(&answered)?,
        }),
        _ => Some(Move::Unknown),
    }
}
