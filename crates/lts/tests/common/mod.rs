//! Shared test helpers: a seeded random LTS generator (no `rand` dependency, so the
//! sequences are stable across crate versions) and a tiny `.aut` text loader.

#![allow(dead_code)]

use agentpi_lts::{Lts, LtsBuilder, read_aut};

/// SplitMix64: a small deterministic generator.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// A random LTS over `tau` and `labels - 1` visible letters; `tau` is drawn with
/// probability 1/2 so that `tau`-cycles are common.
pub fn random_lts(seed: u64, states: u32, labels: u32, max_out: u32) -> Lts {
    let mut rng = Rng(seed);
    let mut b = LtsBuilder::new();
    b.require_states(states as usize);
    let names: Vec<String> = (0..labels - 1)
        .map(|i| ((b'a' + i as u8) as char).to_string())
        .collect();
    for s in 0..states {
        for _ in 0..rng.below(max_out as u64 + 1) {
            let to = rng.below(states as u64) as u32;
            if rng.below(2) == 0 {
                b.add_transition(s, "tau", to);
            } else {
                let l = rng.below(names.len() as u64) as usize;
                b.add_transition(s, &names[l], to);
            }
        }
    }
    b.finish(0)
}

/// Parses `.aut` text (panics on malformed test data).
pub fn aut(text: &str) -> Lts {
    read_aut(text.as_bytes()).unwrap()
}

/// `lts` as a merc LTS (merc's hidden label is index 0, `τ`), for differential tests.
pub fn to_merc(lts: &Lts) -> merc_lts::LabelledTransitionSystem<String> {
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
    merc_lts::LabelledTransitionSystem::new(
        merc_lts::StateIndex::new(lts.initial() as usize),
        Some(lts.num_states()),
        || transitions.iter().cloned(),
        labels,
    )
}
