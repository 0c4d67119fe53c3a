//! The tile selection heuristic of the Hopper GEMM (as cuBLAS chooses among its kernels): the
//! large tile where the problem has at least as many large tiles as the GPU has SMs, the
//! smaller one (twice the tiles) where it has fewer, so that more SMs work.

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

/// The tile for an `m x n` output on a GPU of `sms` SMs: [`Sm90Tile::T128x256`] when it gives
/// at least one tile per SM, else [`Sm90Tile::T128x128`] (also for `n <= 128`, where the large
/// tile's columns would be at least half empty).
///
/// ```
/// use tessel_kernels::{blas::choose_tile, hopper::Sm90Tile};
/// assert_eq!(choose_tile(4096, 4096, 132), Sm90Tile::T128x256); // 512 large tiles
/// assert_eq!(choose_tile(128, 4096, 132), Sm90Tile::T128x128); // 16 large tiles
/// assert_eq!(choose_tile(16384, 100, 132), Sm90Tile::T128x128);
/// ```
pub fn choose_tile(m: i64, n: i64, sms: i64) -> Sm90Tile {
    if n <= 128 || tiles_of(m, n, Sm90Tile::T128x256) < sms {
        Sm90Tile::T128x128
    } else {
        Sm90Tile::T128x256
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

/// Fewest k-tiles a split of K keeps (fewer would spend more on the fp32 partial sums and their
/// reduction than the extra SMs gain).
pub const MIN_K_TILES_PER_SPLIT: i64 = 4;

/// Most splits of K per tile.
pub const MAX_SPLITS: i64 = 16;

/// Share of the SMs' slots a grid of `units` equal units of work keeps busy over its waves:
/// `units / (ceil(units / sms) sms)`.
fn wave_efficiency(units: i64, sms: i64) -> f64 {
    let waves = (units + sms - 1) / sms;
    units as f64 / (waves * sms) as f64
}

/// How many ranges of k-tiles each output tile is split into (split-K, as cuBLAS does where a
/// problem has fewer tiles than the GPU has SMs): 1 when `tiles >= sms`; otherwise the count
/// whose units (`tiles x splits`) fill the SMs' waves best, at most [`MAX_SPLITS`] and keeping
/// at least [`MIN_K_TILES_PER_SPLIT`] k-tiles per split, and only when it fills them at least
/// 10% better than no split (ties to fewer splits). Each split writes fp32 partial sums that a
/// reduction adds ([`super::Gemm::run`]).
///
/// ```
/// use tessel_kernels::blas::choose_splits;
/// assert_eq!(choose_splits(32, 64, 132), 4); // m <= 128, n 4096: 32 tiles of 128 x 128
/// assert_eq!(choose_splits(112, 64, 132), 7); // n 14336: 7 x 112 = 784 units, 99% of 6 waves
/// assert_eq!(choose_splits(32, 8, 132), 2); // K 1024: two splits of 4 k-tiles
/// assert_eq!(choose_splits(512, 64, 132), 1); // enough tiles
/// assert_eq!(choose_splits(32, 3, 132), 1); // too little K to split
/// ```
pub fn choose_splits(tiles: i64, k_tiles: i64, sms: i64) -> i64 {
    if tiles <= 0 || sms <= 0 || tiles >= sms {
        return 1;
    }
    let most = (k_tiles / MIN_K_TILES_PER_SPLIT).clamp(1, MAX_SPLITS);
    let base = wave_efficiency(tiles, sms);
    let mut best = (1, base);
    for s in 2..=most {
        let e = wave_efficiency(tiles * s, sms);
        if e > best.1 + 1e-9 {
            best = (s, e);
        }
    }
    if best.1 >= base * 1.1 { best.0 } else { 1 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_are_non_empty_bounded_and_never_add_a_wave_for_nothing() {
        for sms in [1, 78, 108, 132] {
            for tiles in 1..300 {
                for k_tiles in 1..80 {
                    let s = choose_splits(tiles, k_tiles, sms);
                    assert!(
                        (1..=MAX_SPLITS).contains(&s),
                        "{tiles} {k_tiles} {sms}: {s}"
                    );
                    if s > 1 {
                        assert!(tiles < sms, "{tiles} {k_tiles} {sms}: {s}");
                        // Every split keeps its k-tiles: s KT / S .. (s + 1) KT / S non-empty.
                        assert!(
                            k_tiles / s >= MIN_K_TILES_PER_SPLIT,
                            "{tiles} {k_tiles} {sms}"
                        );
                        // The units fill the waves better than the tiles alone.
                        let fill = |u: i64| u as f64 / (((u + sms - 1) / sms) * sms) as f64;
                        assert!(fill(tiles * s) > fill(tiles), "{tiles} {k_tiles} {sms}");
                    }
                }
            }
        }
    }
}
