//! A source the merge refuses while the workers run (its expansion missed the engine's cache,
//! or met a component the store lacks) stops them taking blocks: it and the few expanded
//! after it are merged once they are done, and the rest of the chunk is expanded and merged
//! alongside them again (`Run::chunk_shared`). Before, every later source of the chunk was
//! merged after the workers, by one thread while the others waited. The graph is the same
//! on 1, 2 and 3 threads (every state, edge and parent), and most sources are merged
//! alongside the workers.

use agentpi_check::{Graph, Options, Progress, explore_system};
use agentpi_semantics::Semantics;

/// Models that refuse sources in most chunks, at sizes explored in a second or two, and the
/// share of sources at most merged after the workers on 2 and 3 threads, far from what
/// was measured (the bench's "refused"): the bounded buffer (N = 8, K = 3) 0.978 of its
/// sources before, 0.44-0.45 now; seqbuffer (K = 4) 0.549 before, 0.023-0.041 now. How many
/// are expanded after a refusal depends on the timing (the blocks the workers had taken),
/// so the bounds are loose; Peterson (N = 3: 0.161 before, 0.031-0.073 now) is held to the
/// same graph only.
#[test]
fn refused_sources_stop_the_workers_and_the_rest_is_merged_alongside() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut compared = 0;
    for (file, from, to, at_most) in [
        ("bench/check/buffer.pi", "const K = 3", "const K = 3", 0.75),
        (
            "bench/check/seqbuffer.pi",
            "const K = 6",
            "const K = 4",
            0.25,
        ),
        ("bench/check/peterson.pi", "const N = 4", "const N = 3", 1.0),
    ] {
        let text = std::fs::read_to_string(root.join(file)).unwrap();
        assert!(text.contains(from), "{file} sets {from}");
        let loaded = agentpi_ir::load_str(file, &text.replacen(from, to, 1));
        assert!(!loaded.has_errors(), "{file} loads");
        let sem = Semantics::new(&loaded.program);
        let explore = |threads| {
            let options = Options {
                threads,
                ..Options::default()
            };
            on_a_big_stack(|| explore_system(&sem, 0, &options, &Progress::default()).unwrap())
        };
        let one = explore(1);
        for threads in [2, 3] {
            let graph = explore(threads);
            let what = format!("{file} ({to}), {threads} threads");
            same_graph(&sem, &graph, &one, &what);
            let after = graph.expanded - graph.alongside.min(graph.expanded);
            let share = after as f64 / graph.expanded as f64;
            assert!(
                share <= at_most,
                "{what}: {share:.3} merged after the workers"
            );
            compared += 1;
        }
    }
    assert_eq!(compared, 6);
}

fn same_graph(sem: &Semantics<'_>, graph: &Graph, one: &Graph, what: &str) {
    assert_eq!(graph.state_count(), one.state_count(), "{what}: states");
    assert_eq!(graph.transitions, one.transitions, "{what}: transitions");
    assert_eq!(graph.expanded, one.expanded, "{what}: expanded");
    assert_eq!(graph.parent, one.parent, "{what}: parents");
    for s in 0..one.state_count() as u32 {
        assert_eq!(graph.state(s), one.state(s), "{what}: state {s}");
        assert_eq!(
            graph.edges_of(sem, s),
            one.edges_of(sem, s),
            "{what}: edges of {s}"
        );
    }
}

fn on_a_big_stack<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    std::thread::scope(|scope| {
        let thread = std::thread::Builder::new().stack_size(16 * 1024 * 1024);
        thread.spawn_scoped(scope, f).unwrap().join().unwrap()
    })
}
