//! agentpi against SPIN, an oracle independent of agentpi's semantics: each pair of
//! tests/spin/ is one model written twice (NAME.pi, NAME.pml), and tests/oracle/spin.txt
//! records SPIN's verdict and state count for every `//~ spin` annotation of the `.pi`
//! (written by scripts/spin-oracle.sh, which CI re-runs against SPIN). agentpi must give the
//! same verdict for each, and the state counts must be in the relation docs/oracles.md gives:
//! the same number of states, or the number of (state, label of the step into it) pairs.

use agentpi_check::{Options, Outcome, Progress, check_system, explore_system};
use agentpi_ir::core::Program;
use agentpi_semantics::Semantics;
use std::collections::HashSet;
use std::path::{Path, PathBuf};

const RECORDED: &str = include_str!("oracle/spin.txt");

/// One line of the recorded file: `FILE SYSTEM: PROPERTY => VERDICT, N states (pan FLAGS)`,
/// or `FILE SYSTEM: state space => N states (pan FLAGS)`.
#[derive(Debug)]
struct Recorded {
    file: String,
    system: String,
    property: String,
    verdict: Option<String>,
    states: usize,
}

fn parse_line(line: &str) -> Recorded {
    let (left, right) = line
        .split_once(" => ")
        .expect("FILE SYSTEM: PROPERTY => ...");
    let (file, rest) = left.split_once(' ').expect("FILE SYSTEM: ...");
    let (system, property) = rest.split_once(": ").expect("SYSTEM: PROPERTY");
    let (verdict, count) = match right.split_once(", ") {
        Some((verdict, count)) => (Some(verdict.to_string()), count),
        None => (None, right),
    };
    let states = count
        .split(' ')
        .next()
        .and_then(|n| n.parse().ok())
        .expect("a state count");
    Recorded {
        file: file.to_string(),
        system: system.to_string(),
        property: property.to_string(),
        verdict,
        states,
    }
}

fn recorded() -> Vec<Recorded> {
    RECORDED
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(parse_line)
        .collect()
}

/// How SPIN was run for an annotation (scripts/spin-oracle.sh).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Space,
    Deadlock,
    Assertions,
    Claim,
    Ltl,
}

/// One `//~ spin KIND ...` annotation of a `.pi`.
struct Annotation {
    kind: Kind,
    /// The property as agentpi writes it (`state space` and `assertions` for the two that
    /// are no `check`).
    property: String,
    fair: bool,
    /// `; FIXME agentpi says VERDICT`: a known disagreement, agentpi's verdict until fixed.
    fixme: Option<String>,
}

fn annotation(line: &str) -> Option<Annotation> {
    let (code, comment) = line.split_once("//~")?;
    let spec = comment.trim_start().strip_prefix("spin ")?;
    let (spec, fixme) = match spec.split_once(';') {
        Some((spec, note)) => (spec, Some(note)),
        None => (spec, None),
    };
    let mut words = spec.split_whitespace();
    let kind = match words.next()? {
        "space" => Kind::Space,
        "deadlock" => Kind::Deadlock,
        "assertions" => Kind::Assertions,
        "claim" => Kind::Claim,
        "ltl" => Kind::Ltl,
        other => panic!("unknown annotation `{other}`"),
    };
    let property = match kind {
        Kind::Space => "state space".to_string(),
        Kind::Assertions => "assertions".to_string(),
        _ => {
            let (_, property) = code.split_once(':').expect("check S: PROPERTY");
            property.split_whitespace().collect::<Vec<_>>().join(" ")
        }
    };
    let fixme = fixme.map(|note| {
        let says = note.trim().strip_prefix("FIXME agentpi says ");
        says.expect("; FIXME agentpi says VERDICT")
            .trim()
            .to_string()
    });
    Some(Annotation {
        kind,
        property,
        fair: words.any(|w| w == "fair"),
        fixme,
    })
}

/// The annotations of a `.pi`, in file order.
fn annotations(text: &str) -> Vec<Annotation> {
    text.lines().filter_map(annotation).collect()
}

/// What the state counts are compared with, from agentpi's whole state space: its states,
/// the (state, label of a step into it) pairs with the initial state's own pair (SPIN's
/// states when every step sets `last`), and the states without transitions.
struct Space {
    states: usize,
    pairs: usize,
    terminal: usize,
}

fn space(program: &Program, system: usize) -> Space {
    let sem = Semantics::new(program);
    let graph = explore_system(&sem, system, &Options::default(), &Progress::default())
        .expect("the initial state spawns");
    assert!(graph.is_complete(), "{:?}", graph.end);
    let mut pairs: HashSet<(u32, Option<String>)> = HashSet::from([(0, None)]);
    let mut terminal = 0;
    let faulty: HashSet<u32> = graph.faults.iter().map(|f| f.source).collect();
    for s in 0..graph.state_count() as u32 {
        let edges = graph.successors(s);
        if edges.is_empty() && !faulty.contains(&s) {
            terminal += 1;
        }
        for e in edges {
            let label = sem.label_text(&graph.labels[e.label as usize]);
            // The Promela twins set `last` to the send whether the lossy channel keeps the
            // message or loses it: `c!(v) lost` is `c!(v)` there.
            let label = label.trim_end_matches(" lost").to_string();
            pairs.insert((e.target, Some(label)));
        }
    }
    Space {
        states: graph.state_count(),
        pairs: pairs.len(),
        terminal,
    }
}

fn word(outcome: &Outcome) -> &'static str {
    match outcome {
        Outcome::Holds => "holds",
        Outcome::Violated => "violated",
        Outcome::Unknown(_) => "unknown",
    }
}

/// agentpi's verdict of `property` (a check's text, or `assertions`), the same with and
/// without partial-order and symmetry reduction (which only safety checks use).
fn verdict(program: &Program, system: usize, property: &str) -> String {
    let checks: Vec<usize> = (0..program.checks.len())
        .filter(|&i| program.checks[i].text == property)
        .collect();
    assert!(
        property == "assertions" || checks.len() == 1,
        "no single check `{property}`"
    );
    let verdicts: Vec<&str> = [false, true]
        .into_iter()
        .map(|reduced| {
            let options = Options {
                por: reduced,
                symmetry: reduced,
                ..Options::default()
            };
            let report = check_system(program, system, &checks, &options, &Progress::default());
            let result = report.results.iter().find(|r| r.property == property);
            word(&result.expect("a result for the property").outcome)
        })
        .collect();
    assert_eq!(verdicts[0], verdicts[1], "{property}: reductions change it");
    verdicts[0].to_string()
}

/// Whether SPIN's count is pinned to agentpi's for this run, and to what: the runs that
/// explore the whole state space. Deadlocks and assertions are checked without `last`, so
/// SPIN stores agentpi's states; a claim that holds is checked with `last` and the stutter
/// process, which takes one step from each state without transitions. Other runs stop at the
/// first error, or store the product with a Büchi automaton (compared by verdict only).
fn expected_count(kind: Kind, spin_found_nothing: bool, space: &Space) -> Option<usize> {
    match kind {
        Kind::Space => Some(space.states),
        Kind::Deadlock | Kind::Assertions if spin_found_nothing => Some(space.states),
        Kind::Claim if spin_found_nothing => Some(space.pairs + space.terminal),
        _ => None,
    }
}

/// agentpi's count that SPIN's must equal on this line, if any (see [`expected_count`]).
fn pinned(line: &Recorded, a: &Annotation, space: &Space) -> Option<usize> {
    // A claim for `reachable P` finds nothing when the property is violated.
    let reachable = a.property.starts_with("reachable");
    let nothing = (line.verdict.as_deref()).is_none_or(|verdict| (verdict == "holds") != reachable);
    expected_count(a.kind, nothing, space)
}

/// What the whole suite covered, for its summary assertions.
#[derive(Default, Debug)]
struct Tally {
    checks: usize,
    holds: usize,
    violated: usize,
    fair: usize,
    ltl: usize,
    counts_compared: usize,
    /// Known disagreements, agentpi being wrong (FIXME).
    fixme: usize,
}

impl Tally {
    fn add(&mut self, line: &Recorded, a: &Annotation, space: &Space) {
        self.counts_compared += usize::from(pinned(line, a, space).is_some());
        let Some(spin) = line.verdict.as_deref() else {
            return;
        };
        self.checks += 1;
        self.holds += usize::from(spin == "holds");
        self.violated += usize::from(spin == "violated");
        self.fair += usize::from(a.fair);
        self.ltl += usize::from(a.kind == Kind::Ltl);
        self.fixme += usize::from(a.fixme.is_some());
    }
}

fn pair_files() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/spin");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "pi"))
        .collect();
    files.sort();
    files
}

/// Holds agentpi's verdict to SPIN's; a known disagreement (FIXME) to agentpi's wrong
/// verdict, so that the test fails once it is fixed and the FIXME can go.
fn compare_verdict(name: &str, program: &Program, spin: &str, a: &Annotation) {
    let agentpi = verdict(program, 0, &a.property);
    let property = &a.property;
    match &a.fixme {
        None => assert_eq!(agentpi, spin, "{name}: {property}: agentpi against SPIN"),
        Some(wrong) => {
            assert_ne!(
                wrong, spin,
                "{name}: {property}: the FIXME agrees with SPIN"
            );
            assert_eq!(&agentpi, wrong, "{name}: {property}: fixed? drop the FIXME");
        }
    }
}

/// A pair's `.pi`, loaded: its name, its text and its program (one system).
fn load(file: &Path) -> (String, String, agentpi_ir::Loaded) {
    let name = file.file_name().unwrap().to_string_lossy().to_string();
    assert!(file.with_extension("pml").exists(), "{name} has no twin");
    let text = std::fs::read_to_string(file).unwrap();
    let loaded = agentpi_ir::load_str(&name, &text);
    assert!(!loaded.has_errors(), "{name}: {:?}", loaded.diagnostics);
    assert_eq!(
        loaded.program.systems.len(),
        1,
        "{name}: one system per pair"
    );
    (name, text, loaded)
}

/// Holds one recorded line to agentpi: the verdict, and the state count where it is pinned.
fn check_line(name: &str, program: &Program, space: &Space, line: &Recorded, a: &Annotation) {
    let property = &a.property;
    assert_eq!(line.system, program.systems[0].name, "{name}");
    let spin = line.verdict.as_deref();
    if let Some(spin) = spin {
        compare_verdict(name, program, spin, a);
    }
    if let Some(count) = pinned(line, a, space) {
        let what = format!("{name}: {property}: states, SPIN against agentpi");
        assert_eq!(line.states, count, "{what}");
    }
}

/// Holds one pair to its recorded lines; adds what it checked to `tally`.
fn check_pair(file: &Path, lines: &[&Recorded], tally: &mut Tally) {
    let (name, text, loaded) = load(file);
    let space = space(&loaded.program, 0);
    let wanted = annotations(&text);
    let found: Vec<&str> = lines.iter().map(|l| l.property.as_str()).collect();
    let annotated: Vec<&str> = wanted.iter().map(|a| a.property.as_str()).collect();
    assert_eq!(found, annotated, "{name}: rerun scripts/spin-oracle.sh");
    for (line, a) in lines.iter().zip(&wanted) {
        check_line(&name, &loaded.program, &space, line, a);
        tally.add(line, a, &space);
    }
}

#[test]
fn agentpi_agrees_with_spin_on_every_pair() {
    let recorded = recorded();
    let files = pair_files();
    let mut tally = Tally::default();
    for file in &files {
        let name = file.file_name().unwrap().to_string_lossy();
        let lines: Vec<&Recorded> = recorded.iter().filter(|l| l.file == name).collect();
        check_pair(file, &lines, &mut tally);
    }
    // Every recorded line belongs to a pair that is still here.
    let names: HashSet<String> = files
        .iter()
        .map(|f| f.file_name().unwrap().to_string_lossy().to_string())
        .collect();
    for line in &recorded {
        assert!(names.contains(&line.file), "{}: no such pair", line.file);
    }
    eprintln!("spin oracle: {tally:?}");
    assert!(
        tally.checks >= 30 && tally.holds >= 10 && tally.violated >= 10,
        "{tally:?}"
    );
    assert!(tally.fair >= 5 && tally.ltl >= 10, "{tally:?}");
    assert!(tally.counts_compared >= 20, "{tally:?}");
}

#[test]
fn the_oracle_file_is_read_as_written() {
    let line = parse_line("a.pi S: ltl <> x => violated, 12 states (pan -a -N x)");
    assert_eq!(
        (
            line.file.as_str(),
            line.system.as_str(),
            line.property.as_str()
        ),
        ("a.pi", "S", "ltl <> x")
    );
    assert_eq!(
        (line.verdict.as_deref(), line.states),
        (Some("violated"), 12)
    );
    let space = parse_line("a.pi S: state space => 40 states (pan -E -A)");
    assert_eq!((space.verdict, space.states), (None, 40));
}
