//! merc_reduction's answers on the inputs of agentpi-lts's differential tests, in the format
//! `crates/lts/tests/common/mod.rs` reads: one line per question, `KEY: ANSWERS`.

use crate::Result;
use crate::random::{EQUIVALENCES, VLTS_GRAPHS, pair_cases, quotient_cases};
use agentpi_lts::{Lts, reachable_part};
use merc_lts::{LTS, LabelledTransitionSystem};
use merc_reduction::{Equivalence, compare_lts, reduce_lts};
use std::fs::File;
use std::io::Write;

/// Writes the whole oracle file to `out`.
pub fn write(out: &mut dyn Write) -> Result<()> {
    writeln!(
        out,
        "# merc_reduction 2.0.0 on the inputs of crates/lts/tests/common/random.rs and the VLTS \
         graphs.\n# Written by `cargo run --release --manifest-path bench/lts/merc/Cargo.toml -- \
         oracle`; do not edit."
    )?;
    for name in EQUIVALENCES {
        let sizes: Vec<String> = quotient_cases()
            .iter()
            .map(|lts| quotient(lts, name))
            .collect();
        writeln!(out, "quotient {name}: {}", sizes.join(" "))?;
    }
    for name in EQUIVALENCES {
        let verdicts: String = pair_cases()
            .iter()
            .map(|(l, r)| {
                let same = compare_lts(
                    equivalence(name),
                    to_merc(l),
                    to_merc(r),
                    false,
                    &mut timing(),
                );
                if same { '=' } else { 'x' }
            })
            .collect();
        writeln!(out, "pairs {name}: {verdicts}")?;
    }
    vlts(out)
}

/// merc's quotients of the VLTS graphs beside the repository, strong and branching.
fn vlts(out: &mut dyn Write) -> Result<()> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../../shared/data/vlts");
    for name in ["strong", "branching"] {
        for graph in VLTS_GRAPHS {
            let lts = merc_lts::read_aut(File::open(format!("{dir}/{graph}.aut"))?)
                .map_err(|e| format!("{graph}: {e:?}"))?;
            let q = reduce_lts(lts, equivalence(name), false, &timing());
            let size = format!("{}/{}", q.num_of_states(), q.num_of_transitions());
            writeln!(out, "vlts {name} {graph}: {size}")?;
        }
    }
    Ok(())
}

/// The size of merc's quotient of the reachable part of `lts`: `states/transitions`, or
/// `states` for weak (merc drops transitions implied by others in its weak quotient).
fn quotient(lts: &Lts, name: &str) -> String {
    let (copy, _) = reachable_part(lts);
    let merc = to_merc(copy.as_ref().unwrap_or(lts));
    let q = reduce_lts(merc, equivalence(name), false, &timing());
    if name == "weak" {
        q.num_of_states().to_string()
    } else {
        format!("{}/{}", q.num_of_states(), q.num_of_transitions())
    }
}

fn equivalence(name: &str) -> Equivalence {
    match name {
        "strong" => Equivalence::StrongBisim,
        "branching" => Equivalence::BranchingBisim,
        "dpbranching" => Equivalence::BranchingBisimDivergencePreserving,
        _ => Equivalence::WeakBisim,
    }
}

fn timing() -> merc_utilities::Timing {
    merc_utilities::Timing::new()
}

/// `lts` as a merc LTS (merc's hidden label is index 0, `τ`).
fn to_merc(lts: &Lts) -> LabelledTransitionSystem<String> {
    let mut labels: Vec<String> = lts.labels().to_vec();
    labels[0] = "τ".to_string();
    let transitions: Vec<_> = lts
        .transitions()
        .map(|(s, l, t)| {
            (
                merc_lts::StateIndex::new(s as usize),
                merc_lts::LabelIndex::new(l as usize),
                merc_lts::StateIndex::new(t as usize),
            )
        })
        .collect();
    LabelledTransitionSystem::new(
        merc_lts::StateIndex::new(lts.initial() as usize),
        Some(lts.num_states()),
        || transitions.iter().cloned(),
        labels,
    )
}
