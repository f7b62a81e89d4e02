//! Pinned quotient sizes of the small VLTS graphs (read from `../shared/data/vlts` beside the
//! repository, or from the directory `VLTS` names, as for bench/lts/run.sh: a git worktree
//! elsewhere has no such neighbour), the same as merc's on the same files (recorded in
//! oracle/merc.txt by `bench/lts/merc`, in release: merc's debug build re-checks every
//! branching signature naively, which took seconds on the larger graphs).

mod common;

use agentpi_lts::{Equivalence, Lts, minimize, read_aut};
use std::fs::File;
use std::io::BufReader;
use std::path::PathBuf;

fn path(graph: &str) -> PathBuf {
    let beside = || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data/vlts");
    std::env::var_os("VLTS")
        .map_or_else(beside, PathBuf::from)
        .join(format!("{graph}.aut"))
}

/// The graph read from `../shared/data/vlts` (or `VLTS`); a missing file fails the test saying
/// what is missing and where to get it (the data is the project's, kept beside the repository).
fn read(graph: &str) -> Lts {
    let path = path(graph);
    let file = File::open(&path).unwrap_or_else(|e| {
        panic!(
            "cannot read the VLTS graph {graph}: {} ({e}). These tests read the seven \
             smallest graphs of the VLTS suite from ../shared/data/vlts beside the repository \
             (the project's shared data; CI checks the repository out beside it), or from \
             the directory the environment variable VLTS names. Put \
             {graph}.aut there, as distributed at https://cadp.inria.fr/resources/vlts/ \
             (gunzip the .aut.gz).",
            path.display()
        )
    });
    read_aut(BufReader::new(file)).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Minimises `graph` both ways and checks (states, transitions) against the pinned sizes
/// and merc's.
fn check(graph: &str, strong: (usize, usize), branching: (usize, usize)) {
    let lts = read(graph);
    for (ours, expected) in [
        (Equivalence::Strong, strong),
        (Equivalence::Branching, branching),
    ] {
        let q = minimize(&lts, ours).quotient;
        let size = (q.num_states(), q.num_transitions());
        assert_eq!(size, expected, "{graph} {ours:?}");
        let name = common::oracle_name(ours);
        let merc = common::oracle(&format!("vlts {name} {graph}"));
        assert_eq!(
            merc,
            [format!("{}/{}", size.0, size.1)],
            "{graph} {ours:?} vs merc"
        );
    }
}

#[test]
fn vasy_0_1() {
    check("vasy_0_1", (9, 20), (9, 20));
}

#[test]
fn cwi_1_2() {
    check("cwi_1_2", (1132, 1432), (67, 115));
}

#[test]
fn vasy_1_4() {
    check("vasy_1_4", (28, 59), (4, 5));
}

#[test]
fn cwi_3_14() {
    check("cwi_3_14", (62, 61), (2, 1));
}

#[test]
fn vasy_5_9() {
    check("vasy_5_9", (145, 284), (112, 213));
}

#[test]
fn vasy_8_24() {
    check("vasy_8_24", (416, 1193), (170, 506));
}

#[test]
fn vasy_25_25() {
    check("vasy_25_25", (25217, 25216), (25217, 25216));
}

/// `lts` with its `k`-th transition redirected to another state.
fn mutate(lts: &agentpi_lts::Lts, k: usize) -> agentpi_lts::Lts {
    let mut b = agentpi_lts::LtsBuilder::new();
    b.require_states(lts.num_states());
    let n = lts.num_states() as u32;
    for (i, (s, l, t)) in lts.transitions().enumerate() {
        let t = if i == k { (t * 7 + 1) % n } else { t };
        b.add_transition(s, lts.label_name(l), t);
    }
    b.finish(lts.initial())
}

/// On real graphs with one transition removed, every verdict comes with evidence that the
/// independent evaluator of `common::logic` confirms, and the counterexample paths replay.
#[test]
fn evidence_on_mutated_graphs() {
    use agentpi_lts::{Model, compare_bisim, refines};
    let lts = read("vasy_1_4");
    let mut verdicts = Vec::new();
    for k in [0, 100, 2500] {
        let other = mutate(&lts, k);
        for e in [
            Equivalence::Strong,
            Equivalence::Branching,
            Equivalence::DivBranching,
            Equivalence::Weak,
        ] {
            let r = compare_bisim(&lts, &other, e);
            if let Some(d) = &r.distinction {
                let text = d.formula.to_string();
                if let Err(why) = common::distinguishes(&text, &lts, &other, e) {
                    panic!("{e:?} k={k}: {why}");
                }
            }
            verdicts.push(r.equivalent);
        }
        for m in [Model::Traces, Model::Failures, Model::FailuresDivergences] {
            for (spec, imp) in [(&other, &lts), (&lts, &other)] {
                let r = refines(spec, imp, m);
                verdicts.push(r.refines);
                if let Some(c) = r.counterexample {
                    replay(imp, &c.path);
                }
            }
        }
    }
    // Per mutation: strong, branching, dpbranching, weak; then traces, failures, fd, each
    // as mutated [= original and original [= mutated.
    assert_eq!(
        verdicts
            .iter()
            .map(|&v| if v { '=' } else { 'x' })
            .collect::<String>(),
        "xxxx=x=x=xx=========xxxx=x=x=x"
    );
}

/// Each step of `path` is a transition of `lts`, from its initial state.
fn replay(lts: &agentpi_lts::Lts, path: &[agentpi_lts::Step]) {
    let mut s = lts.initial();
    for step in path {
        let l = if step.label == "tau" {
            Some(0)
        } else {
            lts.label_id(&step.label)
        };
        assert!(
            lts.successors(s)
                .any(|(x, t)| Some(x) == l && t == step.state),
            "path does not replay"
        );
        s = step.state;
    }
}
