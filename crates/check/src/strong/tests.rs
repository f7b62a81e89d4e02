//! The parts of strong fairness against those found with hash sets of obligations, as
//! before they were bits (2026-12-07), on any thread count and under bounds on memory.

use super::*;
use crate::product::{GraphSpace, accepting_sccs};
use crate::{Goals, Options, Progress, explore_until};
use agentpi_ir::{MemoryLoader, load_with};

/// Every obligation that some edge of `graph` takes, sorted.
fn obligations(graph: &Graph) -> Vec<Obligation> {
    let states = 0..graph.state_count() as u32;
    let all: FxHashSet<Obligation> = states.flat_map(|s| enabled(graph, s)).collect();
    let mut all: Vec<Obligation> = all.into_iter().collect();
    all.sort();
    all
}

/// The parts as they were found before they were bits (2026-12-07): a hash set of the
/// obligations each state enables, the parts one at a time.
fn reference(
    space: &GraphSpace<'_>,
    graph: &Graph,
    sccs: Vec<Vec<u32>>,
    selection: Option<&Selection>,
) -> Vec<Vec<u32>> {
    let mut work = sccs;
    let mut out = Vec::new();
    while let Some(part) = work.pop() {
        let mut taken: FxHashSet<Obligation> = FxHashSet::default();
        let mut pending = u64::MAX;
        space.inside(&part, &part, &mut |state, edge, p| {
            taken.extend(taken_by(graph, state, edge));
            pending &= p;
        });
        if pending != 0 {
            continue;
        }
        let states: Vec<u32> = part.iter().map(|&n| space.state(n)).collect();
        let unmet: FxHashSet<Obligation> = (obligations_of(graph, &states, selection))
            .into_iter()
            .filter(|o| !taken.contains(o))
            .collect();
        if unmet.is_empty() {
            let instance = |o: &Obligation| matches!(o, Obligation::Instance(_));
            let always = (states.iter())
                .map(|&s| enabled(graph, s).into_iter().filter(instance).collect())
                .reduce(|a: FxHashSet<Obligation>, b| a.intersection(&b).copied().collect());
            let weak = always.unwrap_or_default().iter().all(|o| taken.contains(o));
            if selection.is_none() || weak {
                out.push(part);
            }
            continue;
        }
        let keep: Vec<u32> = (part.iter().copied())
            .filter(|&n| enabled(graph, space.state(n)).is_disjoint(&unmet))
            .collect();
        work.extend(space.sccs(&keep, None).expect("no bound"));
    }
    out.sort();
    out
}

/// The state space of system `system` of `text` (with `-D N=n`, if any).
fn explored(text: &str, n: Option<usize>, system: &str, each: impl FnOnce(&Semantics<'_>, &Graph)) {
    let file = "strong.pi";
    let loader = MemoryLoader {
        files: vec![(file.to_string(), text.to_string())],
    };
    let defines: Vec<_> = n.iter().map(|n| ("N".to_string(), n.to_string())).collect();
    let loaded = load_with(file, &loader, &defines);
    assert!(!loaded.has_errors(), "{:?}", loaded.diagnostics);
    let sem = Semantics::new(&loaded.program);
    let sys = (loaded.program.systems.iter()).position(|s| s.name == system);
    let goals = Goals {
        whole: true,
        ..Goals::default()
    };
    let (options, progress) = (Options::default(), Progress::default());
    let graph = explore_until(&sem, sys.expect("the system"), &options, &goals, &progress);
    each(&sem, &graph.expect("explored"));
}

/// The fair parts of the state space of `system` where no label starting with `leave`
/// is done (the components of `always eventually`), under no selection, a selection of
/// each obligation alone and one of every other: those of [`reference`], on 1 to 3
/// threads, by pieces of 1, 7 and [`PIECE`] nodes; and under bounds on their memory, the same answer (`None` or the parts) on
/// any thread count. Returns how many selections leave some parts, and how many none.
fn parts_of(text: &str, n: Option<usize>, system: &str, leave: &str) -> (usize, usize) {
    let (mut some, mut none) = (0, 0);
    explored(text, n, system, |sem, graph| {
        let leaves = (graph.labels.iter())
            .map(|l| sem.label_text(l).starts_with(leave))
            .collect();
        let space = GraphSpace { sem, graph, leaves };
        let sccs = accepting_sccs(&space, None, 1).expect("no bound");
        let nodes: usize = sccs.iter().map(Vec::len).sum();
        let all = obligations(graph);
        let alone = all
            .iter()
            .map(|o| Some(Selection([*o].into_iter().collect())));
        let halves = (0..2).map(|k| {
            let every_other = all.iter().skip(k).step_by(2).copied().collect();
            Some(Selection(every_other))
        });
        for selection in [None].into_iter().chain(alone).chain(halves) {
            let selection = selection.as_ref();
            let expected = reference(&space, graph, sccs.clone(), selection);
            match expected.is_empty() {
                true => none += 1,
                false => some += 1,
            }
            for split in [(1, PIECE), (2, 1), (3, 7), (2, PIECE)] {
                let (threads, piece) = split;
                let sccs = sccs.clone();
                let found = parts_by(&space, graph, sccs, selection, (None, threads, piece));
                assert_eq!(found.as_ref(), Some(&expected), "{selection:?}, {split:?}");
            }
            for room in (0..8).map(|k| (k * nodes * 3) as u64) {
                let runs: Vec<_> = (1..4)
                    .map(|t| fair_parts(&space, graph, sccs.clone(), selection, (Some(room), t)))
                    .collect();
                assert!(runs.iter().all(|r| r == &runs[0]), "{room} bytes");
            }
        }
    });
    (some, none)
}

/// Philosophers, with channels `take` and `put` (arrays) and an event a philosopher:
/// every obligation held (none of the parts is fair: philosopher 0 eats), or some.
#[test]
fn the_parts_are_those_of_the_sets_on_any_thread_count() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let text = std::fs::read_to_string(root.join("models/philosophers.pi")).unwrap();
    let (some, none) = parts_of(&text, Some(4), "Fixed", "eat(0)");
    assert!(some > 3 && none > 0, "{some} with parts, {none} without");
}

/// A lossy channel (a lost message takes no channel) and a handshake two receivers
/// share (`tests/props/strong.pi`).
#[test]
fn the_parts_of_lossy_and_shared_channels_are_those_of_the_sets() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join("tests/props/strong.pi")).unwrap();
    let (some, none) = parts_of(&text, None, "Two", "got(");
    assert!(some > 0 && none > 0, "{some} with parts, {none} without");
    let (some, none) = parts_of(&text, None, "Ticking", "a");
    assert!(some > 0 && none > 0, "{some} with parts, {none} without");
}
