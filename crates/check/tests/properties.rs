//! Property verdicts, data-driven: every `check` in tests/props/*.pi carries its expected
//! verdict in a comment (`//~ holds`, `//~ violated`); each counterexample is also replayed
//! against the property it refutes.

use agentpi_check::{Options, Outcome, Progress, check_system};
use std::path::Path;

fn expected_verdicts(text: &str) -> Vec<String> {
    text.lines()
        .filter(|l| l.trim_start().starts_with("check "))
        .map(|l| {
            l.split("//~")
                .nth(1)
                .expect("every check has a //~ verdict")
                .trim()
                .to_string()
        })
        .collect()
}

fn word(outcome: &Outcome) -> &'static str {
    match outcome {
        Outcome::Holds => "holds",
        Outcome::Violated => "violated",
        Outcome::Unknown(_) => "unknown",
    }
}

/// Checks every property of `file` and returns `(check text, verdict)` in file order; with
/// `(por, symmetry)`, under partial-order and symmetry reduction (which must give the same
/// verdicts).
fn check(file: &Path, (por, symmetry): (bool, bool)) -> Vec<(String, String)> {
    let text = std::fs::read_to_string(file).unwrap();
    let loaded = agentpi_ir::load_str(&file.display().to_string(), &text);
    assert!(
        !loaded.has_errors(),
        "{}: {:?}",
        file.display(),
        loaded.diagnostics
    );
    let program = &loaded.program;
    let mut out = Vec::new();
    for (i, c) in program.checks.iter().enumerate() {
        let options = Options {
            por,
            symmetry,
            ..Options::default()
        };
        let report = check_system(program, c.system, &[i], &options, &Progress::default());
        let result = report
            .results
            .iter()
            .find(|r| r.property == c.text)
            .expect("result for the check");
        out.push((
            format!("{}: {}", program.systems[c.system].name, c.text),
            word(&result.outcome).to_string(),
        ));
    }
    out
}

#[test]
fn verdicts_match_the_annotations() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/props");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    assert!(files.len() >= 4);
    for file in files {
        let expected = expected_verdicts(&std::fs::read_to_string(&file).unwrap());
        for reductions in [(false, false), (true, false), (false, true), (true, true)] {
            let got = check(&file, reductions);
            assert_eq!(got.len(), expected.len(), "{}", file.display());
            for ((text, verdict), want) in got.iter().zip(&expected) {
                let file = file.display();
                assert_eq!(
                    verdict, want,
                    "{file}: {text} (por, symmetry: {reductions:?})"
                );
            }
        }
    }
}

#[test]
fn a_run_time_error_is_reported_with_its_position() {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/props/safety.pi");
    let text = std::fs::read_to_string(&file).unwrap();
    let loaded = agentpi_ir::load_str("safety.pi", &text);
    let system = loaded.program.system("Overflow").unwrap();
    let report = check_system(
        &loaded.program,
        system,
        &[],
        &Options::default(),
        &Progress::default(),
    );
    let assertions = &report.results[0];
    assert_eq!(
        (assertions.property.as_str(), &assertions.outcome),
        ("assertions", &Outcome::Violated)
    );
    let fault = assertions.fault.as_ref().unwrap();
    assert_eq!(fault.kind.to_string(), "value 4 is outside 0..3");
    assert_eq!(loaded.sources.position(fault.span), "safety.pi:13:31");
    let labels: Vec<_> = assertions
        .trace
        .as_ref()
        .unwrap()
        .steps
        .iter()
        .map(|s| s.label.as_str())
        .collect();
    assert_eq!(labels, ["c(3)", "tau"]);
}

/// An infinite state space whose only check is decided at depth 3: exploration stops there
/// (the bound is only a safety net for the test; it is never reached).
#[test]
fn exploration_stops_once_every_check_is_decided() {
    let text = "chan c : 0..1\nevent found\nproc Grow = tau . (Grow | c!0)\n\
                system S = Grow | tau . tau . found\n\
                check S: reachable found\ncheck S: never c(1)\n";
    let loaded = agentpi_ir::load_str("grow.pi", text);
    assert!(!loaded.has_errors(), "{:?}", loaded.diagnostics);
    let options = Options {
        max_states: Some(2_000),
        ..Options::default()
    };
    let one = check_system(&loaded.program, 0, &[0], &options, &Progress::default());
    assert_eq!(one.results[0].outcome, Outcome::Holds);
    assert_eq!(one.end, agentpi_check::End::Decided);
    assert_eq!(one.results[0].trace.as_ref().unwrap().steps.len(), 3);
    assert!(one.states < 20, "{}", one.states);
    // With a `never` that holds, the whole (infinite) space is needed: the bound decides.
    let both = check_system(&loaded.program, 0, &[0, 1], &options, &Progress::default());
    assert_eq!(both.results[0].outcome, Outcome::Holds);
    assert!(matches!(both.results[1].outcome, Outcome::Unknown(_)));
    assert!(
        both.states <= 2_000 && both.states > 1_990,
        "{}",
        both.states
    );
}
