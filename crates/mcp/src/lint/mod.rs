//! `agentpi lint`: checks MCP tool definitions against the specification (group T of the rule
//! book), the paper's five principles as MCP+ (P1–P5) and, on request, provider profiles.
//!
//! The entry point is [`lint`]: it takes a [`ToolSet`] (from a file via [`input`] or from a live
//! server via [`crate::client`]) and returns a [`Report`] of findings, per-principle scores and
//! the token cost of the listing.

pub mod config;
mod context;
pub mod error;
pub mod finding;
pub mod input;
pub mod json;
mod keywords;
pub mod live;
pub mod locate;
pub mod mcp_plus;
pub mod meta;
mod principles;
pub mod profile;
pub mod report;
pub mod rules;
mod schema;
mod session;
mod session_rules;
mod spec;
pub mod suggest;
pub mod tokens;
pub mod toolset;
mod words;

pub use config::Config;
pub use error::InputError;
pub use finding::Finding;
pub use profile::Profile;
pub use report::Report;
pub use toolset::{Era, RecordedCall, Tool, ToolSet};

/// What to check beyond the always-on rules.
#[derive(Clone, Debug, Default)]
pub struct Options {
    pub profiles: Vec<Profile>,
    /// Run the MCP+ rules on every tool even if the server has not opted into MCP+.
    pub mcp_plus: bool,
}

/// Runs every rule on `set` and applies `config` (disabled rules, severity changes).
pub fn lint(set: &ToolSet, options: &Options, config: &Config) -> Report {
    let mcp_plus = options.mcp_plus || uses_mcp_plus(set);
    let mut cx = context::Context::new(set, mcp_plus);
    spec::check(&mut cx);
    principles::check(&mut cx);
    for profile in &options.profiles {
        profile::check(&mut cx, *profile);
    }
    let tokens = tokens::measure(set);
    principles::budget(&mut cx, &tokens, config.token_budget);
    let mut findings = cx.finish();
    findings.extend(set.findings.iter().cloned());
    report::Report::new(set, config.apply(findings), tokens, mcp_plus)
}

/// Whether any tool of the listing carries an MCP+ block: the server has opted in.
pub fn uses_mcp_plus(set: &ToolSet) -> bool {
    set.tools
        .iter()
        .any(|tool| tool.value.pointer(mcp_plus::POINTER).is_some())
}
