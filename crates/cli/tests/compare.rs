//! End-to-end tests of `agentpi compare` and `agentpi minimize`: the real binary on the small
//! `.aut` files and models in `tests/compare/`, with exit status, stdout and stderr pinned as
//! snapshots; every distinguishing formula printed there is judged by the independent
//! evaluator of the characterising logics (`crates/lts/tests/common/logic.rs`).

// The path is relative to `tests/`, where this file is.
#[path = "../../lts/tests/common/logic.rs"]
mod logic;

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
/// `<{<tau* b>true && <tau* a>true}(tau)>(<tau* b><tau* b>true && [tau* a]false)`; only
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

/// Issue 33: a 2-place buffer against a chain of two cells (branching bisimilar) and a lossy
/// chain. The branching formula must not demand a `tau`-step (it printed
/// `<tau* inp(0)>[tau* tau]false`, false on the chain too).
#[test]
fn buffers() {
    let spec_lossy = |equiv| {
        [
            "compare",
            "buffers.pi:Spec",
            "buffers.pi:Lossy",
            "--equiv",
            equiv,
        ]
    };
    check(
        "buffers",
        &[
            &spec_lossy("branching"),
            &spec_lossy("dpbranching"),
            &spec_lossy("weak"),
            &spec_lossy("strong"),
            &[
                "compare",
                "buffers.pi:Spec",
                "buffers.pi:Chain",
                "--equiv",
                "branching",
            ],
            &[
                "compare",
                "buffers.pi:Chain",
                "buffers.pi:Lossy",
                "--equiv",
                "branching",
            ],
        ],
    );
}

/// The state space of `input` (an `.aut` file or `FILE.pi:System` here) for the evaluator.
fn graph(input: &str) -> logic::Graph {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/compare");
    if input.ends_with(".aut") {
        return logic::Graph::from_aut(&std::fs::read_to_string(dir.join(input)).unwrap());
    }
    let output = Command::new(env!("CARGO_BIN_EXE_agentpi"))
        .args(["lts", input])
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(output.status.success(), "agentpi lts {input}");
    logic::Graph::from_aut(&String::from_utf8(output.stdout).unwrap())
}

/// The formula `compare LEFT RIGHT --equiv EQUIV` prints, from its JSON.
fn printed_formula(left: &str, right: &str, equiv: &str) -> String {
    let out = run(&["compare", left, right, "--equiv", equiv, "--format", "json"]);
    let json = out.split("--- stdout\n").nth(1).unwrap();
    let json = json.split("--- stderr").next().unwrap();
    let report: serde_json::Value = serde_json::from_str(json).unwrap();
    report["evidence"]["formula"].as_str().unwrap().to_string()
}

/// Inputs here equivalent to `input` modulo `equiv` (the third LTSs of issue 37), each
/// confirmed by `compare`.
fn equivalent_inputs(input: &str, equiv: &str) -> Vec<&'static str> {
    let groups: [&[&str]; 2] = [
        &["buffers.pi:Spec", "buffers.pi:Chain"],
        &["a.aut", "tau_a.aut"],
    ];
    if equiv == "strong" {
        return Vec::new();
    }
    let group = groups.into_iter().find(|g| g.contains(&input));
    let others = group.unwrap_or_default().iter().filter(|&&i| i != input);
    let others: Vec<&str> = others.copied().collect();
    for other in &others {
        let out = run(&["compare", input, other, "--equiv", equiv]);
        assert!(out.contains("exit: 0"), "{out}");
    }
    others
}

/// Every formula the snapshots here show is evidence: a formula of the equivalence's
/// characterising logic, true on LEFT and on the inputs equivalent to LEFT, false on RIGHT
/// and on those equivalent to RIGHT (issue 37: not the library's `checked`).
#[test]
fn printed_formulas_are_evidence() {
    let cases = [
        ("buffers.pi:Spec", "buffers.pi:Lossy", "branching"),
        ("buffers.pi:Spec", "buffers.pi:Lossy", "dpbranching"),
        ("buffers.pi:Spec", "buffers.pi:Lossy", "weak"),
        ("buffers.pi:Spec", "buffers.pi:Lossy", "strong"),
        ("buffers.pi:Chain", "buffers.pi:Lossy", "branching"),
        ("a_bc.aut", "ab_ac.aut", "strong"),
        ("a_bc.aut", "ab_ac.aut", "branching"),
        ("a_bc.aut", "ab_ac.aut", "weak"),
        ("ab_back_to_0.aut", "ab_back_to_1.aut", "branching"),
        ("ab_back_to_0.aut", "ab_back_to_1.aut", "strong"),
        ("tau_a.aut", "a.aut", "strong"),
        ("a_loop.aut", "a.aut", "dpbranching"),
        ("a_tau_b.aut", "a_tau_b_b.aut", "branching"),
    ];
    for (left, right, equiv) in cases {
        let text = printed_formula(left, right, equiv);
        let phi = logic::parse(&text).unwrap();
        logic::belongs(&phi, logic::Logic::named(equiv)).unwrap();
        for (side, expected) in [(left, true), (right, false)] {
            for input in [vec![side], equivalent_inputs(side, equiv)].concat() {
                let holds = logic::holds(&graph(input), &phi);
                assert_eq!(
                    holds, expected,
                    "{left} vs {right} ({equiv}): `{text}` on {input}"
                );
            }
        }
    }
}

/// The binary loads no C maths library (`src/maths.rs` defines the three functions it calls):
/// mapping and relocating `libm.so.6` kept 340 KB resident in every run, a twelfth of a short
/// `agentpi minimize` (docs/minimize.md). The dynamic loader lists what it would load when
/// `LD_TRACE_LOADED_OBJECTS` is set (what `ldd` does), without running the program.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[test]
fn minimize_starts_without_the_c_maths_library() {
    let output = Command::new(env!("CARGO_BIN_EXE_agentpi"))
        .env("LD_TRACE_LOADED_OBJECTS", "1")
        .output()
        .unwrap();
    let listed = String::from_utf8_lossy(&output.stdout);
    assert!(listed.contains("libc.so"), "no list of libraries: {listed}");
    assert!(
        !listed.contains("libm.so"),
        "the maths library is loaded: {listed}"
    );
}
