//! Thread/value layouts: which tile element each thread's value is.
//!
//! A TV layout maps `(thread, value)` (domain index `t + threads * v`) to the tile index
//! `r + TM * c` of a `TM x TN` tile (column-major tile coordinates). They are built the way
//! CuTe's `make_tiled_copy(thr_layout, val_layout)` arranges threads and values; the algebra that
//! derives them from a thread layout and a value layout (raked_product + right_inverse) was still
//! scaffolding when this was written, so the three arrangements the kernels use are spelled out
//! here and every one is checked to be a bijection onto the tile ([`check_tv`]).
//!
//! ```
//! use tessel_kernels::partition::{check_tv, rows_raked};
//! let tv = rows_raked(32, 32, 1, 256).unwrap();
//! check_tv(&tv, 256, 32 * 32).unwrap();
//! ```

use tessel_layout::{Error, IntTuple, Layout, Result};

fn layout(shape: [[i64; 2]; 2], stride: [[i64; 2]; 2]) -> Result<Layout> {
    let tup =
        |x: [[i64; 2]; 2]| IntTuple::tuple([IntTuple::from_ints(x[0]), IntTuple::from_ints(x[1])]);
    Layout::new(tup(shape), tup(stride))
}

fn exact_div(a: i64, b: i64, what: &str) -> Result<i64> {
    if b <= 0 || a % b != 0 {
        return Err(Error::invalid(format!("{what}: {b} does not divide {a}")));
    }
    Ok(a / b)
}

/// Lanes along the tile's columns (`c`, contiguous in a row-major matrix), each thread holding
/// `vec` consecutive columns of a row, the rows raked over the tile by thread rows.
///
/// ```
/// use tessel_kernels::partition::rows_raked;
/// let tv = rows_raked(32, 32, 1, 256).unwrap();
/// assert_eq!(tv.to_string(), "((32,8),(1,4)):((32,1),(32,8))");
/// assert_eq!(tv.offset(1).unwrap(), 32);   // thread 1 value 0 -> (r 0, c 1)
/// ```
pub fn rows_raked(tm: i64, tn: i64, vec: i64, threads: i64) -> Result<Layout> {
    let tc = exact_div(tn, vec, "rows_raked: vector width vs tile columns")?;
    let tr = exact_div(threads, tc, "rows_raked: threads per row vs threads")?;
    let k = exact_div(tm, tr, "rows_raked: thread rows vs tile rows")?;
    layout([[tc, tr], [vec, k]], [[vec * tm, 1], [tm, tr]])
}

/// Lanes along the tile's rows (`r`, contiguous in the transposed output), each thread holding
/// `vec` consecutive rows of a column, the columns raked over the tile.
///
/// ```
/// use tessel_kernels::partition::cols_raked;
/// let tv = cols_raked(32, 32, 1, 256).unwrap();
/// assert_eq!(tv.offset(1).unwrap(), 1);    // thread 1 value 0 -> (r 1, c 0)
/// ```
pub fn cols_raked(tm: i64, tn: i64, vec: i64, threads: i64) -> Result<Layout> {
    let tr = exact_div(tm, vec, "cols_raked: vector width vs tile rows")?;
    let tc = exact_div(threads, tr, "cols_raked: threads per column vs threads")?;
    let k = exact_div(tn, tc, "cols_raked: thread columns vs tile columns")?;
    layout([[tr, tc], [vec, k]], [[vec, tm], [1, tc * tm]])
}

/// Each thread owns a `vec x vec` block (values: `vec` columns fastest, then `vec` rows); lanes
/// along columns. The register transpose of such a block turns row vectors into column vectors.
///
/// ```
/// use tessel_kernels::partition::blocks;
/// let tv = blocks(64, 64, 4).unwrap();
/// assert_eq!(tv.size(), 64 * 64);
/// assert_eq!(tv.offset(256 * 5).unwrap(), 64 + 1); // thread 0, value 5 -> (r 1, c 1)
/// ```
pub fn blocks(tm: i64, tn: i64, vec: i64) -> Result<Layout> {
    let tc = exact_div(tn, vec, "blocks: vector width vs tile columns")?;
    let tr = exact_div(tm, vec, "blocks: vector width vs tile rows")?;
    layout([[tc, tr], [vec, vec]], [[vec * tm, vec], [tm, 1]])
}

/// Checks that `tv` maps its domain one-to-one onto `0..tile_size` and has `threads` threads.
///
/// ```
/// use tessel_kernels::partition::{check_tv, rows_raked};
/// check_tv(&rows_raked(32, 32, 1, 256).unwrap(), 256, 1024).unwrap();
/// let bad: tessel_layout::Layout = "((32,8),4):((1,1),8)".parse().unwrap();
/// assert!(check_tv(&bad, 256, 1024).is_err());
/// ```
pub fn check_tv(tv: &Layout, threads: i64, tile_size: i64) -> Result<()> {
    if tv.mode(0)?.size() != threads {
        return Err(Error::invalid(format!(
            "TV layout {tv}: thread mode has {} threads, expected {threads}",
            tv.mode(0)?.size()
        )));
    }
    let mut seen = vec![false; usize::try_from(tile_size).unwrap_or(0)];
    if tv.size() != tile_size {
        return Err(Error::invalid(format!(
            "TV layout {tv} has size {} but the tile has {tile_size} elements",
            tv.size()
        )));
    }
    for o in tv.offsets() {
        match usize::try_from(o).ok().and_then(|i| seen.get_mut(i)) {
            Some(slot) if !*slot => *slot = true,
            _ => {
                return Err(Error::invalid(format!(
                    "TV layout {tv} is not a bijection onto the {tile_size}-element tile \
                     (offset {o} repeated or out of range)"
                )));
            }
        }
    }
    Ok(())
}
