//! Tasks (2025-11-25, experimental): task-augmented requests only where declared and allowed
//! (T8), cancelled with `tasks/cancel` rather than the notification (C2), and each task's
//! life as the requester sees it (X7): a string id, born `working`, stamped with `createdAt`
//! and `lastUpdatedAt`, and never leaving a terminal status; messages related to a task say
//! so in `_meta` (`io.modelcontextprotocol/related-task`).

use crate::shape::Finding;
use crate::trace::Dir;
use serde_json::Value;
use std::collections::{HashMap, HashSet};

const TERMINAL: [&str; 3] = ["completed", "failed", "cancelled"];

/// The `_meta` key that ties a message to its task.
const RELATED: &str = "io.modelcontextprotocol/related-task";

/// X7: a message's `_meta` related-task, where present, is "an object with a `taskId`"
/// (basic/utilities/tasks, "Associating Task-Related Messages"; the schema's
/// `RelatedTaskMetadata`, whose `taskId` is a string). `whose` names the message.
pub fn related(meta: Option<&Value>, whose: &str) -> Option<Finding> {
    let value = meta?.get(RELATED)?;
    if value.get("taskId").is_some_and(Value::is_string) {
        return None;
    }
    Some((
        "X7",
        format!("{whose}: `_meta` {RELATED} is {value}, not an object with a string taskId"),
    ))
}

/// X7: "The `tasks/result` operation MUST include this metadata in its response": the
/// result carries `_meta` related-task naming the task asked for.
fn result_related(params: Option<&Value>, result: &Value) -> Option<Finding> {
    let asked = params.and_then(|p| p.get("taskId"))?;
    let named = result
        .get("_meta")
        .and_then(|m| m.get(RELATED))
        .and_then(|r| r.get("taskId"));
    if named == Some(asked) {
        return None;
    }
    let named = named.map_or("none".to_string(), Value::to_string);
    Some((
        "X7",
        format!(
            "the result of tasks/result for task {asked} names related task {named} in `_meta`"
        ),
    ))
}

/// What the task rules remember.
#[derive(Default)]
pub struct Tasks {
    /// The server's capabilities from its `initialize` result.
    server_caps: Option<Value>,
    /// `execution.taskSupport` of each listed tool (absent: forbidden).
    support: HashMap<String, String>,
    /// Requests sent with `params.task`, by key (`c2s:5`).
    augmented: HashSet<String>,
    /// The last status of each task, by owner and id (`s2c:"t1"`).
    status: HashMap<String, String>,
}

fn task_param(params: Option<&Value>) -> Option<&Value> {
    params.and_then(|p| p.get("task"))
}

fn tool_name(params: Option<&Value>) -> &str {
    params
        .and_then(|p| p.get("name"))
        .and_then(Value::as_str)
        .unwrap_or("")
}

impl Tasks {
    pub fn initialized(&mut self, result: &Value) {
        self.server_caps = result.get("capabilities").cloned();
    }

    /// Reads `execution.taskSupport` from a page of the tool listing.
    pub fn listed(&mut self, result: &Value) {
        let tools = result.get("tools").and_then(Value::as_array);
        for tool in tools.into_iter().flatten() {
            let Some(name) = tool.get("name").and_then(Value::as_str) else {
                continue;
            };
            let support = tool
                .pointer("/execution/taskSupport")
                .and_then(Value::as_str)
                .unwrap_or("forbidden");
            self.support.insert(name.to_string(), support.to_string());
        }
    }

    fn tool_support(&self, name: &str) -> Option<&str> {
        self.support.get(name).map(String::as_str)
    }

    /// T8 for a request as it is sent; remembers task-augmented requests for C2.
    pub fn request(
        &mut self,
        key: impl FnOnce() -> String,
        dir: Dir,
        method: &str,
        params: Option<&Value>,
    ) -> Vec<Finding> {
        if task_param(params).is_none() {
            return Vec::new();
        }
        self.augmented.insert(key());
        if dir != Dir::C2s || method != "tools/call" {
            return Vec::new();
        }
        let declared = self
            .server_caps
            .as_ref()
            .and_then(|c| c.pointer("/tasks/requests/tools/call"))
            .is_some();
        let name = tool_name(params);
        let mut found = Vec::new();
        if !declared {
            found.push((
                "T8",
                format!("a task-augmented call of `{name}`, but the server did not declare tasks.requests.tools.call"),
            ));
        } else if self.tool_support(name) == Some("forbidden") {
            found.push((
                "T8",
                format!("a task-augmented call of `{name}`, whose taskSupport is forbidden"),
            ));
        }
        found
    }

    /// C2: a task-augmented request is cancelled with `tasks/cancel`.
    pub fn cancelled(&self, key: &str) -> Vec<Finding> {
        if !self.augmented.contains(key) {
            return Vec::new();
        }
        vec![(
            "C2",
            "notifications/cancelled for a task-augmented request: tasks/cancel ends a task"
                .to_string(),
        )]
    }

    /// The answer to a request: T8 (a required tool called without a task is an error),
    /// X7 (the task a task-augmented request created, and what tasks/* say of tasks).
    pub fn answer(
        &mut self,
        key: impl FnOnce() -> String,
        method: &str,
        params: Option<&Value>,
        outcome: &Result<Value, Value>,
        answered_by: Dir,
    ) -> Vec<Finding> {
        let mut found = Vec::new();
        let Ok(result) = outcome else {
            return found;
        };
        // Named (a `format!`) only when there is a `_meta` to find fault with.
        if let meta @ Some(_) = result.get("_meta") {
            found.extend(related(meta, &format!("the result of {method}")));
        }
        if method == "tasks/result" {
            found.extend(result_related(params, result));
        }
        let name = tool_name(params);
        let plain_call = method == "tools/call" && task_param(params).is_none();
        if plain_call && answered_by == Dir::S2c && self.tool_support(name) == Some("required") {
            found.push((
                "T8",
                format!(
                    "`{name}` requires a task, yet a call without one got a result, not -32601"
                ),
            ));
        }
        // The key is written only when some request was task-augmented (few are).
        if !self.augmented.is_empty() && self.augmented.contains(&key()) {
            match result.get("task") {
                Some(task) => self.created(task, answered_by, &mut found),
                None => found.push((
                    "X7",
                    "a task-augmented request was answered without a `task`".to_string(),
                )),
            }
        }
        match method {
            "tasks/get" => self.update(result, answered_by, &mut found),
            "tasks/cancel" => self.cancel_answered(result, answered_by, &mut found),
            "tasks/list" => {
                let tasks = result.get("tasks").and_then(Value::as_array);
                for task in tasks.into_iter().flatten() {
                    self.update(task, answered_by, &mut found);
                }
            }
            _ => {}
        }
        found
    }

    /// `notifications/tasks/status`: the task's new status.
    pub fn status_notification(&mut self, params: Option<&Value>, dir: Dir) -> Vec<Finding> {
        let mut found = Vec::new();
        if let Some(task) = params {
            self.update(task, dir, &mut found);
        }
        found
    }

    /// A task just created: a string id, status `working`, both time stamps.
    fn created(&mut self, task: &Value, owner: Dir, found: &mut Vec<Finding>) {
        let status = task.get("status").and_then(Value::as_str).unwrap_or("");
        if status != "working" {
            found.push((
                "X7",
                format!("a new task starts {status:?}, not \"working\""),
            ));
        }
        self.update(task, owner, found);
    }

    /// A task as `owner` reports it now: well formed, and no way out of a terminal status.
    fn update(&mut self, task: &Value, owner: Dir, found: &mut Vec<Finding>) {
        let Some(id) = task.get("taskId") else {
            found.push(("X7", "a task without `taskId`".to_string()));
            return;
        };
        if !id.is_string() {
            found.push(("X7", format!("task id {id} is not a string")));
        }
        for stamp in ["createdAt", "lastUpdatedAt"] {
            if !task.get(stamp).is_some_and(Value::is_string) {
                found.push(("X7", format!("task {id} has no `{stamp}`")));
            }
        }
        let Some(status) = task.get("status").and_then(Value::as_str) else {
            return;
        };
        let key = format!("{}:{id}", owner.as_str());
        let before = self.status.insert(key, status.to_string());
        if let Some(before) = before.filter(|b| TERMINAL.contains(&b.as_str()) && b != status) {
            found.push((
                "X7",
                format!("task {id} went from terminal {before:?} to {status:?}"),
            ));
        }
    }

    /// `tasks/cancel` answered with a result: not for a task already terminal (that is
    /// `-32602`).
    fn cancel_answered(&mut self, result: &Value, owner: Dir, found: &mut Vec<Finding>) {
        let id = result.get("taskId").cloned().unwrap_or(Value::Null);
        let key = format!("{}:{id}", owner.as_str());
        let before = self.status.get(&key).cloned();
        if let Some(before) = before.filter(|b| TERMINAL.contains(&b.as_str())) {
            found.push((
                "X7",
                format!("tasks/cancel of task {id}, already {before:?}, got a result, not -32602"),
            ));
            return;
        }
        self.update(result, owner, found);
    }
}
