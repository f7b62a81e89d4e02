//! `agentpi lint`: reads MCP tool definitions from a file, a stdio server (`-- CMD ARGS`) or a
//! Streamable HTTP server (`--url`), lints them, and prints the report as text, JSON or SARIF.
//! Exit status: 0 clean (warnings allowed), 1 an error-level finding, 2 unreadable input.

use crate::output::{self, errln};
use crate::sarif;
use agentpi_diagnostics::{Diagnostic, FileId, LineCol, Severity, SourceMap, Span, render};
use agentpi_mcp::client;
use agentpi_mcp::lint::config::Level;
use agentpi_mcp::lint::{
    self, Config, Finding, InputError, Options, Profile, Report, ToolSet, input, live, locate,
    rules, suggest,
};
use agentpi_mcp::transport::http::{Http, Trust};
use agentpi_mcp::transport::{ClientError, Transport, stdio::Stdio};
use std::path::{Path, PathBuf};
use std::time::Duration;

#[derive(clap::Args)]
pub struct Args {
    /// A file: a tools/list result, a JSON array of tools, or a recorded session (JSON lines).
    pub file: Option<PathBuf>,
    /// Lint a Streamable HTTP server at this http:// or https:// URL.
    #[arg(long, conflicts_with = "file")]
    pub url: Option<String>,
    /// Also trust the certificates of this PEM file for an https:// --url (a private CA, or a
    /// self-signed server certificate), besides the system's roots.
    #[arg(long, value_name = "FILE", requires = "url")]
    pub ca_cert: Option<PathBuf>,
    /// Accept any certificate for an https:// --url (testing only: the server's identity is
    /// not checked).
    #[arg(long, requires = "url", conflicts_with = "ca_cert")]
    pub insecure: bool,
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
    /// Seconds a live server gets for the whole connection (handshake and listing).
    #[arg(long, default_value_t = 30.0)]
    pub timeout: f64,
    /// Run the MCP+ rules on every tool, as if the server used MCP+ (by default a server
    /// without MCP+ gets one adoption note).
    #[arg(long)]
    pub mcp_plus: bool,
    /// Make rule CODE an error (repeatable; over the config file).
    #[arg(long, value_name = "CODE")]
    pub deny: Vec<String>,
    /// Make rule CODE a warning (repeatable; over the config file).
    #[arg(long, value_name = "CODE")]
    pub warn: Vec<String>,
    /// Turn rule CODE off (repeatable; over the config file).
    #[arg(long, value_name = "CODE")]
    pub allow: Vec<String>,
    /// Write a live server's listing to FILE ({"tools": [...]}) and point findings into it,
    /// so that SARIF results name a real file of the repository.
    #[arg(long, value_name = "FILE", conflicts_with = "file")]
    pub save_listing: Option<PathBuf>,
    /// A stdio server to start and lint: `agentpi lint -- CMD ARGS...`.
    #[arg(last = true, conflicts_with_all = ["file", "url"])]
    pub command: Vec<String>,
}

/// The exit statuses, for `--help`.
pub const EXIT_STATUS: &str = "Exit status: 0 no error-level finding (warnings allowed), 1 an \
    error-level finding, 2 an input that cannot be read (a file, a bad config, a server that does \
    not answer, an unknown --explain code) or an output that could not be written.";

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Text,
    Json,
    Sarif,
}

/// Stack for the lint run: schemas nest as deep as [`agentpi_mcp::lint::json::MAX_DEPTH`]
/// levels, and parsing, validating and dropping them recurse once per level. 1 000 levels took
/// 4 to 6 MiB in the test profile (1 600 did not fit in 8): this leaves room to spare.
const STACK: usize = 16 * 1024 * 1024;

pub fn run(args: Args) -> u8 {
    let worker = std::thread::Builder::new()
        .name("lint".into())
        .stack_size(STACK)
        .spawn(move || run_on_this_thread(args));
    match worker.map(std::thread::JoinHandle::join) {
        Ok(Ok(status)) => status,
        Ok(Err(panic)) => std::panic::resume_unwind(panic),
        Err(error) => input_error(&InputError::new(
            "agentpi lint",
            format!("cannot start: {error}"),
        )),
    }
}

fn run_on_this_thread(args: Args) -> u8 {
    if let Some(code) = &args.explain {
        return explain(code);
    }
    let config = match load_config(args.config.as_deref()).and_then(|c| overrides(c, &args)) {
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
    let options = Options {
        profiles,
        mcp_plus: args.mcp_plus,
    };
    let report = lint::lint(&set, &options, &config);
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
            output::finish(&format!("{page}{}", switches(rule.code)), 0)
        }
        None => input_error(&unknown_code(code)),
    }
}
/// The end of every explanation page: how to turn the rule off or change its severity.
fn switches(code: &str) -> String {
    format!(
        "\n## Turning it off or up\n\nFor one run: `--allow {code}` turns it off, `--warn {code}` makes it a warning, `--deny {code}` an error. For good, in `agentpi-lint.toml`:\n\n```toml\n[rules]\n{code} = \"off\"   # or \"note\", \"warning\", \"error\"\n```\n"
    )
}

fn unknown_code(code: &str) -> InputError {
    let codes: Vec<&str> = rules::RULES.iter().map(|r| r.code).collect();
    InputError::new("agentpi lint", format!("unknown rule code `{code}`"))
        .with_help(format!("known codes: {}", codes.join(", ")))
}

/// `--allow`, `--warn` and `--deny` on top of the config file (in that order, so `--deny` wins).
fn overrides(mut config: Config, args: &Args) -> Result<Config, InputError> {
    let levels = [
        (&args.allow, Level::Off),
        (&args.warn, Level::On(Severity::Warning)),
        (&args.deny, Level::On(Severity::Error)),
    ];
    for (codes, level) in levels {
        for code in codes {
            let rule = rules::find(&code.to_ascii_uppercase()).ok_or_else(|| unknown_code(code))?;
            config.rules.insert(rule.code.to_string(), level);
        }
    }
    Ok(config)
}

fn load_config(path: Option<&Path>) -> Result<Config, InputError> {
    let default = Path::new("agentpi-lint.toml");
    let path = match path {
        Some(path) => path,
        None if default.is_file() => default,
        None => return Ok(Config::default()),
    };
    let name = path.display().to_string();
    let text = crate::loader::read_text(path).map_err(|e| unreadable(&name, "config", &e))?;
    Config::parse(&name, &text)
}

/// Why file `name` (a `what`, if not the input) cannot be read: a bad byte at its own place
/// (`read_text` gives `FILE:LINE:COL: why`), anything else at the file.
fn unreadable(name: &str, what: &str, error: &str) -> InputError {
    match error.split_once(": ") {
        Some((place, why)) if place.starts_with(&format!("{name}:")) => InputError::new(place, why),
        _ if what.is_empty() => InputError::new(name, format!("cannot read: {error}")),
        _ => InputError::new(name, format!("cannot read {what}: {error}")),
    }
}

/// The tool set, and the name and text of the file findings point into (the input file, or
/// the file a live listing was saved to).
fn read(args: &Args) -> Result<(ToolSet, Option<(String, String)>), InputError> {
    let timeout = Duration::from_secs_f64(args.timeout.max(0.001));
    let save = args.save_listing.as_deref();
    if let Some(url) = &args.url {
        let mut transport =
            Http::with_trust(url, &trust(args)?).map_err(|e| client_error(url, &e, true))?;
        return connect(url, &mut transport, timeout, save, true);
    }
    if let Some((program, rest)) = args.command.split_first() {
        let origin = args.command.join(" ");
        let mut transport =
            Stdio::spawn(program, rest).map_err(|e| client_error(&origin, &e, false))?;
        return connect(&origin, &mut transport, timeout, save, false);
    }
    let Some(path) = &args.file else {
        return Err(InputError::new("agentpi lint", "nothing to lint")
            .with_help("give a FILE, --url URL, or -- CMD ARGS..."));
    };
    let name = path.display().to_string();
    let text = crate::loader::read_text(path).map_err(|e| unreadable(&name, "", &e))?;
    Ok((input::parse(&name, &text)?, Some((name, text))))
}

/// Which certificates an https:// server may present: `--ca-cert`, `--insecure`, or the
/// system's roots.
fn trust(args: &Args) -> Result<Trust, InputError> {
    if let Some(path) = &args.ca_cert {
        let name = path.display().to_string();
        let pem = std::fs::read(path)
            .map_err(|e| InputError::new(&name, format!("cannot read the CA certificate: {e}")))?;
        if !pem.windows(27).any(|w| w == b"-----BEGIN CERTIFICATE-----") {
            return Err(InputError::new(&name, "no PEM certificate in it")
                .with_help("give the certificate as PEM (-----BEGIN CERTIFICATE-----)"));
        }
        return Ok(Trust::Extra(pem));
    }
    Ok(if args.insecure {
        Trust::Insecure
    } else {
        Trust::System
    })
}

fn connect(
    origin: &str,
    transport: &mut dyn Transport,
    timeout: Duration,
    save: Option<&Path>,
    http: bool,
) -> Result<(ToolSet, Option<(String, String)>), InputError> {
    let listing = client::list_tools(transport, timeout).map_err(|e| {
        let mut error = client_error(origin, &e, http);
        if let Some(first) = transport.noise().first() {
            let shown: String = first.chars().take(80).collect();
            error.message.push_str(&format!(
                "\n  it wrote {} line(s) on stdout that are not JSON-RPC, first: {shown:?}",
                transport.noise().len()
            ));
        }
        error
    })?;
    let Some(path) = save else {
        let set = live::from_listing(origin, live::DOCUMENT, &listing, transport.noise());
        return Ok((set, None));
    };
    let name = path.display().to_string();
    let text = live::document(&listing);
    std::fs::write(path, &text)
        .map_err(|e| InputError::new(&name, format!("cannot save the listing: {e}")))?;
    let set = live::from_listing(origin, &name, &listing, transport.noise());
    Ok((set, Some((name, text))))
}

fn client_error(origin: &str, error: &ClientError, http: bool) -> InputError {
    let mut message = error.to_string();
    if !error.stderr().is_empty() {
        message.push_str("; its last stderr lines:");
    }
    for line in error.stderr() {
        message.push_str(&format!("\n  | {line}"));
    }
    let help = match error {
        ClientError::Timeout { .. } if http => Some(
            "the port accepted the connection but no HTTP reply came; if this is a stdio server, run it as `agentpi lint -- CMD ARGS...`, else raise --timeout",
        ),
        ClientError::Timeout { .. } => {
            Some("check that the command starts an MCP server on stdio, or raise --timeout")
        }
        ClientError::Exited { .. } => Some("run the command by hand to see why it stops"),
        ClientError::Spawn { .. } => Some("check that the program is installed and on PATH"),
        ClientError::Io { reason } if http && reason.contains("certificate") => Some(
            "trust the server's certificate or its CA with --ca-cert FILE (PEM), or, for a throwaway test server, pass --insecure",
        ),
        ClientError::Io { reason } if http && reason.contains("refused") => Some(
            "nothing listens there; start the server first, or lint a stdio server with `-- CMD ARGS...`",
        ),
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
        "agentpi lint: {} ({era}{})\n",
        report.origin,
        output::count_of(report.tools.len(), "tool")
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
    if !report.mcp_plus {
        out.push_str(
            "scores against stock MCP (the server does not use MCP+; see docs/lint.md):\n",
        );
    }
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
        "{}: {} errors, {} warnings, {} notes\n",
        output::count_of(report.tools.len(), "tool"),
        counts[0],
        counts[1],
        counts[2]
    ));
    out
}
