//! Φ⁻¹ and (Φ⁺)⁻¹: MCP tool definitions back to an SGD service.
//!
//! Φ⁻¹ (digest 3.2) maps `Tool⟨n, d, σ⟩` to `Intent⟨n, d, σ.required, props(σ) \ σ.required,
//! t = ?⟩`. It is partial: a server term that holds Resources, Prompts, capability negotiation
//! (`initialize`) or run-time discovery (`listChanged`, pagination) has no SGD image, and each
//! such term is named in an [`Undefined`]. It is lossy: every [`Loss`] says what did not
//! survive (the unknowable `t`, JSON Schema constraints SGD cannot express, annotations, `_meta`,
//! nested objects, slot definitions that disagree between tools). (Φ⁺)⁻¹ reads `t` from the
//! MCP+ block (`side_effects` write or delete), and loses what SGD's two-valued flag cannot
//! hold.

use crate::schema::{Intent, Service, Slot};
use agentpi_mcp::lint::mcp_plus::{self, SideEffects};
use serde_json::{Map, Value, json};

/// A term of the input outside the domain of the inverse, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Undefined {
    /// Where the term is: a JSON pointer into the input.
    pub pointer: String,
    pub term: String,
    pub reason: String,
}

/// Something of the input that the SGD image does not keep (or had to invent).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Loss {
    pub pointer: String,
    pub what: String,
}

/// The result of an inverse: the service (when every term is in the domain), the terms that
/// are not, the service the tools alone map to, and the losses.
#[derive(Clone, Debug)]
pub struct Inverse {
    pub result: Result<Service, Vec<Undefined>>,
    /// The image of the tools alone (what the result would be without the undefined terms).
    pub tools_only: Service,
    pub losses: Vec<Loss>,
}

/// Which inverse.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Which {
    /// Φ⁻¹: plain MCP; `t` is unknown and set to false.
    Plain,
    /// (Φ⁺)⁻¹: `t` from the MCP+ block; the rest of the block is lost.
    Plus,
}

/// The inverse of `document`: a `tools/list` result (bare, inside a JSON-RPC response, or a
/// list of tools), optionally with `resources`, `resourceTemplates`, `prompts`, and the
/// `initialize` result (`capabilities`, `serverInfo`). `name` names the service when the
/// document has no `serverInfo`.
pub fn inverse(document: &Value, name: &str, which: Which) -> Result<Inverse, String> {
    let document = document.get("result").unwrap_or(document);
    let tools = tools_of(document)?;
    let mut losses = Vec::new();
    let service_name = server_name(document).unwrap_or(name).to_string();
    let mut service = Service {
        service_name,
        description: String::new(),
        slots: Vec::new(),
        intents: Vec::new(),
    };
    losses.push(Loss {
        pointer: String::new(),
        what: "the service description: MCP tools carry none, so it is left empty".into(),
    });
    for (i, (base, tool)) in tools.iter().enumerate() {
        let pointer = format!("{base}/{i}");
        let intent = intent(tool, &pointer, which, &mut service.slots, &mut losses)?;
        service.intents.push(intent);
    }
    let undefined = undefined_terms(document);
    let result = if undefined.is_empty() {
        Ok(service.clone())
    } else {
        Err(undefined)
    };
    Ok(Inverse {
        result,
        tools_only: service,
        losses,
    })
}

fn tools_of(document: &Value) -> Result<Vec<(&'static str, &Value)>, String> {
    let (base, list) = match document {
        Value::Array(list) => ("", list),
        Value::Object(map) => match map.get("tools") {
            Some(Value::Array(list)) => ("/tools", list),
            Some(_) => return Err("`tools` is not a list of tools".into()),
            None if has_other_terms(map) => return Ok(Vec::new()),
            None => {
                return Err("no `tools` list: give a tools/list result or a list of tools".into());
            }
        },
        _ => return Err("not a tools/list result: expected an object or a list".into()),
    };
    let mut out = Vec::new();
    for (i, tool) in list.iter().enumerate() {
        if !tool.is_object() {
            return Err(format!("{base}/{i}: a tool is an object"));
        }
        out.push((base, tool));
    }
    Ok(out)
}

fn has_other_terms(map: &Map<String, Value>) -> bool {
    ["resources", "resourceTemplates", "prompts", "capabilities"]
        .iter()
        .any(|k| map.contains_key(*k))
}

fn server_name(document: &Value) -> Option<&str> {
    document.get("serverInfo")?.get("name")?.as_str()
}

/// The terms of the server outside Φ⁻¹'s domain (Theorem 5.2), each with why.
fn undefined_terms(document: &Value) -> Vec<Undefined> {
    let mut out = Vec::new();
    let list = |key: &str| document.get(key).and_then(Value::as_array);
    let terms: [(&str, &str, &str); 3] = [
        (
            "resources",
            "Resource",
            "passive, read-only context, not an executable intent: SGD has no such primitive",
        ),
        (
            "resourceTemplates",
            "Resource template",
            "a family of resources: SGD has no such primitive",
        ),
        (
            "prompts",
            "Prompt",
            "a user-invoked message template, not an intent with slots: SGD has no such primitive",
        ),
    ];
    for (key, term, reason) in terms {
        for (i, item) in list(key).into_iter().flatten().enumerate() {
            let id = item
                .get("uri")
                .or_else(|| item.get("uriTemplate"))
                .or_else(|| item.get("name"))
                .and_then(Value::as_str)
                .unwrap_or("?");
            out.push(Undefined {
                pointer: format!("/{key}/{i}"),
                term: format!("{term}⟨{id}⟩"),
                reason: reason.into(),
            });
        }
    }
    if let Some(caps) = document.get("capabilities") {
        out.push(Undefined {
            pointer: "/capabilities".into(),
            term: "Initialize⟨caps⟩".into(),
            reason: "capability negotiation: SGD assumes its schemas are given upfront".into(),
        });
        let changes = caps.pointer("/tools/listChanged") == Some(&json!(true));
        if changes {
            out.push(Undefined {
                pointer: "/capabilities/tools/listChanged".into(),
                term: "ToolsList⟨listChanged⟩".into(),
                reason: "run-time discovery: the tool set may change, SGD's schema cannot".into(),
            });
        }
    }
    if document.get("nextCursor").is_some_and(|c| !c.is_null()) {
        out.push(Undefined {
            pointer: "/nextCursor".into(),
            term: "ToolsList⟨cursor⟩".into(),
            reason: "paginated discovery: the listing is incomplete and fetched at run time".into(),
        });
    }
    out
}

/// The intent of one tool; its slots join `slots` (the first definition of a name wins).
fn intent(
    tool: &Value,
    pointer: &str,
    which: Which,
    slots: &mut Vec<Slot>,
    losses: &mut Vec<Loss>,
) -> Result<Intent, String> {
    let name = tool
        .get("name")
        .and_then(Value::as_str)
        .ok_or_else(|| format!("{pointer}: a tool has a string `name`"))?;
    let description = tool
        .get("description")
        .and_then(Value::as_str)
        .unwrap_or("");
    let at = |rest: &str| format!("{pointer}{rest}");
    let mut lose = |rest: &str, what: String| {
        losses.push(Loss {
            pointer: at(rest),
            what,
        })
    };
    for key in ["title", "annotations", "outputSchema", "icons"] {
        if tool.get(key).is_some() {
            lose(
                &format!("/{key}"),
                format!("tool `{name}`: `{key}` has no SGD counterpart"),
            );
        }
    }
    let is_transactional = transactional(tool, name, which, &mut lose);
    let schema = tool.get("inputSchema").cloned().unwrap_or(json!({}));
    schema_level_losses(&schema, name, &mut lose);
    let required: Vec<String> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| {
            r.iter()
                .filter_map(Value::as_str)
                .map(String::from)
                .collect()
        })
        .unwrap_or_default();
    let mut intent = Intent {
        name: name.to_string(),
        description: description.to_string(),
        is_transactional,
        required_slots: Vec::new(),
        optional_slots: Map::new(),
        result_slots: Vec::new(),
    };
    let empty = Map::new();
    let props = schema
        .get("properties")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    for (prop, def) in props {
        let rest = format!("/inputSchema/properties/{}", escape(prop));
        let slot = slot(prop, def, name, &rest, &mut lose);
        merge_slot(slots, slot, name, &rest, &mut lose);
        if required.contains(prop) {
            intent.required_slots.push(prop.clone());
        } else {
            let default = def.get("default").map(stringify).unwrap_or_else(|| {
                lose(&rest, format!("tool `{name}`: optional `{prop}` has no default; SGD's `dontcare` is assumed"));
                "dontcare".into()
            });
            intent
                .optional_slots
                .insert(prop.clone(), Value::String(default));
        }
    }
    for r in required.iter().filter(|r| !props.contains_key(*r)) {
        lose(
            "/inputSchema/required",
            format!("tool `{name}`: required `{r}` is not a property; it has no slot"),
        );
    }
    Ok(intent)
}

/// `t`: unknown for Φ⁻¹; from `side_effects` (or `requires_approval`) for (Φ⁺)⁻¹.
fn transactional(
    tool: &Value,
    name: &str,
    which: Which,
    lose: &mut impl FnMut(&str, String),
) -> bool {
    let meta = "/_meta";
    let plus = mcp_plus::parse(tool).map(|(p, _)| p);
    match (which, plus) {
        (Which::Plain, plus) => {
            if tool.get("_meta").is_some() {
                lose(
                    meta,
                    format!("tool `{name}`: `_meta` (and any MCP+ block in it) is not read by Φ⁻¹"),
                );
            }
            let _ = plus;
            lose(
                "",
                format!("tool `{name}`: is_transactional is unknowable (t = ?); false is assumed"),
            );
            false
        }
        (Which::Plus, None) => {
            lose(
                "",
                format!("tool `{name}`: no MCP+ block, so t is unknown; false is assumed"),
            );
            false
        }
        (Which::Plus, Some(plus)) => plus_flag(&plus, name, lose),
    }
}

fn plus_flag(plus: &mcp_plus::McpPlus, name: &str, lose: &mut impl FnMut(&str, String)) -> bool {
    let at = mcp_plus::POINTER;
    let t = match plus.side_effects {
        Some(s) => s.needs_approval(),
        None => plus.requires_approval.unwrap_or(false),
    };
    if let Some(s) = plus.side_effects {
        let back = if t {
            SideEffects::Write
        } else {
            SideEffects::Read
        };
        if s != back {
            lose(
                &format!("{at}/side_effects"),
                format!(
                    "tool `{name}`: side_effects `{}` becomes t = {t}, which Φ⁺ maps back to `{}` (four values, a two-valued flag)",
                    s.as_str(),
                    back.as_str()
                ),
            );
        }
    }
    if plus.requires_approval.is_some_and(|a| a != t) {
        lose(
            &format!("{at}/requires_approval"),
            format!("tool `{name}`: requires_approval disagrees with t = {t} and is lost"),
        );
    }
    let dropped = [
        ("summary", plus.summary.is_some()),
        ("failure_modes", plus.failure_modes.is_some()),
        ("dependencies", !plus.dependencies.is_empty()),
    ];
    for (field, present) in dropped {
        if present {
            lose(
                &format!("{at}/{field}"),
                format!(
                    "tool `{name}`: MCP+ `{field}` has no counterpart in Intent⟨n, d, R, O, t⟩"
                ),
            );
        }
    }
    t
}

/// Keywords of the input schema beyond `type: object`, `properties` and `required`.
fn schema_level_losses(schema: &Value, name: &str, lose: &mut impl FnMut(&str, String)) {
    let Some(map) = schema.as_object() else {
        lose(
            "/inputSchema",
            format!("tool `{name}`: inputSchema is not an object"),
        );
        return;
    };
    for key in map.keys() {
        if !["type", "properties", "required"].contains(&key.as_str()) {
            lose(
                &format!("/inputSchema/{}", escape(key)),
                format!("tool `{name}`: schema keyword `{key}` has no SGD counterpart"),
            );
        }
    }
}

/// The slot of property `prop`; what SGD's string-valued slot cannot hold is a loss.
fn slot(
    prop: &str,
    def: &Value,
    name: &str,
    rest: &str,
    lose: &mut impl FnMut(&str, String),
) -> Slot {
    let kept = ["type", "description", "enum", "default"];
    match def.get("type") {
        Some(Value::String(t)) if t == "string" => {}
        Some(t) => lose(
            &format!("{rest}/type"),
            format!(
                "tool `{name}`: `{prop}` has type {t}; SGD slot values are strings{}",
                if matches!(t.as_str(), Some("object" | "array")) {
                    " (the nested structure is flattened)"
                } else {
                    ""
                }
            ),
        ),
        None => {}
    }
    if let Some(map) = def.as_object() {
        for key in map.keys().filter(|k| !kept.contains(&k.as_str())) {
            lose(
                &format!("{rest}/{}", escape(key)),
                format!("tool `{name}`: `{prop}`: JSON Schema `{key}` has no SGD counterpart"),
            );
        }
    }
    let values: Vec<String> = def
        .get("enum")
        .and_then(Value::as_array)
        .map(|e| e.iter().map(stringify).collect())
        .unwrap_or_default();
    Slot {
        name: prop.to_string(),
        description: def
            .get("description")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string(),
        is_categorical: !values.is_empty(),
        possible_values: values,
    }
}

/// Adds `slot` unless a slot of that name exists; a different definition is a loss.
fn merge_slot(
    slots: &mut Vec<Slot>,
    slot: Slot,
    tool: &str,
    rest: &str,
    lose: &mut impl FnMut(&str, String),
) {
    match slots.iter().find(|s| s.name == slot.name) {
        None => slots.push(slot),
        Some(existing) if *existing == slot => {}
        Some(_) => lose(
            rest,
            format!(
                "tool `{tool}`: `{}` is defined differently by an earlier tool; SGD slots are shared, the earlier definition is kept",
                slot.name
            ),
        ),
    }
}

fn stringify(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn escape(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

/// How two services differ, as readable lines (empty when equal): what `Φ⁻¹ ∘ Φ` changed.
pub fn differences(original: &Service, back: &Service) -> Vec<String> {
    let mut out = Vec::new();
    if original.description != back.description {
        out.push("service description".to_string());
    }
    for slot in &original.slots {
        match back.slot(&slot.name) {
            None => out.push(format!("slot `{}` (no intent takes it)", slot.name)),
            Some(b) if b.is_categorical != slot.is_categorical => out.push(format!(
                "slot `{}`: is_categorical (no possible values)",
                slot.name
            )),
            Some(b) if b != slot => out.push(format!("slot `{}`", slot.name)),
            Some(_) => {}
        }
    }
    for intent in &original.intents {
        let Some(b) = back.intent(&intent.name) else {
            out.push(format!("intent `{}`", intent.name));
            continue;
        };
        if b.is_transactional != intent.is_transactional {
            out.push(format!(
                "intent `{}`: is_transactional {} became {}",
                intent.name, intent.is_transactional, b.is_transactional
            ));
        }
        if b.result_slots != intent.result_slots {
            out.push(format!("intent `{}`: result_slots", intent.name));
        }
        if b.required_slots != intent.required_slots
            || b.optional_slots != intent.optional_slots
            || b.description != intent.description
        {
            out.push(format!("intent `{}`: slots or description", intent.name));
        }
    }
    out
}

/// The JSON pointers where `a` and `b` differ (a value present on one side only counts), in
/// document order: what a round trip changed.
pub fn json_differences(a: &Value, b: &Value) -> Vec<String> {
    let mut out = Vec::new();
    diff_at(a, b, String::new(), &mut out);
    out
}

fn diff_at(a: &Value, b: &Value, at: String, out: &mut Vec<String>) {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let keys = x.keys().chain(y.keys().filter(|k| !x.contains_key(*k)));
            for key in keys {
                let here = format!("{at}/{}", escape(key));
                match (x.get(key), y.get(key)) {
                    (Some(u), Some(v)) => diff_at(u, v, here, out),
                    _ => out.push(here),
                }
            }
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
            for (i, (u, v)) in x.iter().zip(y).enumerate() {
                diff_at(u, v, format!("{at}/{i}"), out);
            }
        }
        _ if a != b => out.push(at),
        _ => {}
    }
}
