//! `--suggest` round trip: merging the inferred MCP+ blocks into a listing must give blocks the
//! linter accepts (well-formed, consistent with the annotations, approval where needed).

use agentpi_mcp::lint::{self, Config, Options, input, mcp_plus, suggest};
use serde_json::Value;
use std::path::Path;

fn fixture(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../cli/tests/lint/inputs")
        .join(name);
    std::fs::read_to_string(path).unwrap()
}

/// Codes of the MCP+ findings left after merging the suggestions into `name`.
fn after_suggest(name: &str) -> Vec<String> {
    let set = input::parse(name, &fixture(name)).unwrap();
    let blocks = suggest::suggest(&set);
    let mut listing: Value = serde_json::from_str(&fixture(name)).unwrap();
    for tool in listing["tools"].as_array_mut().unwrap() {
        let name = tool["name"].as_str().unwrap().to_string();
        tool["_meta"] = blocks[&name]["_meta"].clone();
    }
    let merged = input::parse("merged.json", &listing.to_string()).unwrap();
    let report = lint::lint(&merged, &Options::default(), &Config::default());
    let checked = [
        "P001", "P002", "P202", "P204", "P301", "P302", "P401", "P402", "P403",
    ];
    report
        .findings
        .iter()
        .map(|f| f.diagnostic.code.clone())
        .filter(|c| checked.contains(&c.as_str()))
        .collect()
}

#[test]
fn suggested_blocks_pass_the_mcp_plus_rules() {
    for name in ["p1_p2_p4.json", "profiles.json", "banking_clean.json"] {
        assert_eq!(after_suggest(name), Vec::<String>::new(), "{name}");
    }
}

#[test]
fn suggestions_follow_the_annotations() {
    let set = input::parse("p1_p2_p4.json", &fixture("p1_p2_p4.json")).unwrap();
    let blocks = suggest::suggest(&set);
    let effects = |tool: &str| {
        blocks[tool]["_meta"][mcp_plus::KEY]["side_effects"]
            .as_str()
            .unwrap()
            .to_string()
    };
    assert_eq!(effects("send_email"), "write");
    assert_eq!(effects("get_weather"), "read");
    assert_eq!(effects("read_file"), "read");
}
