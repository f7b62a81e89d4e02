//! The lassos printed for liveness counterexamples (docs/check.md, *Liveness and fairness*):
//! a shortest stem, then a loop built greedily that meets every fairness obligation. The
//! models of tests/props/lasso.pi are worked by hand, and there the greedy loop is as short
//! as a fair loop can be: each lasso is pinned. (tests/properties.rs re-checks them as
//! evidence, with every other check of tests/props.)

use agentpi_check::{Options, Progress, check_system};
use std::path::Path;

/// The lasso of each check `(system, property)` of tests/props/lasso.pi, written as the
/// stem's labels, `|`, and the loop's (a path that stops: its labels and `.`).
fn check(cases: &[(&str, &str, &str)]) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/props/lasso.pi");
    let text = std::fs::read_to_string(&path).unwrap();
    let loaded = agentpi_ir::load_str("lasso.pi", &text);
    assert!(!loaded.has_errors(), "{:?}", loaded.diagnostics);
    let program = loaded.program;
    for &(system, property, want) in cases {
        let system = program.system(system).expect("the system");
        let i = (program.checks.iter())
            .position(|c| c.system == system && c.text == property)
            .unwrap_or_else(|| panic!("no check `{property}`"));
        let report = check_system(
            &program,
            system,
            &[i],
            &Options::default(),
            &Progress::default(),
        );
        let result = (report.results.iter())
            .find(|r| r.property == property)
            .expect("a result");
        let trace = result.trace.as_ref().expect("a counterexample");
        let labels: Vec<&str> = trace.steps.iter().map(|s| s.label.as_str()).collect();
        let got = match trace.loop_start {
            Some(at) => format!("{} | {}", labels[..at].join(" "), labels[at..].join(" ")),
            None => format!("{} .", labels.join(" ")),
        };
        assert_eq!(got.trim(), want, "{property}");
    }
}

#[test]
fn lassos_are_shortest_on_hand_worked_models() {
    check(&[
        ("Two", "eventually never", "| a"),
        ("Two", "fair eventually never", "| b a"),
        ("Two", "ltl <> [] not a or <> [] not b", "a | b a"),
        ("Stem", "fair eventually never", "start | b a"),
        ("Retransmit", "fair eventually delivered", "| link!(0) lost"),
        (
            "Retransmit",
            "strong fair(Receiver, Sender(0)) eventually delivered",
            "| link!(0) lost",
        ),
        ("Box", "fair eventually delivered", "| box!(0) box?(0)"),
    ]);
}
