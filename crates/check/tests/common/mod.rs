//! What the generated-input tests of this crate share: a small seeded random source, so that
//! a failing seed is reproduced exactly (no dependency, no global state).

/// A xorshift* generator; the seed must not be 0.
pub struct Rng(pub u64);

impl Rng {
    /// A number below `n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 33) as usize % n
    }

    /// One of `items` (not empty).
    #[allow(dead_code, reason = "differential.rs picks through its writer")]
    pub fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }

    /// True with the given chance.
    pub fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
}
