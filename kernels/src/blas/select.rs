//! The tile and split selection of the Hopper GEMM (as cuBLAS chooses among its kernels),
//! from a measurement of every tile and split on the shapes it decides between
//! (`kernels/examples/split_sweep.rs`; H200, the tables in docs/journal.md, "The GEMM
//! library"):
//! - the widest tile that gives more than half a wave of tiles, so that no split is needed:
//!   one wave of large tiles beat two waves of small ones on every shape measured (1000 x 3000
//!   x 520: 14.9 against 18.7 us), and one wave of 128 x 64 tiles beat 128 x 128 tiles in two
//!   splits (256 x 4096 x 4096: 19.3 against 24.7 us);
//! - the 128 x 128 tile instead of the large one where the large tiles leave much of their
//!   last wave empty ([`WAVE_MARGIN`]), the 128 x 192 one where its tiles take no more waves
//!   than the large ones;
//! - where no tile gives half a wave, the 128 x 128 tile and split-K to fill one wave, only
//!   while the partial sums' extra traffic stays below half of the operands'
//!   ([`split_traffic_allows`]): at 1024 x 4096 x 4096 two splits took 76 us against 50 us for
//!   none; with 16 tiles on 132 SMs, eight splits put eight times the SMs to streaming B (16 x
//!   4096 x 14336: 135 us unsplit, 46 us in eight splits).
//!
//! Where D has at most [`super::NARROW_ROWS`] rows the call is computed transposed with the
//! 128 x 32 or 128 x 64 tile ([`super::plan_sm90`]); the same rules then split it.

use crate::element::Element;
use crate::hopper::{BM, Sm90Tile, promotes};

fn ceil_div(x: i64, d: i64) -> i64 {
    (x + d - 1) / d
}

/// Output tiles of an `m x n` problem with tile `tile`.
///
/// ```
/// use tessel_kernels::{blas::tiles_of, hopper::Sm90Tile};
/// assert_eq!(tiles_of(4096, 4096, Sm90Tile::T128x256), 32 * 16);
/// assert_eq!(tiles_of(1000, 3000, Sm90Tile::T128x128), 8 * 24);
/// ```
pub fn tiles_of(m: i64, n: i64, tile: Sm90Tile) -> i64 {
    ceil_div(m, BM) * ceil_div(n, tile.bn())
}

/// The share of the SMs a problem of `tiles` tiles keeps busy over its waves:
/// `tiles / (ceil(tiles / sms) sms)` (1 where the last wave is full).
///
/// ```
/// use tessel_kernels::blas::wave_efficiency;
/// assert_eq!(wave_efficiency(132, 132), 1.0);
/// assert_eq!(wave_efficiency(448, 132), 448.0 / 528.0); // 1024 x 14336 in 128 x 256 tiles
/// ```
pub fn wave_efficiency(tiles: i64, sms: i64) -> f64 {
    tiles as f64 / (waves(tiles, sms) * sms.max(1)) as f64
}

/// Waves of `tiles` tiles on `sms` SMs (at least one).
fn waves(tiles: i64, sms: i64) -> i64 {
    ceil_div(tiles.max(1), sms.max(1))
}

/// How much more of its last wave the 128 x 128 tile must fill before it replaces the 128 x
/// 256 one: the smaller tile computes about 7% slower per tile, so it wins only where the
/// large tile's waves are less than 0.9 as full (1024 x 14336 x 4096: 448 large tiles fill
/// 0.85 of four waves, 896 small ones 0.97 of seven: 170.7 against 182.8 us).
pub const WAVE_MARGIN: f64 = 0.9;

/// The tile for an `m x n` output on a GPU of `sms` SMs: the widest tile whose tiles number
/// more than half the SMs (fewer leave SMs idle that split-K, [`choose_splits`], would have
/// to fill), except that [`Sm90Tile::T128x128`] replaces [`Sm90Tile::T128x256`] where the
/// large tiles fill their waves less than [`WAVE_MARGIN`] as well ([`wave_efficiency`]), and
/// [`Sm90Tile::T128x192`] replaces it where its tiles take no more waves (each SM then
/// computes three quarters of the work in as many waves);
/// [`Sm90Tile::T128x128`] where no tile has more than half a wave of tiles (split-K then fills
/// the wave). The large tiles are never taken for `n <= 128`, where their columns would be at
/// least a third empty.
///
/// ```
/// use tessel_kernels::{blas::choose_tile, hopper::Sm90Tile};
/// assert_eq!(choose_tile(4096, 4096, 132), Sm90Tile::T128x256); // 512 large tiles
/// // 96 large tiles (one wave, 0.73 of it busy); 128 of 128 x 192, also one wave.
/// assert_eq!(choose_tile(1000, 3000, 132), Sm90Tile::T128x192);
/// assert_eq!(choose_tile(2048, 2048, 132), Sm90Tile::T128x256); // 128; 176 take two waves
/// assert_eq!(choose_tile(1024, 14336, 132), Sm90Tile::T128x128); // 448: 0.85 of four waves
/// assert_eq!(choose_tile(64, 14336, 132), Sm90Tile::T128x128); // 112 tiles, not 56
/// assert_eq!(choose_tile(256, 4096, 132), Sm90Tile::T128x64); // 128 tiles, not 64 or 32
/// assert_eq!(choose_tile(64, 4096, 132), Sm90Tile::T128x128); // 64 narrow tiles: split
/// assert_eq!(choose_tile(16384, 100, 132), Sm90Tile::T128x128);
/// ```
pub fn choose_tile(m: i64, n: i64, sms: i64) -> Sm90Tile {
    let fills = |tile| 2 * tiles_of(m, n, tile) > sms;
    let (wide, mid) = (Sm90Tile::T128x256, Sm90Tile::T128x128);
    if n > 128 && fills(wide) {
        let quantized = wave_efficiency(tiles_of(m, n, wide), sms)
            < WAVE_MARGIN * wave_efficiency(tiles_of(m, n, mid), sms);
        let waves_of = |tile| waves(tiles_of(m, n, tile), sms);
        return if quantized {
            mid
        } else if waves_of(Sm90Tile::T128x192) <= waves_of(wide) {
            Sm90Tile::T128x192
        } else {
            wide
        };
    }
    if !fills(mid) && fills(Sm90Tile::T128x64) {
        Sm90Tile::T128x64
    } else {
        mid
    }
}

/// The tile for inputs `input`: [`choose_tile`] for 16-bit inputs; [`Sm90Tile::T128x128`]
/// (K-block 128, 6 stages of 32 KiB) for 8-bit ones, whose promotion keeps a second fp32
/// fragment beside the accumulators: 64 + 64 registers per consumer thread at 128 x 128,
/// where 128 x 256 would need 128 + 128, more than the 232 a consumer has
/// ([`crate::hopper::CONSUMER_REGS`]).
///
/// ```
/// use tessel_kernels::{Element, blas::choose_tile_for, hopper::Sm90Tile};
/// assert_eq!(choose_tile_for(Element::F16, 4096, 4096, 132), Sm90Tile::T128x256);
/// assert_eq!(choose_tile_for(Element::E4M3, 4096, 4096, 132), Sm90Tile::T128x128);
/// ```
pub fn choose_tile_for(input: Element, m: i64, n: i64, sms: i64) -> Sm90Tile {
    if promotes(input) {
        Sm90Tile::T128x128
    } else {
        choose_tile(m, n, sms)
    }
}

/// Fewest k-tiles a split of K keeps (fewer would spend more on the fp32 partial sums and
/// their sum than the extra SMs gain).
pub const MIN_K_TILES_PER_SPLIT: i64 = 4;

/// Most splits of K per tile.
pub const MAX_SPLITS: i64 = 16;

/// How many ranges of k-tiles each output tile is split into (split-K): where the tiles fill
/// at most half the SMs, as many as fit in one wave (`tiles x splits <= sms`), at most
/// [`MAX_SPLITS`] and keeping at least [`MIN_K_TILES_PER_SPLIT`] k-tiles per split; 1
/// otherwise. Each split writes fp32 partial sums that the unit finishing the tile last adds
/// ([`super::split`]); [`split_traffic_allows`] bounds what that costs.
///
/// ```
/// use tessel_kernels::blas::choose_splits;
/// assert_eq!(choose_splits(32, 64, 132), 4); // m <= 128, n 4096: 32 tiles of 128 x 128
/// assert_eq!(choose_splits(16, 224, 132), 8); // 16 tiles, K 14336: eight splits of 28
/// assert_eq!(choose_splits(56, 64, 132), 2); // 56 tiles: two splits, 112 blocks
/// assert_eq!(choose_splits(32, 8, 132), 2); // K 1024: two splits of 4 k-tiles
/// assert_eq!(choose_splits(96, 64, 132), 1); // more than half a wave of tiles
/// assert_eq!(choose_splits(32, 3, 132), 1); // too little K to split
/// ```
pub fn choose_splits(tiles: i64, k_tiles: i64, sms: i64) -> i64 {
    if tiles <= 0 || sms <= 0 || 2 * tiles > sms {
        return 1;
    }
    (sms / tiles)
        .min(k_tiles / MIN_K_TILES_PER_SPLIT)
        .clamp(1, MAX_SPLITS)
}

/// Whether `splits` partial sums of an `m x n x k` problem with inputs of `input_bytes` bytes
/// cost at most half the operands' traffic: each split writes its `m x n` fp32 slab and the
/// unit that finishes the tile reads it (`2 splits m n 4` bytes) against `(m + n) k
/// input_bytes` bytes of A and B.
///
/// ```
/// use tessel_kernels::blas::split_traffic_allows;
/// assert!(split_traffic_allows(2, 64, 14336, 4096, 2)); // 15 MB against 118 MB
/// assert!(!split_traffic_allows(4, 1024, 4096, 4096, 2)); // 134 MB against 42 MB
/// ```
pub fn split_traffic_allows(splits: i64, m: i64, n: i64, k: i64, input_bytes: i64) -> bool {
    let partial = 8.0 * splits as f64 * m as f64 * n as f64;
    let operands = (m + n) as f64 * k as f64 * input_bytes as f64;
    partial <= 0.5 * operands
}

/// The split of an `m x n x k` problem of `tiles` tiles and `k_tiles` k-tiles:
/// [`choose_splits`], reduced until [`split_traffic_allows`] it.
///
/// ```
/// use tessel_kernels::blas::split_for;
/// assert_eq!(split_for((16, 4096, 14336), 16, 224, 2, 132), 8);
/// assert_eq!(split_for((256, 4096, 4096), 64, 64, 2, 132), 2);
/// assert_eq!(split_for((1024, 1024, 2048), 64, 32, 2, 132), 1); // 17 MB of sums, 8 MB of A and B
/// ```
pub fn split_for(
    (m, n, k): (i64, i64, i64),
    tiles: i64,
    k_tiles: i64,
    input_bytes: i64,
    sms: i64,
) -> i64 {
    let mut splits = choose_splits(tiles, k_tiles, sms);
    while splits > 1 && !split_traffic_allows(splits, m, n, k, input_bytes) {
        splits -= 1;
    }
    splits
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_are_bounded_fill_one_wave_and_keep_their_k_tiles() {
        for sms in [1, 78, 108, 132] {
            for tiles in 1..300 {
                for k_tiles in 1..80 {
                    let s = choose_splits(tiles, k_tiles, sms);
                    assert!(
                        (1..=MAX_SPLITS).contains(&s),
                        "{tiles} {k_tiles} {sms}: {s}"
                    );
                    if s > 1 {
                        // Only where the tiles leave half the SMs idle, within one wave.
                        assert!(2 * tiles <= sms, "{tiles} {k_tiles} {sms}");
                        assert!(tiles * s <= sms, "{tiles} {k_tiles} {sms}: {s}");
                        // Every split keeps its k-tiles: s KT / S .. (s + 1) KT / S.
                        assert!(
                            k_tiles / s >= MIN_K_TILES_PER_SPLIT,
                            "{tiles} {k_tiles} {sms}"
                        );
                    }
                    // No larger count fits the same bounds (the wave is filled).
                    let more = s + 1;
                    assert!(
                        s == 1 && 2 * tiles > sms
                            || more > MAX_SPLITS
                            || tiles * more > sms
                            || k_tiles / more < MIN_K_TILES_PER_SPLIT,
                        "{tiles} {k_tiles} {sms}: {s}"
                    );
                }
            }
        }
    }

    #[test]
    fn the_split_traffic_bound_is_half_the_operand_bytes() {
        // 2 s m n 4 against (m + n) k b, at the boundary and one past it.
        let (m, n, b) = (128, 128, 2);
        // s = 2: 262144 bytes of partial sums; operands (256 k 2) = 512 k: k = 1024 is equal.
        assert!(split_traffic_allows(2, m, n, 1024, b));
        assert!(!split_traffic_allows(2, m, n, 1023, b));
        for k in [64, 1000, 5000, 20000] {
            let got = split_for((m, n, k), 1, k / 64, b, 132);
            assert!(got <= choose_splits(1, k / 64, 132), "{k}");
            assert!(got == 1 || split_traffic_allows(got, m, n, k, b), "{k}");
            // The largest count the bound allows.
            assert!(
                got == choose_splits(1, k / 64, 132) || !split_traffic_allows(got + 1, m, n, k, b)
            );
        }
    }
}
