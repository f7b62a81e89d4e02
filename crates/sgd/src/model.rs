//! The `.pi` models of a service: its SGD process (digest 2.1) and the MCP server its image
//! Φ(S) runs as (digest 2.2), in the agentpi language, generated from the schema.
//!
//! Parameter values are abstracted to whether each slot is bound, so a call is
//! `transfer_money(true, false, true, true)` (one flag per slot of `R ∪ O`, required first).
//! The SGD side collects slots in schema order (`collect(s)`, each slot collected or skipped),
//! then `invoke(c)`; with every required slot bound it executes (`execute(c)`, then
//! `result(c)` or `error(c, failed)`), else `error(c, missing_required)` (SGD-Invoke-Err). The
//! MCP side negotiates and lists tools silently, binds arguments with silent steps (Φ of
//! `collect`), sends `call(c)` to a server that validates silently and executes alike.
//!
//! The transactional flag `t` has no behaviour under [`Transactions::Flag`] (the paper's
//! recovered rules). Under [`Transactions::Approval`] a transactional intent asks the user
//! first (`approve(c)` or `decline(c)`), as real SGD dialogues do (a system CONFIRM answered
//! by AFFIRM or NEGATE before the call); the MCP+ image does the same for tools with
//! `requires_approval`. Plain MCP cannot: this is the tension of digest 5.2 item 1.

use crate::ident;
use crate::schema::{Intent, Service};
use std::collections::BTreeSet;
use std::fmt::Write;

/// What the transactional flag does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Transactions {
    /// Nothing: `t` is data only.
    Flag,
    /// A transactional intent is approved (or declined) before it is invoked.
    Approval,
}

/// The mapping file that puts the two sides' labels in the paper's action correspondence:
/// `collect ≈ τ`, `invoke ≈ call`; every other label is its own image.
pub const MAPPING: &str = "# The paper's action correspondence (digest 1.8): collect(s, v) ≈ τ, invoke(n, p) ≈ call(n, p).\n\
hide collect\n\
rename call = invoke\n";

/// The lower-case names the models declare or bind themselves (events, the `call` channel,
/// the failures, variables): a slot or an intent named like one is renamed.
const RESERVED: [&str; 12] = [
    "missing_required",
    "failed",
    "collect",
    "invoke",
    "approve",
    "decline",
    "execute",
    "result",
    "error",
    "call",
    "c",
    "done",
];

/// The identifiers of one service's model.
struct Names {
    slots: Vec<(String, String)>,
    calls: Vec<String>,
    /// The stem of each intent's processes (`TransferMoney` in `TransferMoney_0`), distinct
    /// even when two intents' names differ only in case or punctuation.
    procs: Vec<String>,
}

impl Names {
    fn new(service: &Service) -> Names {
        let mut used: BTreeSet<String> = RESERVED.iter().map(|s| s.to_string()).collect();
        let mut unique = |base: String| {
            let mut name = base;
            while !used.insert(name.clone()) {
                name.push('_');
            }
            name
        };
        let calls: Vec<String> = service
            .intents
            .iter()
            .map(|i| unique(ident::lower(&i.name)))
            .collect();
        let slots = argument_slots(service)
            .into_iter()
            .map(|s| (s.clone(), unique(ident::lower(&s))))
            .collect();
        // An upper-case name has no `_`, so stems that differ in their trailing `_` are
        // distinct, and so are the processes `{stem}_{k}`; the fixed processes (`Execute`,
        // `Server`, ...) have no `_` at all.
        let mut stems = BTreeSet::new();
        let procs = service
            .intents
            .iter()
            .map(|i| {
                let mut stem = ident::upper(&i.name);
                while !stems.insert(stem.clone()) {
                    stem.push('_');
                }
                stem
            })
            .collect();
        Names {
            slots,
            calls,
            procs,
        }
    }

    fn slot(&self, name: &str) -> &str {
        let found = self.slots.iter().find(|(s, _)| s == name);
        found.map_or("?", |(_, id)| id.as_str())
    }
}

/// The constructor of `intent`'s calls in the models of `service` (`transfer_money`).
pub fn call_name(service: &Service, intent: &str) -> String {
    let names = Names::new(service);
    let index = service.intents.iter().position(|i| i.name == intent);
    index.map_or_else(|| ident::lower(intent), |i| names.calls[i].clone())
}

/// The slots some intent takes, in the service's slot order.
fn argument_slots(service: &Service) -> Vec<String> {
    let taken: BTreeSet<&str> = service
        .intents
        .iter()
        .flat_map(|i| i.arguments().into_iter().map(|(s, _)| s))
        .collect();
    let mut out: Vec<String> = service
        .slots
        .iter()
        .filter(|s| taken.contains(s.name.as_str()))
        .map(|s| s.name.clone())
        .collect();
    for name in taken {
        if !out.iter().any(|s| s == name) {
            out.push(name.to_string());
        }
    }
    out
}

/// The SGD model of `service`, system `Sgd`.
pub fn sgd(service: &Service, transactions: Transactions) -> String {
    let names = Names::new(service);
    let mut out = header(service, "SGD model", transactions);
    out += &declarations(service, &names, Side::Sgd, transactions);
    out += "\nproc Execute(c: Call) = execute(c) . (result(c) + error(c, failed))\n";
    for (i, intent) in service.intents.iter().enumerate() {
        out += &chain(intent, i, &names, Side::Sgd, transactions);
    }
    let _ = writeln!(out, "\nproc Dialogue = {}", starts(&names, ""));
    out += "// Between dialogues the service may rest: a daemon.\ndaemon proc Sgd = Dialogue ; Sgd\n\nsystem Sgd = Sgd\n";
    out
}

/// The MCP server model of Φ(service) (`Transactions::Flag`) or Φ⁺(service)
/// (`Transactions::Approval`), system `Mcp`.
pub fn mcp(service: &Service, transactions: Transactions) -> String {
    let names = Names::new(service);
    let title = match transactions {
        Transactions::Flag => "MCP server model of Φ(S)",
        Transactions::Approval => "MCP+ server model of Φ⁺(S)",
    };
    let mut out = header(service, title, transactions);
    out += &declarations(service, &names, Side::Mcp, transactions);
    out += "\nproc Execute(c: Call) = execute(c) . (result(c) + error(c, failed))\n";
    out += &validate(service, &names);
    out += "// tools/call: the request, a silent validation, then the execution; `done` answers.\n";
    out += "daemon proc Server(done: chan) = call?c . tau . Validate(c) ; done! . Server(done)\n";
    for (i, intent) in service.intents.iter().enumerate() {
        out += &chain(intent, i, &names, Side::Mcp, transactions);
    }
    let _ = writeln!(
        out,
        "\ndaemon proc Session(done: chan) = ({}) ; Session(done)",
        starts(&names, "done")
    );
    out += "// initialize and tools/list: capability negotiation and discovery are silent.\n";
    out += "proc Host(done: chan) = tau . tau . Session(done)\n\n";
    out += "system Mcp = new done: chan . (Host(done) | Server(done))\n";
    out
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Side {
    Sgd,
    Mcp,
}

fn header(service: &Service, what: &str, transactions: Transactions) -> String {
    let t = match transactions {
        Transactions::Flag => "the transactional flag has no behaviour",
        Transactions::Approval => "transactional intents are approved before they run",
    };
    let transactional: Vec<String> = service
        .intents
        .iter()
        .filter(|i| i.is_transactional)
        .map(|i| one_line(&i.name))
        .collect();
    let listed = if transactional.is_empty() {
        "none".to_string()
    } else {
        transactional.join(", ")
    };
    format!(
        "// {what} of the SGD service {} (generated by `agentpi sgd model`); {t}.\n\
         // Transactional intents: {listed}.\n\n",
        one_line(&service.service_name)
    )
}

/// A name as it can stand in a `//` comment, which a line end would cut short.
fn one_line(text: &str) -> String {
    text.replace('\n', "\\n").replace('\r', "\\r")
}

fn declarations(service: &Service, names: &Names, side: Side, tx: Transactions) -> String {
    let mut out = String::new();
    if side == Side::Sgd && !names.slots.is_empty() {
        let slots: Vec<&str> = names.slots.iter().map(|(_, id)| id.as_str()).collect();
        let _ = writeln!(out, "type Slot = {}", slots.join(" | "));
    }
    let calls: Vec<String> = service
        .intents
        .iter()
        .zip(&names.calls)
        .map(|(i, c)| match i.arguments().len() {
            0 => c.clone(),
            n => format!("{c}({})", vec!["Bool"; n].join(", ")),
        })
        .collect();
    let _ = writeln!(out, "type Call = {}", calls.join(" | "));
    out += "type Failure = missing_required | failed\n\n";
    if side == Side::Sgd && !names.slots.is_empty() {
        out += "event collect(Slot)\nevent invoke(Call)\n";
    } else if side == Side::Sgd {
        out += "event invoke(Call)\n";
    } else {
        out += "chan call : Call\n";
    }
    if approves(service, tx) {
        out += "event approve(Call)\nevent decline(Call)\n";
    }
    out += "event execute(Call)\nevent result(Call)\nevent error(Call, Failure)\n";
    out
}

fn approves(service: &Service, tx: Transactions) -> bool {
    tx == Transactions::Approval && service.intents.iter().any(|i| i.is_transactional)
}

/// The processes of intent number `i`: one per slot position, collecting or skipping it, then
/// the call.
fn chain(intent: &Intent, i: usize, names: &Names, side: Side, tx: Transactions) -> String {
    let args = intent.arguments();
    let call = names.calls[i].as_str();
    let proc_name = format!("{}_", names.procs[i]);
    let (done_param, done_arg) = match side {
        Side::Sgd => ("", ""),
        Side::Mcp => ("done: chan", "done"),
    };
    let mut out = format!(
        "\n// {} (transactional: {})\n",
        one_line(&intent.name),
        intent.is_transactional
    );
    for k in 0..=args.len() {
        let params = params(done_param, k);
        let head = format!("proc {proc_name}{k}{params}");
        if k == args.len() {
            let body = invocation(intent, call, side, tx);
            let _ = writeln!(out, "{head} = {body}");
            break;
        }
        let next = |bound: &str| {
            format!(
                "{proc_name}{}({})",
                k + 1,
                arguments(done_arg, k, Some(bound))
            )
        };
        let step = match side {
            Side::Sgd => format!("collect({})", names.slot(args[k].0)),
            Side::Mcp => "tau".to_string(),
        };
        let _ = writeln!(
            out,
            "{head} = {step} . {} + {}",
            next("true"),
            next("false")
        );
    }
    out
}

/// `(done: chan, b0: Bool, ...)` for the k-th process of a chain (empty when it has none).
fn params(done: &str, k: usize) -> String {
    let mut all: Vec<String> = Vec::new();
    if !done.is_empty() {
        all.push(done.to_string());
    }
    all.extend((0..k).map(|i| format!("b{i}: Bool")));
    if all.is_empty() {
        String::new()
    } else {
        format!("({})", all.join(", "))
    }
}

/// `done, b0, ..., b{k-1}` and the new flag.
fn arguments(done: &str, k: usize, new: Option<&str>) -> String {
    let mut all: Vec<String> = Vec::new();
    if !done.is_empty() {
        all.push(done.to_string());
    }
    all.extend((0..k).map(|i| format!("b{i}")));
    all.extend(new.map(String::from));
    all.join(", ")
}

/// The call term `transfer_money(b0, ..., bn)`.
fn call_term(call: &str, n: usize) -> String {
    match n {
        0 => call.to_string(),
        n => format!("{call}({})", arguments("", n, None)),
    }
}

fn invocation(intent: &Intent, call: &str, side: Side, tx: Transactions) -> String {
    let n = intent.arguments().len();
    let c = call_term(call, n);
    let core = match side {
        Side::Sgd => format!("invoke({c}) . ({})", outcome(intent, &c)),
        Side::Mcp => format!("call!{c} . done?"),
    };
    if tx == Transactions::Approval && intent.is_transactional {
        format!("approve({c}) . {core} + decline({c})")
    } else {
        core
    }
}

/// Execution when every required slot is bound, else the missing-slots error.
fn outcome(intent: &Intent, c: &str) -> String {
    let required: Vec<String> = (0..intent.required_slots.len())
        .map(|i| format!("b{i}"))
        .collect();
    if required.is_empty() {
        format!("Execute({c})")
    } else {
        format!(
            "if {} then Execute({c}) else error({c}, missing_required)",
            required.join(" and ")
        )
    }
}

/// The server's validation of a call against the tool's `required`.
fn validate(service: &Service, names: &Names) -> String {
    let arms: Vec<String> = service
        .intents
        .iter()
        .zip(&names.calls)
        .map(|(intent, call)| {
            let c = call_term(call, intent.arguments().len());
            format!("    {c} => {}", outcome(intent, &c))
        })
        .collect();
    format!(
        "// Validate⟨p, σ⟩: the required properties of the tool's input schema.\nproc Validate(c: Call) = match c {{\n{}\n}}\n",
        arms.join(",\n")
    )
}

/// `A_0 + B_0 + ...`: the choice of intent (calls with `arg`).
fn starts(names: &Names, arg: &str) -> String {
    let calls: Vec<String> = names
        .procs
        .iter()
        .map(|stem| {
            let p = format!("{stem}_0");
            if arg.is_empty() {
                p
            } else {
                format!("{p}({arg})")
            }
        })
        .collect();
    calls.join(" + ")
}
