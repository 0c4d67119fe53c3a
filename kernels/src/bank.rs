//! The shared-memory bank model of `docs/bank-model.md`, for predictions next to Nsight Compute.
//!
//! 32 banks of 4 bytes; one warp-wide LDS/STS of 32, 64 or 128 bits takes
//! `max(ceil(bytes requested / 128), max over banks of distinct 32-bit words in that bank)`
//! wavefronts; the ideal is `ceil(bytes / 128)`. This is the rule of `tessel_layout::bank` (the
//! model behind `tessel conflicts`; `tests/plans.rs` checks that both agree on the
//! microkernels), applied here to each warp instruction of a kernel as its lanes' addresses,
//! which also covers the 16-bit scalar accesses of the fp16 ladder kernels that the `lds/sts`
//! ops of `tessel_layout::bank` (32/64/128 bits) do not describe. The per-bank count itself is
//! [`tessel_layout::bank::max_words_per_bank`], so both models share one rule.
//!
//! ```
//! use tessel_kernels::bank::wavefronts;
//! // A 64-bit load of 256 contiguous bytes: 2 wavefronts, the ideal.
//! assert_eq!(wavefronts(&(0..32).map(|l| (l * 8, 8)).collect::<Vec<_>>()), (2, 2));
//! ```

use tessel_layout::bank::{BANK_BYTES, WAVEFRONT_BYTES, max_words_per_bank};

/// Wavefronts of one warp-wide access: `accesses` are `(byte address, bytes)` per lane.
///
/// ```
/// use tessel_kernels::bank::wavefronts;
/// // 32 lanes reading a column of a 32x32 fp32 row-major tile: all in one bank.
/// let column: Vec<(i64, i64)> = (0..32).map(|l| (l * 128, 4)).collect();
/// assert_eq!(wavefronts(&column), (32, 1));
/// // 128-bit loads of 512 contiguous bytes: 4 wavefronts, the ideal.
/// let rows: Vec<(i64, i64)> = (0..32).map(|l| (l * 16, 16)).collect();
/// assert_eq!(wavefronts(&rows), (4, 4));
/// ```
pub fn wavefronts(accesses: &[(i64, i64)]) -> (i64, i64) {
    let mut words: Vec<i64> = accesses
        .iter()
        .flat_map(|&(addr, bytes)| {
            (0..(bytes + BANK_BYTES - 1) / BANK_BYTES).map(move |w| addr / BANK_BYTES + w)
        })
        .collect();
    // Sorts and dedups `words`: afterwards it holds the distinct words the warp touches.
    let worst = max_words_per_bank(&mut words);
    let bytes = BANK_BYTES * words.len() as i64;
    let ideal = (bytes + WAVEFRONT_BYTES - 1) / WAVEFRONT_BYTES;
    (ideal.max(worst), ideal)
}

/// Totals of a kernel's shared-memory traffic: `(loads, load ideal, stores, store ideal)` in
/// wavefronts, summed over every warp-wide instruction of one launch.
///
/// ```
/// use tessel_kernels::bank::Prediction;
/// let mut p = Prediction::default();
/// // A warp stores one row of a 32x32 fp32 row-major tile: one wavefront, the ideal.
/// p.store(&(0..32).map(|l| (l * 4, 4)).collect::<Vec<_>>());
/// // It reads one column: all 32 words in bank 0.
/// p.load(&(0..32).map(|l| (l * 128, 4)).collect::<Vec<_>>());
/// assert_eq!(p, Prediction { ld: 32, ld_ideal: 1, st: 1, st_ideal: 1 });
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Prediction {
    /// Load wavefronts.
    pub ld: i64,
    /// Ideal load wavefronts.
    pub ld_ideal: i64,
    /// Store wavefronts.
    pub st: i64,
    /// Ideal store wavefronts.
    pub st_ideal: i64,
}

impl Prediction {
    /// Adds one warp-wide load.
    ///
    /// ```
    /// use tessel_kernels::bank::Prediction;
    /// // 16-bit column read of a 32x32 fp16 row-major tile (64-byte rows): the 32 words fall in
    /// // banks 0 and 16 only, 16 each.
    /// let mut p = Prediction::default();
    /// p.load(&(0..32).map(|l| (l * 64, 2)).collect::<Vec<_>>());
    /// assert_eq!((p.ld, p.ld_ideal), (16, 1));
    /// ```
    pub fn load(&mut self, accesses: &[(i64, i64)]) {
        let (w, i) = wavefronts(accesses);
        self.ld += w;
        self.ld_ideal += i;
    }

    /// Adds one warp-wide store.
    ///
    /// ```
    /// use tessel_kernels::bank::Prediction;
    /// // 16-bit row store: lanes 2k and 2k+1 share a word, 16 words in 16 banks.
    /// let mut p = Prediction::default();
    /// p.store(&(0..32).map(|l| (l * 2, 2)).collect::<Vec<_>>());
    /// assert_eq!((p.st, p.st_ideal, p.ld), (1, 1, 0));
    /// ```
    pub fn store(&mut self, accesses: &[(i64, i64)]) {
        let (w, i) = wavefronts(accesses);
        self.st += w;
        self.st_ideal += i;
    }

    /// Multiplies every count by `k` (e.g. blocks per launch).
    ///
    /// ```
    /// use tessel_kernels::bank::Prediction;
    /// let one = Prediction { ld: 32, ld_ideal: 1, st: 1, st_ideal: 1 };
    /// assert_eq!(one.scaled(3), Prediction { ld: 96, ld_ideal: 3, st: 3, st_ideal: 3 });
    /// ```
    pub fn scaled(self, k: i64) -> Prediction {
        Prediction {
            ld: self.ld * k,
            ld_ideal: self.ld_ideal * k,
            st: self.st * k,
            st_ideal: self.st_ideal * k,
        }
    }
}
