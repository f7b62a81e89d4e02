//! MCP+ rules, one module per principle of the paper (P1–P5), plus the block checks P001/P002.
//! Each tool's MCP+ block is parsed once into [`Facts`] that every principle reads.

mod p1;
mod p2;
mod p3;
mod p4;
mod p5;

use super::context::{Context, label};
use super::mcp_plus::{self, McpPlus, SideEffects};
use super::toolset::Tool;
use serde_json::Value;

/// What the principles need to know about one tool.
pub struct Facts<'a> {
    pub tool: &'a Tool,
    pub plus: Option<McpPlus>,
    pub description: Option<&'a str>,
}

impl Facts<'_> {
    /// A boolean annotation, if present and boolean.
    pub fn hint(&self, name: &str) -> Option<bool> {
        self.tool.value.get("annotations")?.get(name)?.as_bool()
    }

    /// The side-effect class the annotations imply (paper §6.3): read-only gives `read`,
    /// otherwise destructive (explicit, or by default) gives `delete`, else `write`. `None`
    /// when neither readOnlyHint nor destructiveHint is given.
    pub fn annotated(&self) -> Option<SideEffects> {
        let read_only = self.hint("readOnlyHint");
        let destructive = self.hint("destructiveHint");
        match (read_only, destructive) {
            (Some(true), _) => Some(SideEffects::Read),
            (None, None) => None,
            (_, destructive) if destructive.unwrap_or(true) => Some(SideEffects::Delete),
            _ => Some(SideEffects::Write),
        }
    }

    pub fn declared(&self) -> Option<SideEffects> {
        self.plus.as_ref()?.side_effects
    }

    pub fn name(&self) -> &str {
        self.tool.name.as_deref().unwrap_or("")
    }
}

pub fn check(cx: &mut Context) {
    let set = cx.set;
    let facts: Vec<Facts> = set
        .tools
        .iter()
        .filter(|t| t.value.is_object() && t.name.is_some())
        .map(|tool| parse(cx, tool))
        .collect();
    for fact in &facts {
        p1::check(cx, fact);
        p2::check(cx, fact);
        p3::check(cx, fact);
        p4::check(cx, fact);
    }
    p5::check(cx, &facts);
    adoption(cx, facts.len());
}

/// P002 once for the server when it has not opted into MCP+ (and `--mcp-plus` was not given):
/// adoption is one decision of the author, not a defect of each tool.
fn adoption(cx: &mut Context, tools: usize) {
    if cx.mcp_plus || tools == 0 {
        return;
    }
    let its = if tools == 1 {
        "its one tool carries no".to_string()
    } else {
        format!("none of its {tools} tools carries")
    };
    let message = format!(
        "the server does not use MCP+: {its} `_meta[\"{}\"]` (side effects, approval, failure modes, summary, dependencies)",
        mcp_plus::KEY
    );
    cx.server("P002", "", message).diagnostic.help = Some(
        "`agentpi lint --suggest` infers a block per tool to review; `--mcp-plus` checks every tool as if the server used MCP+".into(),
    );
}

/// Whether a tool's description says how it fails (stock MCP's way to document failure modes,
/// used for the P3 score of servers without MCP+): it names an error, a failure, or a condition
/// under which the call does not succeed.
pub fn documents_failures(tool: &Value) -> bool {
    let Some(text) = tool.get("description").and_then(Value::as_str) else {
        return false;
    };
    let lower = text.to_lowercase();
    const SIGNS: &[&str] = &[
        "error",
        "fail",
        "throw",
        "raise",
        "invalid",
        "not found",
        "does not exist",
        "doesn't exist",
        "denied",
        "unavailable",
        "timeout",
        "timed out",
        "reject",
        "refuse",
    ];
    SIGNS.iter().any(|sign| lower.contains(sign))
}

/// P405: the whole listing against the token budget (P4 at the level of the server).
pub fn budget(cx: &mut Context, tokens: &crate::lint::tokens::Tokens, budget: usize) {
    p4::budget(cx, tokens, budget);
}

/// Parses the tool's MCP+ block, reporting P001/P302 problems, or P002 when there is none.
fn parse<'a>(cx: &mut Context, tool: &'a Tool) -> Facts<'a> {
    let description = tool.value.get("description").and_then(Value::as_str);
    let plus = match mcp_plus::parse(&tool.value) {
        Some((plus, problems)) => {
            for (code, pointer, message) in problems {
                cx.tool(
                    code,
                    tool,
                    &pointer,
                    format!("tool {}: {message}", label(tool)),
                );
            }
            Some(plus)
        }
        None if !cx.mcp_plus => None,
        None => {
            let message = format!(
                "tool {} carries no MCP+ block (`_meta[\"{}\"]`)",
                label(tool),
                mcp_plus::KEY
            );
            cx.tool("P002", tool, "", message).diagnostic.help = Some(
                "run `agentpi lint --suggest` for a block inferred from the tool, and review it"
                    .into(),
            );
            None
        }
    };
    Facts {
        tool,
        plus,
        description,
    }
}
