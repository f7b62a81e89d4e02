//! `--max-memory` bounds what a liveness check keeps after exploration too (its product and
//! the cycle search): a bound the exploration fits in but the product does not gives
//! `unknown`, never a verdict, and never a run the system kills.

use agentpi_check::graph::Limit;
use agentpi_check::{Options, Outcome, Progress, SystemReport, check_system};
use agentpi_ir::{MemoryLoader, load_with};
use std::path::Path;

/// Checks `property` of philosophers `Fixed` (N = 7) without bound and with a bound the
/// product fits in (`expected` both times), and with a bound `slack` bytes a state above what
/// exploration keeps (the whole state space explored, the product or its search over it:
/// `unknown`).
fn check(property: &str, expected: Outcome, slack: u64) {
    let outcome = |r: &SystemReport| r.results.last().expect("a result").outcome.clone();
    let (free, roomy, tight, bounded) = runs(property, slack);
    assert_eq!(outcome(&free), expected, "{property}, unbounded");
    assert_eq!(
        outcome(&roomy),
        expected,
        "{property}, bounded by 100 times"
    );
    assert_eq!(
        outcome(&bounded),
        Outcome::Unknown(Limit::Memory(tight)),
        "{property}: the product does not fit in {tight} bytes"
    );
}

/// The runs of [`check`]: without bound, with a roomy bound, and with a bound `slack` bytes
/// a state above what exploration keeps (that bound, and that run, whose exploration fits).
fn runs(property: &str, slack: u64) -> (SystemReport, SystemReport, u64, SystemReport) {
    let file = "models/philosophers.pi";
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let text = std::fs::read_to_string(root.join(file)).unwrap();
    let text = format!("{text}\ncheck Fixed: {property}\n");
    let loader = MemoryLoader {
        files: vec![(file.to_string(), text)],
    };
    let loaded = load_with(file, &loader, &[("N".to_string(), "7".to_string())]);
    assert!(!loaded.has_errors(), "{:?}", loaded.diagnostics);
    let program = &loaded.program;
    let sys = program.systems.iter().position(|s| s.name == "Fixed");
    let sys = sys.expect("the system");
    let last = program.checks.len() - 1;
    let run = |max_memory: Option<u64>| -> SystemReport {
        let options = Options {
            max_memory,
            ..Options::default()
        };
        check_system(program, sys, &[last], &options, &Progress::default())
    };
    let free = run(None);
    // Under a bound the store is weighed as it grows, and keeps a little less.
    let roomy = run(Some(100 * free.bytes));
    let tight = roomy.bytes + slack * roomy.states as u64;
    let bounded = run(Some(tight));
    assert_eq!(
        bounded.limit, None,
        "{property}: exploration fits in {tight} bytes"
    );
    assert_eq!(bounded.states, free.states, "{property}");
    (free, roomy, tight, bounded)
}

/// Every product has a node for each state, and the cycle search 4 bytes a node: 2 bytes a
/// state are too few for any.
#[test]
fn a_liveness_product_past_max_memory_is_unknown() {
    check("always eventually eat(_)", Outcome::Holds, 2);
    check("eventually eat(0)", Outcome::Violated, 2);
    check("take[0] leads to eat(1)", Outcome::Violated, 2);
    check("fair ltl [] <> eat(_)", Outcome::Holds, 2);
}

/// `always eventually` searches the state space itself (no product): 7 bytes a state hold the
/// cycle search's number of each node (4 bytes) but not its path and its stack through the
/// component of states without `eat(0)`, most of them (4 bytes a node on either), with the
/// list of that component's nodes (4 bytes each). Before they were counted, this run went
/// past its bound and answered `violated`.
#[test]
fn the_cycle_search_path_past_max_memory_is_unknown() {
    check("always eventually eat(0)", Outcome::Violated, 7);
}

/// Under strong fairness an accepting component is cut into parts (see `strong.rs`), each
/// searched again with a list of the nodes it keeps (4 bytes a node; a hash set of 16
/// before 2026-12-07, evening): 15 bytes a state hold the first search (from 11) but not
/// those (20 do: the parts of a generation, searched at once on the threads, share what is
/// left in proportion to their nodes; 19 did when each could take all of it). Before they
/// were counted, this run answered `holds`. (Before each part's search numbered only the
/// part's nodes, 2026-12-07, the parts needed more than 20 bytes a state, and this test
/// allowed 20.)
#[test]
fn the_strong_fairness_parts_past_max_memory_are_unknown() {
    check("strong fair take[0] leads to eat(0)", Outcome::Holds, 15);
}

/// `fair ltl [] <> eat(0)` in 14 bytes a state beyond exploration's (4,286 states): the
/// product's monitor state numbers (a byte for each of a state's two nodes), a batch's
/// candidates, and the cycle search's numbers of the nodes that may cycle, those past
/// `[] !eat(0)`, about half of them (4 bytes each, with an index of a bit and a half a node),
/// its path, its stack and the components it finds; then the stem's search, a bit a node and
/// the few nodes it reaches. Before, the cycle search kept 4 bytes of every node (8 a state),
/// the stem's search as many, and the build a whole level's candidates: this bound gave
/// `unknown` up to 15 bytes a state.
#[test]
fn a_liveness_search_decides_within_a_bound_it_fits() {
    let property = "fair ltl [] <> eat(0)";
    let (free, _, tight, bounded) = runs(property, 14);
    let outcome = |r: &SystemReport| r.results.last().expect("a result").outcome.clone();
    assert_eq!(outcome(&free), Outcome::Violated, "{property}, unbounded");
    assert_eq!(
        outcome(&bounded),
        Outcome::Violated,
        "{property}: the product and its search fit in {tight} bytes"
    );
    let trace = |r: &SystemReport| r.results.last().and_then(|r| r.trace.clone());
    assert_eq!(trace(&bounded), trace(&free), "{property}: the same lasso");
}
