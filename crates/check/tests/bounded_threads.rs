//! `--max-states` on state spaces wide enough that the merge runs alongside the other threads
//! (explore/pipeline.rs): on 1, 2 and 3 threads a bound of N stores at most N states, each the
//! state of that number in the unbounded exploration, every expanded source with all its
//! edges, and stops at the first source whose new targets would pass N, so the graph is the
//! same on every thread count.

use agentpi_check::{End, Graph, Limit, Options, Progress, explore_system};
use agentpi_semantics::Semantics;

/// The bench models at sizes explored in a second or two, and bounds that fall in the middle
/// of a level, of a chunk and (the last ones) of a source's targets.
#[test]
fn a_bound_of_n_states_stops_at_the_same_source_on_any_thread_count() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut bounded = 0;
    for (file, from, to) in [
        ("bench/check/philosophers.pi", "const N = 12", "const N = 8"),
        ("bench/check/peterson.pi", "const N = 4", "const N = 3"),
        ("bench/check/filter.pi", "const N = 3", "const N = 3"),
    ] {
        let text = std::fs::read_to_string(root.join(file)).unwrap();
        assert!(text.contains(from), "{file} sets {from}");
        let loaded = agentpi_ir::load_str(file, &text.replacen(from, to, 1));
        assert!(!loaded.has_errors(), "{file} loads");
        let sem = Semantics::new(&loaded.program);
        let explore = |options: &Options| {
            on_a_big_stack(|| explore_system(&sem, 0, options, &Progress::default()).unwrap())
        };
        let full = explore(&Options::default());
        let total = full.state_count();
        for max in [total / 7, total / 3 + 1, total / 2, total - 100, total - 1] {
            let mut first: Option<(usize, usize, usize)> = None;
            for threads in [1, 2, 3] {
                let options = Options {
                    max_states: Some(max),
                    threads,
                    ..Options::default()
                };
                let graph = explore(&options);
                let what = format!("{file} ({to}), at most {max} states, {threads} threads");
                same_prefix(&sem, &graph, &full, max, &what);
                let shape = (graph.state_count(), graph.expanded, graph.transitions);
                assert_eq!(*first.get_or_insert(shape), shape, "{what}");
                bounded += 1;
            }
        }
    }
    assert_eq!(bounded, 45);
}

/// `graph`, explored with at most `max` states, is the start of `full`: its states, its
/// expanded sources' edges, and the first source it left unexpanded would have passed `max`.
fn same_prefix(sem: &Semantics<'_>, graph: &Graph, full: &Graph, max: usize, what: &str) {
    assert_eq!(graph.end, End::Limit(Limit::States(max)), "{what}");
    let stored = graph.state_count();
    assert!(stored <= max, "{what}: {stored} states stored");
    for s in 0..stored as u32 {
        assert_eq!(graph.state(s), full.state(s), "{what}: state {s}");
    }
    for s in 0..graph.expanded as u32 {
        assert_eq!(
            graph.edges_of(sem, s),
            full.edges_of(sem, s),
            "{what}: edges of {s}"
        );
    }
    let next = graph.expanded as u32;
    let mut new: Vec<u32> = full
        .edges_of(sem, next)
        .iter()
        .map(|e| e.target)
        .filter(|&t| t as usize >= stored)
        .collect();
    new.sort_unstable();
    new.dedup();
    assert!(stored + new.len() > max, "{what}: source {next} fits");
}

fn on_a_big_stack<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    std::thread::scope(|scope| {
        let thread = std::thread::Builder::new().stack_size(16 * 1024 * 1024);
        thread.spawn_scoped(scope, f).unwrap().join().unwrap()
    })
}
