//! Consistency of the lint catalogue with the files it ships: every explanation page belongs to
//! a rule (the reverse is checked at compile time by `include_str!`), and the MCP+ JSON Schema in
//! docs/ accepts the clean banking fixture and rejects the broken one where the linter does.

use agentpi_mcp::lint::{mcp_plus, rules};
use serde_json::Value;
use std::path::Path;

fn read(path: &str) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(path)).unwrap()
}

#[test]
fn every_explanation_page_has_a_rule() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/lint/explain");
    let mut pages: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| {
            entry
                .unwrap()
                .file_name()
                .to_string_lossy()
                .trim_end_matches(".md")
                .to_string()
        })
        .collect();
    pages.sort();
    let codes: Vec<&str> = rules::RULES.iter().map(|r| r.code).collect();
    assert_eq!(pages, codes);
}

/// Validates every MCP+ block of a fixture against docs/mcp-plus.schema.json.
fn schema_errors(fixture: &str) -> Vec<String> {
    let schema: Value = serde_json::from_str(&read("../../docs/mcp-plus.schema.json")).unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let listing: Value =
        serde_json::from_str(&read(&format!("../cli/tests/lint/inputs/{fixture}"))).unwrap();
    let mut errors = Vec::new();
    for tool in listing["tools"].as_array().unwrap() {
        let block = &tool["_meta"][mcp_plus::KEY];
        errors.extend(
            validator
                .iter_errors(block)
                .map(|e| format!("{}: {e}", tool["name"])),
        );
    }
    errors
}

#[test]
fn schema_accepts_the_clean_banking_tools() {
    assert_eq!(schema_errors("banking_clean.json"), Vec::<String>::new());
}

#[test]
fn schema_rejects_the_malformed_recovery_and_long_summary() {
    let errors = schema_errors("banking_broken.json");
    assert_eq!(errors.len(), 2, "{errors:?}");
    assert!(errors[0].contains("reboot"), "{errors:?}");
    assert!(errors[1].contains("longer than 120"), "{errors:?}");
}
