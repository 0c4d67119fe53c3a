//! CuTe's `Step` projections: `dice(step, x)` keeps the modes of `x` that `step` marks with an
//! integer and drops those marked `X` (CuTe's `X` is its `Underscore`, `_`). `local_tile` and
//! `local_partition` take a step to use one CTA tiler `(BLK_M, BLK_N, BLK_K)` for the three
//! operands of a GEMM: `Step<_1, X, _1>` projects it onto A's `(M, K)`
//! (`include/cute/tensor_impl.hpp`, CUTLASS v4.2.1).
//!
//! `dice` follows `include/cute/underscore.hpp`: for a tuple step the kept elements are
//! concatenated, and the kept elements of a nested tuple step are lifted into the same level
//! (`dice((1,(1,X)), (a,(b,c))) = (a,b)`); an integer step keeps `x` whole, a `_` step keeps
//! nothing.
//!
//! ```
//! use tessel_layout::{local_tile_projected, Layout, SliceCoord, Tiler};
//! // CuTe tensor_impl.hpp: ctaA = local_tile(dataA, cta_tiler, cta_coord, Step<_1, X,_1>{}):
//! // (_32,_4,k) for the tiler (32,64,4) and the coordinate (m, n, _).
//! let data_a: Layout = "(128,16):(1,128)".parse().unwrap(); // (M,K)
//! let tiler = Tiler::ByMode([32, 64, 4].iter().map(|&n| Some(Tiler::Layout(Layout::vector(n, 1).unwrap()))).collect());
//! let coord = SliceCoord::Tuple(vec![SliceCoord::Index(2), SliceCoord::Index(1), SliceCoord::All]);
//! let step = SliceCoord::Tuple(vec![SliceCoord::Index(1), SliceCoord::All, SliceCoord::Index(1)]);
//! let (cta_a, offset) = local_tile_projected(&data_a, &tiler, &coord, &step).unwrap();
//! assert_eq!(cta_a.to_string(), "(32,4,4):(1,128,512)");
//! assert_eq!(offset, 64);
//! ```

use std::fmt;

use super::Tiler;
use crate::{Error, IntTuple, Layout, Result, SliceCoord};

/// What `dice` returns: `x` itself (an integer step), or the kept elements, which form a tuple.
enum Diced<B> {
    Whole(B),
    Items(Vec<B>),
}

/// CuTe's `dice(step, x)` on any tuple-like `x`, whose elements `items` lists (`None` for an
/// element that is not a tuple).
fn dice<B: Clone + fmt::Display>(
    step: &SliceCoord,
    x: &B,
    items: &dyn Fn(&B) -> Option<Vec<B>>,
) -> Result<Diced<B>> {
    match step {
        SliceCoord::Index(_) => Ok(Diced::Whole(x.clone())),
        SliceCoord::All => Ok(Diced::Items(Vec::new())),
        SliceCoord::Tuple(_) => {
            let mut kept = Vec::new();
            lift(step, x, items, &mut kept)?;
            Ok(Diced::Items(kept))
        }
    }
}

/// CuTe's `lift_dice`: appends the kept elements of `x` under `step` to `out`.
fn lift<B: Clone + fmt::Display>(
    step: &SliceCoord,
    x: &B,
    items: &dyn Fn(&B) -> Option<Vec<B>>,
    out: &mut Vec<B>,
) -> Result<()> {
    match step {
        SliceCoord::Index(_) => out.push(x.clone()),
        SliceCoord::All => {}
        SliceCoord::Tuple(steps) => {
            let elements = items(x).filter(|e| e.len() == steps.len()).ok_or_else(|| {
                Error::invalid(format!(
                    "the step {step} has {} modes but {x} does not (a step needs the rank of \
                     what it projects, mode by mode)",
                    steps.len()
                ))
            })?;
            for (s, e) in steps.iter().zip(&elements) {
                lift(s, e, items, out)?;
            }
        }
    }
    Ok(())
}

/// The elements of a tuple (`None` for an integer).
fn tuple_items(t: &IntTuple) -> Option<Vec<IntTuple>> {
    match t {
        IntTuple::Int(_) => None,
        IntTuple::Tuple(items) => Some(items.iter().collect()),
    }
}

/// CuTe's `dice(step, layout)`: the shape and the stride diced alike.
///
/// ```
/// use tessel_layout::{algebra::projection::dice_layout, SliceCoord};
/// // CuTe tensor_impl.hpp: thr_layout (_2,_16,_1):(_16,_1,_0) with Step<_1, X,_1>.
/// let thr: tessel_layout::Layout = "(2,16,1):(16,1,0)".parse().unwrap();
/// let step = SliceCoord::Tuple(vec![SliceCoord::Index(1), SliceCoord::All, SliceCoord::Index(1)]);
/// assert_eq!(dice_layout(&step, &thr).unwrap().to_string(), "(2,1):(16,0)");
/// ```
pub fn dice_layout(step: &SliceCoord, layout: &Layout) -> Result<Layout> {
    let tuple = |d: Diced<IntTuple>| match d {
        Diced::Whole(t) => t,
        Diced::Items(items) => IntTuple::Tuple(items.into()),
    };
    let shape = tuple(dice(step, layout.shape(), &tuple_items)?);
    let stride = tuple(dice(step, layout.stride(), &tuple_items)?);
    Layout::new(shape, stride).map_err(|e| e.context(format!("dice({step}, {layout})")))
}

/// CuTe's `dice(step, coord)` of a (slicing) coordinate.
///
/// ```
/// use tessel_layout::{algebra::projection::dice_coord, SliceCoord::{All, Index, Tuple}};
/// let coord = Tuple(vec![Index(3), Index(5), All]);
/// let step = Tuple(vec![All, Index(1), Index(1)]);
/// assert_eq!(dice_coord(&step, &coord).unwrap().to_string(), "(5,_)");
/// ```
pub fn dice_coord(step: &SliceCoord, coord: &SliceCoord) -> Result<SliceCoord> {
    let items = |c: &SliceCoord| match c {
        SliceCoord::Tuple(parts) => Some(parts.clone()),
        _ => None,
    };
    Ok(match dice(step, coord, &items)? {
        Diced::Whole(c) => c,
        Diced::Items(parts) => SliceCoord::Tuple(parts),
    })
}

/// A tiler entry, displayed as in a tiler (`_` for `None`).
#[derive(Clone)]
struct Entry(Option<Tiler>);

impl fmt::Display for Entry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            Some(t) => write!(f, "{t}"),
            None => f.write_str("_"),
        }
    }
}

/// CuTe's `dice(step, tiler)`: a by-mode tiler keeps the entries the step marks with an
/// integer; a layout tiler is diced as a layout ([`dice_layout`]).
///
/// ```
/// use tessel_layout::{algebra::projection::dice_tiler, SliceCoord::{All, Index, Tuple}, Tiler};
/// let t = Tiler::ByMode(vec![
///     Some(Tiler::Layout("32:1".parse().unwrap())),
///     Some(Tiler::Layout("64:1".parse().unwrap())),
///     Some(Tiler::Layout("4:1".parse().unwrap())),
/// ]);
/// let step = Tuple(vec![All, Index(1), Index(1)]);
/// assert_eq!(dice_tiler(&step, &t).unwrap().to_string(), "[64:1,4:1]");
/// ```
pub fn dice_tiler(step: &SliceCoord, tiler: &Tiler) -> Result<Tiler> {
    if let Tiler::Layout(l) = tiler {
        return dice_layout(step, l).map(Tiler::Layout);
    }
    let items = |e: &Entry| match &e.0 {
        Some(Tiler::ByMode(parts)) => Some(parts.iter().cloned().map(Entry).collect()),
        _ => None,
    };
    match dice(step, &Entry(Some(tiler.clone())), &items)? {
        Diced::Whole(Entry(Some(t))) => Ok(t),
        Diced::Whole(Entry(None)) => Err(Error::invalid("internal: a diced tiler of '_'")),
        Diced::Items(entries) => Ok(Tiler::ByMode(entries.into_iter().map(|e| e.0).collect())),
    }
}
