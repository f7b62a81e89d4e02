//! P3, failure-mode documentation: an MCP+ block declares failure modes, each with a recovery
//! from retry, fallback, user_prompt, abort (unknown ones are reported while parsing, P302);
//! retrying a non-idempotent state change is flagged; a fallback names an existing tool.

use super::Facts;
use crate::lint::context::{label, Context};
use crate::lint::mcp_plus::{FailureMode, POINTER};

pub fn check(cx: &mut Context, facts: &Facts) {
    let Some(plus) = &facts.plus else { return };
    let modes = plus.failure_modes.as_deref().unwrap_or(&[]);
    if modes.is_empty() {
        let message = format!("tool {}: the MCP+ block declares no failure_modes; an agent cannot plan for errors", label(facts.tool));
        cx.tool("P301", facts.tool, POINTER, message);
    }
    for mode in modes {
        match mode.recovery.as_deref() {
            Some("retry") => retry(cx, facts, mode),
            Some("fallback") => fallback(cx, facts, mode),
            _ => {}
        }
    }
}

fn retry(cx: &mut Context, facts: &Facts, mode: &FailureMode) {
    let effects = facts.declared().or_else(|| facts.annotated());
    let changes = effects.is_some_and(|e| e.needs_approval());
    if changes && facts.hint("idempotentHint") != Some(true) {
        let message = format!("tool {}: failure mode `{}` recovers by retry, but the tool changes state and is not marked idempotent; a retry may repeat the effect", label(facts.tool), mode.error);
        cx.tool("P303", facts.tool, &format!("{}/recovery", mode.pointer), message);
    }
}

fn fallback(cx: &mut Context, facts: &Facts, mode: &FailureMode) {
    let message = match mode.fallback.as_deref() {
        None => format!("tool {}: failure mode `{}` recovers by fallback but names no `fallback` tool", label(facts.tool), mode.error),
        Some(target) if !cx.has_tool(target) => format!("tool {}: failure mode `{}` falls back to `{target}`, which is not a listed tool", label(facts.tool), mode.error),
        Some(_) => return,
    };
    let pointer = if mode.fallback.is_some() { format!("{}/fallback", mode.pointer) } else { mode.pointer.clone() };
    cx.tool("P304", facts.tool, &pointer, message);
}
