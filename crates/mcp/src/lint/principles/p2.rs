//! P2, explicit action boundaries: every tool has a side-effect class (from MCP+ or the
//! annotations), write and delete require approval, MCP+ agrees with the annotations, and names
//! and descriptions do not contradict the hints (such as `delete_*` marked read-only).

use super::Facts;
use crate::lint::context::{Context, label};
use crate::lint::mcp_plus::{POINTER, SideEffects};
use crate::lint::words::{name_words, prose_words, stem};

pub fn check(cx: &mut Context, facts: &Facts) {
    let tool = facts.tool;
    let declared = facts.declared();
    let Some(effects) = declared.or_else(|| facts.annotated()) else {
        let sources = if cx.mcp_plus {
            "neither readOnlyHint/destructiveHint nor MCP+ side_effects says"
        } else {
            "no readOnlyHint or destructiveHint annotation says"
        };
        let message = format!(
            "tool {}: {sources} whether it changes state, so clients must assume it may destroy data",
            label(tool)
        );
        cx.tool("P201", tool, "/annotations", message);
        return verbs(cx, facts);
    };
    let approved = facts.plus.as_ref().and_then(|p| p.requires_approval) == Some(true);
    if effects.needs_approval() && !approved {
        approval(cx, facts, effects, declared.is_some());
    }
    if let Some(declared) = declared {
        conflict(cx, facts, declared);
    }
    verbs(cx, facts);
}

fn approval(cx: &mut Context, facts: &Facts, effects: SideEffects, declared: bool) {
    let tool = facts.tool;
    if declared {
        let message = format!(
            "tool {}: side_effects is {} but requires_approval is not true; write and delete need a human approval step",
            label(tool),
            effects.as_str()
        );
        cx.tool(
            "P202",
            tool,
            &format!("{POINTER}/requires_approval"),
            message,
        );
    } else if cx.mcp_plus {
        // Stock MCP has no approval field: asking for one is MCP+ adoption, not a defect.
        let message = format!(
            "tool {}: its annotations say it may {} but it declares no approval requirement",
            label(tool),
            effects.as_str()
        );
        let finding = cx.tool("P203", tool, "/annotations", message);
        finding.diagnostic.help = Some("declare MCP+ side_effects and requires_approval: true (see `agentpi lint --explain P203`)".into());
    }
}

fn conflict(cx: &mut Context, facts: &Facts, declared: SideEffects) {
    let read_only = facts.hint("readOnlyHint");
    let destructive = facts.hint("destructiveHint");
    let problem = match declared {
        SideEffects::Read | SideEffects::None if read_only == Some(false) => {
            "readOnlyHint is false"
        }
        SideEffects::Write | SideEffects::Delete if read_only == Some(true) => {
            "readOnlyHint is true"
        }
        SideEffects::Delete if destructive == Some(false) => "destructiveHint is false",
        _ => return,
    };
    let message = format!(
        "tool {}: MCP+ side_effects is {} but {problem}",
        label(facts.tool),
        declared.as_str()
    );
    cx.tool(
        "P204",
        facts.tool,
        &format!("{POINTER}/side_effects"),
        message,
    );
}

const DESTROY: &[&str] = &[
    "delet",
    "remov",
    "drop",
    "destroy",
    "purg",
    "eras",
    "wip",
    "truncat",
    "revok",
    "uninstall",
    "unlink",
];
const WRITE: &[&str] = &[
    "creat", "writ", "updat", "insert", "put", "send", "edit", "modify", "mov", "renam", "upload",
    "execut", "transfer", "pay", "cancel",
];

/// P205: the verb of the name (its first word) and of the description (its first word)
/// against the hints.
fn verbs(cx: &mut Context, facts: &Facts) {
    let mut words: Vec<String> = name_words(facts.name()).into_iter().take(1).collect();
    words.extend(
        facts
            .description
            .map(prose_words)
            .unwrap_or_default()
            .into_iter()
            .take(1),
    );
    let has = |list: &[&str]| words.iter().find(|w| list.contains(&stem(w))).cloned();
    let read_only =
        facts.hint("readOnlyHint") == Some(true) || facts.declared() == Some(SideEffects::Read);
    let message = if let Some(verb) =
        has(DESTROY).filter(|_| read_only || facts.hint("destructiveHint") == Some(false))
    {
        let hint = if read_only {
            "read-only"
        } else {
            "non-destructive (destructiveHint: false)"
        };
        format!(
            "tool {} says `{verb}` but is marked {hint}",
            label(facts.tool)
        )
    } else if let Some(verb) = has(WRITE).filter(|_| read_only) {
        format!(
            "tool {} says `{verb}` but is marked read-only",
            label(facts.tool)
        )
    } else {
        return;
    };
    cx.tool("P205", facts.tool, "/annotations", message);
}
