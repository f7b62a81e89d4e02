//! P4, progressive disclosure: a short MCP+ summary for the discovery listing (shorter than the
//! description, at most 120 characters), or at least a first sentence short enough to serve as
//! one. The listing's token cost (P405) is measured in [`crate::lint::tokens`].

use super::Facts;
use crate::lint::context::{label, Context};
use crate::lint::mcp_plus::POINTER;
use crate::lint::words::first_sentence;

const SUMMARY_MAX: usize = 120;
const SENTENCE_MAX: usize = 160;

pub fn check(cx: &mut Context, facts: &Facts) {
    let tool = facts.tool;
    let summary = facts.plus.as_ref().and_then(|p| p.summary.as_deref());
    if facts.plus.is_some() && summary.is_none() {
        cx.tool("P401", tool, POINTER, format!("tool {}: the MCP+ block has no summary for summary-first listings", label(tool)));
    }
    match summary {
        Some(summary) => summary_length(cx, facts, summary),
        None => sentence_length(cx, facts),
    }
}

fn summary_length(cx: &mut Context, facts: &Facts, summary: &str) {
    let tool = facts.tool;
    let length = summary.chars().count();
    let pointer = format!("{POINTER}/summary");
    if length > SUMMARY_MAX {
        cx.tool("P402", tool, &pointer, format!("tool {}: the summary is {length} characters (at most {SUMMARY_MAX})", label(tool)));
    }
    let described = facts.description.map_or(0, |d| d.trim().chars().count());
    if described > 0 && length >= described {
        let message = format!("tool {}: the summary ({length} characters) is not shorter than the description ({described})", label(tool));
        cx.tool("P403", tool, &pointer, message);
    }
}

fn sentence_length(cx: &mut Context, facts: &Facts) {
    let Some(description) = facts.description else { return };
    let length = first_sentence(description).chars().count();
    if length > SENTENCE_MAX {
        let message = format!("tool {}: the description's first sentence is {length} characters (at most {SENTENCE_MAX}) and there is no MCP+ summary", label(facts.tool));
        cx.tool("P404", facts.tool, "/description", message);
    }
}
