//! Pinned quotient sizes of the small VLTS graphs (read from `../shared/data/vlts` beside the
//! repository), cross-checked against merc on the same files.

use agentpi_lts::{Equivalence, minimize, read_aut};
use merc_lts::LTS;
use merc_reduction::{Equivalence as MercEq, reduce_lts};
use std::fs::File;
use std::io::BufReader;
use std::path::PathBuf;

fn path(graph: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data/vlts").join(format!("{graph}.aut"))
}

/// Minimises `graph` both ways and checks (states, transitions) against the pinned sizes
/// and against merc.
fn check(graph: &str, strong: (usize, usize), branching: (usize, usize)) {
    let lts = read_aut(BufReader::new(File::open(path(graph)).unwrap())).unwrap();
    for (ours, theirs, expected) in [(Equivalence::Strong, MercEq::StrongBisim, strong), (Equivalence::Branching, MercEq::BranchingBisim, branching)] {
        let q = minimize(&lts, ours).quotient;
        let merc_lts = merc_lts::read_aut(File::open(path(graph)).unwrap()).unwrap();
        let m = reduce_lts(merc_lts, theirs, false, &merc_utilities::Timing::new());
        assert_eq!((m.num_of_states(), m.num_of_transitions()), (q.num_states(), q.num_transitions()), "{graph} {ours:?} vs merc");
        assert_eq!((q.num_states(), q.num_transitions()), expected, "{graph} {ours:?}");
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
