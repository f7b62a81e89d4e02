//! Which of the monitor's rules a run exercised: the run held a message or a situation the
//! rule constrains (a server message at all, a response, a server request, progress, a
//! cancellation of a call in flight, a page of a list, ...). A rule checked on every
//! message is only "passed" when the server sent such a message.

mod cancels;

use agentpi_monitor::{Dir, Event};
use serde_json::Value;
use std::collections::{BTreeSet, HashMap, HashSet};

/// What happened in a run, as far as exercising rules goes.
#[derive(Clone, Debug, Default)]
struct Facts {
    server_messages: bool,
    responses: bool,
    results: bool,
    errors: bool,
    server_requests: bool,
    client_notes: bool,
    progress: bool,
    token_given: bool,
    /// A cancellation that could have shown a late answer (`cancelled_past_window`).
    cancel_in_flight: bool,
    late_cancel: bool,
    /// The server sent `notifications/cancelled` (it cancelled one of its requests, or ended
    /// a listen).
    server_cancels: bool,
    /// The server sent a log message, a list-changed notification.
    log_messages: bool,
    list_changed: bool,
    /// The capabilities the server declared (initialize or discover result).
    declared: Value,
    tools_requests: bool,
    tools_listed: bool,
    typed_results: bool,
    pages: bool,
    modern: bool,
    batchless: bool,
    init_answered: bool,
    http: bool,
    /// The server sent a message on a listen's stream (its acknowledgement at least).
    listen_stream: bool,
    /// The server ended a listen: its result, or `notifications/cancelled` naming it.
    listen_ended: bool,
    /// The server answered a call with a task, or a `tasks/*` request.
    tasks: bool,
    /// The server asked for sampling, or for elicitation.
    sampling: bool,
    elicitation: bool,
    /// The server answered with an input-required result (modern).
    input_required: bool,
}

/// The rules of `Cover::Monitor` a run exercised.
pub fn exercised(events: &[Event]) -> BTreeSet<&'static str> {
    let f = facts(events);
    let mut out = BTreeSet::new();
    let mut when = |cond: bool, rules: &[&'static str]| {
        if cond {
            out.extend(rules);
        }
    };
    let legacy = !f.modern;
    when(f.server_messages, &["J1", "J12", "J13"]);
    // A prohibition only a message the server chose to send can break.
    when(f.server_cancels, &["C1"]);
    let list_changes = f.declared.pointer("/tools/listChanged") == Some(&Value::Bool(true));
    when(
        f.list_changed || (f.server_messages && !list_changes),
        &["T6"],
    );
    when(f.server_messages && !f.http, &["S1", "S2"]);
    when(f.server_requests, &["J2", "J3", "J4"]);
    when(f.responses, &["J5", "J6"]);
    when(f.client_notes && f.server_messages, &["J7"]);
    when(f.server_messages && f.batchless, &["J8"]);
    when(f.modern && f.results, &["J10", "M2"]);
    when(f.modern && f.errors, &["J11"]);
    when(f.modern && f.server_messages, &["M5", "M6", "M9", "M14"]);
    when(f.modern && f.pages, &["M10"]);
    when(f.modern && f.listen_stream, &["M13"]);
    when(f.modern && f.listen_ended, &["M15"]);
    when(f.modern && f.input_required, &["M11"]);
    when(legacy && f.tasks, &["T8", "X7"]);
    when(legacy && f.sampling, &["X4"]);
    when(legacy && f.elicitation, &["X5"]);
    when(legacy && f.init_answered, &["L8", "L10"]);
    when(legacy && f.server_messages, &["X1", "X2"]);
    let logging = f.declared.get("logging").is_some_and(|l| !l.is_null());
    when(
        legacy && (f.log_messages || (f.server_messages && !logging)),
        &["X6"],
    );
    when(legacy && f.cancel_in_flight, &["C3"]);
    when(f.modern && f.cancel_in_flight, &["C4"]);
    when(f.modern && f.http && f.cancel_in_flight, &["C5"]);
    when(f.late_cancel, &["C7"]);
    // Progress rules are broken only by progress the server sends.
    when(f.progress, &["P2", "P3"]);
    when(f.progress && f.responses, &["P4"]);
    when(f.tools_requests, &["T1"]);
    when(f.tools_listed, &["T2"]);
    when(f.typed_results, &["T4"]);
    when(f.pages, &["G3"]);
    when(f.http, &["H2", "H3"]);
    when(f.http && legacy, &["H4", "H5", "H6"]);
    when(f.http && f.modern, &["H8", "H9", "H10"]);
    out
}

fn parse(e: &Event) -> Option<Value> {
    serde_json::from_slice(&e.raw).ok()
}

fn facts(events: &[Event]) -> Facts {
    let mut f = Facts {
        batchless: true,
        ..Facts::default()
    };
    let mut asked: HashMap<String, (String, Option<Value>)> = HashMap::new();
    let mut answered: HashSet<String> = HashSet::new();
    let mut typed: HashSet<String> = HashSet::new();
    // The request each HTTP exchange of the client carried.
    let mut carried: HashMap<u64, String> = HashMap::new();
    for e in events {
        f.http |= e.exchange().is_some();
        if closed(e, &carried).is_some() {
            continue;
        }
        let Some(m) = parse(e).filter(|_| e.is_message()) else {
            continue;
        };
        let method = m.get("method").and_then(Value::as_str);
        let id = m.get("id").filter(|i| !i.is_null()).map(Value::to_string);
        if let (Dir::C2s, Some(id), Some(k)) = (e.dir, &id, e.exchange()) {
            carried.insert(k, id.clone());
        }
        match e.dir {
            Dir::C2s => client(&mut f, &m, method, id, &mut asked, &answered),
            Dir::S2c => {
                f.server_messages = true;
                server(&mut f, &m, method, id, &asked, &mut answered, &mut typed);
            }
            _ => {}
        }
    }
    f.cancel_in_flight = crate::facts::cancels::past_window(events, f.modern);
    f
}

/// The request whose HTTP stream the client closed at `e`, if it is such a close.
fn closed<'a>(e: &Event, carried: &'a HashMap<u64, String>) -> Option<&'a String> {
    e.client_closed()
        .then(|| e.exchange().and_then(|k| carried.get(&k)))?
}

fn client(
    f: &mut Facts,
    m: &Value,
    method: Option<&str>,
    id: Option<String>,
    asked: &mut HashMap<String, (String, Option<Value>)>,
    answered: &HashSet<String>,
) {
    let Some(method) = method else { return };
    let params = m.get("params");
    if params
        .and_then(|p| p.pointer("/_meta/io.modelcontextprotocol~1protocolVersion"))
        .is_some()
        && method != "server/discover"
    {
        f.modern = true;
    }
    if let Some(v) = params
        .and_then(|p| p.get("protocolVersion"))
        .and_then(Value::as_str)
    {
        f.batchless = v >= "2025-06-18";
    }
    f.token_given |= params
        .and_then(|p| p.pointer("/_meta/progressToken"))
        .is_some();
    f.tools_requests |= method.starts_with("tools/");
    match id {
        Some(id) => {
            asked.insert(id, (method.to_string(), params.cloned()));
        }
        None if method == "notifications/cancelled" => {
            f.client_notes = true;
            let of = params
                .and_then(|p| p.get("requestId"))
                .map(Value::to_string);
            if of.is_some_and(|of| answered.contains(&of)) {
                f.late_cancel = true;
            }
        }
        None => f.client_notes = true,
    }
}

fn server(
    f: &mut Facts,
    m: &Value,
    method: Option<&str>,
    id: Option<String>,
    asked: &HashMap<String, (String, Option<Value>)>,
    answered: &mut HashSet<String>,
    typed: &mut HashSet<String>,
) {
    if let Some(method) = method {
        f.server_requests |= id.is_some();
        f.progress |= method == "notifications/progress";
        f.sampling |= method == "sampling/createMessage";
        f.elicitation |= method == "elicitation/create";
        f.server_cancels |= method == "notifications/cancelled";
        f.log_messages |= method == "notifications/message";
        f.list_changed |= method.ends_with("/list_changed");
        let params = m.get("params");
        let meta = params.and_then(|p| p.pointer("/_meta/io.modelcontextprotocol~1subscriptionId"));
        f.listen_stream |= meta.is_some();
        let cancelled = params
            .and_then(|p| p.get("requestId"))
            .map(Value::to_string);
        f.listen_ended |= method == "notifications/cancelled"
            && cancelled.is_some_and(|of| is_listen(asked, &of));
        return;
    }
    let Some(id) = id else { return };
    f.responses = true;
    answered.insert(id.clone());
    let Some((asked_method, params)) = asked.get(&id) else {
        return;
    };
    let with_task = params.as_ref().is_some_and(|p| p.get("task").is_some());
    f.tasks |= (asked_method == "tools/call" && with_task) || asked_method.starts_with("tasks/");
    let Some(result) = m.get("result") else {
        f.errors = true;
        return;
    };
    f.results = true;
    f.listen_ended |= asked_method == "subscriptions/listen";
    f.input_required |= result.get("resultType").and_then(Value::as_str) == Some("input_required");
    if matches!(asked_method.as_str(), "initialize" | "server/discover")
        && let Some(caps) = result.get("capabilities")
    {
        f.declared = caps.clone();
    }
    match asked_method.as_str() {
        "initialize" => {
            f.init_answered = true;
            if let Some(v) = result.get("protocolVersion").and_then(Value::as_str) {
                f.batchless = v >= "2025-06-18";
            }
        }
        "tools/list" => {
            f.tools_listed = true;
            f.pages = true;
            let tools = result.get("tools").and_then(Value::as_array);
            for t in tools
                .into_iter()
                .flatten()
                .filter(|t| t.get("outputSchema").is_some())
            {
                if let Some(name) = t.get("name").and_then(Value::as_str) {
                    typed.insert(name.to_string());
                }
            }
        }
        "tools/call" => {
            let name = params
                .as_ref()
                .and_then(|p| p.get("name"))
                .and_then(Value::as_str);
            f.typed_results |= name.is_some_and(|n| typed.contains(n));
        }
        m if m.ends_with("/list") => f.pages = true,
        _ => {}
    }
}

/// Whether the client's request `id` is a `subscriptions/listen`.
fn is_listen(asked: &HashMap<String, (String, Option<Value>)>, id: &str) -> bool {
    asked
        .get(id)
        .is_some_and(|(method, _)| method == "subscriptions/listen")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A bundled trace's events and the rules they exercise.
    fn exercised_by(bytes: &[u8]) -> (Vec<Event>, BTreeSet<&'static str>) {
        let events = agentpi_monitor::trace::parse(bytes).unwrap();
        let rules = exercised(&events);
        (events, rules)
    }

    #[test]
    fn a_modern_close_of_a_call_in_flight_exercises_c4_and_c5() {
        let bytes = include_bytes!("../../../../tests/tester/http_close_cancel.jsonl");
        let (events, rules) = exercised_by(bytes);
        assert!(rules.contains("C4") && rules.contains("C5"), "{rules:?}");
        // Without the closes the calls were never cancelled.
        let kept: Vec<Event> = events
            .into_iter()
            .filter(|e| e.kind() != Some("aborted"))
            .collect();
        assert!(!exercised(&kept).contains("C5"));
    }

    /// A call with a task (server-everything's simulate-research-query, cancelled with
    /// tasks/cancel) exercises T8 and X7.
    #[test]
    fn a_call_with_a_task_exercises_t8_and_x7() {
        let (_, rules) = exercised_by(include_bytes!("../../../../tests/tester/task_cancel.jsonl"));
        assert!(rules.contains("T8") && rules.contains("X7"), "{rules:?}");
    }

    /// A listen the server acknowledged exercises M13; M15 only once the server ends one
    /// (here the client cancels it, so not until a result for it is added).
    #[test]
    fn an_acknowledged_listen_exercises_m13_and_its_end_m15() {
        let bytes = include_bytes!("../../../../tests/tester/listen_stdio.jsonl");
        let (mut events, rules) = exercised_by(bytes);
        assert!(rules.contains("M13") && !rules.contains("M15"), "{rules:?}");
        let end = r#"{"t":9.0,"dir":"s2c","raw":"{\"jsonrpc\":\"2.0\",\"id\":5,\"result\":{\"resultType\":\"complete\"}}"}"#;
        events.extend(agentpi_monitor::trace::parse(end.as_bytes()).unwrap());
        assert!(exercised(&events).contains("M15"));
    }

    /// An input-required result exercises M11; the same trace without it does not.
    #[test]
    fn an_input_required_result_exercises_m11() {
        let bytes = include_bytes!(
            "../../../monitor/tests/traces/modern_input_required_typed_tool_clean.jsonl"
        );
        let (events, rules) = exercised_by(bytes);
        assert!(rules.contains("M11"), "{rules:?}");
        let asks = |e: &Event| String::from_utf8_lossy(&e.raw).contains("input_required");
        let kept: Vec<Event> = events.into_iter().filter(|e| !asks(e)).collect();
        assert!(!exercised(&kept).contains("M11"));
    }
}
