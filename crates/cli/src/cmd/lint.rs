//! `agentpi lint`: reads MCP tool definitions from a file, a stdio server (`-- CMD ARGS`) or a
//! Streamable HTTP server (`--url`), lints them, and prints the report as text, JSON or SARIF.
//! Exit status: 0 clean (warnings allowed), 1 an error-level finding, 2 unreadable input.

use crate::sarif;
use agentpi_diagnostics::{Severity, SourceMap, render};
use agentpi_mcp::client;
use agentpi_mcp::lint::{
    self, Config, InputError, Options, Profile, Report, ToolSet, input, live, rules, suggest,
};
use agentpi_mcp::transport::{ClientError, Transport, http::Http, stdio::Stdio};
use std::path::{Path, PathBuf};
use std::time::Duration;

#[derive(clap::Args)]
pub struct Args {
    /// A file: a tools/list result, a JSON array of tools, or a recorded session (JSON lines).
    pub file: Option<PathBuf>,
    /// Lint a Streamable HTTP server at this http:// URL (loopback, no TLS).
    #[arg(long, conflicts_with = "file")]
    pub url: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
    /// Also check what a model provider accepts (repeatable).
    #[arg(long, value_parser = ["openai", "gemini", "anthropic"])]
    pub profile: Vec<String>,
    /// Config file (default: ./agentpi-lint.toml when it exists).
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// Print the explanation page of a rule code and exit.
    #[arg(long, value_name = "CODE")]
    pub explain: Option<String>,
    /// Print an inferred MCP+ block per tool (JSON) instead of findings.
    #[arg(long)]
    pub suggest: bool,
    /// Seconds to wait for each reply of a live server.
    #[arg(long, default_value_t = 30.0)]
    pub timeout: f64,
    /// A stdio server to start and lint: `agentpi lint -- CMD ARGS...`.
    #[arg(last = true, conflicts_with_all = ["file", "url"])]
    pub command: Vec<String>,
}

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Text,
    Json,
    Sarif,
}

pub fn run(args: Args) -> u8 {
    if let Some(code) = &args.explain {
        return explain(code);
    }
    let config = match load_config(args.config.as_deref()) {
        Ok(config) => config,
        Err(error) => return input_error(&error),
    };
    let set = match read(&args) {
        Ok(set) => set,
        Err(error) => return input_error(&error),
    };
    if args.suggest {
        println!(
            "{}",
            serde_json::to_string_pretty(&suggest::suggest(&set)).unwrap_or_default()
        );
        return 0;
    }
    let profiles = args
        .profile
        .iter()
        .filter_map(|p| Profile::parse(p))
        .collect();
    let report = lint::lint(&set, &Options { profiles }, &config);
    print!("{}", render_report(&report, args.format));
    u8::from(report.has_errors())
}

fn render_report(report: &Report, format: Format) -> String {
    match format {
        Format::Text => text(report),
        Format::Json => {
            serde_json::to_string_pretty(&sarif::json(report)).unwrap_or_default() + "\n"
        }
        Format::Sarif => {
            serde_json::to_string_pretty(&sarif::sarif(report)).unwrap_or_default() + "\n"
        }
    }
}

fn explain(code: &str) -> u8 {
    match rules::find(&code.to_ascii_uppercase()) {
        Some(rule) => {
            println!(
                "{} {} ({}, default severity {})\n",
                rule.code,
                rule.name,
                rule.family.as_str(),
                rule.severity.as_str()
            );
            print!("{}", rule.explain);
            0
        }
        None => {
            let codes: Vec<&str> = rules::RULES.iter().map(|r| r.code).collect();
            eprintln!(
                "error: unknown rule code `{code}`\n  = help: known codes: {}",
                codes.join(", ")
            );
            2
        }
    }
}

fn load_config(path: Option<&Path>) -> Result<Config, InputError> {
    let default = Path::new("agentpi-lint.toml");
    let path = match path {
        Some(path) => path,
        None if default.is_file() => default,
        None => return Ok(Config::default()),
    };
    let name = path.display().to_string();
    let text = std::fs::read_to_string(path)
        .map_err(|e| InputError::new(&name, format!("cannot read config: {e}")))?;
    Config::parse(&name, &text)
}

fn read(args: &Args) -> Result<ToolSet, InputError> {
    let timeout = Duration::from_secs_f64(args.timeout.max(0.001));
    if let Some(url) = &args.url {
        let mut transport = Http::new(url).map_err(|e| client_error(url, &e))?;
        return connect(url, &mut transport, timeout);
    }
    if let Some((program, rest)) = args.command.split_first() {
        let origin = args.command.join(" ");
        let mut transport = Stdio::spawn(program, rest).map_err(|e| client_error(&origin, &e))?;
        return connect(&origin, &mut transport, timeout);
    }
    let Some(path) = &args.file else {
        return Err(InputError::new("agentpi lint", "nothing to lint")
            .with_help("give a FILE, --url URL, or -- CMD ARGS..."));
    };
    let name = path.display().to_string();
    let text = std::fs::read_to_string(path)
        .map_err(|e| InputError::new(&name, format!("cannot read: {e}")))?;
    input::parse(&name, &text)
}

fn connect(
    origin: &str,
    transport: &mut dyn Transport,
    timeout: Duration,
) -> Result<ToolSet, InputError> {
    let listing = client::list_tools(transport, timeout).map_err(|e| {
        let mut error = client_error(origin, &e);
        if let Some(first) = transport.noise().first() {
            let shown: String = first.chars().take(80).collect();
            error.message.push_str(&format!(
                "\n  it wrote {} line(s) on stdout that are not JSON-RPC, first: {shown:?}",
                transport.noise().len()
            ));
        }
        error
    })?;
    Ok(live::from_listing(origin, &listing, transport.noise()))
}

fn client_error(origin: &str, error: &ClientError) -> InputError {
    let mut message = error.to_string();
    if !error.stderr().is_empty() {
        message.push_str("; its last stderr lines:");
    }
    for line in error.stderr() {
        message.push_str(&format!("\n  | {line}"));
    }
    let help = match error {
        ClientError::Timeout { .. } => {
            Some("check that the command starts an MCP server on stdio, or raise --timeout")
        }
        ClientError::Exited { .. } => Some("run the command by hand to see why it stops"),
        ClientError::Spawn { .. } => Some("check that the program is installed and on PATH"),
        _ => None,
    };
    let error = InputError::new(format!("server `{origin}`"), message);
    match help {
        Some(help) => error.with_help(help),
        None => error,
    }
}

fn input_error(error: &InputError) -> u8 {
    eprintln!("error: {}: {}", error.place, error.message);
    if let Some(help) = &error.help {
        eprintln!("  = help: {help}");
    }
    2
}

/// The terminal report: findings grouped by tool, then scores, tokens and a summary line.
fn text(report: &Report) -> String {
    let sources = SourceMap::new();
    let era = match (report.era, &report.protocol_version) {
        (Some(era), Some(version)) => format!("{} era, {version}, ", era.as_str()),
        (Some(era), None) => format!("{} era, ", era.as_str()),
        _ => String::new(),
    };
    let mut out = format!(
        "agentpi lint: {} ({era}{} tools)\n",
        report.origin,
        report.tools.len()
    );
    let mut names: Vec<&str> = Vec::new();
    for name in &report.tools {
        if !names.contains(&name.as_str()) {
            names.push(name);
        }
    }
    let groups = std::iter::once(None).chain(names.into_iter().map(Some));
    for tool in groups {
        let findings: Vec<_> = report.findings_for(tool).collect();
        if findings.is_empty() {
            continue;
        }
        out.push_str(&match tool {
            Some(name) => format!("\n== tool `{name}` ==\n"),
            None => "\n== listing ==\n".to_string(),
        });
        for finding in findings {
            out.push_str(&render::terminal(&finding.diagnostic, &sources));
        }
    }
    out.push('\n');
    for score in &report.scores {
        out.push_str(&format!(
            "{} {:<28} {:>3}/{:<3} {:>3}%\n",
            score.family.as_str(),
            score.name,
            score.passing,
            score.total,
            score.percent()
        ));
    }
    let tokens = &report.tokens;
    let ratio = (tokens.summary_first * 100)
        .checked_div(tokens.full)
        .unwrap_or(100);
    out.push_str(&format!(
        "tokens: tools/list ~{}, summary-first listing ~{} ({ratio}%)\n",
        tokens.full, tokens.summary_first
    ));
    out.push_str(&format!(
        "{} tools: {} errors, {} warnings, {} notes\n",
        report.tools.len(),
        report.count(Severity::Error),
        report.count(Severity::Warning),
        report.count(Severity::Note)
    ));
    out
}
