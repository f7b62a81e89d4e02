//! `agentpi sgd`: the paper made executable on Schema-Guided Dialogue schemas. `model` writes
//! the `.pi` model of a service or of its MCP image, `phi` its image as MCP tool definitions,
//! `inverse` maps tool definitions back (Φ⁻¹ or (Φ⁺)⁻¹, with what is undefined and what is
//! lost), `survey` compares every service with its image, `dialogues` replays real calls.

use super::Format;
use crate::output::{self, errln};
use agentpi_check::accept::Acceptance;
use agentpi_mcp::client;
use agentpi_mcp::lint::tokens::Tokens;
use agentpi_mcp::transport::{http::Http, stdio::Stdio};
use agentpi_sgd::dialogues::{self, Models, Replayed};
use agentpi_sgd::inverse::json_differences;
use agentpi_sgd::survey::{Row, Verdicts};
use agentpi_sgd::{Service, Transactions, Which, model, schema};
use serde_json::{Value, json};

#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    pub command: Sub,
}

#[derive(clap::Subcommand)]
pub enum Sub {
    /// Write the `.pi` model of a service (SGD side) or of its MCP image, or the mapping file
    /// of the paper's action correspondence (`--side mapping`).
    Model {
        /// An SGD schema.json.
        schema: String,
        /// The service (`Banks_1`).
        service: String,
        #[arg(long, value_enum, default_value = "sgd")]
        side: Side,
        /// Transactional intents are approved before they run (SGD), and tools that
        /// require approval are approved before they are called (`--side mcp` writes Φ⁺).
        #[arg(long)]
        approval: bool,
    },
    /// Write Φ(service) as a tools/list result (`--plus`: Φ⁺, with the MCP+ block).
    Phi {
        schema: String,
        service: String,
        #[arg(long)]
        plus: bool,
    },
    /// Map MCP tool definitions (a tools/list result, optionally with resources, prompts and
    /// the initialize result) back to an SGD service: Φ⁻¹, or (Φ⁺)⁻¹ with `--plus`.
    Inverse {
        /// A JSON file (or give a live server: `--url URL` or `-- CMD ARGS...`).
        #[arg(required_unless_present_any = ["url", "command"])]
        tools: Option<String>,
        /// A Streamable HTTP server to list (tools, resources, resource templates, prompts).
        #[arg(long, conflicts_with = "tools")]
        url: Option<String>,
        /// Seconds a live server gets to connect and list everything.
        #[arg(long, default_value_t = 30.0)]
        timeout: f64,
        /// A stdio server to start and list (tools, resources, resource templates, prompts).
        #[arg(last = true, conflicts_with_all = ["tools", "url"])]
        command: Vec<String>,
        #[arg(long)]
        plus: bool,
        /// The service name when the file has no serverInfo.
        #[arg(long, default_value = "Service")]
        name: String,
        /// Also map the result forward again and list the JSON pointers where Φ(Φ⁻¹(x))
        /// (Φ⁺((Φ⁺)⁻¹(x)) with `--plus`) differs from x.
        #[arg(long)]
        roundtrip: bool,
    },
    /// For every distinct service of the schemas: equivalences with its MCP image, Φ⁻¹ ∘ Φ,
    /// lint findings and token figures of the image.
    Survey {
        /// SGD schema.json files.
        #[arg(required = true)]
        schemas: Vec<String>,
        #[arg(long, value_enum, default_value = "text")]
        format: Format,
    },
    /// Replay every service call of SGD dialogues against the SGD model and the MCP image of
    /// its service, and validate its parameters against Φ's input schema.
    Dialogues {
        /// A dialogues JSON file of the SGD dataset.
        dialogues: String,
        /// SGD schema.json files declaring the services called.
        #[arg(required = true)]
        schemas: Vec<String>,
        #[arg(long, value_enum, default_value = "text")]
        format: Format,
    },
}

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Side {
    Sgd,
    Mcp,
    Mapping,
}

/// The exit statuses, for `--help`.
pub const EXIT_STATUS: &str = "Exit status: 0 done (for `inverse`: Φ⁻¹ is defined on the \
    input), 1 `inverse` found terms outside Φ⁻¹'s domain (they are named, and the tools are \
    still mapped), 2 an input error (a schema, a service, a tool file) or an output that could \
    not be written.";

pub fn run(args: Args) -> u8 {
    let result = match args.command {
        Sub::Model {
            schema,
            service,
            side,
            approval,
        } => model_cmd(&schema, &service, side, approval),
        Sub::Phi {
            schema,
            service,
            plus,
        } => phi_cmd(&schema, &service, plus),
        Sub::Inverse {
            tools,
            url,
            timeout,
            command,
            plus,
            name,
            roundtrip,
        } => inverse_input(tools, url, &command, timeout)
            .and_then(|(origin, document)| inverse_cmd(&origin, &document, plus, &name, roundtrip)),
        Sub::Survey { schemas, format } => survey_cmd(&schemas, format),
        Sub::Dialogues {
            dialogues,
            schemas,
            format,
        } => dialogues_cmd(&dialogues, &schemas, format),
    };
    match result {
        Ok((text, status)) => output::finish(&text, status),
        Err(e) => {
            errln!("error: {e}");
            2
        }
    }
}

type Done = Result<(String, u8), String>;

fn read(path: &str) -> Result<String, String> {
    crate::loader::read_named(path)
}

/// The distinct services of schema files, in order of first appearance.
fn services(paths: &[String]) -> Result<Vec<schema::Distinct>, String> {
    let mut files = Vec::new();
    for path in paths {
        files.push(schema::parse(&read(path)?).map_err(|e| format!("{path}: {e}"))?);
    }
    Ok(schema::distinct(&files))
}

fn service(path: &str, name: &str) -> Result<Service, String> {
    let all = services(&[path.to_string()])?;
    let names: Vec<&str> = all
        .iter()
        .map(|d| d.service.service_name.as_str())
        .collect();
    let found = all.iter().find(|d| d.service.service_name == name);
    found.map(|d| d.service.clone()).ok_or_else(|| {
        format!(
            "{path} has no service `{name}` (services: {})",
            names.join(", ")
        )
    })
}

fn model_cmd(path: &str, name: &str, side: Side, approval: bool) -> Done {
    let service = service(path, name)?;
    let tx = if approval {
        Transactions::Approval
    } else {
        Transactions::Flag
    };
    let text = match side {
        Side::Sgd => model::sgd(&service, tx),
        Side::Mcp => model::mcp(&service, tx),
        Side::Mapping => model::MAPPING.to_string(),
    };
    Ok((text, 0))
}

fn pretty(value: &Value) -> String {
    serde_json::to_string_pretty(value).expect("JSON prints") + "\n"
}

fn phi_cmd(path: &str, name: &str, plus: bool) -> Done {
    let service = service(path, name)?;
    let image = match plus {
        true => agentpi_sgd::phi_plus(&service),
        false => agentpi_sgd::phi(&service),
    };
    Ok((pretty(&image), 0))
}

/// Where the tool definitions come from, and the document Φ⁻¹ reads: a file as it is, or
/// a live server's whole listing.
fn inverse_input(
    file: Option<String>,
    url: Option<String>,
    command: &[String],
    timeout: f64,
) -> Result<(String, Value), String> {
    let timeout = std::time::Duration::from_secs_f64(timeout.max(0.001));
    if let Some(path) = file {
        let text = read(&path)?;
        let document = serde_json::from_str(&text).map_err(|e| format!("{path}: not JSON: {e}"))?;
        return Ok((path, document));
    }
    let (origin, listed) = match url {
        Some(url) => {
            let mut transport = Http::new(&url).map_err(|e| format!("{url}: {e}"))?;
            let listed = client::list_server(&mut transport, timeout);
            (url, listed)
        }
        None => {
            let origin = command.join(" ");
            let (program, rest) = command.split_first().ok_or("nothing to map")?;
            let mut transport =
                Stdio::spawn(program, rest).map_err(|e| format!("{origin}: {e}"))?;
            let listed = client::list_server(&mut transport, timeout);
            (origin, listed)
        }
    };
    let listed = listed.map_err(|e| format!("{origin}: {e}"))?;
    Ok((origin, server_document(&listed)))
}

/// A live server as the document Φ⁻¹ reads: what `initialize` (or `server/discover`) gave,
/// and every list the server declared.
fn server_document(listed: &client::ServerListing) -> Value {
    let listing = &listed.listing;
    let mut document = json!({"tools": listing.tools});
    if let Some(name) = &listing.server {
        document["serverInfo"] = json!({"name": name});
    }
    if !listing.capabilities.is_null() {
        document["capabilities"] = listing.capabilities.clone();
    }
    let lists = [
        ("resources", &listed.resources),
        ("resourceTemplates", &listed.resource_templates),
        ("prompts", &listed.prompts),
    ];
    for (key, items) in lists.into_iter().filter(|(_, items)| !items.is_empty()) {
        document[key] = json!(items);
    }
    document
}

fn inverse_cmd(path: &str, document: &Value, plus: bool, name: &str, roundtrip: bool) -> Done {
    let which = if plus { Which::Plus } else { Which::Plain };
    let inverse =
        agentpi_sgd::inverse(document, name, which).map_err(|e| format!("{path}: {e}"))?;
    let (service, undefined) = match &inverse.result {
        Ok(s) => (json!(s), Vec::new()),
        Err(u) => (Value::Null, u.clone()),
    };
    let undefined: Vec<Value> = undefined
        .iter()
        .map(|u| json!({"pointer": u.pointer, "term": u.term, "reason": u.reason}))
        .collect();
    let losses: Vec<Value> = inverse
        .losses
        .iter()
        .map(|l| json!({"pointer": l.pointer, "lost": l.what}))
        .collect();
    let mut report = json!({"service": service, "undefined": undefined,
                            "tools_only": inverse.tools_only, "losses": losses});
    if roundtrip {
        let again = match which {
            Which::Plain => agentpi_sgd::phi(&inverse.tools_only),
            Which::Plus => agentpi_sgd::phi_plus(&inverse.tools_only),
        };
        let tools = document.get("result").unwrap_or(document);
        let tools = json!({"tools": tools.get("tools").cloned().unwrap_or(json!([]))});
        report["roundtrip_differences"] = json!(json_differences(&tools, &again));
    }
    let status = u8::from(inverse.result.is_err());
    Ok((pretty(&report), status))
}

fn survey_cmd(paths: &[String], format: Format) -> Done {
    let all = services(paths)?;
    let mut rows = Vec::new();
    for d in &all {
        rows.push((d.entries, agentpi_sgd::survey::survey(&d.service)?));
    }
    let text = match format {
        Format::Text => survey_text(&rows),
        Format::Json => pretty(&Value::Array(
            rows.iter().map(|(n, r)| survey_json(*n, r)).collect(),
        )),
    };
    Ok((text, 0))
}

fn verdict_json(v: &Verdicts) -> Value {
    json!({"strong": v.strong, "branching": v.branching, "weak": v.weak, "trace": v.trace,
           "finest": v.finest(), "formula": v.formula})
}

fn survey_json(entries: usize, r: &Row) -> Value {
    json!({"service": r.service, "entries": entries, "transactional": r.transactional,
           "states": {"sgd": r.states.0, "mcp": r.states.1},
           "sgd_vs_phi": verdict_json(&r.flag), "sgd_approval_vs_phi": verdict_json(&r.approval),
           "sgd_approval_hidden_vs_phi": verdict_json(&r.approval_hidden),
           "sgd_approval_vs_phi_plus": verdict_json(&r.plus),
           "phi_inverse_phi_lost": r.roundtrip,
           "lint_phi": {"errors": r.lint.errors, "warnings": r.lint.warnings, "codes": r.lint.codes},
           "lint_phi_plus": {"errors": r.lint_plus.errors, "warnings": r.lint_plus.warnings, "codes": r.lint_plus.codes},
           "tokens": {"full": r.lint.tokens.full, "summary_first": r.lint.tokens.summary_first,
                      "tools": r.lint.tokens.tools, "plus_full": r.lint_plus.tokens.full,
                      "plus_summary_first": r.lint_plus.tokens.summary_first}})
}

fn survey_text(rows: &[(usize, Row)]) -> String {
    let mut out = String::from(
        "| service | entries | transactional | states SGD/MCP | S vs Φ(S) | S (approval) vs Φ(S) | same, approval hidden | S (approval) vs Φ⁺(S) | Φ⁻¹∘Φ lost | lint Φ(S) | tokens full/summary |\n\
         |---|---|---|---|---|---|---|---|---|---|---|\n",
    );
    let mut totals = (0, 0, 0, 0);
    for (entries, r) in rows {
        let t = if r.transactional.is_empty() {
            "–".to_string()
        } else {
            r.transactional.join(", ")
        };
        let lint = if r.lint.codes.is_empty() {
            "none".to_string()
        } else {
            r.lint.codes.join(" ")
        };
        out += &format!(
            "| {} | {entries} | {t} | {}/{} | {} | {} | {} | {} | {} | {lint} | {}/{} |\n",
            r.service,
            r.states.0,
            r.states.1,
            r.flag.finest(),
            r.approval.finest(),
            r.approval_hidden.finest(),
            r.plus.finest(),
            r.roundtrip.len(),
            r.lint.tokens.full,
            r.lint.tokens.summary_first
        );
        totals.0 += usize::from(r.flag.branching);
        totals.1 += usize::from(!r.approval.weak);
        totals.2 += r.lint.tokens.full;
        totals.3 += r.lint.tokens.summary_first;
    }
    let entries: usize = rows.iter().map(|(n, _)| n).sum();
    out += &format!(
        "\n{} services ({entries} schema entries): S and Φ(S) are branching bisimilar (never strongly) for {}; \
         with approval, not even weakly bisimilar for {}, each with its formula:\n",
        rows.len(),
        totals.0,
        totals.1
    );
    for (_, r) in rows {
        if let Some(f) = r.approval.formula.as_ref().filter(|_| !r.approval.weak) {
            out += &format!("  {}: {f}\n", r.service);
        }
    }
    let lost: usize = rows.iter().filter(|(_, r)| !r.roundtrip.is_empty()).count();
    out += &format!(
        "Φ⁻¹ ∘ Φ is the identity for {} services; for {lost}, what was lost:\n",
        rows.len() - lost
    );
    for (_, r) in rows.iter().filter(|(_, r)| !r.roundtrip.is_empty()) {
        out += &format!("  {}: {}\n", r.service, r.roundtrip.join("; "));
    }
    let pct = (100 * totals.3).checked_div(totals.2).unwrap_or(0);
    let plus = |f: fn(&Tokens) -> usize| rows.iter().map(|(_, r)| f(&r.lint_plus.tokens)).sum();
    let (plus_full, plus_summary): (usize, usize) = (plus(|t| t.full), plus(|t| t.summary_first));
    out += &format!(
        "P4: listing every image in full costs {} tokens, summary-first {} ({pct}%); \
         the Φ⁺ images {plus_full} in full, summary-first {plus_summary}.\n",
        totals.2, totals.3
    );
    out
}

fn dialogues_cmd(path: &str, schemas: &[String], format: Format) -> Done {
    let all = services(schemas)?;
    let calls = dialogues::calls(&read(path)?).map_err(|e| format!("{path}: {e}"))?;
    let mut replayed = Vec::new();
    let mut models: Vec<(String, Models)> = Vec::new();
    for call in &calls {
        let Some(d) = all.iter().find(|d| d.service.service_name == call.service) else {
            return Err(format!(
                "{path}: dialogue {} calls {}, which no schema declares",
                call.dialogue, call.service
            ));
        };
        if !models.iter().any(|(n, _)| *n == call.service) {
            models.push((call.service.clone(), Models::new(&d.service)?));
        }
        let m = &models
            .iter()
            .find(|(n, _)| *n == call.service)
            .expect("just added")
            .1;
        replayed.push(dialogues::replay(&d.service, m, call)?);
    }
    let text = match format {
        Format::Text => dialogues_text(&replayed),
        Format::Json => pretty(&Value::Array(replayed.iter().map(replayed_json).collect())),
    };
    Ok((text, 0))
}

fn acceptance_json(a: &Acceptance) -> Value {
    match a {
        Acceptance::Accepted { .. } => json!("accepted"),
        Acceptance::Refused {
            step,
            label,
            reason,
            expected,
        } => {
            json!({"refused_step": step + 1, "label": label, "reason": reason, "possible": expected})
        }
    }
}

fn replayed_json(r: &Replayed) -> Value {
    json!({"dialogue": r.call.dialogue, "turn": r.call.turn, "service": r.call.service,
           "method": r.call.method, "transactional": r.transactional, "approved": r.call.approved,
           "failed": r.call.failed, "sgd": acceptance_json(&r.sgd), "mcp": acceptance_json(&r.mcp),
           "sgd_approval": acceptance_json(&r.sgd_approval),
           "mcp_with_approval": acceptance_json(&r.mcp_with_approval),
           "mcp_plus": acceptance_json(&r.mcp_plus), "schema_errors": r.schema_errors})
}

fn dialogues_text(rows: &[Replayed]) -> String {
    let count = |f: &dyn Fn(&Replayed) -> bool| rows.iter().filter(|r| f(r)).count();
    let ok = |a: &Acceptance| matches!(a, Acceptance::Accepted { .. });
    let mut services: Vec<&str> = rows.iter().map(|r| r.call.service.as_str()).collect();
    services.sort();
    services.dedup();
    let mut out = format!(
        "{} service calls of {} services ({} transactional: {} approved in the dialogue; {} failed)\n",
        rows.len(),
        services.len(),
        count(&|r| r.transactional),
        count(&|r| r.transactional && r.call.approved),
        count(&|r| r.call.failed)
    );
    out += &format!(
        "  SGD model (t a flag), trace without approval:   {} accepted\n",
        count(&|r| ok(&r.sgd))
    );
    out += &format!(
        "  Φ(S), the same trace through Φ:                 {} accepted\n",
        count(&|r| ok(&r.mcp))
    );
    out += &format!(
        "  SGD model with approval, trace with approval:  {} accepted\n",
        count(&|r| ok(&r.sgd_approval))
    );
    out += &format!(
        "  Φ(S), trace with approval:                      {} accepted\n",
        count(&|r| ok(&r.mcp_with_approval))
    );
    out += &format!(
        "  Φ⁺(S), trace with approval:                     {} accepted\n",
        count(&|r| ok(&r.mcp_plus))
    );
    out += &format!(
        "  parameters valid against Φ's inputSchema:       {}\n",
        count(&|r| r.schema_errors.is_empty())
    );
    let mut shown = Vec::new();
    for r in rows {
        for (what, a) in [
            ("SGD", &r.sgd),
            ("Φ(S)", &r.mcp),
            ("SGD with approval", &r.sgd_approval),
            ("Φ(S) with approval", &r.mcp_with_approval),
            ("Φ⁺(S)", &r.mcp_plus),
        ] {
            if let Acceptance::Refused {
                step,
                label,
                expected,
                ..
            } = a
            {
                let mut kinds: Vec<String> = expected.iter().map(|e| generic(e)).collect();
                kinds.dedup();
                let line = format!(
                    "  {what}: refuses step {} `{}`; possible there: {}\n",
                    step + 1,
                    generic(label),
                    kinds.join(", ")
                );
                if !shown.contains(&line) {
                    out += &format!(
                        "first refusal of its kind, {} turn {} ({}.{}):\n",
                        r.call.dialogue, r.call.turn, r.call.service, r.call.method
                    );
                    out += &line;
                    shown.push(line);
                }
            }
        }
        for e in &r.schema_errors {
            out += &format!(
                "  {} turn {} {}.{}: {e}\n",
                r.call.dialogue, r.call.turn, r.call.service, r.call.method
            );
        }
    }
    out
}

/// A label with its arguments elided (`approve(…)`), to group refusals by kind.
fn generic(label: &str) -> String {
    match label.find('(') {
        Some(i) => format!("{}(…)", &label[..i]),
        None => label.to_string(),
    }
}
