//! A small seeded random source for the crate's unit tests: the same numbers on every run
//! and platform, without a dependency.

/// Numbers below `n` from a xorshift generator started at `seed` (not 0).
pub(crate) fn below(seed: u64) -> impl FnMut(usize) -> usize {
    let mut seed = seed;
    move |n: usize| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % n as u64) as usize
    }
}
