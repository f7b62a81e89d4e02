//! The verdict and the lasso printed of a liveness check must be the same whatever the
//! thread count (exploration is parallel; so are the products of `leads to` and `ltl`, built
//! level by level, and the reading of the components found), on products of many thousands
//! of nodes.

use agentpi_check::{Options, Outcome, Progress, check_system};
use agentpi_ir::{MemoryLoader, load_with};
use std::path::Path;

/// Checks `property` of `system` in `file` (with `-D N=n`) on 1, 2 and 3 threads: the same
/// outcome, `expected`, and the same counterexample each time.
fn check(file: &str, n: usize, system: &str, property: &str, expected: Outcome) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let text = std::fs::read_to_string(root.join(file)).unwrap();
    let text = format!("{text}\ncheck {system}: {property}\n");
    let loader = MemoryLoader {
        files: vec![(file.to_string(), text)],
    };
    let loaded = load_with(file, &loader, &[("N".to_string(), n.to_string())]);
    assert!(!loaded.has_errors(), "{:?}", loaded.diagnostics);
    let program = &loaded.program;
    let sys = program.systems.iter().position(|s| s.name == system);
    let sys = sys.expect("the system");
    let last = program.checks.len() - 1;
    let runs: Vec<_> = [1, 2, 3]
        .into_iter()
        .map(|threads| {
            let options = Options {
                threads,
                ..Options::default()
            };
            let report = check_system(program, sys, &[last], &options, &Progress::default());
            let result = report.results.last().expect("the check's result").clone();
            (report.states, result.outcome, format!("{:?}", result.trace))
        })
        .collect();
    assert_eq!(runs[0].1, expected, "{property}");
    assert!(
        runs[0].0 > 5_000,
        "{} states: too few for several chunks",
        runs[0].0
    );
    for run in &runs[1..] {
        assert_eq!(run, &runs[0], "{property}: 1 thread against more");
    }
}

#[test]
fn leads_to_products_are_the_same_on_any_number_of_threads() {
    let file = "models/philosophers.pi";
    check(
        file,
        8,
        "Fixed",
        "take[0] leads to eat(1)",
        Outcome::Violated,
    );
    // Philosopher 0 may wait forever for fork 0 while the others eat: a weakly fair lasso.
    check(
        file,
        8,
        "Fixed",
        "fair take[0] leads to eat(0)",
        Outcome::Violated,
    );
    check(
        file,
        8,
        "Fixed",
        "strong fair take[0] leads to eat(0)",
        Outcome::Holds,
    );
    check(
        file,
        8,
        "Table",
        "take[2] leads to put[2]",
        Outcome::Violated,
    );
}

#[test]
fn ltl_products_are_the_same_on_any_number_of_threads() {
    let file = "models/philosophers.pi";
    check(file, 8, "Fixed", "ltl [] <> eat(_)", Outcome::Holds);
    check(
        file,
        8,
        "Fixed",
        "ltl [] (take[0] -> <> eat(0))",
        Outcome::Violated,
    );
    check(file, 8, "Fixed", "fair ltl [] <> eat(1)", Outcome::Violated);
    // Only the nodes past `<>` can lie on an accepting cycle: the search reads those.
    check(file, 8, "Fixed", "fair ltl [] <> eat(0)", Outcome::Violated);
    check(
        file,
        8,
        "Fixed",
        "strong fair ltl [] <> eat(0)",
        Outcome::Holds,
    );
    // Bits pending on cycles of the automaton (`[] <> put[1]` unmet until a `put[1]`): the
    // nodes past `[] not take[1]` cycle, with no `put[1]` on any of their cycles, and the
    // trimming before the cycle search takes every one of them off (see `product/peel.rs`).
    check(
        file,
        8,
        "Fixed",
        "ltl ([] <> put[1]) -> ([] <> take[1])",
        Outcome::Holds,
    );
    // Two bits: components that clear both, and components that clear only one, which the
    // trimming takes off.
    check(
        file,
        8,
        "Fixed",
        "ltl (<> [] not eat(0)) or ([] <> eat(1) and [] <> eat(2))",
        Outcome::Violated,
    );
    // `->` binds `x`: the environments are numbered as the product is built.
    check(
        file,
        8,
        "Fixed",
        "ltl [] (eat(x) -> X <> eat(x))",
        Outcome::Violated,
    );
    check(
        file,
        8,
        "Table",
        "fair ltl [] (take[2] -> <> put[2])",
        Outcome::Violated,
    );
}

/// Strong fairness of a selection (every instance weakly fair): the parts of the accepting
/// components, judged a generation at a time on the threads (see `strong.rs`), leave some
/// fair, and the lasso is chosen among them as on one thread.
#[test]
fn strong_fairness_parts_are_the_same_on_any_number_of_threads() {
    let file = "models/philosophers.pi";
    check(
        file,
        8,
        "Fixed",
        "strong fair(Phil(1)) take[0] leads to eat(0)",
        Outcome::Violated,
    );
    check(
        file,
        8,
        "Fixed",
        "strong fair(take) ltl [] <> eat(0)",
        Outcome::Violated,
    );
}
