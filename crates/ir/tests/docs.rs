//! Every `pi` example of docs/language.md is a complete model that loads without diagnostics.

mod common;

#[test]
fn every_example_loads_cleanly() {
    let examples = common::doc_examples();
    assert!(examples.len() >= 15, "only {} examples", examples.len());
    let mut failures = Vec::new();
    for (line, text) in &examples {
        let loaded = agentpi_ir::load_str("example.pi", text);
        if !loaded.diagnostics.is_empty() {
            let rendered =
                agentpi_diagnostics::render::terminal_all(&loaded.diagnostics, &loaded.sources);
            failures.push(format!("example at docs/language.md:{line}:\n{rendered}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
