//! A cluster gives exactly what one process gives: for every bundled model's safety checks,
//! the same states, transitions, depth, verdicts and counterexamples (the whole report but
//! the bytes held) with 1, 2 and 4 workers.

use agentpi_check::parts::is_safety;
use agentpi_check::{CheckResult, Options, Progress, SystemReport};
use agentpi_cluster::{Cluster, Groups};
use agentpi_ir::Loaded;
use agentpi_ir::core::Program;
use agentpi_semantics::State;
use std::path::Path;

#[path = "../../check/tests/common/mod.rs"]
mod common;
#[path = "../../check/tests/disk/mod.rs"]
mod disk;
#[path = "../../check/tests/generated/mod.rs"]
mod generated;
use disk::{Disk, workspace};

/// Each system's safety checks.
fn safety_groups(program: &Program) -> Groups {
    let mut groups: Groups = Vec::new();
    for (c, check) in program.checks.iter().enumerate() {
        if !is_safety(&check.property) {
            continue;
        }
        match groups.iter_mut().find(|(s, _)| *s == check.system) {
            Some((_, list)) => list.push(c),
            None => groups.push((check.system, vec![c])),
        }
    }
    groups
}

/// What must be the same: everything but the bytes held and the engine's own counters
/// (the traces' states compared apart, being long to print).
fn essence(r: &SystemReport) -> (String, Vec<Option<Vec<State>>>) {
    let result = |c: &CheckResult| {
        let steps = c.trace.as_ref().map(|t| (&t.steps, t.loop_start));
        let at = c.fault.as_ref().map(|f| (&f.kind, f.span));
        format!(
            "  {}: {:?} {:?} {at:?} stuck {} {:?}",
            c.property, c.outcome, steps, c.stuck, c.blocked
        )
    };
    let results: Vec<String> = r.results.iter().map(result).collect();
    let text = format!(
        "{}: {} states, {} transitions, depth {}, expanded {}, end {:?}, limit {:?}\n{}",
        r.system,
        r.states,
        r.transitions,
        r.depth,
        r.expanded,
        r.end,
        r.limit,
        results.join("\n")
    );
    let states = r
        .results
        .iter()
        .map(|c| c.trace.as_ref().map(|t| t.states.clone()));
    (text, states.collect())
}

type Essence = (String, Vec<Option<Vec<State>>>);

fn single(program: &Program, groups: &Groups, options: &Options) -> Vec<Essence> {
    let progress = Progress::default();
    let report = |(s, c): &(usize, Vec<usize>)| {
        essence(&agentpi_check::check_system(
            program, *s, c, options, &progress,
        ))
    };
    groups.iter().map(report).collect()
}

fn clustered(
    program: &Program,
    groups: &Groups,
    workers: usize,
    max_states: Option<usize>,
) -> Vec<Essence> {
    let cluster = Cluster {
        hosts: None,
        process: 0,
        workers,
        max_memory: None,
        max_states,
    };
    let reports = agentpi_cluster::check(program.clone(), groups.clone(), &cluster)
        .unwrap()
        .expect("process 0 reports");
    reports.iter().map(essence).collect()
}

/// The one check of this file: `program`'s safety checks give the same reports on one
/// process and on 1, 2 and 4 workers, with `--max-states` `max_states`; for how many
/// systems, and how many of them stopped at the bound.
fn same(name: &str, program: &Program, max_states: Option<usize>) -> (usize, usize) {
    let groups = safety_groups(program);
    if groups.is_empty() {
        return (0, 0);
    }
    let options = Options {
        threads: 2,
        max_states,
        ..Options::default()
    };
    let expected = single(program, &groups, &options);
    for workers in [1, 2, 4] {
        let got = clustered(program, &groups, workers, max_states);
        for (e, g) in expected.iter().zip(&got) {
            assert_eq!(e.0, g.0, "{name}, {workers} workers");
            assert!(
                e.1 == g.1,
                "{name}, {workers} workers: the traces' states differ"
            );
        }
    }
    let bounded = expected
        .iter()
        .filter(|e| e.0.contains("limit Some(States"));
    (groups.len(), bounded.count())
}

fn load(path: &Path) -> Loaded {
    agentpi_ir::load(&path.display().to_string(), &Disk)
}

/// Every bundled model's file, in order.
fn bundled() -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    let mut dirs = vec![workspace().join("models")];
    while let Some(dir) = dirs.pop() {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            match p.is_dir() {
                true => dirs.push(p),
                false if p.extension().is_some_and(|x| x == "pi") => files.push(p),
                false => {}
            }
        }
    }
    files.sort();
    files
}

#[test]
fn every_bundled_model_gives_the_single_process_reports() {
    let files = bundled();
    let mut systems = 0;
    for path in &files {
        let loaded = load(path);
        assert!(!loaded.has_errors(), "{}", path.display());
        systems += same(&path.display().to_string(), &loaded.program, None).0;
    }
    assert!(systems >= 10, "only {systems} systems with safety checks");
}

/// With `--max-states`, a cluster stops where one process stops: before the source whose
/// new states pass the bound, with the same counts, verdicts and counterexamples. Every
/// bundled model, at bounds that cut its levels at many places.
#[test]
fn max_states_stops_where_one_process_stops() {
    let (mut systems, mut bounded) = (0, 0);
    for path in bundled() {
        let loaded = load(&path);
        for max in [1, 2, 7, 40, 333] {
            let name = format!("{} --max-states {max}", path.display());
            let (s, b) = same(&name, &loaded.program, Some(max));
            systems += s;
            bounded += b;
        }
    }
    assert!(
        bounded >= 40,
        "only {bounded} of {systems} runs stopped at the bound"
    );
}

/// The differential suite's generated programs, with a `never` and a `reachable` check added
/// (as it adds them for partial-order reduction), with `--max-states 3000` (which some
/// pass).
#[test]
fn generated_programs_give_the_single_process_reports() {
    let mut compared = 0;
    for seed in 1..=60 {
        let text = generated::program(seed) + "check S: never e\ncheck S: reachable f(1)\n";
        let loaded = agentpi_ir::load_str("generated.pi", &text);
        if loaded.has_errors() {
            continue;
        }
        compared += same(
            &format!("seed {seed}:\n{text}"),
            &loaded.program,
            Some(3000),
        )
        .0;
    }
    assert!(
        compared >= 30,
        "only {compared} generated programs compared"
    );
}

/// Flow control: with one-byte chunks (every source with a successor for another worker
/// ships a chunk) and a credit of one (no worker ships a chunk before every earlier one is
/// delivered), four workers still give the single-process reports, and no worker ever had
/// more than its credit of chunks on their way.
#[test]
fn a_credit_of_one_chunk_bounds_what_is_in_flight_and_changes_nothing() {
    let flow = agentpi_cluster::Flow {
        chunk: 1,
        credit: 1,
    };
    let mut shipped = 0;
    for path in bundled() {
        let loaded = load(&path);
        let groups = safety_groups(&loaded.program);
        if groups.is_empty() {
            continue;
        }
        let options = Options {
            threads: 2,
            ..Options::default()
        };
        let expected = single(&loaded.program, &groups, &options);
        let cluster = Cluster {
            hosts: None,
            process: 0,
            workers: 4,
            max_memory: None,
            max_states: None,
        };
        let (reports, traffic) =
            agentpi_cluster::check_with(loaded.program.clone(), groups.clone(), &cluster, flow)
                .unwrap();
        let got: Vec<Essence> = reports.unwrap().iter().map(essence).collect();
        for (e, g) in expected.iter().zip(&got) {
            assert_eq!(e.0, g.0, "{}", path.display());
            assert!(e.1 == g.1, "{}: the traces' states differ", path.display());
        }
        assert!(
            traffic.most_unconfirmed <= 1,
            "{}: {traffic:?}",
            path.display()
        );
        shipped += traffic.shipped;
    }
    assert!(shipped >= 1000, "only {shipped} chunks shipped");
}
