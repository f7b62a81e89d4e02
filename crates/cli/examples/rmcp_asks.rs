//! A real MCP server written with the Rust SDK `rmcp` (3.11) whose tool asks the user, for the
//! bridge's rmcp pairing (crates/cli/tests/bridge_rmcp.rs, docs/bridge.md): `confirm` asks
//! for consent (a form elicitation) and says what the user chose; `add` asks nothing. Dual-era
//! as rmcp is: in a 2026-07-28 request the question is an `input_required` result (rmcp lets
//! such a result reach only a modern peer) and the answer comes in the retry's
//! `inputResponses`; in a legacy session it is an `elicitation/create` request in the middle
//! of the call. Stateless: no `requestState`, the retry carries all the tool needs. `touch`
//! tells the client its tool list changed (`notifications/tools/list_changed`, which names no
//! request) before it answers: a listening bridge sends that to every session. `think` asks
//! the client's model (`sampling/createMessage`, the same way) and says what it answered.
//!
//! `rmcp_asks` serves one session on stdin/stdout until end of input.

use rmcp::handler::server::tool::InputResponses;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    CallToolResponse, CallToolResult, ContentBlock, Implementation, InputRequest, InputRequests,
    InputRequiredResult, ProtocolVersion, ServerCapabilities, ServerConfig, ServerRequest,
};
use rmcp::service::RequestContext;
use rmcp::{
    ErrorData, RoleServer, ServerHandler, ServiceExt, schemars, tool, tool_handler, tool_router,
};
use serde_json::{Value, json};

/// The key of the one input request of `confirm`.
const CONSENT: &str = "consent";
/// The key of the one input request of `think`.
const MODEL: &str = "model";

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Pair {
    a: i64,
    b: i64,
}

/// The question, as the params of `elicitation/create` (the same in both eras).
fn question() -> Value {
    json!({
        "mode": "form",
        "message": "May agentpi go ahead?",
        "requestedSchema": {"type": "object", "properties": {"agree": {"type": "boolean"}}},
    })
}

/// The question to the client's model, as the params of `sampling/createMessage`.
fn prompt() -> Value {
    json!({
        "messages": [{"role": "user", "content": {"type": "text", "text": "What time is it?"}}],
        "maxTokens": 10,
    })
}

/// What the client's model answered (a text content block, alone or first of several).
fn said(answer: &Value) -> CallToolResponse {
    let content = answer.get("content");
    let block = content.and_then(|c| c.get(0)).or(content);
    let text = block.and_then(|b| b.get("text")).and_then(Value::as_str);
    let text = format!("the model said {}", text.unwrap_or("?"));
    CallToolResponse::Complete(CallToolResult::success(vec![ContentBlock::text(text)]))
}

fn chose(answer: &Value) -> CallToolResponse {
    let action = answer.get("action").and_then(Value::as_str).unwrap_or("?");
    let text = format!("the user chose {action}");
    CallToolResponse::Complete(CallToolResult::success(vec![ContentBlock::text(text)]))
}

fn bad(e: impl std::fmt::Display) -> ErrorData {
    ErrorData::internal_error(e.to_string(), None)
}

#[derive(Clone)]
struct Asks;

#[tool_router]
impl Asks {
    #[tool(description = "Adds two integers.")]
    fn add(&self, Parameters(Pair { a, b }): Parameters<Pair>) -> String {
        a.saturating_add(b).to_string()
    }

    #[tool(description = "Asks the client's model a question and says what it answered.")]
    async fn think(
        &self,
        context: RequestContext<RoleServer>,
        InputResponses(answers): InputResponses,
    ) -> Result<CallToolResponse, ErrorData> {
        let ask = json!({"method": "sampling/createMessage", "params": prompt()});
        if context.protocol_version() != Some(ProtocolVersion::V_2026_07_28) {
            let ask: ServerRequest = serde_json::from_value(ask).map_err(bad)?;
            let result = context.peer.send_request(ask).await.map_err(bad)?;
            return Ok(said(&serde_json::to_value(result).map_err(bad)?));
        }
        if let Some(answer) = answers.as_ref().and_then(|a| a.get(MODEL)) {
            return Ok(said(answer));
        }
        let ask: InputRequest = serde_json::from_value(ask).map_err(bad)?;
        let asks = InputRequests::from([(MODEL.to_string(), ask)]);
        Ok(CallToolResponse::InputRequired(
            InputRequiredResult::from_input_requests(asks),
        ))
    }

    #[tool(description = "Says the tool list changed, then answers.")]
    async fn touch(&self, context: RequestContext<RoleServer>) -> Result<String, ErrorData> {
        context.peer.notify_tool_list_changed().await.map_err(bad)?;
        Ok("touched".into())
    }

    #[tool(description = "Asks the user whether to go ahead and says what they chose.")]
    async fn confirm(
        &self,
        context: RequestContext<RoleServer>,
        InputResponses(answers): InputResponses,
    ) -> Result<CallToolResponse, ErrorData> {
        let modern = context.protocol_version() == Some(ProtocolVersion::V_2026_07_28);
        if !modern {
            // The request built from its JSON: rmcp's typed `create_elicitation` needs a
            // feature the other examples do not.
            let ask = json!({"method": "elicitation/create", "params": question()});
            let ask: ServerRequest = serde_json::from_value(ask).map_err(bad)?;
            let result = context.peer.send_request(ask).await.map_err(bad)?;
            return Ok(chose(&serde_json::to_value(result).map_err(bad)?));
        }
        if let Some(answer) = answers.as_ref().and_then(|a| a.get(CONSENT)) {
            return Ok(chose(answer));
        }
        let ask = json!({"method": "elicitation/create", "params": question()});
        let ask: InputRequest = serde_json::from_value(ask).map_err(bad)?;
        let asks = InputRequests::from([(CONSENT.to_string(), ask)]);
        Ok(CallToolResponse::InputRequired(
            InputRequiredResult::from_input_requests(asks),
        ))
    }
}

#[tool_handler]
impl ServerHandler for Asks {
    fn get_info(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_tool_list_changed()
            .build();
        ServerConfig::new(capabilities).with_server_info(Implementation::new(
            "agentpi-rmcp-asks",
            env!("CARGO_PKG_VERSION"),
        ))
    }
}

#[tokio::main]
async fn main() {
    let served = match Asks.serve(rmcp::transport::stdio()).await {
        Ok(service) => service.waiting().await.map(drop).map_err(|e| e.to_string()),
        Err(e) => Err(e.to_string()),
    };
    if let Err(e) = served {
        eprintln!("rmcp_asks: {e}");
        std::process::exit(2);
    }
}
