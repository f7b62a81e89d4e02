//! Φ and Φ⁺: an SGD service as MCP tool definitions (a `tools/list` result).
//!
//! Φ (digest 3.1) maps `Intent⟨n, d, R, O, t⟩` to `Tool⟨n, d, σ⟩`: one string property per slot
//! of `R ∪ O` with the slot's description, its `possible_values` as an `enum` when the slot is
//! categorical, and the default of an optional slot as `default`; `σ.required = R`. The
//! transactional flag has no target in plain MCP and is dropped, as are the result slots and
//! the service description. Φ⁺ adds the MCP+ block (`_meta["io.agentpi/mcp-plus"]`, as
//! `agentpi lint` defines it) and the annotations that agree with it: `t = true` becomes
//! `side_effects: write` with `requires_approval: true`, `t = false` becomes `read`.

use crate::schema::{Intent, Service};
use agentpi_mcp::lint::mcp_plus::{KEY, VERSION};
use serde_json::{Map, Value, json};

/// Φ(service): the `tools/list` result of its MCP image.
pub fn phi(service: &Service) -> Value {
    let tools: Vec<Value> = service.intents.iter().map(|i| tool(service, i)).collect();
    json!({ "tools": tools })
}

/// Φ⁺(service): Φ with the MCP+ block and annotations on every tool.
pub fn phi_plus(service: &Service) -> Value {
    let tools: Vec<Value> = service
        .intents
        .iter()
        .map(|i| tool_plus(service, i))
        .collect();
    json!({ "tools": tools })
}

/// Φ of one intent.
pub fn tool(service: &Service, intent: &Intent) -> Value {
    let mut properties = Map::new();
    for (name, _) in intent.arguments() {
        properties.insert(name.to_string(), property(service, intent, name));
    }
    let schema = json!({
        "type": "object",
        "properties": properties,
        "required": intent.required_slots,
    });
    json!({
        "name": intent.name,
        "description": intent.description,
        "inputSchema": schema,
    })
}

/// Φ⁺ of one intent.
pub fn tool_plus(service: &Service, intent: &Intent) -> Value {
    let mut value = tool(service, intent);
    let t = intent.is_transactional;
    let block = json!({
        "version": VERSION,
        "side_effects": if t { "write" } else { "read" },
        "requires_approval": t,
    });
    let object = value.as_object_mut().expect("a tool is an object");
    object.insert(
        "annotations".into(),
        json!({ "readOnlyHint": !t, "destructiveHint": false }),
    );
    object.insert("_meta".into(), json!({ KEY: block }));
    value
}

fn property(service: &Service, intent: &Intent, name: &str) -> Value {
    let mut property = Map::new();
    property.insert("type".into(), json!("string"));
    if let Some(slot) = service.slot(name) {
        property.insert("description".into(), json!(slot.description));
        if slot.is_categorical && !slot.possible_values.is_empty() {
            property.insert("enum".into(), json!(slot.possible_values));
        }
    }
    if let Some(default) = intent.optional_slots.get(name) {
        property.insert("default".into(), default.clone());
    }
    Value::Object(property)
}
