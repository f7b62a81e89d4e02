//! `agentpi lsp` in a real editor: headless Neovim (Debian's `neovim`, which `.ci/run`
//! installs) attaches the binary with its built-in client (`tests/lsp/client.lua`), opens a
//! model with mistakes, and dumps what it got (diagnostics as Neovim placed them, hovers,
//! definitions; a check run from its code lens) as JSON, pinned as a snapshot.

use crate::support::repo;
use serde_json::{Value, json};
use std::process::Command;

/// Opens `file` (in `tests/lsp/`) in Neovim and asks `asks`: a method and a piece of the file
/// with `$` at the cursor.
fn check(file: &str, asks: &[(&str, &str)]) {
    let dir = repo().join("crates/cli/tests/lsp");
    let path = dir.join(file);
    let text = std::fs::read_to_string(&path).unwrap();
    let asks: Vec<Value> = asks
        .iter()
        .map(|(method, needle)| {
            let (line, character) = cursor(&text, needle);
            json!({"method": method, "line": line, "character": character})
        })
        .collect();
    let out = format!("agentpi-nvim-{}-{file}.json", std::process::id());
    let out = std::env::temp_dir().join(out);
    let _ = std::fs::remove_file(&out);
    let status = Command::new("timeout")
        .args(["120", "nvim", "--headless", "--clean", "-n", "-c"])
        .arg(format!("luafile {}", dir.join("client.lua").display()))
        .env("AGENTPI", env!("CARGO_BIN_EXE_agentpi"))
        .env("PI_FILE", &path)
        .env("PI_OUT", &out)
        .env("PI_ASK", json!(asks).to_string())
        .status()
        .expect("headless Neovim (Debian package `neovim`) runs the language server's test");
    assert!(status.success(), "nvim: {status}");
    let report = std::fs::read_to_string(&out).expect("the Lua client wrote its report");
    let _ = std::fs::remove_file(&out);
    let report: Value = serde_json::from_str(&report).unwrap();
    let shown = serde_json::to_string_pretty(&sorted(report)).unwrap();
    let shown = shown.replace(&format!("{}/", dir.display()), "$DIR/");
    insta::assert_snapshot!(file.trim_end_matches(".pi"), shown);
}

/// `value` with the keys of every object sorted: Lua's tables have no order.
fn sorted(value: Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(String, Value)> = map.into_iter().collect();
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            Value::Object(entries.into_iter().map(|(k, v)| (k, sorted(v))).collect())
        }
        Value::Array(items) => Value::Array(items.into_iter().map(sorted).collect()),
        other => other,
    }
}

/// The 0-based line and UTF-16 column of `$` in `needle`, found in `text` without it.
fn cursor(text: &str, needle: &str) -> (usize, usize) {
    let bar = needle.find('$').unwrap();
    let plain = needle.replace('$', "");
    let start = text
        .find(&plain)
        .unwrap_or_else(|| panic!("`{plain}` is not in the text"));
    let before = &text[..start + bar];
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    (
        before.matches('\n').count(),
        before[line_start..].encode_utf16().count(),
    )
}

#[test]
fn neovim_gets_diagnostics_hovers_and_definitions() {
    check(
        "mistakes.pi",
        &[
            ("textDocument/hover", "proc $Q ="),
            ("textDocument/hover", "ping?$x"),
            ("textDocument/hover", "chan p$ing"),
            ("textDocument/hover", "seen(A$rg)"),
            ("textDocument/definition", "shared$!x"),
            ("textDocument/definition", "seen(A$rg)"),
            ("textDocument/definition", "P(0) | $Q"),
            ("textDocument/definition", "| E$cho"),
        ],
    );
}

#[test]
fn neovim_runs_a_check_from_its_code_lens() {
    check("checks.pi", &[("codeLens/run", "check St$uck")]);
}
