//! Buffered channels on several threads: a target into a queue content the engine's cache
//! lacks is merged alongside the workers, its content numbered ahead of the interner
//! (`explore/ahead.rs`), a source whose expansion missed the cache is merged in a pause of
//! the workers (`explore/gate.rs`), and the graph is the same on 1, 2 and 3 threads: every
//! state, every edge, every parent. Before, such a source and every later one of its chunk
//! were merged after the workers, by one thread (seqbuffer: 11 % of its sources merged
//! alongside; then the bounded buffer 2 %, as its consumer meets new components all along).

use agentpi_check::{Graph, Options, Progress, explore_system};
use agentpi_semantics::Semantics;

/// The bench's queue models at sizes explored in a second or two; whether at least 9/10 of
/// the sources must be merged alongside the workers (seqbuffer at K = 4: 0.149 before
/// contents were numbered ahead, 0.451 after, 0.995 with the pauses; the bounded buffer at
/// K = 3 0.022 before the pauses, 0.955 with them: a source that missed the cache took every
/// later one of its chunk to the merge after the workers).
#[test]
fn queue_contents_numbered_ahead_give_the_same_graph_on_any_thread_count() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut compared = 0;
    for (file, from, to, alongside) in [
        (
            "bench/check/seqbuffer.pi",
            "const K = 6",
            "const K = 4",
            true,
        ),
        ("bench/check/buffer.pi", "const K = 3", "const K = 3", true),
        (
            "bench/check/abp.pi",
            "const N = 400",
            "const N = 100",
            false,
        ),
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
            if alongside {
                let share = graph.alongside as f64 / graph.expanded as f64;
                assert!(share >= 0.9, "{what}: {share:.3} merged alongside");
            }
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
