//! The fixed property shapes are sugar for `ltl` formulas: every `never`, `reachable`,
//! `eventually`, `always eventually` and `leads to` of the bundled models and of
//! tests/props/*.pi is checked a second time through its formula
//! ([`agentpi_ir::ltl::of_property`]), and both must agree: the same verdict, and for the
//! shortest-path shapes (`never`, and `reachable`, which holds exactly when `[] not P` is
//! violated) the same trace.

use agentpi_check::{CheckResult, Options, Outcome, Progress, check_system};
use agentpi_ir::core::{CheckDef, Program, Property, StateCheck};
use agentpi_ir::{Loaded, MemoryLoader, load};
use std::path::{Path, PathBuf};

fn pi_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "pi"))
        .collect();
    files.sort();
    files
}

/// Every file of `dir`, by its name without `.pi` (what `import` names).
fn loader(dir: &Path) -> MemoryLoader {
    let files = pi_files(dir)
        .iter()
        .map(|p| {
            let name = p.file_stem().unwrap().to_string_lossy().to_string();
            (name, std::fs::read_to_string(p).unwrap())
        })
        .collect();
    MemoryLoader { files }
}

fn run(program: &Program, check: usize) -> CheckResult {
    let c = &program.checks[check];
    let report = check_system(
        program,
        c.system,
        &[check],
        &Options::default(),
        &Progress::default(),
    );
    report
        .results
        .into_iter()
        .find(|r| r.property == c.text)
        .expect("a result for the check")
}

/// The check `c` of `program` and the same through its formula: (fixed, formula).
fn both(program: &Program, c: usize) -> Option<(CheckResult, CheckResult)> {
    let check = &program.checks[c];
    let formula = agentpi_ir::ltl::of_property(&check.property)?;
    if matches!(check.property, Property::Ltl(_)) {
        return None;
    }
    let mut twin = program.clone();
    twin.checks.push(CheckDef {
        property: Property::Ltl(formula),
        text: format!("ltl of {}", check.text),
        ..check.clone()
    });
    let last = twin.checks.len() - 1;
    Some((run(program, c), run(&twin, last)))
}

/// What the formula's verdict must be for the fixed shape's `verdict`.
fn expected(property: &Property, verdict: &Outcome) -> Outcome {
    match (property, verdict) {
        (Property::Reachable(_), Outcome::Holds) => Outcome::Violated,
        (Property::Reachable(_), Outcome::Violated) => Outcome::Holds,
        (Property::State(StateCheck::Reachable, _), Outcome::Holds) => Outcome::Violated,
        (Property::State(StateCheck::Reachable, _), Outcome::Violated) => Outcome::Holds,
        (_, v) => v.clone(),
    }
}

/// Checks every fixed shape of one loaded model; returns how many were compared.
fn compare(name: &str, loaded: &Loaded) -> usize {
    assert!(!loaded.has_errors(), "{name}: {:?}", loaded.diagnostics);
    let program = &loaded.program;
    let mut compared = 0;
    for c in 0..program.checks.len() {
        let Some((fixed, formula)) = both(program, c) else {
            continue;
        };
        let check = &program.checks[c];
        let what = format!("{name}: {}", check.text);
        assert_eq!(
            formula.outcome,
            expected(&check.property, &fixed.outcome),
            "{what}"
        );
        if matches!(check.property, Property::Never(_) | Property::Reachable(_)) {
            assert_eq!(formula.trace, fixed.trace, "{what}: the shortest trace");
        }
        if let (Property::State(..), Some(path), Some(run)) =
            (&check.property, &fixed.trace, &formula.trace)
        {
            // The formula's run reads the state as the source of its next step: the path
            // into the state is a prefix of it, one step shorter or as long (a stuck state).
            let n = path.steps.len();
            assert_eq!(path.steps[..], run.steps[..n], "{what}: the shortest path");
            assert!(run.steps.len() <= n + 1, "{what}: one step past the state");
        }
        assert_eq!(
            formula.trace.is_some(),
            formula.outcome == Outcome::Violated,
            "{what}: a counterexample exactly when violated"
        );
        compared += 1;
    }
    compared
}

#[test]
fn bundled_models_agree_with_their_formulas() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../models");
    let loader = loader(&dir);
    let compared: usize = loader
        .files
        .iter()
        .map(|(name, _)| compare(name, &load(name, &loader)))
        .sum();
    assert!(compared >= 25, "{compared}");
}

#[test]
fn property_tests_agree_with_their_formulas() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/props");
    let compared: usize = pi_files(&dir)
        .iter()
        .map(|path| {
            let name = path.display().to_string();
            let text = std::fs::read_to_string(path).unwrap();
            compare(&name, &agentpi_ir::load_str(&name, &text))
        })
        .sum();
    assert!(compared >= 30, "{compared}");
}

/// State predicates (`never`, `reachable`, `always` over states) agree with `ltl [] not P`
/// and `ltl [] P`, whose atoms read each step's source state.
#[test]
fn state_predicates_agree_with_their_formulas() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../cli/tests/modeller");
    let compared: usize = ["mutex.pi", "queue.pi"]
        .iter()
        .map(|file| {
            let path = dir.join(file);
            let name = path.display().to_string();
            let text = std::fs::read_to_string(&path).unwrap();
            compare(&name, &agentpi_ir::load_str(&name, &text))
        })
        .sum();
    assert!(compared >= 8, "{compared}");
}
