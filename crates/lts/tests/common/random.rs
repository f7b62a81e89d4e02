//! The seeded random inputs of the differential tests, shared with the merc oracle of
//! `bench/lts/merc` (included there by path) so that both sides see the same LTSs. No `rand`
//! dependency: the sequences are stable across crate versions.

use agentpi_lts::{Lts, LtsBuilder};

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

/// The inputs minimised by `differential.rs`: 1000 small LTSs (1 to 14 states) and 100
/// larger ones (up to 400 states, sparse so that the quotients stay non-trivial).
pub fn quotient_cases() -> Vec<Lts> {
    let small = (0..1000u64).map(|seed| {
        let states = 1 + (seed % 14) as u32;
        random_lts(seed, states, 3 + (seed % 2) as u32, 3)
    });
    let large =
        (0..100u64).map(|seed| random_lts(1_000_000 + seed, 20 + (seed * 37 % 380) as u32, 4, 2));
    small.chain(large).collect()
}

/// The pairs compared by `bisim.rs`: each built from the same seed family so that many
/// pairs are equivalent.
pub fn pair_cases() -> Vec<(Lts, Lts)> {
    (0..400u64)
        .map(|seed| {
            let states = 1 + (seed % 6) as u32;
            let left = random_lts(seed, states, 3, 2);
            let right = random_lts(seed / 2 * 7919, states, 3, 2);
            (left, right)
        })
        .collect()
}

/// The VLTS graphs of `vlts.rs`, read from `../shared/data/vlts` beside the repository.
pub const VLTS_GRAPHS: [&str; 7] = [
    "vasy_0_1",
    "cwi_1_2",
    "vasy_1_4",
    "cwi_3_14",
    "vasy_5_9",
    "vasy_8_24",
    "vasy_25_25",
];

/// The equivalences of the oracle file, by the names it uses.
pub const EQUIVALENCES: [&str; 4] = ["strong", "branching", "dpbranching", "weak"];
