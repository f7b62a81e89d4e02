//! The paper's mappings and models on the real SGD schemas: Φ, Φ⁻¹ and their laws, the
//! generated models, and the survey's verdicts for named services.

use agentpi_sgd::inverse::{differences, json_differences};
use agentpi_sgd::{Service, Transactions, Which, inverse, model, phi, phi_plus, schema, survey};
use serde_json::json;

fn services() -> Vec<schema::Distinct> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/data/sgd/");
    let files: Vec<Vec<Service>> = ["train", "dev", "test"]
        .iter()
        .map(|s| {
            let text = std::fs::read_to_string(format!("{dir}{s}.schema.json")).unwrap();
            schema::parse(&text).unwrap()
        })
        .collect();
    schema::distinct(&files)
}

fn service(name: &str) -> Service {
    let all = services();
    all.into_iter()
        .find(|d| d.service.service_name == name)
        .unwrap()
        .service
}

#[test]
fn the_data_has_64_entries_of_45_services_that_agree_across_splits() {
    let all = services();
    assert_eq!(all.len(), 45);
    assert_eq!(all.iter().map(|d| d.entries).sum::<usize>(), 64);
    assert!(all.iter().all(|d| d.identical));
}

#[test]
fn every_generated_model_loads_without_a_diagnostic() {
    for d in services() {
        check_models_load(&d.service, "tests/data/sgd");
    }
}

/// Every model generated from `service` loads without a diagnostic.
fn check_models_load(service: &Service, origin: &str) {
    for tx in [Transactions::Flag, Transactions::Approval] {
        for text in [model::sgd(service, tx), model::mcp(service, tx)] {
            let loaded = agentpi_ir::load_str("m.pi", &text);
            assert!(
                loaded.diagnostics.is_empty(),
                "{origin}: {}: {:?}\n{text}",
                service.service_name,
                loaded.diagnostics
            );
        }
    }
}

/// Schemas the fuzz target `sgd_schema` (docs/fuzzing.md) showed to generate models that did
/// not load: names with line ends (written into comments), intents whose names differ only
/// in case or punctuation (one process name for both), names of the models' own events,
/// channel and variables, and `_`.
#[test]
fn schemas_found_by_fuzzing_generate_models_that_load() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fuzz");
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    assert!(files.len() >= 3, "{files:?}");
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        let origin = file.display().to_string();
        for service in schema::parse(&text).unwrap() {
            check_models_load(&service, &origin);
        }
    }
}

#[test]
fn phi_drops_the_transactional_flag_so_it_is_not_injective() {
    let banks = service("Banks_1");
    let mut flipped = banks.clone();
    for i in &mut flipped.intents {
        i.is_transactional = !i.is_transactional;
    }
    assert_ne!(banks, flipped);
    assert_eq!(phi(&banks), phi(&flipped));
    assert_ne!(phi_plus(&banks), phi_plus(&flipped));
}

#[test]
fn phi_inverse_of_phi_is_not_the_identity() {
    let banks = service("Banks_1");
    let back = inverse(&phi(&banks), "Banks_1", Which::Plain).unwrap();
    let diff = differences(&banks, back.result.as_ref().unwrap());
    assert!(
        diff.contains(&"intent `TransferMoney`: is_transactional true became false".to_string()),
        "{diff:?}"
    );
    // Through Φ⁺ the flag survives.
    let back = inverse(&phi_plus(&banks), "Banks_1", Which::Plus).unwrap();
    let diff = differences(&banks, back.result.as_ref().unwrap());
    assert!(
        !diff.iter().any(|d| d.contains("is_transactional")),
        "{diff:?}"
    );
}

#[test]
fn phi_inverse_is_not_injective_on_real_images() {
    let banks = service("Banks_1");
    let (a, b) = (phi(&banks), phi_plus(&banks));
    assert_ne!(a, b);
    let ia = inverse(&a, "Banks_1", Which::Plain)
        .unwrap()
        .result
        .unwrap();
    let ib = inverse(&b, "Banks_1", Which::Plain)
        .unwrap()
        .result
        .unwrap();
    assert_eq!(ia, ib);
}

#[test]
fn phi_inverse_is_undefined_on_resources_prompts_and_initialisation() {
    let server = json!({
        "capabilities": {"tools": {"listChanged": true}},
        "tools": [{"name": "get", "inputSchema": {"type": "object"}}],
        "resources": [{"uri": "file:///x"}],
        "prompts": [{"name": "p"}]
    });
    let back = inverse(&server, "s", Which::Plain).unwrap();
    let undefined = back.result.unwrap_err();
    let terms: Vec<&str> = undefined.iter().map(|u| u.term.as_str()).collect();
    assert_eq!(
        terms,
        [
            "Resource⟨file:///x⟩",
            "Prompt⟨p⟩",
            "Initialize⟨caps⟩",
            "ToolsList⟨listChanged⟩"
        ]
    );
    assert_eq!(back.tools_only.intents.len(), 1);
}

#[test]
fn plus_round_trip_collapses_four_side_effects_into_two() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../cli/tests/lint/inputs/banking_clean.json"
    ))
    .unwrap();
    let x: serde_json::Value = serde_json::from_str(&text).unwrap();
    let back = inverse(&x, "banking", Which::Plus).unwrap().result.unwrap();
    let again = phi_plus(&back);
    let diff = json_differences(&x, &again);
    assert!(
        diff.contains(&"/tools/1/_meta/io.agentpi~1mcp-plus/side_effects".to_string()),
        "{diff:?}"
    );
}

#[test]
fn banks_1_is_branching_bisimilar_to_its_image_until_the_flag_means_approval() {
    let row = survey::survey(&service("Banks_1")).unwrap();
    assert!(row.flag.branching && !row.flag.strong);
    assert!(!row.approval.weak && !row.approval.trace);
    assert_eq!(
        row.approval.formula.as_deref(),
        Some("<tau* approve(transfer_money(false, false, false, false))>true")
    );
    assert!(!row.approval_hidden.weak);
    assert!(row.plus.branching);
}

#[test]
fn plus_inverse_of_phi_plus_keeps_every_transactional_flag() {
    for d in services() {
        let s = &d.service;
        let back = inverse(&phi_plus(s), &s.service_name, Which::Plus).unwrap();
        let diff = differences(s, back.result.as_ref().unwrap());
        assert!(
            !diff.iter().any(|x| x.contains("is_transactional")),
            "{}: {diff:?}",
            s.service_name
        );
    }
}
