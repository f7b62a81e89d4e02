//! The paper's claims as commands (docs/paper.md), each run through the binary on the real SGD
//! data (tests/data/sgd) and pinned: the survey over the 45 services, the replay of the 209 real
//! service calls, Φ⁻¹ on a server with terms outside its domain, the (Φ⁺)⁻¹ round trip, the
//! bundled models' checks, the comparisons of the bundled models, and `agentpi replay`.

use std::path::{Path, PathBuf};
use std::process::Command;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

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
