//! The `rmcp` crate's client (the Rust SDK) drives server-everything over stdio through
//! `agentpi monitor`: initialize, every tool listed, a tool call, then a graceful close
//! (stdin closed, the server exits, the monitor with it). The report has no violation and
//! equals `agentpi trace check` of the record.

use crate::support::repo;
use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};
use serde_json::Value;
use std::path::Path;
use std::process::Command;

/// Runs the rmcp client against the monitored server; returns the tools it listed.
async fn drive(dir: &Path) -> Vec<String> {
    let server = repo().join("tests/peers/node_modules/.bin/mcp-server-everything");
    assert!(server.exists(), "run `bash scripts/install-peers.sh` first");
    let command = tokio::process::Command::new(env!("CARGO_BIN_EXE_agentpi")).configure(|c| {
        // A generous --drain: the pinned findings must not depend on the load.
        c.arg("monitor")
            .args(["--drain", "300"])
            .arg("--record")
            .arg(dir.join("record.jsonl"))
            .arg("--report")
            .arg(dir.join("report.json"))
            .arg("--")
            .arg(&server)
            .arg("stdio");
    });
    let client = ().serve(TokioChildProcess::new(command).unwrap()).await.unwrap();
    let tools = client.list_all_tools().await.unwrap();
    let mut arguments = serde_json::Map::new();
    arguments.insert("message".into(), Value::from("hi"));
    let call = CallToolRequestParams::new("echo").with_arguments(arguments);
    let result = client.call_tool(call).await.unwrap();
    assert_ne!(result.is_error, Some(true), "{result:?}");
    client.cancel().await.unwrap();
    tools.into_iter().map(|t| t.name.to_string()).collect()
}

#[test]
fn rmcp_client_through_the_monitor_is_clean() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("monitor-rmcp");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let tools = runtime.block_on(drive(&dir));
    assert!(tools.iter().any(|t| t == "echo"), "{tools:?}");
    let live: Value =
        serde_json::from_slice(&std::fs::read(dir.join("report.json")).unwrap()).unwrap();
    assert_eq!(live["violations"], Value::Array(vec![]), "{live:#}");
    assert_eq!(live["era"], "legacy", "{live:#}");
    assert_eq!(live["open_requests"], Value::Array(vec![]), "{live:#}");
    let offline = Command::new(env!("CARGO_BIN_EXE_agentpi"))
        .args(["trace", "check", "--format", "json"])
        .arg(dir.join("record.jsonl"))
        .output()
        .unwrap();
    let offline: Value = serde_json::from_slice(&offline.stdout).unwrap();
    assert_eq!(live, offline, "live and offline reports differ");
}
