//! A real MCP server written with the Rust SDK `rmcp` (3.11), for `agentpi test` to test over
//! stdio in both eras (crates/cli/tests/tester.rs): read-only tools (`echo`, `add`, `slow`, which
//! waits and reports progress), one that may write (`forget`, left alone without
//! `--allow-writes`), a resource and a prompt. Everything else is rmcp's own behaviour.
//!
//! `rmcp_server` serves on stdin/stdout until end of input; `rmcp_server --http PORT` serves
//! Streamable HTTP at `http://127.0.0.1:PORT/mcp` with rmcp's default configuration (sessions,
//! allowed hosts; no Origin allow-list, which rmcp leaves off by default) until killed.

use std::time::Duration;

use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    Implementation, ListResourcesResult, PaginatedRequestParams, ProgressNotificationParam,
    PromptMessage, ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult,
    RequestMetaObject, Resource, ResourceContents, Role, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{
    ErrorData, Peer, RoleServer, ServerHandler, ServiceExt, prompt, prompt_handler, prompt_router,
    schemars, tool, tool_handler, tool_router,
};

/// The one resource: a fixed greeting.
const GREETING: &str = "fixture://greeting";

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Text {
    /// The text to return.
    text: String,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Pair {
    a: i64,
    b: i64,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Wait {
    /// How long to wait, in seconds (at most 5).
    seconds: f64,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Key {
    key: String,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Topic {
    topic: String,
}

/// The server: its tools and prompt are routed by rmcp's macros (which build the routers).
#[derive(Clone)]
struct Fixture;

#[tool_router]
impl Fixture {
    #[tool(
        description = "Returns its text.",
        annotations(read_only_hint = true, destructive_hint = false)
    )]
    fn echo(&self, Parameters(Text { text }): Parameters<Text>) -> String {
        text
    }

    #[tool(
        description = "Adds two integers.",
        annotations(read_only_hint = true, destructive_hint = false)
    )]
    fn add(&self, Parameters(Pair { a, b }): Parameters<Pair>) -> String {
        a.saturating_add(b).to_string()
    }

    #[tool(
        description = "Waits `seconds` (at most 5), reporting progress every quarter of the way.",
        annotations(read_only_hint = true, destructive_hint = false)
    )]
    async fn slow(
        &self,
        meta: RequestMetaObject,
        peer: Peer<RoleServer>,
        Parameters(Wait { seconds }): Parameters<Wait>,
    ) -> String {
        // NaN and negatives wait nothing; a client cannot keep the server busy for long.
        let seconds = if seconds > 0.0 { seconds.min(5.0) } else { 0.0 };
        let token = meta.get_progress_token();
        for step in 1..=4 {
            tokio::time::sleep(Duration::from_secs_f64(seconds / 4.0)).await;
            if let Some(token) = &token {
                let progress = ProgressNotificationParam::new(token.clone(), f64::from(step))
                    .with_total(4.0)
                    .with_message(format!("step {step} of 4"));
                // A client gone away is no reason to stop waiting; the result is lost anyway.
                let _ = peer.notify_progress(progress).await;
            }
        }
        format!("waited {seconds} s")
    }

    /// No annotation: it may write, so a tester leaves it alone unless told otherwise.
    #[tool(description = "Forgets a key.")]
    fn forget(&self, Parameters(Key { key }): Parameters<Key>) -> String {
        format!("forgot {key}")
    }
}

#[prompt_router]
impl Fixture {
    #[prompt(description = "Asks about a topic.")]
    fn ask(&self, Parameters(Topic { topic }): Parameters<Topic>) -> Vec<PromptMessage> {
        vec![PromptMessage::new_text(
            Role::User,
            format!("Tell me about {topic}."),
        )]
    }
}

#[tool_handler]
#[prompt_handler]
impl ServerHandler for Fixture {
    fn get_info(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_prompts()
            .enable_resources()
            .build();
        ServerConfig::new(capabilities).with_server_info(Implementation::new(
            "agentpi-rmcp-fixture",
            env!("CARGO_PKG_VERSION"),
        ))
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let greeting = Resource::new(GREETING, "greeting");
        Ok(ListResourcesResult::with_all_items(vec![greeting]))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        if request.uri != GREETING {
            let why = format!("no resource {}", request.uri);
            return Err(ErrorData::resource_not_found(why, None));
        }
        let contents = vec![ResourceContents::text("hello", GREETING)];
        Ok(ReadResourceResult::new(contents).into())
    }
}

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let outcome = match args.as_slice() {
        [] => serve_stdio().await,
        [flag, port] if flag == "--http" => match port.parse::<u16>() {
            Ok(port) => serve_http(port).await,
            Err(e) => Err(format!("--http `{port}`: {e}")),
        },
        _ => Err("usage: rmcp_server [--http PORT]".to_string()),
    };
    if let Err(e) = outcome {
        eprintln!("rmcp_server: {e}");
        std::process::exit(2);
    }
}

/// Serves one session on stdin/stdout until end of input.
async fn serve_stdio() -> Result<(), String> {
    let service = Fixture
        .serve(rmcp::transport::stdio())
        .await
        .map_err(|e| e.to_string())?;
    service.waiting().await.map(drop).map_err(|e| e.to_string())
}

/// Serves Streamable HTTP on 127.0.0.1:`port` (every path; clients use `/mcp`), one task
/// per connection, until killed.
async fn serve_http(port: u16) -> Result<(), String> {
    use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
    use rmcp::transport::streamable_http_server::{
        StreamableHttpServerConfig, StreamableHttpService,
    };
    let sessions = std::sync::Arc::new(LocalSessionManager::default());
    let config = StreamableHttpServerConfig::default();
    let service = StreamableHttpService::new(|| Ok(Fixture), sessions, config);
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port))
        .await
        .map_err(|e| format!("cannot listen on 127.0.0.1:{port}: {e}"))?;
    loop {
        let (stream, _) = listener.accept().await.map_err(|e| e.to_string())?;
        let service = hyper_util::service::TowerToHyperService::new(service.clone());
        tokio::spawn(async move {
            let io = hyper_util::rt::TokioIo::new(stream);
            // A connection that breaks ends itself; the server goes on.
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(io, service)
                .await;
        });
    }
}
