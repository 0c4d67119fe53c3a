//! CuTe's `TiledCopy`, `ThrCopy` and `make_tiled_copy*` (`include/cute/atom/copy_atom.hpp`).
//!
//! ```
//! use tessel_layout::{atom::copy_atom, tiled::make_tiled_copy};
//! // 4 threads x 2 values along rows: thread t holds rows 2t, 2t+1.
//! let atom = copy_atom("UniversalCopy<uint32_t>").unwrap().typed(32).unwrap();
//! let c = make_tiled_copy(&atom, &"4:1".parse().unwrap(), &"2:1".parse().unwrap()).unwrap();
//! assert_eq!(c.layout_tv().to_string(), "(4,2):(2,1)");
//! ```

use std::fmt;

use super::{col_major, first_mode, shape_tiler};
use crate::atom::TypedCopyAtom;
use crate::{
    Error, IntTuple, Layout, Result, SliceCoord, Tiler, coalesce_profile, compose_tiler,
    composition, is_bijective, logical_product, raked_product, right_inverse, upcast,
    zipped_divide,
};

/// CuTe's `TiledCopy`: an atom, a TV layout `(thread, value) -> tile coordinate` (the
/// column-major index in the tile) and the tile's extent per mode.
///
/// ```
/// use tessel_layout::{atom::copy_atom, tiled::TiledCopy};
/// let atom = copy_atom("UniversalCopy<uint64_t>").unwrap().typed(32).unwrap();
/// let c = TiledCopy::new(&atom, "(8,2):(2,1)".parse().unwrap(), vec![16]).unwrap();
/// assert_eq!((c.threads(), c.values()), (8, 2));
/// // 3 values per thread are not whole 2-value atoms.
/// assert!(TiledCopy::new(&atom, "(8,3):(3,1)".parse().unwrap(), vec![24]).is_err());
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TiledCopy {
    atom: TypedCopyAtom,
    layout_tv: Layout,
    tiler: Vec<i64>,
}

/// CuTe's `make_tiled_copy(atom, thr_layout, val_layout)`: `layout_mn =
/// raked_product(thr_layout, val_layout)` maps a tile coordinate to `(thread, value)`, its
/// right inverse reshaped to `(size(thr), size(val))` is the TV layout, and the tile is
/// `product_each(shape(layout_mn))`.
///
/// `thr_layout` maps a tile coordinate to a thread index and `val_layout` to a value index;
/// each must be a bijection onto `0..size` (an error otherwise, where CuTe would build a TV
/// layout that repeats or skips elements).
///
/// ```
/// use tessel_layout::{atom::copy_atom, tiled::make_tiled_copy};
/// let atom = copy_atom("UniversalCopy<uint128_t>").unwrap().typed(16).unwrap();
/// // 16 x 8 threads, row-major; 1 x 8 halves per thread: a 16 x 64 tile.
/// let c = make_tiled_copy(&atom, &"(16,8):(8,1)".parse().unwrap(),
///                         &"(1,8):(0,1)".parse().unwrap()).unwrap();
/// assert_eq!(c.tiler(), &[16, 64]);
/// assert_eq!(c.layout_tv().to_string(), "((8,16),8):((128,1),16)");
/// // A 3-value layout cannot feed an 8-value (128-bit) atom.
/// assert!(make_tiled_copy(&atom, &"32:1".parse().unwrap(), &"3:1".parse().unwrap()).is_err());
/// ```
pub fn make_tiled_copy(
    atom: &TypedCopyAtom,
    thr_layout: &Layout,
    val_layout: &Layout,
) -> Result<TiledCopy> {
    let what =
        format!("make_tiled_copy of {atom} with threads {thr_layout} and values {val_layout}");
    let inner = || -> Result<TiledCopy> {
        // CuTe's make_tiled_copy takes thr_layout: (m,n) -> thread index and val_layout:
        // (m,n) -> value index, each onto 0..size; a layout that skips an index would leave a
        // thread (or value) without data while the raked product still looks compact.
        for (which, l) in [("thread", thr_layout), ("value", val_layout)] {
            if !is_bijective(l)? {
                return Err(Error::inadmissible(format!(
                    "the {which} layout {l} is not a bijection onto 0..{} (it must map the tile \
                     coordinates to every {which} index exactly once)",
                    l.size()
                )));
            }
        }
        let layout_mn = raked_product(thr_layout, val_layout)?;
        let (t, v) = (thr_layout.size(), val_layout.size());
        // With both bijective the raked product maps the tile onto 0..t*v exactly once
        // (thread + t * value), so its right inverse is the whole (thread, value) range.
        let inverse = right_inverse(&layout_mn)?;
        let layout_tv = composition(&inverse, &col_major(&[t, v])?)?;
        let tiler = layout_mn
            .modes()
            .iter()
            .map(Layout::size)
            .collect::<Vec<_>>();
        TiledCopy::new(atom, layout_tv, tiler)
    };
    inner().map_err(|e| e.context(what))
}

/// CuTe's `make_tiled_copy_A(copy_atom, tiled_mma)`: the copy that moves exactly the A
/// fragments of the tiled MMA (`get_layoutA_TV`, tile `M x K`).
///
/// ```
/// use tessel_layout::{atom::{copy_atom, mma_atom}, tiled::{make_tiled_copy_a, make_tiled_mma}};
/// let mma = make_tiled_mma(&mma_atom("SM80_16x8x16_F32F16F16F32_TN").unwrap(),
///                          &"(2,2,1):(1,2,0)".parse().unwrap(), &[]).unwrap();
/// let ldsm = copy_atom("SM75_U32x4_LDSM_N").unwrap().typed(16).unwrap();
/// let c = make_tiled_copy_a(&ldsm, &mma).unwrap();
/// assert_eq!(c.tiler(), &[32, 16]);
/// assert_eq!(c.threads(), 128);
/// ```
pub fn make_tiled_copy_a(atom: &TypedCopyAtom, mma: &super::TiledMma) -> Result<TiledCopy> {
    TiledCopy::new(
        atom,
        mma.layout_a_tv()?,
        vec![mma.tile_size(0)?, mma.tile_size(2)?],
    )
}

/// CuTe's `make_tiled_copy_B(copy_atom, tiled_mma)`: tile `N x K`, `get_layoutB_TV`.
///
/// ```
/// use tessel_layout::{atom::{copy_atom, mma_atom}, tiled::{make_tiled_copy_b, make_tiled_mma}};
/// let mma = make_tiled_mma(&mma_atom("SM80_16x8x16_F32F16F16F32_TN").unwrap(),
///                          &"(2,2,1):(1,2,0)".parse().unwrap(), &[]).unwrap();
/// let ldsm = copy_atom("SM75_U32x2_LDSM_N").unwrap().typed(16).unwrap();
/// assert_eq!(make_tiled_copy_b(&ldsm, &mma).unwrap().tiler(), &[16, 16]);
/// ```
pub fn make_tiled_copy_b(atom: &TypedCopyAtom, mma: &super::TiledMma) -> Result<TiledCopy> {
    TiledCopy::new(
        atom,
        mma.layout_b_tv()?,
        vec![mma.tile_size(1)?, mma.tile_size(2)?],
    )
}

/// CuTe's `make_tiled_copy_C(copy_atom, tiled_mma)`: tile `M x N`, `get_layoutC_TV`.
///
/// ```
/// use tessel_layout::{atom::{copy_atom, mma_atom}, tiled::{make_tiled_copy_c, make_tiled_mma}};
/// let mma = make_tiled_mma(&mma_atom("SM80_16x8x16_F16F16F16F16_TN").unwrap(),
///                          &"1:0".parse().unwrap(), &[]).unwrap();
/// let stsm = copy_atom("SM90_U32x2_STSM_N").unwrap().typed(16).unwrap();
/// assert_eq!(make_tiled_copy_c(&stsm, &mma).unwrap().tiler(), &[16, 8]);
/// ```
pub fn make_tiled_copy_c(atom: &TypedCopyAtom, mma: &super::TiledMma) -> Result<TiledCopy> {
    TiledCopy::new(
        atom,
        mma.layout_c_tv()?,
        vec![mma.tile_size(0)?, mma.tile_size(1)?],
    )
}

impl TiledCopy {
    /// CuTe's `make_tiled_copy_impl`: a tiled copy from a TV layout `(thread, value) -> tile
    /// index` and the tile's extent per mode. The TV layout's threads and values must be whole
    /// multiples of the atom's (`TiledNumThr % AtomNumThr == 0`, `TiledNumVal % AtomNumVal ==
    /// 0`, as CuTe asserts).
    ///
    /// ```
    /// use tessel_layout::{atom::copy_atom, tiled::TiledCopy};
    /// let atom = copy_atom("SM75_U32x4_LDSM_N").unwrap().typed(16).unwrap();
    /// let err = TiledCopy::new(&atom, "(16,8):(1,16)".parse().unwrap(), vec![128]).unwrap_err();
    /// assert!(err.message().contains("TiledNumThr"), "{err}");
    /// ```
    pub fn new(atom: &TypedCopyAtom, layout_tv: Layout, tiler: Vec<i64>) -> Result<TiledCopy> {
        let ctx = |e: Error| e.context(format!("tiled copy of {atom} with TV layout {layout_tv}"));
        if layout_tv.rank() != 2 {
            return Err(ctx(Error::invalid(format!(
                "the TV layout must have the two modes (thread, value), not rank {}",
                layout_tv.rank()
            ))));
        }
        if tiler.is_empty() || tiler.iter().any(|&n| n < 1) {
            return Err(ctx(Error::invalid(format!(
                "the tile extents {tiler:?} must be at least 1"
            ))));
        }
        let (threads, values) = (layout_tv.mode(0)?.size(), layout_tv.mode(1)?.size());
        if threads % atom.num_thr() != 0 {
            return Err(ctx(Error::inadmissible(format!(
                "TiledNumThr = {threads} is not a multiple of the atom's AtomNumThr = {}",
                atom.num_thr()
            ))));
        }
        if values % atom.num_val() != 0 {
            return Err(ctx(Error::inadmissible(format!(
                "TiledNumVal = {values} is not a multiple of the atom's AtomNumVal = {}",
                atom.num_val()
            ))));
        }
        Ok(TiledCopy {
            atom: atom.clone(),
            layout_tv,
            tiler,
        })
    }

    /// The atom.
    ///
    /// ```
    /// use tessel_layout::{atom::copy_atom, tiled::make_tiled_copy};
    /// let atom = copy_atom("UniversalCopy<uint32_t>").unwrap().typed(32).unwrap();
    /// let c = make_tiled_copy(&atom, &"4:1".parse().unwrap(), &"1:0".parse().unwrap()).unwrap();
    /// assert_eq!(c.atom(), &atom);
    /// ```
    pub fn atom(&self) -> &TypedCopyAtom {
        &self.atom
    }

    /// `TiledLayout_TV`: `(thread, value) -> tile index` (column-major in the tile).
    ///
    /// ```
    /// use tessel_layout::{atom::copy_atom, tiled::make_tiled_copy};
    /// let atom = copy_atom("UniversalCopy<uint32_t>").unwrap().typed(32).unwrap();
    /// let c = make_tiled_copy(&atom, &"4:1".parse().unwrap(), &"1:0".parse().unwrap()).unwrap();
    /// assert_eq!(c.layout_tv().to_string(), "(4,1):(1,0)");
    /// ```
    pub fn layout_tv(&self) -> &Layout {
        &self.layout_tv
    }

    /// `Tiler_MN`: the tile's extent per mode.
    ///
    /// ```
    /// use tessel_layout::{atom::copy_atom, tiled::make_tiled_copy};
    /// let atom = copy_atom("UniversalCopy<uint32_t>").unwrap().typed(32).unwrap();
    /// let c = make_tiled_copy(&atom, &"(4,2):(2,1)".parse().unwrap(), &"(1,2):(0,1)".parse().unwrap()).unwrap();
    /// assert_eq!(c.tiler(), &[4, 4]);
    /// ```
    pub fn tiler(&self) -> &[i64] {
        &self.tiler
    }

    /// Threads (`TiledNumThr`).
    ///
    /// ```
    /// use tessel_layout::{atom::copy_atom, tiled::make_tiled_copy};
    /// let atom = copy_atom("UniversalCopy<uint32_t>").unwrap().typed(32).unwrap();
    /// let c = make_tiled_copy(&atom, &"(4,2):(2,1)".parse().unwrap(), &"1:0".parse().unwrap()).unwrap();
    /// assert_eq!(c.threads(), 8);
    /// ```
    pub fn threads(&self) -> i64 {
        self.layout_tv.mode(0).map_or(0, |m| m.size())
    }

    /// Values per thread (`TiledNumVal`).
    ///
    /// ```
    /// use tessel_layout::{atom::copy_atom, tiled::make_tiled_copy};
    /// let atom = copy_atom("UniversalCopy<uint32_t>").unwrap().typed(32).unwrap();
    /// let c = make_tiled_copy(&atom, &"4:1".parse().unwrap(), &"3:1".parse().unwrap()).unwrap();
    /// assert_eq!(c.values(), 3);
    /// ```
    pub fn values(&self) -> i64 {
        self.layout_tv.mode(1).map_or(0, |m| m.size())
    }

    fn tiler_layouts(&self) -> Result<Tiler> {
        shape_tiler(&self.tiler)
    }

    /// `right_inverse(AtomLayoutRef) o AtomLayoutSrc` (or `Dst`): the atom's source (or
    /// destination) `(thread, value)` as reference `(thread, value)`.
    fn ref_to(&self, target: &Layout) -> Result<Layout> {
        composition(&right_inverse(self.atom.reference())?, target)
    }

    /// CuTe's `tile2thrfrg`: `((tile), (rest...))` to `(thread, (FrgV, FrgX), (rest...))`.
    fn tile2thrfrg(&self, tensor: &Layout, ref2trg: &Layout) -> Result<Layout> {
        let atom_tiler = shape_tiler(&[self.atom.num_thr(), self.atom.num_val()])?;
        // ((atom_tid, atom_val), (rest_tid, rest_val)) -> tile index
        let atom_tv = zipped_divide(&self.layout_tv, &atom_tiler)?;
        // ((trg_tid, trg_val), (rest_tid, rest_val)) -> tile index
        let trg_tv = compose_tiler(&atom_tv, &first_mode(ref2trg))?;
        let (trg, rest) = (trg_tv.mode(0)?, trg_tv.mode(1)?);
        if trg.rank() != 2 || rest.rank() != 2 {
            return Err(Error::invalid(format!(
                "internal: the atom-divided TV layout {trg_tv} is not ((thr,val),(thr,val))"
            )));
        }
        // zip: ((trg_tid, rest_tid), (trg_val, rest_val)), each part coalesced.
        let zipped = Layout::from_modes([
            Layout::from_modes([trg.mode(0)?, rest.mode(0)?])?,
            Layout::from_modes([trg.mode(1)?, rest.mode(1)?])?,
        ])?;
        let profile = IntTuple::tuple([IntTuple::Int(1), IntTuple::from_ints([1, 1])]);
        let thrval2mn = coalesce_profile(&zipped, &profile)?;
        let tv = compose_tiler(tensor, &first_mode(&thrval2mn))?;
        tv.slice(&SliceCoord::Tuple(vec![
            SliceCoord::Tuple(vec![SliceCoord::All, SliceCoord::All]),
            SliceCoord::All,
        ]))
        .map(|(l, _)| l)
    }

    fn tidfrg(&self, layout: &Layout, target: &Layout, which: &str) -> Result<Layout> {
        let inner = || -> Result<Layout> {
            if layout.rank() < self.tiler.len() {
                return Err(Error::invalid(format!(
                    "the layout has rank {} but the tile has rank {} (rank of the tensor to be \
                     partitioned too small)",
                    layout.rank(),
                    self.tiler.len()
                )));
            }
            let tiled = zipped_divide(layout, &self.tiler_layouts()?)?;
            self.tile2thrfrg(&tiled, &self.ref_to(target)?)
        };
        inner().map_err(|e| e.context(format!("{which} of {layout} by {self}")))
    }

    /// CuTe's `tidfrg_S`: a layout `(M, N, ...)` as `(thread, (FrgV, FrgX), (RestM, RestN,
    /// ...))` for the source side: `FrgV` the values of one atom, `FrgX` the atoms of one
    /// thread, the rest the tiles.
    ///
    /// ```
    /// use tessel_layout::{atom::copy_atom, tiled::make_tiled_copy};
    /// let atom = copy_atom("UniversalCopy<uint64_t>").unwrap().typed(32).unwrap();
    /// let c = make_tiled_copy(&atom, &"4:1".parse().unwrap(), &"2:1".parse().unwrap()).unwrap();
    /// let t = c.tidfrg_s(&"16:1".parse().unwrap()).unwrap();
    /// assert_eq!(t.to_string(), "(4,(2,1),(2)):(2,(1,0),(8))");
    /// ```
    pub fn tidfrg_s(&self, layout: &Layout) -> Result<Layout> {
        let src = self.atom.src().clone();
        self.tidfrg(layout, &src, "tidfrg_S")
    }

    /// CuTe's `tidfrg_D`: [`tidfrg_s`](Self::tidfrg_s) for the destination side.
    ///
    /// ```
    /// use tessel_layout::{atom::copy_atom, tiled::make_tiled_copy};
    /// let atom = copy_atom("SM75_U32x1_LDSM_N").unwrap().typed(16).unwrap();
    /// let c = make_tiled_copy(&atom, &"(8,4):(4,1)".parse().unwrap(), &"(1,2):(0,1)".parse().unwrap()).unwrap();
    /// // Each lane receives 2 halves per atom.
    /// assert_eq!(c.tidfrg_d(&"(8,8):(8,1)".parse().unwrap()).unwrap().mode(1).unwrap().size(), 2);
    /// ```
    pub fn tidfrg_d(&self, layout: &Layout) -> Result<Layout> {
        let dst = self.atom.dst().clone();
        self.tidfrg(layout, &dst, "tidfrg_D")
    }

    fn layout_tv_of(&self, target: &Layout) -> Result<Layout> {
        // ref = ((M,N),1) column-major: the tile index, one "rest" tile.
        let tile = col_major(&self.tiler)?;
        let reference = Layout::from_modes([tile, Layout::vector(1, 0)?])?;
        let t = self.tile2thrfrg(&reference, &self.ref_to(target)?)?;
        Ok(t.slice(&SliceCoord::Tuple(vec![
            SliceCoord::All,
            SliceCoord::All,
            SliceCoord::Index(0),
        ]))?
        .0)
    }

    /// CuTe's `get_layoutS_TV`: `(thread, value) -> tile index` of the source side.
    ///
    /// ```
    /// use tessel_layout::{atom::copy_atom, tiled::make_tiled_copy};
    /// let atom = copy_atom("UniversalCopy<uint32_t>").unwrap().typed(32).unwrap();
    /// let c = make_tiled_copy(&atom, &"4:1".parse().unwrap(), &"2:1".parse().unwrap()).unwrap();
    /// let tv = c.layout_s_tv().unwrap();
    /// assert_eq!(tv.offset(1).unwrap(), 2); // thread 1, value 0
    /// ```
    pub fn layout_s_tv(&self) -> Result<Layout> {
        let src = self.atom.src().clone();
        self.layout_tv_of(&src)
            .map_err(|e| e.context(format!("get_layoutS_TV of {self}")))
    }

    /// CuTe's `get_layoutD_TV`: `(thread, value) -> tile index` of the destination side.
    ///
    /// ```
    /// use tessel_layout::{atom::copy_atom, tiled::make_tiled_copy};
    /// let atom = copy_atom("UniversalCopy<uint32_t>").unwrap().typed(32).unwrap();
    /// let c = make_tiled_copy(&atom, &"4:1".parse().unwrap(), &"2:1".parse().unwrap()).unwrap();
    /// assert_eq!(c.layout_d_tv().unwrap().offsets(), c.layout_s_tv().unwrap().offsets());
    /// ```
    pub fn layout_d_tv(&self) -> Result<Layout> {
        let dst = self.atom.dst().clone();
        self.layout_tv_of(&dst)
            .map_err(|e| e.context(format!("get_layoutD_TV of {self}")))
    }

    /// CuTe's `retile`: a thread's fragment `(V, rest...)` (e.g. registers laid out for another
    /// partitioning) regrouped as `((atom values, atoms), rest...)` of this copy's reference
    /// value order.
    ///
    /// ```
    /// use tessel_layout::{atom::copy_atom, tiled::make_tiled_copy};
    /// let atom = copy_atom("UniversalCopy<uint64_t>").unwrap().typed(32).unwrap();
    /// let c = make_tiled_copy(&atom, &"4:1".parse().unwrap(), &"4:1".parse().unwrap()).unwrap();
    /// let r = c.retile(&"(4,2):(1,4)".parse().unwrap()).unwrap();
    /// assert_eq!(r.size(), 8);
    /// assert_eq!(r.mode(0).unwrap().shape().to_string(), "(2,2)"); // (atom values, atoms)
    /// ```
    pub fn retile(&self, fragment: &Layout) -> Result<Layout> {
        let inner = || -> Result<Layout> {
            let r = fragment.rank();
            let v = fragment.mode(0)?.size();
            let threads = self.threads();
            // (m,n) -> v_idx: the shape and order of the V values inside the TV layout.
            let mn = composition(&right_inverse(&self.layout_tv)?, &col_major(&self.tiler)?)?;
            let frg_mn = upcast(&mn, threads * v)?;
            // (atom_vals, rest_vals) -> (v, m, n)
            let product = logical_product(
                &Layout::vector(v, 1)?,
                &Tiler::Layout(right_inverse(&frg_mn)?),
            )?;
            let frg_v = zipped_divide(
                &product,
                &Tiler::Layout(Layout::vector(self.atom.num_val(), 1)?),
            )?;
            let mut sizes = vec![v];
            sizes.extend(frg_mn.modes().iter().map(Layout::size));
            if sizes.len() > r.max(1) {
                return Err(Error::invalid(format!(
                    "the fragment has rank {r} but retiling needs rank {} (its values and \
                     one mode per tile mode)",
                    sizes.len()
                )));
            }
            let t = zipped_divide(fragment, &shape_tiler(&sizes)?)?;
            let vt = compose_tiler(&t, &first_mode(&frg_v))?;
            let rest_rank = vt.mode(1)?.rank();
            let mut rest = vec![SliceCoord::Index(0)];
            rest.extend(std::iter::repeat_n(
                SliceCoord::All,
                rest_rank.saturating_sub(1),
            ));
            Ok(vt
                .slice(&SliceCoord::Tuple(vec![
                    SliceCoord::All,
                    SliceCoord::Tuple(rest),
                ]))?
                .0)
        };
        inner().map_err(|e| e.context(format!("retile of {fragment} by {self}")))
    }

    /// CuTe's `get_slice(thr_idx)`: the partitioner of one thread.
    ///
    /// ```
    /// use tessel_layout::{atom::copy_atom, tiled::make_tiled_copy};
    /// let atom = copy_atom("UniversalCopy<uint32_t>").unwrap().typed(32).unwrap();
    /// let c = make_tiled_copy(&atom, &"4:1".parse().unwrap(), &"1:0".parse().unwrap()).unwrap();
    /// assert_eq!(c.get_slice(3).unwrap().thread(), 3);
    /// assert!(c.get_slice(4).is_err());
    /// ```
    pub fn get_slice(&self, thread: i64) -> Result<ThrCopy> {
        if !(0..self.threads()).contains(&thread) {
            return Err(Error::invalid(format!(
                "thread {thread} is outside 0..{} of {self}",
                self.threads()
            )));
        }
        Ok(ThrCopy {
            tiled: self.clone(),
            thread,
        })
    }
}

impl fmt::Display for TiledCopy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "TiledCopy({}, TV {}, tile ({}))",
            self.atom,
            self.layout_tv,
            self.tiler
                .iter()
                .map(i64::to_string)
                .collect::<Vec<_>>()
                .join(",")
        )
    }
}

/// CuTe's `ThrCopy`: one thread's view of a [`TiledCopy`].
///
/// ```
/// use tessel_layout::{atom::copy_atom, tiled::make_tiled_copy};
/// let atom = copy_atom("UniversalCopy<uint32_t>").unwrap().typed(32).unwrap();
/// let c = make_tiled_copy(&atom, &"(2,2):(2,1)".parse().unwrap(), &"1:0".parse().unwrap()).unwrap();
/// let (part, off) = c.get_slice(1).unwrap().partition_d(&"(4,4):(4,1)".parse().unwrap()).unwrap();
/// assert_eq!(part.to_string(), "((1,1),2,2):((0,0),8,2)");
/// assert_eq!(off, 1); // thread 1 is tile coordinate (0,1) of the row-major thread layout
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ThrCopy {
    tiled: TiledCopy,
    thread: i64,
}

impl ThrCopy {
    /// The thread index.
    ///
    /// ```
    /// use tessel_layout::{atom::copy_atom, tiled::make_tiled_copy};
    /// let atom = copy_atom("UniversalCopy<uint32_t>").unwrap().typed(32).unwrap();
    /// let c = make_tiled_copy(&atom, &"4:1".parse().unwrap(), &"1:0".parse().unwrap()).unwrap();
    /// assert_eq!(c.get_slice(2).unwrap().thread(), 2);
    /// ```
    pub fn thread(&self) -> i64 {
        self.thread
    }

    /// The tiled copy.
    ///
    /// ```
    /// use tessel_layout::{atom::copy_atom, tiled::make_tiled_copy};
    /// let atom = copy_atom("UniversalCopy<uint32_t>").unwrap().typed(32).unwrap();
    /// let c = make_tiled_copy(&atom, &"4:1".parse().unwrap(), &"1:0".parse().unwrap()).unwrap();
    /// assert_eq!(c.get_slice(2).unwrap().tiled(), &c);
    /// ```
    pub fn tiled(&self) -> &TiledCopy {
        &self.tiled
    }

    fn partition(&self, thr_tensor: Layout) -> Result<(Layout, i64)> {
        let rest_rank = thr_tensor.mode(2)?.rank();
        thr_tensor.slice(&SliceCoord::Tuple(vec![
            SliceCoord::Index(self.thread),
            SliceCoord::All,
            SliceCoord::Tuple(vec![SliceCoord::All; rest_rank]),
        ]))
    }

    /// CuTe's `partition_S`: this thread's source elements of `layout` as `(CPY, CPY_M, CPY_N,
    /// ...)` (one atom's values, then the tiles), and the offset of the first one.
    ///
    /// ```
    /// use tessel_layout::{atom::copy_atom, tiled::make_tiled_copy};
    /// let atom = copy_atom("UniversalCopy<uint64_t>").unwrap().typed(32).unwrap();
    /// let c = make_tiled_copy(&atom, &"4:1".parse().unwrap(), &"2:1".parse().unwrap()).unwrap();
    /// let (p, off) = c.get_slice(1).unwrap().partition_s(&"16:1".parse().unwrap()).unwrap();
    /// assert_eq!((p.to_string(), off), ("((2,1),2):((1,0),8)".to_string(), 2));
    /// ```
    pub fn partition_s(&self, layout: &Layout) -> Result<(Layout, i64)> {
        self.partition(self.tiled.tidfrg_s(layout)?)
    }

    /// CuTe's `partition_D`: [`partition_s`](Self::partition_s) for the destination.
    ///
    /// ```
    /// use tessel_layout::{atom::copy_atom, tiled::make_tiled_copy};
    /// let atom = copy_atom("UniversalCopy<uint64_t>").unwrap().typed(32).unwrap();
    /// let c = make_tiled_copy(&atom, &"4:1".parse().unwrap(), &"2:1".parse().unwrap()).unwrap();
    /// let (p, off) = c.get_slice(3).unwrap().partition_d(&"8:1".parse().unwrap()).unwrap();
    /// assert_eq!((p.size(), off), (2, 6));
    /// ```
    pub fn partition_d(&self, layout: &Layout) -> Result<(Layout, i64)> {
        self.partition(self.tiled.tidfrg_d(layout)?)
    }

    /// CuTe's `retile_S`: [`TiledCopy::retile`].
    ///
    /// ```
    /// use tessel_layout::{atom::copy_atom, tiled::make_tiled_copy};
    /// let atom = copy_atom("UniversalCopy<uint64_t>").unwrap().typed(32).unwrap();
    /// let c = make_tiled_copy(&atom, &"4:1".parse().unwrap(), &"2:1".parse().unwrap()).unwrap();
    /// assert_eq!(c.get_slice(0).unwrap().retile_s(&"(2,1):(1,0)".parse().unwrap()).unwrap().size(), 2);
    /// ```
    pub fn retile_s(&self, fragment: &Layout) -> Result<Layout> {
        self.tiled.retile(fragment)
    }

    /// CuTe's `retile_D`: [`TiledCopy::retile`].
    ///
    /// ```
    /// use tessel_layout::{atom::copy_atom, tiled::make_tiled_copy};
    /// let atom = copy_atom("UniversalCopy<uint64_t>").unwrap().typed(32).unwrap();
    /// let c = make_tiled_copy(&atom, &"4:1".parse().unwrap(), &"2:1".parse().unwrap()).unwrap();
    /// assert_eq!(c.get_slice(0).unwrap().retile_d(&"(2,1):(1,0)".parse().unwrap()).unwrap().size(), 2);
    /// ```
    pub fn retile_d(&self, fragment: &Layout) -> Result<Layout> {
        self.tiled.retile(fragment)
    }
}
