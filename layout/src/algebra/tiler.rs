//! Tilers: what divides and by-mode compositions take (a layout, or one tiler per mode).
//!
//! ```
//! use tessel_layout::{logical_divide, Layout, Tiler};
//! // Tile mode 0 by 2:1 and leave mode 1 alone.
//! let t = Tiler::ByMode(vec![Some(Tiler::Layout("2:1".parse().unwrap())), None]);
//! assert_eq!(t.to_string(), "[2:1,_]");
//! let a: Layout = "(4,3):(1,4)".parse().unwrap();
//! assert_eq!(logical_divide(&a, &t).unwrap().to_string(), "((2,2),3):((1,2),4)");
//! ```

use super::built::{Built, same_codes};
use crate::int_tuple::store;
use crate::int_tuple::write_seq;
use crate::{IntTuple, Layout};

/// A tiler: a layout applied to the whole domain, or a by-mode tuple `[T0, T1, ...]` where
/// `None` (written `_`) leaves that mode alone.
///
/// ```
/// use tessel_layout::{compose_tiler, Layout, Tiler};
/// // By-mode: mode 0 keeps its first 2 rows, mode 1 every other column.
/// let a: Layout = "(4,8):(1,4)".parse().unwrap();
/// let t = Tiler::ByMode(vec![
///     Some(Tiler::Layout("2:1".parse().unwrap())),
///     Some(Tiler::Layout("4:2".parse().unwrap())),
/// ]);
/// assert_eq!(t.to_string(), "[2:1,4:2]");
/// assert_eq!(compose_tiler(&a, &t).unwrap().to_string(), "(2,4):(1,8)");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Tiler {
    /// One layout for the whole (1-D) domain.
    Layout(Layout),
    /// One tiler per top-level mode; `None` keeps the mode as it is.
    ByMode(Vec<Option<Tiler>>),
}

/// Tilers as values, as CuTe reads a `Tile<...>` (a tuple whose elements are layouts, shapes or
/// `_`): its rank, its modes, its shape, and selections of its modes.
impl Tiler {
    /// The number of modes: the entries of a by-mode tiler, the top-level modes of a layout.
    ///
    /// ```
    /// let t = tessel_layout::Tiler::ByMode(vec![None, None, None]);
    /// assert_eq!(t.rank(), 3);
    /// ```
    pub fn rank(&self) -> usize {
        match self {
            Tiler::Layout(l) => l.rank(),
            Tiler::ByMode(parts) => parts.len(),
        }
    }

    /// CuTe's `shape(tiler)`: the shape of every mode, `_` for a `_` entry (CuTe's `shape` of an
    /// `Underscore` is the underscore). A layout tiler's shape is the layout's.
    ///
    /// ```
    /// use tessel_layout::{Layout, Tiler};
    /// let t = Tiler::ByMode(vec![Some(Tiler::Layout("(2,4):(1,8)".parse().unwrap())), None]);
    /// assert_eq!(t.shape().to_string(), "((2,4),_)");
    /// ```
    pub fn shape(&self) -> crate::SliceCoord {
        match self {
            Tiler::Layout(l) => crate::SliceCoord::from(l.shape()),
            Tiler::ByMode(parts) => crate::SliceCoord::Tuple(
                parts
                    .iter()
                    .map(|p| p.as_ref().map_or(crate::SliceCoord::All, Tiler::shape))
                    .collect(),
            ),
        }
    }

    /// CuTe's `get<I>(tiler)`: mode `i`, `None` for a `_` entry; a layout tiler's mode `i` is
    /// the layout's.
    ///
    /// ```
    /// use tessel_layout::Tiler;
    /// let t = Tiler::ByMode(vec![Some(Tiler::Layout("4:2".parse().unwrap())), None]);
    /// assert_eq!(t.mode(0).unwrap().unwrap().to_string(), "4:2");
    /// assert!(t.mode(1).unwrap().is_none());
    /// assert!(t.mode(2).is_err());
    /// ```
    pub fn mode(&self, i: usize) -> crate::Result<Option<Tiler>> {
        match self {
            Tiler::Layout(l) => l.mode(i).map(|m| Some(Tiler::Layout(m))),
            Tiler::ByMode(parts) => parts.get(i).cloned().ok_or_else(|| {
                crate::Error::invalid(format!(
                    "mode {i} does not exist in the tiler {self} of rank {}",
                    parts.len()
                ))
            }),
        }
    }

    /// CuTe's `select<I...>(tiler)`: the tiler of the modes `indices`, in that order.
    ///
    /// ```
    /// use tessel_layout::Tiler;
    /// let t: Tiler = Tiler::ByMode(vec![
    ///     Some(Tiler::Layout("32:1".parse().unwrap())),
    ///     Some(Tiler::Layout("64:1".parse().unwrap())),
    ///     Some(Tiler::Layout("4:1".parse().unwrap())),
    /// ]);
    /// assert_eq!(t.select(&[0, 2]).unwrap().to_string(), "[32:1,4:1]");
    /// ```
    pub fn select(&self, indices: &[usize]) -> crate::Result<Tiler> {
        match self {
            Tiler::Layout(l) => l.select(indices).map(Tiler::Layout),
            Tiler::ByMode(_) => indices
                .iter()
                .map(|&i| self.mode(i))
                .collect::<crate::Result<Vec<_>>>()
                .map(Tiler::ByMode),
        }
    }

    /// CuTe's `take<B,E>(tiler)`: the modes `begin..end`, `begin < end`.
    ///
    /// ```
    /// use tessel_layout::Tiler;
    /// let t = Tiler::ByMode(vec![None, Some(Tiler::Layout("4:1".parse().unwrap())), None]);
    /// assert_eq!(t.take(1, 3).unwrap().to_string(), "[4:1,_]");
    /// assert!(t.take(2, 2).is_err());
    /// ```
    pub fn take(&self, begin: usize, end: usize) -> crate::Result<Tiler> {
        if begin >= end || end > self.rank() {
            return Err(crate::Error::invalid(format!(
                "take({begin},{end}) of the tiler {self}: needs begin < end <= rank {}",
                self.rank()
            )));
        }
        self.select(&(begin..end).collect::<Vec<_>>())
    }

    /// CuTe's `size(tiler)`: the product of the sizes of its modes. A `_` entry has no size.
    ///
    /// ```
    /// use tessel_layout::Tiler;
    /// let t = Tiler::ByMode(vec![Some(Tiler::Layout("4:2".parse().unwrap())), Some(Tiler::Layout("(2,3):(1,2)".parse().unwrap()))]);
    /// assert_eq!(t.size().unwrap(), 24);
    /// assert!(Tiler::ByMode(vec![None]).size().is_err());
    /// ```
    pub fn size(&self) -> crate::Result<i64> {
        match self {
            Tiler::Layout(l) => Ok(l.size()),
            Tiler::ByMode(parts) => parts.iter().try_fold(1i64, |acc, p| {
                let size = p.as_ref().map(Tiler::size).ok_or_else(|| {
                    crate::Error::invalid(format!(
                        "the tiler {self} has a '_' entry, which has no size"
                    ))
                })??;
                crate::checked_mul(acc, size, &format!("the size of the tiler {self}"))
            }),
        }
    }
}

impl From<Layout> for Tiler {
    fn from(l: Layout) -> Self {
        Tiler::Layout(l)
    }
}

/// Applies `op` to mode `i` of `a` and `parts[i]` for every `Some` part; `None` parts and the
/// modes of `a` past the tiler's rank are kept. `name` names the operation in errors.
pub(crate) fn by_mode(
    a: &Layout,
    parts: &[Option<Tiler>],
    name: &str,
    op: impl Fn(&Layout, &Tiler) -> crate::Result<Layout>,
) -> crate::Result<Layout> {
    if parts.len() > a.rank() {
        return Err(crate::Error::invalid(format!(
            "{name} of {a} by a by-mode tiler of rank {}: the tiler's rank must not exceed the \
             layout's rank {}",
            parts.len(),
            a.rank()
        )));
    }
    let mut modes = Few::new();
    for i in 0..a.rank() {
        let mode = a.mode(i)?;
        modes.push(match parts.get(i) {
            Some(Some(t)) => op(&mode, t)?,
            _ => mode,
        });
    }
    Layout::from_modes(modes)
}

impl std::fmt::Display for Tiler {
    /// CuTe-like notation: a layout, or `[T0,T1,...]` with `_` for a kept mode.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Tiler::Layout(l) => write!(f, "{l}"),
            Tiler::ByMode(parts) => write_seq(f, ("[", "]"), parts, |f, p| match p {
                Some(t) => write!(f, "{t}"),
                None => f.write_str("_"),
            }),
        }
    }
}

/// How the zipped, tiled and flat divides and products arrange the two halves of [`unzip`].
#[derive(Clone, Copy, Debug)]
pub(crate) enum Grouping {
    /// `((TileM,TileN), (RestM,RestN,L,...))`.
    Zipped,
    /// `((TileM,TileN), RestM, RestN, L, ...)`.
    Tiled,
    /// `(TileM, TileN, RestM, RestN, L, ...)`.
    Flat,
}

/// The halves `(tile, rest)` of a rank-2 split (a logical divide or product) of a layout by a
/// layout, with the split's errors.
pub(crate) type Halves<'a> = &'a dyn Fn(&Layout, &Layout) -> crate::Result<(Layout, Layout)>;

/// The same split written into builders, the tile appended to the first and the rest to the
/// second; it fails (with an unspecific error) wherever the [`Halves`] split fails.
pub(crate) type HalvesInto<'a> =
    &'a dyn Fn(&Layout, &Layout, &mut Built, &mut Built) -> crate::Result<()>;

/// A few layouts, on the stack for up to four.
type Few = smallvec::SmallVec<[Layout; 4]>;

/// [`unzip`] `a` by `tiler` with `split`, then arrange the tile and rest as `grouping` says.
pub(crate) fn regroup(
    a: &Layout,
    tiler: &Tiler,
    name: &str,
    split: Halves<'_>,
    split_into: HalvesInto<'_>,
    grouping: Grouping,
) -> crate::Result<Layout> {
    if let Tiler::ByMode(parts) = tiler {
        if let Ok(r) = regroup_flat(a, parts, split_into, grouping) {
            return Ok(r);
        }
    }
    let (tile, rest) = unzip(a, tiler, name, split)?;
    match grouping {
        Grouping::Zipped => Layout::from_modes([tile, rest]),
        Grouping::Tiled => Layout::from_modes(std::iter::once(tile).chain(rest.iter_modes())),
        Grouping::Flat => Layout::from_modes(tile.iter_modes().chain(rest.iter_modes())),
    }
}

/// [`regroup`] by a by-mode tiler whose parts are layouts or `None`, writing the tiles and the
/// rests straight into the result's structure codes and leaves. Fails (with an unspecific
/// error) wherever [`regroup`] on layouts may fail, which then runs and reports the failure.
fn regroup_flat(
    a: &Layout,
    parts: &[Option<Tiler>],
    split: HalvesInto<'_>,
    grouping: Grouping,
) -> crate::Result<Layout> {
    let unspecific = || crate::Error::invalid("the flat regrouping does not apply");
    if parts.len() > a.rank() {
        return Err(unspecific());
    }
    let top = tree_parts(a).ok_or_else(unspecific)?;
    let rank = top.0;
    // Every layout part within the rank gives one tile, every mode of `a` one rest: the tiles go straight into the result after their node's code (when they
    // have one), the rests into their own builder, appended once at the end.
    let n_tiles = parts.len();
    let mut out = Built::new();
    if !matches!(grouping, Grouping::Flat) {
        out.push_node_code(n_tiles);
    }
    let tiles = &mut out;
    let mut rests = Built::new();
    for_each_top_mode(top, |i, mode_codes, mode_shapes, mode_strides| {
        match parts.get(i) {
            Some(Some(Tiler::Layout(b))) => {
                let mode = mode_layout(mode_codes, mode_shapes, mode_strides);
                split(&mode, b, tiles, &mut rests)?;
            }
            Some(Some(Tiler::ByMode(_))) => return Err(unspecific()),
            // A `_` part takes a rank-2 mode apart (see `unzip`): done on layouts.
            Some(None) => return Err(unspecific()),
            None => rests.push_raw(mode_codes, mode_shapes, mode_strides),
        }
        Ok(())
    })?;
    let n_rests = rank;
    let arity = match grouping {
        Grouping::Zipped => {
            out.push_node(n_rests, &rests);
            2
        }
        Grouping::Tiled => {
            out.append(&rests);
            1 + n_rests
        }
        Grouping::Flat => {
            out.append(&rests);
            n_tiles + n_rests
        }
    };
    out.checked_layout(arity).ok_or_else(unspecific)
}

/// A layout's top-level modes: its rank, their structure codes, their extents and strides.
pub(crate) type TopModes<'a> = (usize, &'a [u8], &'a [i64], &'a [i64]);

/// The rank of `a` and the structure codes and leaves of its top-level modes (one leaf mode for
/// a leaf layout); `None` where shape and stride are not congruent (never for a valid layout).
#[inline(always)]
pub(crate) fn tree_parts(a: &Layout) -> Option<TopModes<'_>> {
    match (a.shape(), a.stride()) {
        (IntTuple::Tuple(ss), IntTuple::Tuple(ds)) if same_codes(ss, ds) => {
            Some((ss.len(), ss.codes(), ss.leaf_slice(), ds.leaf_slice()))
        }
        (IntTuple::Int(s), IntTuple::Int(d)) => Some((
            1,
            &[store::LEAF],
            std::slice::from_ref(s),
            std::slice::from_ref(d),
        )),
        _ => None,
    }
}

/// Calls `f(i, codes, extents, strides)` for each top-level mode `i` of [`tree_parts`], left to
/// right: its structure codes (one element), extents and strides; stops at the first error.
#[inline(always)]
pub(crate) fn for_each_top_mode(
    (rank, codes, shapes, strides): TopModes<'_>,
    mut f: impl FnMut(usize, &[u8], &[i64], &[i64]) -> crate::Result<()>,
) -> crate::Result<()> {
    let (mut k, mut leaf) = (0, 0);
    for i in 0..rank {
        let (end, n_leaves) = store::skip(codes, k, 1);
        f(
            i,
            &codes[k..end],
            &shapes[leaf..leaf + n_leaves],
            &strides[leaf..leaf + n_leaves],
        )?;
        (k, leaf) = (end, leaf + n_leaves);
    }
    Ok(())
}

/// Top-level mode `i` of [`tree_parts`]: its structure codes (one element), extents and
/// strides; `None` past the rank.
#[inline]
pub(crate) fn top_mode<'t>(
    (rank, codes, shapes, strides): TopModes<'t>,
    i: usize,
) -> Option<(&'t [u8], &'t [i64], &'t [i64])> {
    if i >= rank {
        return None;
    }
    let (start, before) = store::skip(codes, 0, i);
    let (end, n_leaves) = store::skip(codes, start, 1);
    let leaves = before..before + n_leaves;
    Some((
        &codes[start..end],
        &shapes[leaves.clone()],
        &strides[leaves],
    ))
}

/// The layout of one top-level mode given by its structure codes (one element) and leaves, as
/// [`tree_parts`] gives them: a leaf, or a node built from its codes and leaves.
fn mode_layout(codes: &[u8], shapes: &[i64], strides: &[i64]) -> Layout {
    let (shape, stride) = match store::read_code(codes, 0) {
        (None, _) => (IntTuple::Int(shapes[0]), IntTuple::Int(strides[0])),
        (Some(arity), body) => {
            let mut built = Built::new();
            built.push_raw(&codes[body..], shapes, strides);
            built.finish(arity)
        }
    };
    // A mode of a valid layout is valid: its size divides the whole's, its offsets lie
    // between the whole's.
    Layout::from_checked_parts(shape, stride)
}

/// The two modes of the rank-2 result `r` of a divide or product, moved out of it when it is a
/// tuple of two.
pub(crate) fn halves_of(r: Layout) -> crate::Result<(Layout, Layout)> {
    if r.rank() != 2 {
        return Ok((r.mode(0)?, r.mode(1)?));
    }
    super::flat::into_two_modes(r)
        .ok_or_else(|| crate::Error::invalid("internal: a rank-2 layout without 2 modes"))
}

/// CuTe's tile-unzip (`tile_unzip`, pycute's `hier_unzip`): applies the rank-2 operation
/// `split` (a logical divide or product) following the tiler, and gathers the mode-0 parts into
/// the tile and the mode-1 parts, followed by the modes the tiler does not reach, into the rest.
///
/// A `None` (`_`) entry leaves its mode as the logical divide or product leaves it (unchanged),
/// and then, as CuTe's `zip2_by` does with every terminal of the tiler, takes that mode apart
/// as `(tile, rest)`: its sub-mode 0 joins the tiles and its sub-mode 1 the rests. So the mode
/// must have rank 2 (CuTe does not compile otherwise); any other rank is an
/// [`ErrorKind::Inadmissible`](crate::ErrorKind) error naming the mode.
pub(crate) fn unzip(
    a: &Layout,
    tiler: &Tiler,
    name: &str,
    split: Halves<'_>,
) -> crate::Result<(Layout, Layout)> {
    match tiler {
        Tiler::Layout(b) => split(a, b),
        Tiler::ByMode(parts) => {
            if parts.len() > a.rank() {
                return Err(crate::Error::invalid(format!(
                    "{name} of {a} by the tiler {tiler}: the tiler's rank {} must not exceed \
                     the layout's rank {}",
                    parts.len(),
                    a.rank()
                )));
            }
            let mut tiles = Few::new();
            let mut rests = Few::new();
            for i in 0..a.rank() {
                let mode = a.mode(i)?;
                match parts.get(i) {
                    Some(Some(t)) => {
                        let (tile, rest) = unzip(&mode, t, name, split)?;
                        tiles.push(tile);
                        rests.push(rest);
                    }
                    Some(None) => {
                        let (tile, rest) = kept_halves(&mode, i, a, tiler, name)?;
                        tiles.push(tile);
                        rests.push(rest);
                    }
                    None => rests.push(mode),
                }
            }
            Ok((Layout::from_modes(tiles)?, Layout::from_modes(rests)?))
        }
    }
}

/// The halves `(tile, rest)` of mode `i` of `a` under a `_` entry of `tiler`: its two sub-modes
/// (CuTe's `zip2_by` on a mode the tiler does not split), or the error that it has not two.
fn kept_halves(
    mode: &Layout,
    i: usize,
    a: &Layout,
    tiler: &Tiler,
    name: &str,
) -> crate::Result<(Layout, Layout)> {
    if mode.shape().is_int() || mode.rank() != 2 {
        return Err(crate::Error::inadmissible(format!(
            "{name} of {a} by the tiler {tiler}: the '_' entry {i} keeps mode {i} = {mode} and \
             takes it apart as (tile, rest), as CuTe's zip2_by does, so that mode must have rank \
             2 (it has rank {}{})",
            mode.rank(),
            if mode.shape().is_int() {
                ", a single leaf"
            } else {
                ""
            }
        )));
    }
    Ok((mode.mode(0)?, mode.mode(1)?))
}
