//! A deterministic draw for the crate's unit tests: Knuth's MMIX linear congruential sequence,
//! the high bits of each state reduced below a bound (the same inputs on every run).

/// A draw of pseudo-random numbers from a seed.
pub(crate) struct Draw(u64);

impl Draw {
    /// The sequence starting after `seed`.
    pub(crate) fn new(seed: u64) -> Draw {
        Draw(seed)
    }

    /// The next number, below `n` (`n >= 1`).
    pub(crate) fn below(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 33) % n
    }
}
