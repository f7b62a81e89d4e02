//! Property verdicts, data-driven: every `check` in tests/props/*.pi carries its expected
//! verdict in a comment (`//~ holds`, `//~ violated`), which the checker must give with and
//! without partial-order and symmetry reduction. Every result is then re-checked by the
//! oracle of tests/oracle, which shares no code with the checker: each counterexample (and
//! each `reachable` witness, and the trace of a failed assertion) is walked again through
//! the semantics and must falsify its property by the property's definition, a loop of a `fair`
//! check must be weakly fair (of a `strong fair` check, strongly fair), and without reductions a
//! safety trace must be shortest; each verdict is also decided again by brute force on the oracle's
//! own state space (safety shapes by distance, the liveness shapes and `ltl` by an atom automaton,
//! `[] (A -> f)` whose `A` binds values from each step that matches `A`; under `strong fair` by
//! decomposing its components). Tampered traces show that the oracle rejects what is no evidence.

mod oracle;

use agentpi_check::{CheckResult, Options, Outcome, Progress, Trace, check_system};
use agentpi_ir::core::{CheckDef, Program, Property};
use agentpi_semantics::Semantics;
use oracle::confirm::{Claim, Evidence, confirm};
use oracle::decide::{Fairness, ltl_holds, shortest_deadlock, shortest_match};
use oracle::formula::{Atom, Formula};
use oracle::lts::Lts;
use oracle::strong::{confirm_strong, held};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

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

fn load(file: &Path) -> Program {
    let text = std::fs::read_to_string(file).unwrap();
    let loaded = agentpi_ir::load_str(&file.display().to_string(), &text);
    assert!(
        !loaded.has_errors(),
        "{}: {:?}",
        file.display(),
        loaded.diagnostics
    );
    loaded.program
}

fn prop_files() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/props");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    assert!(files.len() >= 4);
    files
}

/// Checks property `i` of `program` alone; with `(por, symmetry)`, under partial-order and
/// symmetry reduction (which must give the same verdicts). Returns the check's result and
/// the implicit `assertions` result, if any.
fn run_check(program: &Program, i: usize, (por, symmetry): (bool, bool)) -> Vec<CheckResult> {
    let c = &program.checks[i];
    let options = Options {
        por,
        symmetry,
        ..Options::default()
    };
    let report = check_system(program, c.system, &[i], &options, &Progress::default());
    report.results
}

/// What the oracle confirmed, by kind, over the whole test.
#[derive(Default, Debug)]
struct Tally(BTreeMap<String, usize>);

impl Tally {
    fn add(&mut self, kind: impl Into<String>) {
        *self.0.entry(kind.into()).or_default() += 1;
    }

    fn at_least(&self, kind: &str, n: usize) {
        let got = self.0.get(kind).copied().unwrap_or(0);
        assert!(got >= n, "only {got} {kind} (want {n}): {self:?}");
    }
}

/// The four ways every file is checked: (partial-order reduction, symmetry reduction).
const REDUCTIONS: [(bool, bool); 4] = [(false, false), (true, false), (false, true), (true, true)];

#[test]
fn verdicts_match_the_annotations_and_the_evidence_holds() {
    let mut tally = Tally::default();
    for file in prop_files() {
        let program = load(&file);
        let sem = Semantics::new(&program);
        let expected = expected_verdicts(&std::fs::read_to_string(&file).unwrap());
        assert_eq!(program.checks.len(), expected.len(), "{}", file.display());
        for (i, want) in expected.iter().enumerate() {
            let c = &program.checks[i];
            for reductions in REDUCTIONS {
                let name = format!(
                    "{} (por, symmetry: {reductions:?})",
                    name(&file, &program, i)
                );
                let results = run_check(&program, i, reductions);
                let result = results
                    .iter()
                    .find(|r| r.property == c.text)
                    .expect("a result");
                assert_eq!(word(&result.outcome), want, "{name}");
                for r in &results {
                    tally.add(confirmed(&sem, c, r).unwrap_or_else(|why| {
                        panic!(
                            "{name}: the {} trace is no evidence: {why}\n{:#?}",
                            r.property, r.trace
                        )
                    }));
                }
            }
        }
    }
    tally.at_least("Path", 30);
    tally.at_least("Witness", 30);
    tally.at_least("Stuck", 8);
    tally.at_least("Loop { fair: false }", 8);
    tally.at_least("Loop { fair: true }", 2);
    tally.at_least("BadPrefix", 5);
    // tests/props/state.pi, seven checks under four reductions.
    tally.at_least("refused", 28);
}

/// The oracle reads labels only: a property over states, as a state property or inside
/// `ltl`, is refused with a reason rather than read wrong or panicked on; the label property
/// of the same file is read.
#[test]
fn the_oracle_refuses_properties_over_states_with_a_reason() {
    let program = load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/props/state.pi"));
    let read: Vec<Result<String, String>> = (program.checks.iter())
        .map(|c| Claim::of(&c.property).map(|claim| format!("{claim:?}")))
        .collect();
    let refused = read
        .iter()
        .filter(|r| r.as_ref().is_err_and(|e| e == oracle::formula::REFUSED));
    assert_eq!(refused.count(), 7, "{read:#?}");
    assert!(
        read[7].as_ref().is_ok_and(|c| c.starts_with("Eventually")),
        "{read:#?}"
    );
}

/// What the oracle confirmed `result` (of check `c`, or the implicit `assertions`) as.
fn confirmed(sem: &Semantics<'_>, c: &CheckDef, result: &CheckResult) -> Result<String, String> {
    let claim = match result.property == c.text {
        true => match Claim::of(&c.property) {
            Ok(claim) => claim,
            Err(_) => return Ok("refused".into()),
        },
        false => Claim::Assertions,
    };
    let evidence = confirm(sem, c.system, (&claim, c.fair), result)?;
    if c.strong && result.property == c.text {
        confirm_strong(sem, c, result)?;
    }
    Ok(evidence.map_or("nothing".into(), |e| format!("{e:?}")))
}

/// The oracle's own verdict of check `c` (whether it holds), and for a safety shape the
/// length of a shortest trace; an error when the brute force does not take the formula.
fn brute_force(
    sem: &Semantics<'_>,
    lts: &Lts,
    program: &Program,
    c: usize,
) -> Result<(bool, Option<usize>), String> {
    let check = &program.checks[c];
    let atom = |p: &agentpi_ir::core::LabelPattern| Atom::Pattern(p.clone());
    Ok(match &check.property {
        Property::DeadlockFree => {
            let shortest = shortest_deadlock(sem, lts);
            (shortest.is_none(), shortest)
        }
        Property::Never(p) => {
            let shortest = shortest_match(sem, lts, &atom(p));
            (shortest.is_none(), shortest)
        }
        Property::Reachable(p) => {
            let shortest = shortest_match(sem, lts, &atom(p));
            (shortest.is_some(), shortest)
        }
        property => {
            let formula = Formula::of_property(property).expect("a liveness shape or `ltl`");
            let held = held(sem, check);
            let fairness = match check.strong {
                true => Fairness::Strong(&held),
                false => check.fair.into(),
            };
            (ltl_holds(sem, lts, &formula, fairness)?, None)
        }
    })
}

/// How a failure names check `c`.
fn name(file: &Path, program: &Program, c: usize) -> String {
    let check = &program.checks[c];
    let system = &program.systems[check.system].name;
    format!("{}: {system}: {}", file.display(), check.text)
}

#[test]
fn the_brute_force_gives_every_verdict_and_safety_traces_are_shortest() {
    let (mut decided, mut strong) = (0, 0);
    // The modeller's retransmission (its verdicts pinned by crates/cli/tests/modeller.rs).
    let modeller =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../cli/tests/modeller/retransmit.pi");
    for file in prop_files().into_iter().chain([modeller]) {
        let program = load(&file);
        let sem = Semantics::new(&program);
        let mut spaces: BTreeMap<usize, Lts> = BTreeMap::new();
        for (i, c) in program.checks.iter().enumerate() {
            let name = name(&file, &program, i);
            if Claim::of(&c.property).is_err() {
                continue;
            }
            let lts = spaces.entry(c.system).or_insert_with(|| {
                Lts::explore(&sem, c.system, 100_000).unwrap_or_else(|e| panic!("{name}: {e}"))
            });
            let results = run_check(&program, i, (false, false));
            let result = results
                .iter()
                .find(|r| r.property == c.text)
                .expect("a result");
            let (holds, shortest) =
                brute_force(&sem, lts, &program, i).unwrap_or_else(|e| panic!("{name}: {e}"));
            let verdict = if holds { "holds" } else { "violated" };
            assert_eq!(
                word(&result.outcome),
                verdict,
                "{name}: the brute force disagrees"
            );
            if let (Some(n), Some(trace)) = (shortest, &result.trace) {
                assert_eq!(trace.steps.len(), n, "{name}: the trace is not shortest");
            }
            decided += 1;
            strong += usize::from(c.strong);
        }
    }
    assert!(decided >= 110, "{decided} checks");
    // 21 of tests/props, 10 of the modeller's.
    assert_eq!(strong, 31, "`strong fair` checks decided");
}

/// The result of `check SYSTEM: TEXT` in tests/props/FILE, with what confirming it needs.
struct Found {
    program: Program,
    check: usize,
    result: CheckResult,
}

fn found(file: &str, system: &str, text: &str) -> Found {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/props")
        .join(file);
    let program = load(&path);
    let system = program.system(system).expect("the system");
    let check = (program.checks.iter())
        .position(|c| c.system == system && c.text == text)
        .expect("the check");
    let result = run_check(&program, check, (false, false)).remove(0);
    assert_eq!(result.property, text);
    Found {
        program,
        check,
        result,
    }
}

impl Found {
    /// Why the oracle rejects `tamper`ed evidence as evidence of `claim` (by default the
    /// check's own property and fairness).
    fn rejected(&self, claim: Option<(Claim, bool)>, tamper: impl Fn(&mut Trace)) -> String {
        let c = &self.program.checks[self.check];
        let sem = Semantics::new(&self.program);
        let own = confirm(
            &sem,
            c.system,
            (&Claim::of(&c.property).expect("labels only"), c.fair),
            &self.result,
        );
        assert!(own.is_ok(), "{}: untampered: {own:?}", c.text);
        let (claim, fair) =
            claim.unwrap_or_else(|| (Claim::of(&c.property).expect("labels only"), c.fair));
        let mut result = self.result.clone();
        tamper(result.trace.as_mut().expect("a trace"));
        match confirm(&sem, c.system, (&claim, fair), &result) {
            Ok(evidence) => panic!("{}: tampered evidence accepted as {evidence:?}", c.text),
            Err(why) => why,
        }
    }
}

fn rejects(found: &Found, claim: Option<(Claim, bool)>, tamper: impl Fn(&mut Trace), why: &str) {
    let got = found.rejected(claim, tamper);
    assert!(got.contains(why), "rejected for: {got}\nnot for: {why}");
}

fn relabel(trace: &mut Trace, step: usize, label: &str) {
    trace.steps[step].label = label.to_string();
}

/// The oracle can fail: tampered traces are not evidence, each for the reason it says.
#[test]
fn the_oracle_rejects_what_is_no_evidence() {
    let deadlock = found("families.pi", "Table", "deadlock free");
    rejects(
        &deadlock,
        None,
        |t| drop(t.steps.pop()),
        "its last state has a transition",
    );
    let never = found("liveness.pi", "Both", "never step");
    rejects(
        &never,
        None,
        |t| relabel(t, 0, "done"),
        "does not match the pattern",
    );
    rejects(
        &never,
        None,
        |t| t.steps[0].actors = vec!["Spinner".into()],
        "no transition",
    );
    let witness = found("liveness.pi", "Loop", "reachable done");
    rejects(
        &witness,
        None,
        |t| relabel(t, 0, "step"),
        "does not match the pattern",
    );
    // A loop that starves an instance enabled all along is no evidence under `fair`.
    let unfair = found("fairness.pi", "Race", "eventually finished");
    let fair = Claim::of(&unfair.program.checks[unfair.check].property).unwrap();
    rejects(&unfair, Some((fair, true)), |_| {}, "the loop is not fair");
    let lasso = found("fairness.pi", "Peterson", "always eventually enter(0)");
    rejects(&lasso, None, |t| t.loop_start = Some(1), "does not return");
    let stuck = found("liveness.pi", "Loop", "always eventually step");
    rejects(&stuck, None, |t| drop(t.steps.pop()), "not maximal");
    let eventually_done = found("ltl.pi", "Loop", "ltl <> done");
    let always_step = Claim::Ltl(oracle::formula::always(Formula::Atom(Atom::Text(
        "step".into(),
    ))));
    rejects(
        &eventually_done,
        Some((always_step, false)),
        |_| {},
        "holds on the run",
    );
    // After `call(reply)` alone some continuation satisfies the formula.
    let prefix = found("ltl.pi", "Answers", "ltl [] (call(r) -> X [] not r(_))");
    rejects(&prefix, None, |t| drop(t.steps.pop()), "not false after it");
    // Fresh channels: one name for one channel, numbered in order of first appearance.
    let fresh = found("leadsto.pi", "Reliable", "call(_, x) leads to reply(2)");
    let swap = |t: &mut Trace| {
        for s in &mut t.steps {
            s.label = s
                .label
                .replace("#1", "#3")
                .replace("#2", "#1")
                .replace("#3", "#2");
        }
    };
    rejects(&fresh, None, swap, "not numbered in order");
    rejects(
        &fresh,
        None,
        |t| relabel(t, 3, "reply#1(1)"),
        "names two channels",
    );
    let bare = |t: &mut Trace| {
        t.steps
            .iter_mut()
            .for_each(|s| s.label = s.label.replace("#2", ""))
    };
    rejects(&fresh, None, bare, "bare");
}

/// The strong fairness re-check can fail: the loop that loses every copy is strongly fair
/// to the receiver (never enabled there) and the sender (moving), not to the channel (able
/// to take a copy at every step, taking none).
#[test]
fn the_oracle_rejects_a_loop_unfair_to_a_channel() {
    let lossy = found(
        "lasso.pi",
        "Retransmit",
        "strong fair(Receiver, Sender(0)) eventually delivered",
    );
    let sem = Semantics::new(&lossy.program);
    let own = &lossy.program.checks[lossy.check];
    assert_eq!(confirm_strong(&sem, own, &lossy.result), Ok(()));
    let every = (lossy.program.checks.iter())
        .find(|c| c.text == "strong fair eventually delivered")
        .expect("the check");
    let why = confirm_strong(&sem, every, &lossy.result).expect_err("unfair to `link`");
    assert!(why.contains("not strongly fair: [Declared(0)]"), "{why}");
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
    let sem = Semantics::new(&loaded.program);
    let confirmed = confirm(&sem, system, (&Claim::Assertions, false), assertions);
    assert_eq!(confirmed, Ok(Some(Evidence::Path)));
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

/// Reads the bundled models and their imports from the repository's `models/`.
struct Bundled;

impl agentpi_ir::Loader for Bundled {
    fn read(&self, name: &str, importer: Option<&str>) -> Result<(String, String), String> {
        let models = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../models");
        let path = match importer {
            None => PathBuf::from(name),
            Some(_) => models.join(format!("{name}.pi")),
        };
        let text =
            std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        Ok((path.display().to_string(), text))
    }
}

/// The bundled models (`models/**/*.pi`), in a fixed order.
fn bundled_files() -> Vec<PathBuf> {
    let models = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../models");
    let mut files = Vec::new();
    for entry in std::fs::read_dir(&models).unwrap() {
        let path = entry.unwrap().path();
        match path.is_dir() {
            true => files.extend(std::fs::read_dir(&path).unwrap().map(|e| e.unwrap().path())),
            false => files.push(path),
        }
    }
    files.retain(|p| p.extension().is_some_and(|e| e == "pi"));
    files.sort();
    files
}

/// The oracle on the bundled models too: every counterexample and witness the checker gives
/// for a check of `models/` is evidence by the property's definition, and every verdict is
/// decided again by brute force (their expected verdicts, reasoned by hand, are checked
/// through the binary by crates/cli/tests/verdicts.rs).
#[test]
fn the_bundled_models_evidence_holds_and_the_brute_force_agrees() {
    let (mut decided, mut beyond) = (0, Vec::new());
    for file in bundled_files() {
        let loaded = agentpi_ir::load(&file.display().to_string(), &Bundled);
        assert!(
            !loaded.has_errors(),
            "{}: {:?}",
            file.display(),
            loaded.diagnostics
        );
        let program = loaded.program;
        let sem = Semantics::new(&program);
        let mut spaces: BTreeMap<usize, Lts> = BTreeMap::new();
        for (i, c) in program.checks.iter().enumerate() {
            let name = name(&file, &program, i);
            let results = run_check(&program, i, (false, false));
            for r in &results {
                confirmed(&sem, c, r).unwrap_or_else(|why| {
                    panic!("{name}: the {} trace is no evidence: {why}", r.property)
                });
            }
            let lts = spaces.entry(c.system).or_insert_with(|| {
                Lts::explore(&sem, c.system, 100_000).unwrap_or_else(|e| panic!("{name}: {e}"))
            });
            let (holds, shortest) = match brute_force(&sem, lts, &program, i) {
                Ok(decided) => decided,
                // The tableau follows no values: a binding below the top is beyond it. The
                // explorer's verdict on such a check still had its evidence re-checked above.
                Err(why) if why.contains("below the top") => {
                    beyond.push(name);
                    continue;
                }
                Err(why) => panic!("{name}: {why}"),
            };
            let result = results.iter().find(|r| r.property == c.text).unwrap();
            let verdict = if holds { "holds" } else { "violated" };
            assert_eq!(
                word(&result.outcome),
                verdict,
                "{name}: the brute force disagrees"
            );
            if let (Some(n), Some(trace)) = (shortest, &result.trace) {
                assert_eq!(trace.steps.len(), n, "{name}: the trace is not shortest");
            }
            decided += 1;
        }
    }
    assert_eq!(
        decided, 190,
        "every check of models/ but those beyond the tableau"
    );
    // FIXME: the one check the brute force cannot decide (its `e` is bound under `[]`); its
    // verdict rests on the explorer alone, with its evidence re-checked.
    assert_eq!(beyond.len(), 1, "{beyond:?}");
    assert!(
        beyond[0].contains("mcp/bridge.pi: ModernBridged: ltl"),
        "{beyond:?}"
    );
}
