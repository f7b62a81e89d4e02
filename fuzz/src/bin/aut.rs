//! Fuzz target: `.aut` files (`agentpi compare` and `minimize` read them with
//! `lts::read_aut`). Any bytes are an LTS or an error; an LTS read is written back and reads
//! back the same, and minimises modulo strong and branching bisimulation.

use agentpi_lts::{Equivalence, Lts, minimize, read_aut, write_aut};

fn check(data: &[u8]) {
    let Ok(lts) = read_aut(data) else {
        return;
    };
    let mut written = Vec::new();
    write_aut(&lts, &mut written).expect("writing to memory cannot fail");
    let again = read_aut(&written[..]).expect("what write_aut writes, read_aut reads");
    assert_eq!(
        graph(&lts),
        graph(&again),
        "an LTS written reads back the same"
    );
    minimize(&lts, Equivalence::Strong);
    minimize(&lts, Equivalence::Branching);
}

/// The initial state, the number of states and the transitions with their labels' names,
/// sorted: the LTS whatever the numbering of its labels (`write_aut` keeps the states'
/// numbers, but a label's number is the order it is first met in).
fn graph(lts: &Lts) -> (u32, usize, Vec<(u32, &str, u32)>) {
    let mut transitions: Vec<_> = lts
        .transitions()
        .map(|(s, l, t)| (s, lts.label_name(l), t))
        .collect();
    transitions.sort_unstable();
    (lts.initial(), lts.num_states(), transitions)
}

fn main() {
    agentpi_fuzz::run(check);
}
