//! The VS Code extension (`editors/vscode`, docs/editors.md): its grammar against the
//! assertion files and every bundled model, and its `.vsix` built. The work is
//! `editors/vscode/test.sh` (npm's tools: vscode-tmgrammar-test, vscode-textmate, vsce); this
//! test is how the README's test command reaches it.

use crate::support::repo;
use std::process::Command;

#[test]
fn vscode_extension_grammar_and_vsix() {
    let dir = repo().join("editors/vscode");
    assert!(
        dir.join("node_modules/.bin/vsce").exists(),
        "editors/vscode/node_modules is missing: run scripts/install-peers.sh (scripts/test.sh does)"
    );
    let out = Command::new("bash")
        .arg(dir.join("test.sh"))
        .output()
        .expect("bash runs");
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.status.success(),
        "editors/vscode/test.sh failed:\n{said}"
    );
    // Pin what was checked, so that a test file or model that silently stops being read fails.
    let models = walk_pi(&repo().join("models"));
    assert!(
        said.contains(&format!("tokenise: {models} files, 0 problems")),
        "{said}"
    );
    let assertions = walk_pi(&dir.join("test/syntax"));
    assert_eq!(
        said.matches("run successfuly").count(),
        assertions,
        "{said}"
    );
}

/// How many `.pi` files are under `dir`.
fn walk_pi(dir: &std::path::Path) -> usize {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .map(|p| match p.is_dir() {
            true => walk_pi(&p),
            false => usize::from(p.extension().is_some_and(|e| e == "pi")),
        })
        .sum()
}
