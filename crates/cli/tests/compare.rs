//! End-to-end tests of `agentpi compare` and `agentpi minimize`: the real binary on the small
//! `.aut` files in `tests/compare/`, with exit status, stdout and stderr pinned as snapshots.

use std::path::Path;
use std::process::Command;

/// Runs `agentpi ARGS` inside `tests/compare/` and renders what a user would see.
fn run(args: &[&str]) -> String {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/compare");
    let output = Command::new(env!("CARGO_BIN_EXE_agentpi"))
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    format!(
        "$ agentpi {}\nexit: {}\n--- stdout\n{}--- stderr\n{}",
        args.join(" "),
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// Runs every command and pins the output in one snapshot named `name`.
fn check(name: &str, commands: &[&[&str]]) {
    let text: Vec<String> = commands.iter().map(|args| run(args)).collect();
    insta::with_settings!({snapshot_path => "compare/snapshots", prepend_module_to_snapshot => false}, {
        insta::assert_snapshot!(name, text.join("\n"));
    });
}

#[test]
fn a_bc_against_ab_ac() {
    check(
        "a_bc_against_ab_ac",
        &[
            &["compare", "a_bc.aut", "ab_ac.aut", "--equiv", "strong"],
            &["compare", "a_bc.aut", "ab_ac.aut", "--equiv", "branching"],
            &["compare", "a_bc.aut", "ab_ac.aut", "--equiv", "weak"],
            &["compare", "a_bc.aut", "ab_ac.aut", "--equiv", "trace"],
            &["compare", "a_bc.aut", "ab_ac.aut", "--equiv", "failures"],
            &["compare", "ab_ac.aut", "a_bc.aut", "--equiv", "failures"],
            &["compare", "a.aut", "a_b.aut", "--equiv", "trace"],
        ],
    );
}

#[test]
fn equivalence_in_csp_models() {
    check(
        "equivalence_in_csp_models",
        &[
            // a.(b+c) and a.b+a.c: trace equivalent, not failures equivalent.
            &["compare", "a_bc.aut", "ab_ac.aut", "--equiv", "trace-eq"],
            &["compare", "a_bc.aut", "ab_ac.aut", "--equiv", "failures-eq"],
            &["compare", "ab_ac.aut", "a_bc.aut", "--equiv", "failures-eq"],
            // a and a+b: only one direction fails.
            &["compare", "a.aut", "a_plus_b.aut", "--equiv", "trace-eq"],
            &["compare", "a_plus_b.aut", "a.aut", "--equiv", "trace-eq"],
            // Both directions fail: the shorter counterexample, LEFT [T= RIGHT on a tie.
            &["compare", "a_plus_b.aut", "a_b.aut", "--equiv", "trace-eq"],
            &["compare", "a.aut", "b.aut", "--equiv", "trace-eq"],
            &["compare", "a.aut", "a_loop.aut", "--equiv", "fd-eq"],
            &[
                "compare",
                "a_loop.aut",
                "tau_a.aut",
                "--equiv",
                "failures-eq",
            ],
            &[
                "compare",
                "a.aut",
                "a_plus_b.aut",
                "--equiv",
                "trace-eq",
                "--format",
                "json",
            ],
            &[
                "compare",
                "a_bc.aut",
                "ab_ac.aut",
                "--equiv",
                "trace-eq",
                "--format",
                "json",
            ],
        ],
    );
}

/// The formula read off the refinement history is
/// `<{<tau* b>true && <tau* a>true}tau>(<tau* b><tau* b>true && [tau* a]false)`; only
/// `<tau* b><tau* b>true` is needed.
#[test]
fn simplified_evidence() {
    check(
        "simplified_evidence",
        &[
            &[
                "compare",
                "ab_back_to_0.aut",
                "ab_back_to_1.aut",
                "--equiv",
                "branching",
            ],
            &[
                "compare",
                "ab_back_to_0.aut",
                "ab_back_to_1.aut",
                "--equiv",
                "strong",
            ],
        ],
    );
}

#[test]
fn silent_steps_and_divergence() {
    check(
        "silent_steps_and_divergence",
        &[
            &["compare", "tau_a.aut", "a.aut", "--equiv", "strong"],
            &["compare", "tau_a.aut", "a.aut", "--equiv", "branching"],
            &["compare", "tau_a.aut", "a.aut", "--equiv", "weak"],
            &["compare", "a.aut", "a_loop.aut", "--equiv", "failures"],
            &["compare", "a.aut", "a_loop.aut", "--equiv", "fd"],
            &["compare", "a_loop.aut", "a.aut", "--equiv", "dpbranching"],
            &["compare", "a_tau_b.aut", "a_tau_b_b.aut", "--equiv", "weak"],
            &[
                "compare",
                "a_tau_b.aut",
                "a_tau_b_b.aut",
                "--equiv",
                "branching",
            ],
        ],
    );
}

#[test]
fn json_output() {
    check(
        "json_output",
        &[
            &[
                "compare",
                "a_bc.aut",
                "ab_ac.aut",
                "--equiv",
                "strong",
                "--format",
                "json",
            ],
            &[
                "compare", "a.aut", "a_b.aut", "--equiv", "trace", "--format", "json",
            ],
            &[
                "compare",
                "a.aut",
                "a_loop.aut",
                "--equiv",
                "fd",
                "--format",
                "json",
            ],
            &[
                "compare",
                "tau_a.aut",
                "a.aut",
                "--equiv",
                "weak",
                "--format",
                "json",
            ],
        ],
    );
}

#[test]
fn action_mapping() {
    check(
        "action_mapping",
        &[
            &[
                "compare",
                "client.aut",
                "server.aut",
                "--equiv",
                "branching",
            ],
            &[
                "compare",
                "client.aut",
                "server.aut",
                "--equiv",
                "branching",
                "--map",
                "phi.map",
            ],
            &[
                "compare",
                "client.aut",
                "server.aut",
                "--equiv",
                "fd",
                "--hide",
                "log*",
                "--rename",
                "call=invoke",
            ],
            &["compare", "client.aut", "server.aut", "--map", "bad.map"],
        ],
    );
}

#[test]
fn input_errors() {
    check(
        "input_errors",
        &[
            &["compare", "bad.aut", "a.aut"],
            &["compare", "missing.aut", "a.aut"],
            &["compare", "a.aut", "model.pi:System"],
            &["minimize", "bad.aut"],
        ],
    );
}

#[test]
fn minimize() {
    check(
        "minimize",
        &[
            &["minimize", "ab_ac.aut", "--no-time"],
            &[
                "minimize",
                "a_tau_b_b.aut",
                "--equiv",
                "branching",
                "--no-time",
            ],
            &[
                "minimize",
                "a_loop.aut",
                "--equiv",
                "dpbranching",
                "--no-time",
            ],
            &["minimize", "a_loop.aut", "--equiv", "weak", "--no-time"],
        ],
    );
}

#[test]
fn minimize_json() {
    check(
        "minimize_json",
        &[
            &[
                "minimize",
                "a_tau_b_b.aut",
                "--equiv",
                "branching",
                "--no-time",
                "--format",
                "json",
            ],
            &[
                "minimize",
                "ab_ac.aut",
                "-o",
                "/dev/null",
                "--no-time",
                "--format",
                "json",
            ],
            &["minimize", "bad.aut", "--format", "json"],
        ],
    );
}

#[test]
fn minimize_json_reports_times_unless_told_not_to() {
    let out = run(&["minimize", "ab_ac.aut", "--format", "json"]);
    let json = out.split("--- stdout\n").nth(1).unwrap();
    let json = json.split("--- stderr").next().unwrap();
    let report: serde_json::Value = serde_json::from_str(json).unwrap();
    for key in ["read_s", "minimise_s"] {
        assert!(report["time"][key].is_f64(), "{key} missing: {out}");
    }
}
