//! Real traces: the service calls of SGD dialogues as label sequences of the service's models,
//! replayed with `agentpi_check::accept`.
//!
//! A call becomes `invoke(c)`, `execute(c)`, then `error(c, failed)` when the system's frame
//! announces NOTIFY_FAILURE, else `result(c)`. When the user affirmed a system CONFIRM of the
//! service since its previous call, `approve(c)` comes first: the dialogue's own approval step.
//! Through Φ, `invoke` becomes `call` (collect steps are not in the traces: they are τ).

use crate::model::{self, Transactions};
use crate::phi::tool;
use crate::schema::Service;
use agentpi_check::accept::{Acceptance, accepts};
use serde::Deserialize;
use serde_json::{Map, Value};

#[derive(Deserialize)]
struct Dialogue {
    dialogue_id: String,
    turns: Vec<Turn>,
}

#[derive(Deserialize)]
struct Turn {
    speaker: String,
    frames: Vec<Frame>,
}

#[derive(Deserialize)]
struct Frame {
    service: String,
    #[serde(default)]
    actions: Vec<Action>,
    service_call: Option<ServiceCall>,
}

#[derive(Deserialize)]
struct Action {
    act: String,
}

#[derive(Deserialize)]
struct ServiceCall {
    method: String,
    #[serde(default)]
    parameters: Map<String, Value>,
}

/// One real service call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Call {
    pub dialogue: String,
    /// Turn index of the system turn that made the call.
    pub turn: usize,
    pub service: String,
    pub method: String,
    pub parameters: Map<String, Value>,
    /// A CONFIRM of this service was affirmed since its previous call.
    pub approved: bool,
    pub failed: bool,
}

/// The service calls of a dialogues file (a JSON list of SGD dialogues), in order.
pub fn calls(text: &str) -> Result<Vec<Call>, String> {
    let dialogues: Vec<Dialogue> =
        serde_json::from_str(text).map_err(|e| format!("not SGD dialogues: {e}"))?;
    let mut out = Vec::new();
    for d in &dialogues {
        let mut confirmed: Vec<String> = Vec::new();
        let mut approved: Vec<String> = Vec::new();
        for (t, turn) in d.turns.iter().enumerate() {
            for frame in &turn.frames {
                track_approval(&turn.speaker, frame, &mut confirmed, &mut approved);
                if let Some(call) = &frame.service_call {
                    let was = approved.contains(&frame.service);
                    approved.retain(|s| *s != frame.service);
                    out.push(Call {
                        dialogue: d.dialogue_id.clone(),
                        turn: t,
                        service: frame.service.clone(),
                        method: call.method.clone(),
                        parameters: call.parameters.clone(),
                        approved: was,
                        failed: frame.actions.iter().any(|a| a.act == "NOTIFY_FAILURE"),
                    });
                }
            }
        }
    }
    Ok(out)
}

/// A system CONFIRM followed by a user AFFIRM approves the service's next call; NEGATE
/// withdraws the confirmation.
fn track_approval(
    speaker: &str,
    frame: &Frame,
    confirmed: &mut Vec<String>,
    approved: &mut Vec<String>,
) {
    let has = |act: &str| frame.actions.iter().any(|a| a.act == act);
    let service = frame.service.clone();
    if speaker == "SYSTEM" && has("CONFIRM") {
        confirmed.push(service);
    } else if speaker == "USER" && confirmed.contains(&service) {
        confirmed.retain(|s| *s != service);
        if has("AFFIRM") && !approved.contains(&service) {
            approved.push(service);
        }
    }
}

/// The call term of a real call (`transfer_money(true, false, true)`), or why there is none.
pub fn call_term(service: &Service, call: &Call) -> Result<String, String> {
    let intent = service
        .intent(&call.method)
        .ok_or_else(|| format!("{} has no intent {}", service.service_name, call.method))?;
    let args = intent.arguments();
    if let Some(extra) = call
        .parameters
        .keys()
        .find(|k| !args.iter().any(|(s, _)| s == k))
    {
        return Err(format!("`{extra}` is not a slot of {}", intent.name));
    }
    let name = model::call_name(service, &intent.name);
    if args.is_empty() {
        return Ok(name);
    }
    let flags: Vec<&str> = args
        .iter()
        .map(|(s, _)| {
            if call.parameters.contains_key(*s) {
                "true"
            } else {
                "false"
            }
        })
        .collect();
    Ok(format!("{name}({})", flags.join(", ")))
}

/// The labels of a call: `with_approval` puts the dialogue's approval first (when it had one);
/// `mcp` writes `call` for `invoke` (Φ of the trace).
pub fn trace(c: &str, call: &Call, with_approval: bool, mcp: bool) -> Vec<String> {
    let mut out = Vec::new();
    if with_approval && call.approved {
        out.push(format!("approve({c})"));
    }
    out.push(format!("{}({c})", if mcp { "call" } else { "invoke" }));
    out.push(format!("execute({c})"));
    out.push(if call.failed {
        format!("error({c}, failed)")
    } else {
        format!("result({c})")
    });
    out
}

/// The replays of one call against the four models, and the validation of its parameters
/// against Φ's input schema.
#[derive(Clone, Debug)]
pub struct Replayed {
    pub call: Call,
    pub transactional: bool,
    /// SGD model (t as a flag), the trace without approval.
    pub sgd: Acceptance,
    /// Φ(S), Φ of that trace.
    pub mcp: Acceptance,
    /// SGD model with approval, the trace with the dialogue's approval.
    pub sgd_approval: Acceptance,
    /// Φ(S) given the trace with approval: plain MCP has no approval step.
    pub mcp_with_approval: Acceptance,
    /// Φ⁺(S), the trace with approval.
    pub mcp_plus: Acceptance,
    /// Errors of validating the parameters against Φ's inputSchema (empty: valid).
    pub schema_errors: Vec<String>,
}

/// The loaded models of one service.
pub struct Models {
    sgd: agentpi_ir::core::Program,
    sgd_approval: agentpi_ir::core::Program,
    mcp: agentpi_ir::core::Program,
    mcp_plus: agentpi_ir::core::Program,
}

impl Models {
    pub fn new(service: &Service) -> Result<Models, String> {
        let load = |text: String| {
            let loaded = agentpi_ir::load_str(&service.service_name, &text);
            match loaded.has_errors() {
                false => Ok(loaded.program),
                true => Err(format!(
                    "the model of {} does not load",
                    service.service_name
                )),
            }
        };
        Ok(Models {
            sgd: load(model::sgd(service, Transactions::Flag))?,
            sgd_approval: load(model::sgd(service, Transactions::Approval))?,
            mcp: load(model::mcp(service, Transactions::Flag))?,
            mcp_plus: load(model::mcp(service, Transactions::Approval))?,
        })
    }
}

/// The most states a replay step may visit.
const MAX_STATES: usize = 200_000;

/// Replays one call against the models of its service.
pub fn replay(service: &Service, models: &Models, call: &Call) -> Result<Replayed, String> {
    let transactional = service
        .intent(&call.method)
        .is_some_and(|i| i.is_transactional);
    let schema_errors = validate(service, call);
    let c = match call_term(service, call) {
        Ok(c) => c,
        Err(reason) => {
            let refused = Acceptance::Refused {
                step: 0,
                label: call.method.clone(),
                reason,
                expected: Vec::new(),
            };
            return Ok(Replayed {
                call: call.clone(),
                transactional,
                sgd: refused.clone(),
                mcp: refused.clone(),
                sgd_approval: refused.clone(),
                mcp_with_approval: refused.clone(),
                mcp_plus: refused,
                schema_errors,
            });
        }
    };
    let run = |program: &agentpi_ir::core::Program,
               system: &str,
               hidden: &[&str],
               labels: Vec<String>| {
        let index = program
            .system(system)
            .ok_or_else(|| format!("no system `{system}`"))?;
        let hidden: Vec<&str> = hidden
            .iter()
            .copied()
            .filter(|h| program.events.iter().any(|e| e.name == *h))
            .collect();
        accepts(program, index, &hidden, &labels, MAX_STATES)
    };
    Ok(Replayed {
        call: call.clone(),
        transactional,
        sgd: run(
            &models.sgd,
            "Sgd",
            &["collect"],
            trace(&c, call, false, false),
        )?,
        mcp: run(&models.mcp, "Mcp", &[], trace(&c, call, false, true))?,
        sgd_approval: run(
            &models.sgd_approval,
            "Sgd",
            &["collect"],
            trace(&c, call, true, false),
        )?,
        mcp_with_approval: run(&models.mcp, "Mcp", &[], trace(&c, call, true, true))?,
        mcp_plus: run(&models.mcp_plus, "Mcp", &[], trace(&c, call, true, true))?,
        schema_errors,
    })
}

/// Validates the call's parameters against Φ's input schema of its intent (JSON Schema).
pub fn validate(service: &Service, call: &Call) -> Vec<String> {
    let Some(intent) = service.intent(&call.method) else {
        return vec![format!("no intent {}", call.method)];
    };
    let schema = tool(service, intent)["inputSchema"].clone();
    let validator = match jsonschema::validator_for(&schema) {
        Ok(v) => v,
        Err(e) => return vec![format!("Φ's schema does not compile: {e}")],
    };
    let instance = Value::Object(call.parameters.clone());
    let mut errors: Vec<String> = validator
        .iter_errors(&instance)
        .map(|e| format!("{}: {e}", e.instance_path()))
        .collect();
    errors.sort();
    errors
}
