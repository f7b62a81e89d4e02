//! MCP+ rules, one module per principle of the paper (P1–P5), plus the block checks P001/P002.
//! Each tool's MCP+ block is parsed once into [`Facts`] that every principle reads.

mod p1;
mod p2;
mod p3;
mod p4;
mod p5;

use super::context::{label, Context};
use super::input::Tool;
use super::mcp_plus::{self, McpPlus, SideEffects};
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
    let facts: Vec<Facts> = set.tools.iter().filter(|t| t.value.is_object() && t.name.is_some()).map(|tool| parse(cx, tool)).collect();
    for fact in &facts {
        p1::check(cx, fact);
        p2::check(cx, fact);
        p3::check(cx, fact);
        p4::check(cx, fact);
    }
    p5::check(cx, &facts);
}

/// Parses the tool's MCP+ block, reporting P001/P302 problems, or P002 when there is none.
fn parse<'a>(cx: &mut Context, tool: &'a Tool) -> Facts<'a> {
    let description = tool.value.get("description").and_then(Value::as_str);
    let plus = match mcp_plus::parse(&tool.value) {
        Some((plus, problems)) => {
            for (code, pointer, message) in problems {
                cx.tool(code, tool, &pointer, format!("tool {}: {message}", label(tool)));
            }
            Some(plus)
        }
        None => {
            let message = format!("tool {} carries no MCP+ block (`_meta[\"{}\"]`)", label(tool), mcp_plus::KEY);
            cx.tool("P002", tool, "", message).diagnostic.help = Some("run `agentpi lint --suggest` for a block inferred from the tool, and review it".into());
            None
        }
    };
    Facts { tool, plus, description }
}
