//! `agentpi lint`: reads MCP tool definitions from a file, a stdio server (`-- CMD ARGS`) or a
//! Streamable HTTP server (`--url`), lints them, and prints the report as text, JSON or SARIF.
//! Exit status: 0 clean (warnings allowed), 1 an error-level finding, 2 unreadable input.

use crate::output::{self, errln};
use crate::sarif;
use agentpi_diagnostics::{Diagnostic, FileId, LineCol, Severity, SourceMap, Span, render};
use agentpi_mcp::client;
use agentpi_mcp::lint::{
    self, Config, Finding, InputError, Options, Profile, Report, ToolSet, input, live, locate,
    rules, suggest,
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

/// The exit statuses, for `--help`.
pub const EXIT_STATUS: &str = "Exit status: 0 no error-level finding (warnings allowed), 1 an \
    error-level finding, 2 an input that cannot be read (a file, a server that does not answer, \
    an unknown --explain code) or an output that could not be written.";

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
    let (set, file) = match read(&args) {
        Ok(read) => read,
        Err(error) => return input_error(&error),
    };
    if args.suggest {
        let json = serde_json::to_string_pretty(&suggest::suggest(&set)).unwrap_or_default();
        return output::finish(&(json + "\n"), 0);
    }
    let profiles = args
        .profile
        .iter()
        .filter_map(|p| Profile::parse(p))
        .collect();
    let report = lint::lint(&set, &Options { profiles }, &config);
    let located = Located::new(file);
    let text = render_report(&report, &located, args.format);
    output::finish(&text, u8::from(report.has_errors()))
}

fn render_report(report: &Report, located: &Located, format: Format) -> String {
    let at = |finding: &Finding| located.line_col(finding);
    let pretty =
        |value: serde_json::Value| serde_json::to_string_pretty(&value).unwrap_or_default() + "\n";
    match format {
        Format::Text => text(report, located),
        Format::Json => pretty(sarif::json(report, &at)),
        Format::Sarif => pretty(sarif::sarif(report, &at)),
    }
}

/// The linted file, when the input was one: it turns JSON pointers into positions.
struct Located {
    sources: SourceMap,
    file: Option<FileId>,
}

impl Located {
    fn new(file: Option<(String, String)>) -> Located {
        let mut sources = SourceMap::new();
        let file = file.map(|(name, text)| sources.add(name, text));
        Located { sources, file }
    }

    /// The span of the value a finding points at, if it is in the linted file.
    fn span(&self, finding: &Finding) -> Option<Span> {
        let id = self.file?;
        let file = self.sources.get(id);
        let at = locate::in_file(
            &file.name,
            &file.text,
            finding.document(),
            finding.pointer(),
        )?;
        Some(Span::new(id, at as u32, at as u32 + 1))
    }

    fn line_col(&self, finding: &Finding) -> Option<LineCol> {
        let span = self.span(finding)?;
        Some(self.sources.get(span.file).line_col(span.start))
    }

    /// The diagnostic to render: at its source position (pointer as label) when known.
    fn diagnostic(&self, finding: &Finding) -> Diagnostic {
        match self.span(finding) {
            Some(span) => {
                let pointer = if finding.pointer().is_empty() {
                    "/"
                } else {
                    finding.pointer()
                };
                finding.diagnostic.clone().at(span).with_label(pointer)
            }
            None => finding.diagnostic.clone(),
        }
    }
}

fn explain(code: &str) -> u8 {
    match rules::find(&code.to_ascii_uppercase()) {
        Some(rule) => {
            let page = format!(
                "{} {} ({}, default severity {})\n\n{}",
                rule.code,
                rule.name,
                rule.family.as_str(),
                rule.severity.as_str(),
                rule.explain
            );
            output::finish(&page, 0)
        }
        None => {
            let codes: Vec<&str> = rules::RULES.iter().map(|r| r.code).collect();
            errln!(
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

/// The tool set, and the file's name and text when the input was a file.
fn read(args: &Args) -> Result<(ToolSet, Option<(String, String)>), InputError> {
    let timeout = Duration::from_secs_f64(args.timeout.max(0.001));
    if let Some(url) = &args.url {
        let mut transport = Http::new(url).map_err(|e| client_error(url, &e))?;
        return Ok((connect(url, &mut transport, timeout)?, None));
    }
    if let Some((program, rest)) = args.command.split_first() {
        let origin = args.command.join(" ");
        let mut transport = Stdio::spawn(program, rest).map_err(|e| client_error(&origin, &e))?;
        return Ok((connect(&origin, &mut transport, timeout)?, None));
    }
    let Some(path) = &args.file else {
        return Err(InputError::new("agentpi lint", "nothing to lint")
            .with_help("give a FILE, --url URL, or -- CMD ARGS..."));
    };
    let name = path.display().to_string();
    let text = crate::loader::read_text(path)
        .map_err(|e| InputError::new(&name, format!("cannot read: {e}")))?;
    Ok((input::parse(&name, &text)?, Some((name, text))))
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
    errln!("error: {}: {}", error.place, error.message);
    if let Some(help) = &error.help {
        errln!("  = help: {help}");
    }
    2
}

/// The terminal report: a header, findings grouped by tool, then scores, tokens and counts.
fn text(report: &Report, located: &Located) -> String {
    let mut out = header(report);
    for tool in groups(report) {
        let mut findings: Vec<&Finding> = report.findings_for(tool).collect();
        // In a file, read top to bottom; live listings keep the report's pointer order.
        findings.sort_by_key(|finding| located.span(finding).map(|span| span.start));
        if findings.is_empty() {
            continue;
        }
        out.push_str(&match tool {
            Some(name) => format!("\n== tool `{name}` ==\n"),
            None => "\n== listing ==\n".to_string(),
        });
        for finding in findings {
            out.push_str(&render::terminal(
                &located.diagnostic(finding),
                &located.sources,
            ));
        }
    }
    out.push('\n');
    out.push_str(&footer(report));
    out
}

fn header(report: &Report) -> String {
    let era = match (report.era, &report.protocol_version) {
        (Some(era), Some(version)) => format!("{} era, {version}, ", era.as_str()),
        (Some(era), None) => format!("{} era, ", era.as_str()),
        _ => String::new(),
    };
    format!(
        "agentpi lint: {} ({era}{} tools)\n",
        report.origin,
        report.tools.len()
    )
}

/// Listing-wide findings first, then each distinct tool name in listing order.
fn groups(report: &Report) -> Vec<Option<&str>> {
    let mut groups = vec![None];
    for name in &report.tools {
        if !groups.contains(&Some(name.as_str())) {
            groups.push(Some(name));
        }
    }
    groups
}

fn footer(report: &Report) -> String {
    let mut out = String::new();
    for score in &report.scores {
        let (passing, total, percent) = (score.passing, score.total, score.percent());
        out.push_str(&format!(
            "{} {:<28} {passing:>3}/{total:<3} {percent:>3}%\n",
            score.family.as_str(),
            score.name
        ));
    }
    let tokens = &report.tokens;
    let ratio = (tokens.summary_first * 100)
        .checked_div(tokens.full)
        .unwrap_or(100);
    out.push_str(&format!(
        "tokens: tools/list ~{}, summary-first listing ~{} ({ratio}%), plus one full definition ~{}\n",
        tokens.full,
        tokens.summary_first,
        tokens.progressive(1)
    ));
    let counts = [Severity::Error, Severity::Warning, Severity::Note].map(|s| report.count(s));
    out.push_str(&format!(
        "{} tools: {} errors, {} warnings, {} notes\n",
        report.tools.len(),
        counts[0],
        counts[1],
        counts[2]
    ));
    out
}
