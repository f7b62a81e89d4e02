//! A source the merge cannot merge alongside the workers (its expansion missed the engine's
//! cache, or met a component the store lacks) is merged while they wait between two
//! expansions, the engine's cache and the store the merge's own for that moment (a write
//! lock, `Run::merge_paused`), and the merge goes on alongside them. Before, it and every
//! later source of its chunk were merged after the workers, by one thread while the others
//! waited. The graph is the same on 1, 2 and 3 threads (every state, edge and parent), and
//! nearly every source is merged alongside the workers.

use agentpi_check::{Graph, Options, Progress, explore_system};
use agentpi_semantics::Semantics;

/// Models whose merge meets such sources in most chunks, at sizes explored in a second or
/// two, and the share of their sources at most merged otherwise than alongside the
/// workers on 2 and 3 threads, far from what was measured (the release bench's "refused"):
/// the bounded buffer (N = 8, K = 3) 0.978 of its sources before, 0.045 now; seqbuffer
/// (K = 4) 0.549 before, 0.005 now; Peterson (N = 3) 0.161 before, 0.007 now. Which sources
/// miss the cache depends a little on the timing (an expansion older than the last fill
/// may miss what a newer one would not), so the bounds are loose.
#[test]
fn refused_sources_are_merged_while_the_workers_wait_and_the_rest_alongside() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut compared = 0;
    for (file, from, to, at_most) in [
        ("bench/check/buffer.pi", "const K = 3", "const K = 3", 0.25),
        (
            "bench/check/seqbuffer.pi",
            "const K = 6",
            "const K = 4",
            0.1,
        ),
        ("bench/check/peterson.pi", "const N = 4", "const N = 3", 0.1),
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
            assert!(share <= at_most, "{what}: {share:.3} not merged alongside");
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
