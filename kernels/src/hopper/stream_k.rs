//! The stream-K schedule of [`Sm90Options::stream_k`](super::Sm90Options::stream_k) on the
//! host: which tiles are split, each block's units, and the workspace, as the kernel computes
//! them.

use super::{BM, BN, CONSUMERS, Sm90Plan};

impl Sm90Plan {
    /// Stream-K: the tiles (the last ones of the raster order) whose k-iterations a grid of
    /// `blocks` blocks splits, as the kernel computes them (`dev::sm90::sk_tiles`): none when
    /// the tiles fill whole waves, else the partial last wave, plus one full wave when that
    /// remainder is under half the grid; none when their k-iterations are fewer than the
    /// blocks (every block's range holds one). 0 without [`Sm90Options::stream_k`](super::Sm90Options::stream_k).
    ///
    /// ```
    /// use tessel_kernels::hopper::{InType, OutType, Sm90Options, Sm90Plan};
    /// let o = Sm90Options { stream_k: true, ..Sm90Options::default() };
    /// let p = Sm90Plan::with_options(4096, 4096, 4096, InType::F16, OutType::F32, o).unwrap();
    /// assert_eq!(p.stream_k_tiles(132), 116); // 3 data-parallel waves, 116 tiles split
    /// let p = Sm90Plan::with_options(128 * 34, 1024, 4096, InType::F16, OutType::F32, o).unwrap();
    /// assert_eq!(p.stream_k_tiles(132), 132 + 4); // 136 tiles: 4 left over, one wave joins them
    /// let p = Sm90Plan::with_options(128 * 34, 1024, 64, InType::F16, OutType::F32, o).unwrap();
    /// assert_eq!(p.stream_k_tiles(200), 0); // 136 k-iterations for 200 blocks: no split
    /// assert_eq!(Sm90Plan::new(4096, 4096, 64, InType::F16, OutType::F32).unwrap().stream_k_tiles(132), 0);
    /// ```
    pub fn stream_k_tiles(&self, blocks: i64) -> i64 {
        let tiles = self.cluster_tiles();
        if !self.options.stream_k || blocks < 1 {
            return 0;
        }
        let rem = tiles % blocks;
        let sk = if rem == 0 {
            0
        } else if tiles >= blocks && 2 * rem < blocks {
            rem + blocks
        } else {
            rem
        };
        if sk * self.k_tiles() >= blocks { sk } else { 0 }
    }

    /// Stream-K: the work units `(tile, k0, k1)` (tile index in raster order, k-tiles
    /// `k0 .. k1`) of each of `blocks` blocks, in the order the kernel runs them: its
    /// data-parallel tiles (every `blocks`-th of the first ones), then its contiguous range
    /// `b T / blocks .. (b + 1) T / blocks` of the `T` split k-iterations. Without stream-K,
    /// whole tiles only.
    ///
    /// ```
    /// use tessel_kernels::hopper::{InType, OutType, Sm90Options, Sm90Plan};
    /// let o = Sm90Options { stream_k: true, ..Sm90Options::default() };
    /// // 2 tiles of 4 k-tiles over 3 blocks: 8 iterations cut at 2 and 5.
    /// let p = Sm90Plan::with_options(256, 256, 256, InType::F16, OutType::F32, o).unwrap();
    /// assert_eq!(
    ///     p.stream_k_units(3),
    ///     vec![vec![(0, 0, 2)], vec![(0, 2, 4), (1, 0, 1)], vec![(1, 1, 4)]]
    /// );
    /// ```
    pub fn stream_k_units(&self, blocks: i64) -> Vec<Vec<(i64, i64, i64)>> {
        let tiles = self.cluster_tiles();
        let kt = self.k_tiles();
        let sk = self.stream_k_tiles(blocks);
        let dp = tiles - sk;
        let total = sk * kt;
        (0..blocks.max(0))
            .map(|b| {
                let mut units: Vec<(i64, i64, i64)> = (b..dp)
                    .step_by(blocks as usize)
                    .map(|t| (t, 0, kt))
                    .collect();
                let (mut it, end) = (b * total / blocks, (b + 1) * total / blocks);
                while it < end {
                    let (l, k0) = (it / kt, it % kt);
                    let k1 = kt.min(k0 + end - it);
                    units.push((dp + l, k0, k1));
                    it += k1 - k0;
                }
                units
            })
            .collect()
    }

    /// Stream-K workspace for a grid of `blocks` blocks: fp32 partials (one 128 x 256 tile per
    /// block: a block contributes to at most one tile it does not own) and flags (one per
    /// consumer of each block, zero between launches).
    ///
    /// ```
    /// use tessel_kernels::hopper::{InType, OutType, Sm90Plan};
    /// let p = Sm90Plan::new(8, 8, 8, InType::F16, OutType::F32).unwrap();
    /// assert_eq!(p.stream_k_workspace(132), (132 * 128 * 256, 132 * 2));
    /// ```
    pub fn stream_k_workspace(&self, blocks: i64) -> (usize, usize) {
        let b = usize::try_from(blocks.max(0)).unwrap_or(0);
        (b * (BM * BN) as usize, b * CONSUMERS as usize)
    }
}
