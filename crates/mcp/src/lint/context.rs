//! The state a lint run shares between rules: the tool set, a name index, and the findings so
//! far. Rules report through [`Context::tool`] and [`Context::server`], which fill in the
//! catalogue severity and the JSON pointer.

use super::finding::Finding;
use super::toolset::{Tool, ToolSet};
use std::collections::BTreeMap;

pub struct Context<'a> {
    pub set: &'a ToolSet,
    /// Tool name to index of its first occurrence.
    pub by_name: BTreeMap<&'a str, usize>,
    /// Whether MCP+ rules run per tool: the server uses MCP+ (some tool carries a block) or
    /// the user asked for them (`--mcp-plus`). Otherwise MCP+ adoption is one server note.
    pub mcp_plus: bool,
    findings: Vec<Finding>,
}

impl<'a> Context<'a> {
    pub fn new(set: &'a ToolSet, mcp_plus: bool) -> Context<'a> {
        let mut by_name = BTreeMap::new();
        for (index, tool) in set.tools.iter().enumerate() {
            if let Some(name) = tool.name.as_deref() {
                by_name.entry(name).or_insert(index);
            }
        }
        Context {
            set,
            by_name,
            mcp_plus,
            findings: Vec::new(),
        }
    }

    pub fn has_tool(&self, name: &str) -> bool {
        self.by_name.contains_key(name)
    }

    /// Reports `code` about `tool` at `pointer` (relative to the tool object).
    pub fn tool(
        &mut self,
        code: &str,
        tool: &Tool,
        pointer: &str,
        message: String,
    ) -> &mut Finding {
        let mut finding = Finding::new(code, tool.name.clone(), message);
        let full = format!("{}{}", tool.base, pointer);
        finding.diagnostic = finding.diagnostic.at_pointer(tool.document.clone(), full);
        self.findings.push(finding);
        self.findings.last_mut().unwrap()
    }

    /// Reports `code` about the listing as a whole, at `pointer` in the listing document.
    pub fn server(&mut self, code: &str, pointer: &str, message: String) -> &mut Finding {
        let mut finding = Finding::new(code, None, message);
        finding.diagnostic = finding
            .diagnostic
            .at_pointer(self.set.document.clone(), pointer);
        self.findings.push(finding);
        self.findings.last_mut().unwrap()
    }

    pub fn finish(self) -> Vec<Finding> {
        self.findings
    }
}

/// A tool's display name for messages: its name, or `#index` if it has none.
pub fn label(tool: &Tool) -> String {
    match &tool.name {
        Some(name) => format!("`{name}`"),
        None => format!("#{}", tool.index),
    }
}

impl Context<'_> {
    /// Adds a finding built elsewhere (with its own document).
    pub fn push(&mut self, finding: Finding) {
        self.findings.push(finding);
    }
}
