//! The paper's claims as commands (docs/paper.md), each run through the binary on the real SGD
//! data (tests/data/sgd) and pinned: the survey over the 45 services, the replay of the 209 real
//! service calls, Φ⁻¹ on a server with terms outside its domain, the (Φ⁺)⁻¹ round trip, the
//! bundled models' checks, the comparisons of the bundled models, and `agentpi replay`.

use crate::support::repo;
use std::process::Command;

/// Runs `agentpi` from the repository root: the exit status and standard output, pinned.
fn check(name: &str, args: &[&str]) {
    let out = Command::new(env!("CARGO_BIN_EXE_agentpi"))
        .args(args)
        .current_dir(repo())
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    let status = out.status.code().unwrap_or(-1);
    assert!(matches!(status, 0 | 1), "{name}: status {status}\n{stderr}");
    let report = format!(
        "$ agentpi {}\nexit status {status}\n{stdout}",
        args.join(" ")
    );
    insta::assert_snapshot!(name, report);
}

const SCHEMAS: [&str; 3] = [
    "tests/data/sgd/train.schema.json",
    "tests/data/sgd/dev.schema.json",
    "tests/data/sgd/test.schema.json",
];

#[test]
fn survey_of_the_45_services() {
    let mut args = vec!["sgd", "survey"];
    args.extend(SCHEMAS);
    check("survey", &args);
}

#[test]
fn the_209_real_calls_replayed() {
    let args = [
        "sgd",
        "dialogues",
        "tests/data/sgd/dev.dialogues_001.calls.json",
        SCHEMAS[1],
    ];
    check("dialogues", &args);
}

#[test]
fn phi_and_phi_plus_of_banks_1() {
    check("phi_banks_1", &["sgd", "phi", SCHEMAS[0], "Banks_1"]);
    check(
        "phi_plus_banks_1",
        &["sgd", "phi", SCHEMAS[0], "Banks_1", "--plus"],
    );
}

#[test]
fn phi_inverse_is_partial_and_lossy() {
    check(
        "inverse_server",
        &[
            "sgd",
            "inverse",
            "crates/cli/tests/paper/server.json",
            "--roundtrip",
        ],
    );
}

/// A server installed by scripts/install-peers.sh.
fn peer(bin: &str) -> String {
    let path = format!("tests/peers/node_modules/.bin/{bin}");
    assert!(
        repo().join(&path).exists(),
        "{path}: run `bash scripts/install-peers.sh` first"
    );
    path
}

#[test]
fn phi_inverse_of_a_live_server() {
    let memory = peer("mcp-server-memory");
    check("inverse_live_memory", &["sgd", "inverse", "--", &memory]);
    // server-everything declares resources and prompts: each is a term outside Φ⁻¹'s domain.
    let out = Command::new(env!("CARGO_BIN_EXE_agentpi"))
        .args([
            "sgd",
            "inverse",
            "--timeout",
            "120",
            "--",
            &peer("mcp-server-everything"),
        ])
        .current_dir(repo())
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let terms: Vec<&str> = report["undefined"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| u["term"].as_str().unwrap())
        .collect();
    for kind in [
        "Resource⟨",
        "Resource template⟨",
        "Prompt⟨",
        "Initialize⟨caps⟩",
    ] {
        assert!(
            terms.iter().any(|t| t.starts_with(kind)),
            "no {kind} in {terms:?}"
        );
    }
    assert!(report["tools_only"]["intents"].as_array().unwrap().len() > 5);
}

#[test]
fn plus_round_trip_is_not_the_identity() {
    let file = "crates/cli/tests/lint/inputs/banking_clean.json";
    check(
        "inverse_plus_banking",
        &[
            "sgd",
            "inverse",
            file,
            "--plus",
            "--roundtrip",
            "--name",
            "banking",
        ],
    );
}

#[test]
fn bundled_paper_models() {
    for m in ["sgd", "mcp", "mcp_plus"] {
        check(&format!("check_{m}"), &["check", &format!("paper/{m}")]);
    }
}

#[test]
fn sgd_against_mcp_and_mcp_plus() {
    let map = "models/paper/correspondence.map";
    for (name, right, equiv) in [
        ("compare_mcp_branching", "paper/mcp:Mcp", "branching"),
        ("compare_mcp_trace", "paper/mcp:Mcp", "trace-eq"),
        (
            "compare_mcp_plus_branching",
            "paper/mcp_plus:Mcp",
            "branching",
        ),
        ("compare_mcp_plus_strong", "paper/mcp_plus:Mcp", "strong"),
    ] {
        check(
            name,
            &[
                "compare",
                "paper/sgd:Sgd",
                right,
                "--equiv",
                equiv,
                "--map",
                map,
            ],
        );
    }
}

#[test]
fn replay_accepts_and_refuses() {
    let dir = "crates/cli/tests/paper";
    check(
        "replay_accepted",
        &[
            "replay",
            "paper/sgd:Sgd",
            &format!("{dir}/accepted.trace"),
            "--hide",
            "collect",
        ],
    );
    check(
        "replay_unapproved",
        &[
            "replay",
            "paper/sgd:Sgd",
            &format!("{dir}/unapproved.json"),
            "--hide",
            "collect",
        ],
    );
    check(
        "replay_plain_mcp",
        &["replay", "paper/mcp:Mcp", &format!("{dir}/accepted.trace")],
    );
}
