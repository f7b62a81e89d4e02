//! A small deterministic source of numbers for the unit tests that hold a table to a plain
//! one over a random sequence of operations.

/// Numbers below the bound asked for, from a xorshift of `seed`: the same sequence every
/// run, so that a failure repeats.
pub(crate) fn below(seed: u64) -> impl FnMut(u64) -> u64 {
    let mut state = seed;
    move |n| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state % n
    }
}
