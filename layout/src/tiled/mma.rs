//! CuTe's `TiledMMA`, `ThrMMA` and `make_tiled_mma` (`include/cute/atom/mma_atom.hpp`).
//!
//! ```
//! use tessel_layout::{atom::mma_atom, tiled::make_tiled_mma};
//! // Four SM80 atoms, 2 x 2 over M and N: a 32 x 16 x 16 tile for 128 threads.
//! let mma = make_tiled_mma(&mma_atom("SM80_16x8x16_F32F16F16F32_TN").unwrap(),
//!                          &"(2,2,1):(1,2,0)".parse().unwrap(), &[]).unwrap();
//! assert_eq!(mma.thr_layout_vmnk().to_string(), "(32,2,2,1):(1,32,64,0)");
//! assert_eq!((mma.tile_size(0).unwrap(), mma.tile_size(1).unwrap(), mma.tile_size(2).unwrap()),
//!            (32, 16, 16));
//! ```

use std::fmt;

use super::{col_major, first_mode, shape_tiler};
use crate::atom::MmaAtom;
use crate::{
    Error, IntTuple, Layout, Result, SliceCoord, Tiler, complement, compose_tiler, composition,
    is_bijective, logical_divide, right_inverse, tiled_product, zipped_divide,
};

/// CuTe's `TiledMMA`: an atom replicated over threads by an atom layout `(M,N,K) -> atom`
/// index, with an optional permutation (a tiler) of each of the M, N, K modes.
///
/// ```
/// use tessel_layout::{atom::mma_atom, tiled::make_tiled_mma};
/// let mma = make_tiled_mma(&mma_atom("SM80_16x8x8_F16F16F16F16_TN").unwrap(),
///                          &"1:0".parse().unwrap(), &[]).unwrap();
/// assert_eq!(mma.threads(), 32);
/// assert_eq!(mma.layout_c_tv().unwrap().offsets(), mma.atom().c_layout().offsets());
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TiledMma {
    atom: MmaAtom,
    vmnk: Layout,
    permutation: [Option<Layout>; 3],
}

/// CuTe's `make_tiled_mma(atom, atom_layout, permutations)`: the atom layout (rank at most 3,
/// padded with `1:0` modes to `(M,N,K)`) is multiplied with the atom's `ThrID`
/// (`tiled_product`) into the thread layout `(V, M, N, K) -> thread`; `permutation[i]` (at most
/// 3 entries, missing ones `None`) is the tiler of mode `i` (CuTe's `Tile<...>`), `None` for
/// the atom's extent times the atoms along that mode. A permutation must be a bijection onto
/// `0..size` (it reorders its mode's coordinates) whose size is a multiple of the elements its
/// atoms cover.
///
/// ```
/// use tessel_layout::{atom::mma_atom, tiled::make_tiled_mma, Layout};
/// let atom = mma_atom("SM80_16x8x16_F32F16F16F32_TN").unwrap();
/// // Two atoms along N, N permuted to 32 so each thread's two n8 blocks are 16 apart.
/// let perm: Layout = "(8,2,2):(1,16,8)".parse().unwrap();
/// let mma = make_tiled_mma(&atom, &"(1,2):(0,1)".parse().unwrap(), &[None, Some(perm)]).unwrap();
/// assert_eq!(mma.tile_size(1).unwrap(), 32);
/// assert!(make_tiled_mma(&atom, &"(2,2,2,2):(1,2,4,8)".parse().unwrap(), &[]).is_err());
/// // Two atoms along M cover 32 rows: a 7-row permutation cannot hold them.
/// let err = make_tiled_mma(&atom, &"2:1".parse().unwrap(), &[Some("7:1".parse().unwrap())]).unwrap_err();
/// assert!(err.message().contains("not a multiple of the 32 elements"), "{err}");
/// // 16:2 sends the 16 rows to 0, 2, ..., 30: not a reordering of the tile's rows.
/// let err = make_tiled_mma(&atom, &"1:0".parse().unwrap(), &[Some("16:2".parse().unwrap())]).unwrap_err();
/// assert!(err.message().contains("not a bijection onto 0..16"), "{err}");
/// ```
pub fn make_tiled_mma(
    atom: &MmaAtom,
    atom_layout: &Layout,
    permutation: &[Option<Layout>],
) -> Result<TiledMma> {
    let what = format!("make_tiled_mma of {atom} over {atom_layout}");
    let inner = || -> Result<TiledMma> {
        if atom_layout.rank() > 3 || permutation.len() > 3 {
            return Err(Error::invalid(format!(
                "the atom layout (rank {}) and the permutation ({} entries) have at most the \
                 three modes M, N, K",
                atom_layout.rank(),
                permutation.len()
            )));
        }
        let mut modes = if atom_layout.shape().is_int() {
            vec![atom_layout.clone()]
        } else {
            atom_layout.modes()
        };
        while modes.len() < 3 {
            modes.push(Layout::vector(1, 0)?);
        }
        let mnk = Layout::from_modes(modes)?;
        let vmnk = tiled_product(atom.thr_id(), &Tiler::Layout(mnk))?;
        if vmnk.rank() != 4 {
            return Err(Error::invalid(format!(
                "internal: the thread layout {vmnk} is not (V,M,N,K)"
            )));
        }
        let mut perm: [Option<Layout>; 3] = [None, None, None];
        for (i, (slot, p)) in perm.iter_mut().zip(permutation).enumerate() {
            if let Some(p) = p {
                // CuTe 0t_mma_atom.md: a permutation reorders the coordinates of its mode, so it
                // reaches 0..size(p) exactly once each; otherwise the TV layouts repeat or leave
                // the tile (16:2 sends the 16 rows to 0, 2, ..., 30).
                if !is_bijective(p)? {
                    return Err(Error::inadmissible(format!(
                        "the permutation {p} of mode {} is not a bijection onto 0..{} (a                          permutation reorders the mode's coordinates: every one of 0..{}                          exactly once)",
                        ["M", "N", "K"][i],
                        p.size(),
                        p.size()
                    )));
                }
                // thrfrg divides the permuted mode by the atom's extent, then the atoms by the
                // threads along the mode: both must divide (CuTe's static shapes fail to compile
                // otherwise).
                let covered = atom.shape_mnk()[i] * vmnk.mode(i + 1)?.size();
                if p.size() % covered != 0 {
                    return Err(Error::inadmissible(format!(
                        "the permutation {p} of mode {} has size {}, not a multiple of the {} \
                         elements its atoms cover ({} per atom x {} atoms)",
                        ["M", "N", "K"][i],
                        p.size(),
                        covered,
                        atom.shape_mnk()[i],
                        vmnk.mode(i + 1)?.size()
                    )));
                }
            }
            slot.clone_from(p);
        }
        Ok(TiledMma {
            atom: atom.clone(),
            vmnk,
            permutation: perm,
        })
    };
    inner().map_err(|e| e.context(what))
}

/// Which operand a partition is about: its modes among M, N, K.
#[derive(Clone, Copy)]
enum Operand {
    A,
    B,
    C,
}

impl Operand {
    /// The (row, column) modes among 0 = M, 1 = N, 2 = K.
    fn modes(self) -> [usize; 2] {
        match self {
            Operand::A => [0, 2],
            Operand::B => [1, 2],
            Operand::C => [0, 1],
        }
    }

    fn name(self) -> &'static str {
        match self {
            Operand::A => "A",
            Operand::B => "B",
            Operand::C => "C",
        }
    }
}

impl TiledMma {
    /// The atom.
    ///
    /// ```
    /// use tessel_layout::{atom::mma_atom, tiled::make_tiled_mma};
    /// let atom = mma_atom("SM80_16x8x8_F16F16F16F16_TN").unwrap();
    /// assert_eq!(make_tiled_mma(&atom, &"1:0".parse().unwrap(), &[]).unwrap().atom(), &atom);
    /// ```
    pub fn atom(&self) -> &MmaAtom {
        &self.atom
    }

    /// CuTe's `get_thr_layout_vmnk`: `(V, M, N, K) -> thread index`.
    ///
    /// ```
    /// use tessel_layout::{atom::mma_atom, tiled::make_tiled_mma};
    /// let mma = make_tiled_mma(&mma_atom("SM90_64x64x16_F16F16F16_SS").unwrap(),
    ///                          &"2:1".parse().unwrap(), &[]).unwrap();
    /// assert_eq!(mma.thr_layout_vmnk().to_string(), "(128,2,1,1):(1,128,0,0)");
    /// ```
    pub fn thr_layout_vmnk(&self) -> &Layout {
        &self.vmnk
    }

    /// Threads (`size(TiledMMA)`).
    ///
    /// ```
    /// use tessel_layout::{atom::mma_atom, tiled::make_tiled_mma};
    /// let mma = make_tiled_mma(&mma_atom("SM80_16x8x8_F16F16F16F16_TN").unwrap(),
    ///                          &"(2,4):(1,2)".parse().unwrap(), &[]).unwrap();
    /// assert_eq!(mma.threads(), 256);
    /// ```
    pub fn threads(&self) -> i64 {
        self.vmnk.size()
    }

    fn vmnk_size(&self, i: usize) -> Result<i64> {
        Ok(self.vmnk.mode(i)?.size())
    }

    /// CuTe's `permutation_mnk<I>()`: the tiler of mode `i` (0 = M, 1 = N, 2 = K).
    ///
    /// ```
    /// use tessel_layout::{atom::mma_atom, tiled::make_tiled_mma};
    /// let mma = make_tiled_mma(&mma_atom("SM80_16x8x8_F16F16F16F16_TN").unwrap(),
    ///                          &"(2,4):(1,2)".parse().unwrap(), &[]).unwrap();
    /// assert_eq!(mma.permutation_mnk(1).unwrap().to_string(), "32:1");
    /// ```
    pub fn permutation_mnk(&self, i: usize) -> Result<Layout> {
        if i > 2 {
            return Err(Error::invalid(format!(
                "mode {i} of (M,N,K) does not exist"
            )));
        }
        match &self.permutation[i] {
            Some(p) => Ok(p.clone()),
            None => Layout::vector(self.atom.shape_mnk()[i] * self.vmnk_size(i + 1)?, 1),
        }
    }

    /// CuTe's `tile_size<I>`: the extent of mode `i` (0 = M, 1 = N, 2 = K) of the tile.
    ///
    /// ```
    /// use tessel_layout::{atom::mma_atom, tiled::make_tiled_mma};
    /// let mma = make_tiled_mma(&mma_atom("SM80_16x8x8_F16F16F16F16_TN").unwrap(),
    ///                          &"(2,4):(1,2)".parse().unwrap(), &[]).unwrap();
    /// assert_eq!(mma.tile_size(0).unwrap(), 32);
    /// ```
    pub fn tile_size(&self, i: usize) -> Result<i64> {
        Ok(self.permutation_mnk(i)?.size())
    }

    fn atom_tv(&self, op: Operand) -> &Layout {
        match op {
            Operand::A => self.atom.a_layout(),
            Operand::B => self.atom.b_layout(),
            Operand::C => self.atom.c_layout(),
        }
    }

    /// CuTe's `thrfrg_A/B/C`: `((ThrV,(ThrI,ThrJ)),(FrgV,(RestI,RestJ,...)))`.
    fn thrfrg(&self, op: Operand, layout: &Layout) -> Result<Layout> {
        let inner = || -> Result<Layout> {
            if layout.rank() < 2 {
                return Err(Error::invalid(format!(
                    "the layout has rank {} but an MMA operand needs at least 2 modes",
                    layout.rank()
                )));
            }
            let [i, j] = op.modes();
            let t_tile = Tiler::ByMode(vec![
                Some(Tiler::Layout(self.permutation_mnk(i)?)),
                Some(Tiler::Layout(self.permutation_mnk(j)?)),
            ]);
            let permuted = logical_divide(layout, &t_tile)?;
            let shape = self.atom.shape_mnk();
            let atom_tiled = zipped_divide(&permuted, &shape_tiler(&[shape[i], shape[j]])?)?;
            // ((ThrV,FrgV),(RestI,RestJ,...))
            let tv = compose_tiler(&atom_tiled, &first_mode(self.atom_tv(op)))?;
            let (thr_frg, rest) = (tv.mode(0)?, tv.mode(1)?);
            let thr_tiler = shape_tiler(&[self.vmnk_size(i + 1)?, self.vmnk_size(j + 1)?])?;
            let divided = zipped_divide(&rest, &thr_tiler)?;
            Layout::from_modes([
                Layout::from_modes([thr_frg.mode(0)?, divided.mode(0)?])?,
                Layout::from_modes([thr_frg.mode(1)?, divided.mode(1)?])?,
            ])
        };
        inner().map_err(|e| e.context(format!("thrfrg_{} of {layout} by {self}", op.name())))
    }

    /// CuTe's `thrfrg_A`: a layout `(M, K, ...)` as `((ThrV,(ThrM,ThrK)),(FrgV,(RestM,RestK,
    /// ...)))`.
    ///
    /// ```
    /// use tessel_layout::{atom::mma_atom, tiled::make_tiled_mma};
    /// let mma = make_tiled_mma(&mma_atom("SM80_16x8x16_F32F16F16F32_TN").unwrap(),
    ///                          &"1:0".parse().unwrap(), &[]).unwrap();
    /// let t = mma.thrfrg_a(&"(32,32):(1,32)".parse().unwrap()).unwrap();
    /// assert_eq!(t.shape().to_string(), "(((4,8),(1,1)),((2,2,2),(2,2)))");
    /// ```
    pub fn thrfrg_a(&self, layout: &Layout) -> Result<Layout> {
        self.thrfrg(Operand::A, layout)
    }

    /// CuTe's `thrfrg_B`: a layout `(N, K, ...)` as `((ThrV,(ThrN,ThrK)),(FrgV,(RestN,RestK,
    /// ...)))`.
    ///
    /// ```
    /// use tessel_layout::{atom::mma_atom, tiled::make_tiled_mma};
    /// let mma = make_tiled_mma(&mma_atom("SM80_16x8x16_F32F16F16F32_TN").unwrap(),
    ///                          &"1:0".parse().unwrap(), &[]).unwrap();
    /// let t = mma.thrfrg_b(&"(8,16):(1,8)".parse().unwrap()).unwrap();
    /// assert_eq!(t.mode(1).unwrap().size(), 4);
    /// ```
    pub fn thrfrg_b(&self, layout: &Layout) -> Result<Layout> {
        self.thrfrg(Operand::B, layout)
    }

    /// CuTe's `thrfrg_C`: a layout `(M, N, ...)` as `((ThrV,(ThrM,ThrN)),(FrgV,(RestM,RestN,
    /// ...)))`.
    ///
    /// ```
    /// use tessel_layout::{atom::mma_atom, tiled::make_tiled_mma};
    /// let mma = make_tiled_mma(&mma_atom("SM80_16x8x16_F32F16F16F32_TN").unwrap(),
    ///                          &"1:0".parse().unwrap(), &[]).unwrap();
    /// let t = mma.thrfrg_c(&"(16,8):(1,16)".parse().unwrap()).unwrap();
    /// assert_eq!(t.to_string(), "(((4,8),(1,1)),((2,2),(1,1))):(((32,1),(0,0)),((16,8),(0,0)))");
    /// ```
    pub fn thrfrg_c(&self, layout: &Layout) -> Result<Layout> {
        self.thrfrg(Operand::C, layout)
    }

    /// `thread index -> 1-D coordinate in (V,M,N,K)`, for the first `threads()` indices (CuTe's
    /// `thridx_2_thrid`).
    fn thread_ids(&self) -> Result<Layout> {
        let rest = complement(&self.vmnk, self.vmnk.cosize())?;
        let inverse = right_inverse(&Layout::from_modes([self.vmnk.clone(), rest])?)?;
        let n = self.threads();
        if inverse.size() < n {
            return Err(Error::inadmissible(format!(
                "the thread layout {} reaches only the thread indices 0..{} of 0..{n} (it must \
                 be a bijection onto the threads)",
                self.vmnk,
                inverse.size()
            )));
        }
        composition(&inverse, &Layout::vector(n, 1)?)
    }

    fn layout_tv(&self, op: Operand) -> Result<Layout> {
        let inner = || -> Result<Layout> {
            let [i, j] = op.modes();
            let sizes = [self.tile_size(i)?, self.tile_size(j)?];
            let thr = self.thrfrg(op, &col_major(&sizes)?)?;
            // (V,M,N,K) -> index in the operand's thread mode (ThrV,(ThrI,ThrJ)); the thread
            // coordinate along the third mode does not move the operand (stride 0).
            let v = self.vmnk_size(0)?;
            let si = self.vmnk_size(i + 1)?;
            let mut strides = [0i64; 4];
            strides[0] = 1;
            strides[i + 1] = v;
            strides[j + 1] = v * si;
            let shape = IntTuple::from_ints(
                (0..4)
                    .map(|k| self.vmnk_size(k))
                    .collect::<Result<Vec<_>>>()?,
            );
            let spread = Layout::new(shape, IntTuple::from_ints(strides))?;
            let thread_mode = composition(&spread, &self.thread_ids()?)?;
            compose_tiler(&thr, &first_mode(&thread_mode))
        };
        inner().map_err(|e| e.context(format!("get_layout{}_TV of {self}", op.name())))
    }

    /// CuTe's `get_layoutA_TV`: `(thread index, value) -> m + M*k` in the `M x K` tile.
    ///
    /// ```
    /// use tessel_layout::{atom::mma_atom, tiled::make_tiled_mma};
    /// let mma = make_tiled_mma(&mma_atom("SM80_16x8x16_F32F16F16F32_TN").unwrap(),
    ///                          &"1:0".parse().unwrap(), &[]).unwrap();
    /// assert_eq!(mma.layout_a_tv().unwrap().offsets(), mma.atom().a_layout().offsets());
    /// ```
    pub fn layout_a_tv(&self) -> Result<Layout> {
        self.layout_tv(Operand::A)
    }

    /// CuTe's `get_layoutB_TV`: `(thread index, value) -> n + N*k` in the `N x K` tile.
    ///
    /// ```
    /// use tessel_layout::{atom::mma_atom, tiled::make_tiled_mma};
    /// let mma = make_tiled_mma(&mma_atom("SM80_16x8x16_F32F16F16F32_TN").unwrap(),
    ///                          &"1:0".parse().unwrap(), &[]).unwrap();
    /// assert_eq!(mma.layout_b_tv().unwrap().offsets(), mma.atom().b_layout().offsets());
    /// ```
    pub fn layout_b_tv(&self) -> Result<Layout> {
        self.layout_tv(Operand::B)
    }

    /// CuTe's `get_layoutC_TV`: `(thread index, value) -> m + M*n` in the `M x N` tile.
    ///
    /// ```
    /// use tessel_layout::{atom::mma_atom, tiled::make_tiled_mma};
    /// let mma = make_tiled_mma(&mma_atom("SM80_16x8x16_F32F16F16F32_TN").unwrap(),
    ///                          &"(2,1):(1,0)".parse().unwrap(), &[]).unwrap();
    /// let c = mma.layout_c_tv().unwrap();
    /// assert_eq!(c.offset(32).unwrap(), 16); // thread 32 is the second atom's lane 0: row 16
    /// ```
    pub fn layout_c_tv(&self) -> Result<Layout> {
        self.layout_tv(Operand::C)
    }

    /// The coordinate `(v, m, n, k)` of a thread in [`thr_layout_vmnk`](Self::thr_layout_vmnk),
    /// as CuTe's `get_flat_coord` computes it: each leaf `s:d` takes `(thread / d) % s` (0 for
    /// `d = 0`), in time linear in the rank. CuTe trusts that answer; tessel checks that the
    /// layout maps the coordinate back to `thread` (true for the compact thread layouts CuTe
    /// builds) and otherwise reports the thread as not reached exactly once.
    fn thread_coord(&self, thread: i64) -> Result<[i64; 4]> {
        let unreached = || {
            Error::invalid(format!(
                "thread {thread} is not reached exactly once by the thread layout {} (threads \
                 0..{} are)",
                self.vmnk,
                self.vmnk.size()
            ))
        };
        if !(0..self.vmnk.size()).contains(&thread) {
            return Err(unreached());
        }
        let mut out = [0i64; 4];
        let mut index = 0i64;
        let mut scale = 1i64;
        for (k, slot) in out.iter_mut().enumerate() {
            let mut within = 0i64;
            let mut prefix = 1i64;
            for (s, d) in self.vmnk.mode(k)?.flat_modes() {
                let c = if d == 0 {
                    0
                } else {
                    (thread / d).rem_euclid(s)
                };
                within += c * prefix;
                prefix *= s;
            }
            *slot = within;
            index += within * scale;
            scale *= prefix;
        }
        if self.vmnk.offset(index)? != thread {
            return Err(unreached());
        }
        Ok(out)
    }

    /// CuTe's `get_slice(thr_idx)`: the partitioner of one thread.
    ///
    /// ```
    /// use tessel_layout::{atom::mma_atom, tiled::make_tiled_mma};
    /// let mma = make_tiled_mma(&mma_atom("SM80_16x8x16_F32F16F16F32_TN").unwrap(),
    ///                          &"(2,2):(1,2)".parse().unwrap(), &[]).unwrap();
    /// assert_eq!(mma.get_slice(97).unwrap().coord(), [1, 1, 1, 0]);
    /// assert!(mma.get_slice(128).is_err());
    /// ```
    pub fn get_slice(&self, thread: i64) -> Result<ThrMma> {
        let coord = self
            .thread_coord(thread)
            .map_err(|e| e.context(format!("get_slice of {self}")))?;
        Ok(ThrMma {
            tiled: self.clone(),
            thread,
            coord,
        })
    }

    fn partition_shape(&self, op: Operand, shape: &[i64]) -> Result<IntTuple> {
        let t = self.thrfrg(op, &col_major(shape)?)?;
        let rest_rank = t.mode(1)?.mode(1)?.rank();
        let (l, _) = t.slice(&SliceCoord::Tuple(vec![
            SliceCoord::Index(0),
            SliceCoord::Tuple(vec![
                SliceCoord::All,
                SliceCoord::Tuple(vec![SliceCoord::All; rest_rank]),
            ]),
        ]))?;
        Ok(l.shape().clone())
    }

    /// CuTe's `partition_shape_A(mma, shape_MK)`: the shape of one thread's A fragment of an
    /// `M x K (x ...)` tensor: `(MMA, MMA_M, MMA_K, ...)`.
    ///
    /// ```
    /// use tessel_layout::{atom::mma_atom, tiled::make_tiled_mma};
    /// let mma = make_tiled_mma(&mma_atom("SM80_16x8x16_F32F16F16F32_TN").unwrap(),
    ///                          &"(2,2):(1,2)".parse().unwrap(), &[]).unwrap();
    /// assert_eq!(mma.partition_shape_a(&[128, 32]).unwrap().to_string(), "((2,2,2),4,2)");
    /// ```
    pub fn partition_shape_a(&self, shape: &[i64]) -> Result<IntTuple> {
        self.partition_shape(Operand::A, shape)
    }

    /// CuTe's `partition_shape_B(mma, shape_NK)`: `(MMA, MMA_N, MMA_K, ...)`.
    ///
    /// ```
    /// use tessel_layout::{atom::mma_atom, tiled::make_tiled_mma};
    /// let mma = make_tiled_mma(&mma_atom("SM80_16x8x16_F32F16F16F32_TN").unwrap(),
    ///                          &"(2,2):(1,2)".parse().unwrap(), &[]).unwrap();
    /// assert_eq!(mma.partition_shape_b(&[128, 32]).unwrap().to_string(), "((2,2),8,2)");
    /// ```
    pub fn partition_shape_b(&self, shape: &[i64]) -> Result<IntTuple> {
        self.partition_shape(Operand::B, shape)
    }

    /// CuTe's `partition_shape_C(mma, shape_MN)`: `(MMA, MMA_M, MMA_N, ...)`, the shape of the
    /// accumulator fragment (`partition_fragment_C`).
    ///
    /// ```
    /// use tessel_layout::{atom::mma_atom, tiled::make_tiled_mma};
    /// let mma = make_tiled_mma(&mma_atom("SM80_16x8x16_F32F16F16F32_TN").unwrap(),
    ///                          &"(2,2):(1,2)".parse().unwrap(), &[]).unwrap();
    /// assert_eq!(mma.partition_shape_c(&[128, 128]).unwrap().to_string(), "((2,2),4,8)");
    /// ```
    pub fn partition_shape_c(&self, shape: &[i64]) -> Result<IntTuple> {
        self.partition_shape(Operand::C, shape)
    }
}

impl fmt::Display for TiledMma {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "TiledMMA({}, threads {}", self.atom, self.vmnk)?;
        for (name, p) in ["M", "N", "K"].iter().zip(&self.permutation) {
            if let Some(p) = p {
                write!(f, ", {name} permuted by {p}")?;
            }
        }
        f.write_str(")")
    }
}

/// CuTe's `ThrMMA`: one thread's view of a [`TiledMma`].
///
/// ```
/// use tessel_layout::{atom::mma_atom, tiled::make_tiled_mma};
/// let mma = make_tiled_mma(&mma_atom("SM80_16x8x16_F32F16F16F32_TN").unwrap(),
///                          &"1:0".parse().unwrap(), &[]).unwrap();
/// let (c, off) = mma.get_slice(5).unwrap().partition_c(&"(16,8):(8,1)".parse().unwrap()).unwrap();
/// // Lane 5: groupID 1, threadID_in_group 1 -> rows 1 and 9, columns 2 and 3.
/// assert_eq!(off, 8 + 2);
/// assert_eq!(c.to_string(), "((2,2),1,1):((1,64),0,0)");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ThrMma {
    tiled: TiledMma,
    thread: i64,
    coord: [i64; 4],
}

impl ThrMma {
    /// The thread index.
    ///
    /// ```
    /// use tessel_layout::{atom::mma_atom, tiled::make_tiled_mma};
    /// let mma = make_tiled_mma(&mma_atom("SM80_16x8x8_F16F16F16F16_TN").unwrap(),
    ///                          &"1:0".parse().unwrap(), &[]).unwrap();
    /// assert_eq!(mma.get_slice(7).unwrap().thread(), 7);
    /// ```
    pub fn thread(&self) -> i64 {
        self.thread
    }

    /// The thread's coordinate `(v, m, n, k)` in the thread layout.
    ///
    /// ```
    /// use tessel_layout::{atom::mma_atom, tiled::make_tiled_mma};
    /// let mma = make_tiled_mma(&mma_atom("SM80_16x8x8_F16F16F16F16_TN").unwrap(),
    ///                          &"(1,2):(0,1)".parse().unwrap(), &[]).unwrap();
    /// assert_eq!(mma.get_slice(40).unwrap().coord(), [8, 0, 1, 0]);
    /// ```
    pub fn coord(&self) -> [i64; 4] {
        self.coord
    }

    /// The tiled MMA.
    ///
    /// ```
    /// use tessel_layout::{atom::mma_atom, tiled::make_tiled_mma};
    /// let mma = make_tiled_mma(&mma_atom("SM80_16x8x8_F16F16F16F16_TN").unwrap(),
    ///                          &"1:0".parse().unwrap(), &[]).unwrap();
    /// assert_eq!(mma.get_slice(0).unwrap().tiled(), &mma);
    /// ```
    pub fn tiled(&self) -> &TiledMma {
        &self.tiled
    }

    fn partition(&self, op: Operand, layout: &Layout) -> Result<(Layout, i64)> {
        let t = self.tiled.thrfrg(op, layout)?;
        let [i, j] = op.modes();
        let rest_rank = t.mode(1)?.mode(1)?.rank();
        let thr = SliceCoord::Tuple(vec![
            SliceCoord::Index(self.coord[0]),
            SliceCoord::Tuple(vec![
                SliceCoord::Index(self.coord[i + 1]),
                SliceCoord::Index(self.coord[j + 1]),
            ]),
        ]);
        let val = SliceCoord::Tuple(vec![
            SliceCoord::All,
            SliceCoord::Tuple(vec![SliceCoord::All; rest_rank]),
        ]);
        t.slice(&SliceCoord::Tuple(vec![thr, val]))
            .map_err(|e| e.context(format!("partition_{} of thread {}", op.name(), self.thread)))
    }

    /// CuTe's `partition_A`: this thread's elements of an `(M, K, ...)` layout as `(MMA, MMA_M,
    /// MMA_K, ...)`, and the offset of the first one.
    ///
    /// ```
    /// use tessel_layout::{atom::mma_atom, tiled::make_tiled_mma};
    /// let mma = make_tiled_mma(&mma_atom("SM80_16x8x16_F32F16F16F32_TN").unwrap(),
    ///                          &"1:0".parse().unwrap(), &[]).unwrap();
    /// let (a, off) = mma.get_slice(4).unwrap().partition_a(&"(16,16):(16,1)".parse().unwrap()).unwrap();
    /// assert_eq!(off, 16); // lane 4: groupID 1 -> row 1, column 0
    /// assert_eq!(a.shape().to_string(), "((2,2,2),1,1)");
    /// ```
    pub fn partition_a(&self, layout: &Layout) -> Result<(Layout, i64)> {
        self.partition(Operand::A, layout)
    }

    /// CuTe's `partition_B`: `(MMA, MMA_N, MMA_K, ...)` of an `(N, K, ...)` layout.
    ///
    /// ```
    /// use tessel_layout::{atom::mma_atom, tiled::make_tiled_mma};
    /// let mma = make_tiled_mma(&mma_atom("SM80_16x8x16_F32F16F16F32_TN").unwrap(),
    ///                          &"1:0".parse().unwrap(), &[]).unwrap();
    /// let (b, off) = mma.get_slice(1).unwrap().partition_b(&"(8,16):(16,1)".parse().unwrap()).unwrap();
    /// assert_eq!(off, 2); // lane 1: n 0, k 2
    /// assert_eq!(b.size(), 4);
    /// ```
    pub fn partition_b(&self, layout: &Layout) -> Result<(Layout, i64)> {
        self.partition(Operand::B, layout)
    }

    /// CuTe's `partition_C`: `(MMA, MMA_M, MMA_N, ...)` of an `(M, N, ...)` layout.
    ///
    /// ```
    /// use tessel_layout::{atom::mma_atom, tiled::make_tiled_mma};
    /// let mma = make_tiled_mma(&mma_atom("SM80_16x8x16_F32F16F16F32_TN").unwrap(),
    ///                          &"1:0".parse().unwrap(), &[]).unwrap();
    /// let (c, _) = mma.get_slice(0).unwrap().partition_c(&"(64,64):(64,1)".parse().unwrap()).unwrap();
    /// assert_eq!(c.shape().to_string(), "((2,2),4,8)");
    /// ```
    pub fn partition_c(&self, layout: &Layout) -> Result<(Layout, i64)> {
        self.partition(Operand::C, layout)
    }
}
