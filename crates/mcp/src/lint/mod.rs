//! `agentpi lint`: checks MCP tool definitions against the specification (group T of the rule
//! book), the paper's five principles as MCP+ (P1–P5) and, on request, provider profiles.
//!
//! The entry point is [`lint`]: it takes a [`ToolSet`] (from a file via [`input`] or from a live
//! server via [`crate::client`]) and returns a [`Report`] of findings, per-principle scores and
//! the token cost of the listing.

pub mod config;
mod context;
pub mod input;
pub mod mcp_plus;
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
mod words;

pub use config::Config;
pub use context::Finding;
pub use input::{Era, InputError, RecordedCall, Tool, ToolSet};
pub use profile::Profile;
pub use report::Report;

/// What to check beyond the always-on rules.
#[derive(Clone, Debug, Default)]
pub struct Options {
    pub profiles: Vec<Profile>,
}

/// Runs every rule on `set` and applies `config` (disabled rules, severity changes).
pub fn lint(set: &ToolSet, options: &Options, config: &Config) -> Report {
    let mut cx = context::Context::new(set);
    spec::check(&mut cx);
    principles::check(&mut cx);
    for profile in &options.profiles {
        profile::check(&mut cx, *profile);
    }
    let tokens = tokens::measure(set);
    if tokens.full > config.token_budget {
        cx.server(
            "P405",
            "",
            format!(
                "the tools/list listing costs about {} tokens, over the budget of {}; a summary-first listing would cost about {}",
                tokens.full, config.token_budget, tokens.summary_first
            ),
        );
    }
    let mut findings = cx.finish();
    findings.extend(set.findings.iter().cloned());
    report::Report::new(set, config.apply(findings), tokens)
}
