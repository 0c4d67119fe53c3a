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
