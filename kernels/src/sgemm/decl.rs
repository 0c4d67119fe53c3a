//! A plan as the tensor layer declares it ([`Declaration`]): the tiled FMA, the tiled copies and
//! every tensor the kernel body slices, built with the algebra and checked on the host (each
//! copy fits its tensors, the register hand-overs agree element by element, the predicates are
//! exact per atom call). `kernels/cuda/sgemm_*.cu` are written against these names; the CPU
//! replay (`kernels/tests/sgemm_plans.rs`) and the bank model ([`super::bank`]) read the same
//! tensors.

use tessel_layout::Layout;
use tessel_layout::atom::{TypedCopyAtom, copy_atom, mma_atom};
use tessel_layout::tiled::{
    TiledCopy, make_tiled_copy, make_tiled_copy_a, make_tiled_copy_b, make_tiled_mma,
};

use super::{Major, SgemmPlan, parse};
use crate::error::{GpuError, GpuResult};
use crate::kernel::{CType, KernelBuilder};
use crate::layer::{DeviceCopy, DeviceMma, DeviceTensor};

/// `UniversalCopy` of `elems` floats (one instruction of `32 * elems` bits).
fn vector_atom(elems: i64) -> GpuResult<TypedCopyAtom> {
    let name = format!("UniversalCopy<uint{}_t>", 32 * elems);
    Ok(copy_atom(&name)?.typed(32)?)
}

/// The tensor `t` with its modes from `rank - 1` on grouped into one, so that it has `rank`
/// modes (a retiled register view next to the partition it is copied with).
fn merge_tail(t: &DeviceTensor, rank: usize) -> GpuResult<DeviceTensor> {
    if t.rank() <= rank {
        return Ok(t.clone());
    }
    let head: Vec<Vec<usize>> = (0..rank - 1).map(|i| vec![i]).collect();
    let tail: Vec<usize> = (rank - 1..t.rank()).collect();
    let groups: Vec<&[usize]> = head
        .iter()
        .map(Vec::as_slice)
        .chain([tail.as_slice()])
        .collect();
    t.group(&groups)
}

/// An operand staged through shared memory: global memory to registers, registers to a shared
/// stage, shared memory to the fragments of the tiled FMA. Modes are `(MN, K)`: `(M, K)` for A,
/// `(N, K)` for B.
#[derive(Clone, Debug, PartialEq)]
pub struct Staged {
    /// Global memory -> registers.
    pub load: DeviceCopy,
    /// Registers -> shared memory (same threads and values as `load`; its atom is the widest
    /// the shared layout keeps contiguous).
    pub store: DeviceCopy,
    /// Shared memory -> the tiled FMA's fragment of one k-slice (CuTe's `make_tiled_copy_A/B`).
    pub frag: DeviceCopy,
    /// `tAgA`: `(thread, V, atoms, CPY_MN, CPY_K, tile, k-tile)` of the operand.
    pub global: DeviceTensor,
    /// `tApA_m`, `tApA_k`: the coordinates of `global` (along M or N, and along K), compared with
    /// M or N and K by `tessel::elem_less`.
    pub pred: [DeviceTensor; 2],
    /// `tArA`: this thread's share of one tile, `(V, atoms, CPY_MN, CPY_K)` registers.
    pub regs: DeviceTensor,
    /// `tArA_st`: the same registers as `store` reads them.
    pub regs_store: DeviceTensor,
    /// `sA`: `(MN, K, stage)` shared tiles.
    pub smem: DeviceTensor,
    /// `tAsA`: `(thread, V, atoms, CPY_MN, CPY_K, stage)` of `smem`, written by `store`.
    pub smem_store: DeviceTensor,
    /// `tCsA`: `(thread, V, atoms, REST_MN, K, stage)` of `smem`, read by `frag`.
    pub smem_frag: DeviceTensor,
    /// `tCrA`: the tiled FMA's fragment of one k-slice, `(1, TM, 1)`.
    pub frag_regs: DeviceTensor,
    /// `tCrA_cp`: the same registers as `frag` writes them.
    pub frag_view: DeviceTensor,
}

/// How the main loop reaches A and B.
#[derive(Clone, Debug, PartialEq)]
pub enum Mainloop {
    /// [`Rung::Naive`](super::Rung::Naive): the tiled FMA's partitions of A and B in global
    /// memory (`tCgA`, `tCgB`: `(thread, 1, 1, 1, tile, k)`).
    Direct {
        /// `tCgA`.
        a: Box<DeviceTensor>,
        /// `tCgB`.
        b: Box<DeviceTensor>,
    },
    /// Every other rung: both operands staged through shared memory.
    Staged {
        /// A (`(M, K)` tiles).
        a: Box<Staged>,
        /// B (`(N, K)` tiles).
        b: Box<Staged>,
    },
}

/// The declaration of a plan's kernel.
#[derive(Clone, Debug, PartialEq)]
pub struct Declaration {
    /// The tiled FMA (`mma::fma`).
    pub mma: DeviceMma,
    /// The operands.
    pub mainloop: Mainloop,
    /// `tCrC`: the accumulators, `(1, TM, TN)`.
    pub acc: DeviceTensor,
    /// The epilogue: the accumulators to C, 4 columns a store where they are contiguous.
    pub store_c: DeviceCopy,
    /// `tCrC_st`: the accumulators as `store_c` reads them.
    pub acc_store: DeviceTensor,
    /// `tCgC`: `(thread, V, atoms, CPY_M, CPY_N, tile_m, tile_n)` of C.
    pub global_c: DeviceTensor,
    /// `tCpC_m`, `tCpC_n`: the coordinates of `global_c`, compared with M and N.
    pub pred_c: [DeviceTensor; 2],
}

/// The copy of `atom` over `(thr, val)`, or of the scalar atom where the tensor `t` does not
/// keep the atom's values contiguous (checked by the layer when partitioning).
fn widest_copy(
    name: &str,
    elems: i64,
    thr: &Layout,
    val: &Layout,
    t: &DeviceTensor,
    dst: bool,
) -> GpuResult<(DeviceCopy, DeviceTensor)> {
    let build = |e: i64| -> GpuResult<(DeviceCopy, DeviceTensor)> {
        let c = DeviceCopy::new(name, make_tiled_copy(&vector_atom(e)?, thr, val)?);
        let p = if dst {
            c.partition_d(t)?
        } else {
            c.partition_s(t)?
        };
        Ok((c, p))
    };
    if elems > 1
        && let Ok(found) = build(elems)
    {
        return Ok(found);
    }
    build(1)
}

/// The thread and value layouts of a tile load: `threads` threads take vectors of `vector`
/// elements along the operand's contiguous mode of the `(rows, cols)` tile, consecutive threads
/// consecutive vectors (coalesced), the tile covered in copies of `threads` vectors.
fn load_layouts(
    (rows, cols): (i64, i64),
    contiguous_rows: bool,
    vector: i64,
    threads: i64,
) -> GpuResult<(Layout, Layout)> {
    let along = if contiguous_rows { rows } else { cols };
    let per_line = along / vector.max(1);
    let other = if contiguous_rows { cols } else { rows };
    if along % vector != 0 || per_line > threads || threads % per_line != 0 {
        return Err(GpuError::InvalidArgument(format!(
            "sgemm tile {rows}x{cols}: {threads} threads cannot take its lines of {along} \
             elements {vector} at a time (a line must be a whole number of vectors, and the \
             threads whole lines)"
        )));
    }
    let lines = threads / per_line;
    if other % lines != 0 {
        return Err(GpuError::InvalidArgument(format!(
            "sgemm tile {rows}x{cols}: {lines} lines at a time do not divide its {other} lines"
        )));
    }
    Ok(if contiguous_rows {
        (
            parse(&format!("({per_line},{lines}):(1,{per_line})"))?,
            parse(&format!("({vector},1):(1,0)"))?,
        )
    } else {
        (
            parse(&format!("({lines},{per_line}):({per_line},1)"))?,
            parse(&format!("(1,{vector}):(0,1)"))?,
        )
    })
}

impl SgemmPlan {
    /// The padded extents `(M, N, K)` rounded up to whole tiles: the global tensors are
    /// declared over them (the predicates guard what lies beyond the matrices).
    fn padded(&self) -> (i64, i64, i64) {
        let t = &self.tiling;
        let up = |x: i64, b: i64| (x + b - 1) / b * b;
        (up(self.m, t.bm), up(self.n, t.bn), up(self.k, t.bk))
    }

    /// A (`M x K`) as `(M, K)`, B (`K x N`) as `(N, K)`, C as `(M, N)`, over the padded extents.
    fn globals(&self) -> GpuResult<[DeviceTensor; 3]> {
        let (mp, np, kp) = self.padded();
        let (m, n, k) = (self.m, self.n, self.k);
        let a = match self.a_major {
            Major::Row => format!("({mp},{kp}):({k},1)"),
            Major::Col => format!("({mp},{kp}):(1,{m})"),
        };
        let b = match self.b_major {
            Major::Row => format!("({np},{kp}):(1,{n})"),
            Major::Col => format!("({np},{kp}):({k},1)"),
        };
        let c = format!("({mp},{np}):({n},1)");
        let g = |l: &str| parse(l).map(|l| DeviceTensor::global(CType::F32, l));
        Ok([g(&a)?, g(&b)?, g(&c)?])
    }

    /// The coordinate tensors of a padded `(rows, cols)` tensor (CuTe's identity tensor, one
    /// coordinate each), compared with their bounds by `tessel::elem_less`.
    fn coordinates(&self, shape: [i64; 2]) -> GpuResult<[DeviceTensor; 2]> {
        let c = |which: usize| DeviceTensor::identity(&shape, which);
        Ok([c(0)?, c(1)?])
    }

    /// A coordinate tensor `c` partitioned by `copy`, checked for `elem_less(c, bound)`: each
    /// atom call lies below `bound` or not as a whole ([`DeviceCopy::check_predicate`]), or,
    /// when the tiling compiles the checks out and the problem is whole tiles, every
    /// coordinate does ([`DeviceTensor::unchecked`]).
    fn finish_predicate(
        &self,
        copy: &DeviceCopy,
        c: DeviceTensor,
        bound: i64,
    ) -> GpuResult<DeviceTensor> {
        if self.tiling.unchecked_whole_tiles && self.even() {
            c.unchecked(bound)
        } else {
            copy.check_predicate(&c, bound)?;
            Ok(c)
        }
    }

    /// The tiled FMA of the tiling.
    pub(crate) fn tiled_fma(&self) -> GpuResult<DeviceMma> {
        let t = &self.tiling;
        let atom = mma_atom("UniversalFMA<float,float,float,float>")?;
        let tiled = make_tiled_mma(
            &atom,
            &t.thr_layout,
            &[Some(t.perm_m.clone()), Some(t.perm_n.clone())],
        )?;
        if tiled.threads() != t.threads
            || tiled.tile_size(0)? != t.bm
            || tiled.tile_size(1)? != t.bn
        {
            return Err(GpuError::InvalidArgument(format!(
                "sgemm {}: the tiled FMA {tiled} covers {} x {} with {} threads, not the {} x {} \
                 block tile with {}",
                self.rung,
                tiled.tile_size(0)?,
                tiled.tile_size(1)?,
                tiled.threads(),
                t.bm,
                t.bn,
                t.threads
            )));
        }
        // Every element of the block tile is one thread's value exactly once.
        let c = tiled.layout_c_tv()?;
        let mut seen = vec![false; (t.bm * t.bn) as usize];
        for o in c.offsets() {
            if !(0..t.bm * t.bn).contains(&o) || std::mem::replace(&mut seen[o as usize], true) {
                return Err(GpuError::InvalidArgument(format!(
                    "sgemm {}: the tiled FMA {tiled} gives element {o} of the block tile to two \
                     threads or values",
                    self.rung
                )));
            }
        }
        Ok(DeviceMma::new("fma", tiled))
    }

    /// One operand staged through shared memory: `g` its padded global tensor `(MN, K)`, `mn`
    /// its block tile extent along M or N, `bound` its M or N, `contiguous_mn` whether its
    /// contiguous mode in global memory is MN, `smem` one shared stage, `op` `'A'` or `'B'`.
    #[allow(clippy::too_many_arguments)]
    fn staged(
        &self,
        mma: &DeviceMma,
        g: &DeviceTensor,
        (mn, bound, contiguous_mn): (i64, i64, bool),
        smem: &Layout,
        op: char,
        names: [&str; 3],
    ) -> GpuResult<Staged> {
        let t = &self.tiling;
        let (bk, threads) = (t.bk, t.threads);
        let [gp_mn, gp_k] = {
            let e = g.extents();
            [e[0], e[1]]
        };
        let tiles = g.local_tile(&[mn, bk])?;
        let (thr, val) = load_layouts((mn, bk), contiguous_mn, t.vector, threads)?;
        let (load, global) = widest_copy(names[0], t.vector, &thr, &val, &tiles, false)?;
        let crd = self.coordinates([gp_mn, gp_k])?;
        let pred = [
            self.finish_predicate(
                &load,
                load.partition_s(&crd[0].local_tile(&[mn, bk])?)?,
                bound,
            )?,
            self.finish_predicate(
                &load,
                load.partition_s(&crd[1].local_tile(&[mn, bk])?)?,
                self.k,
            )?,
        ];
        let regs = global.fragment_like(1..5)?;
        // Stages: one shared tile after another, each a whole number of 16-byte vectors.
        let stage = (crate::emit::storage(&smem.clone().into())? + 3) / 4 * 4;
        let mut modes = smem.modes();
        modes.push(parse(&format!("{}:{stage}", t.stages))?);
        let shared = Layout::from_modes(modes)?;
        let shared = DeviceTensor::shared(CType::F32, shared.into());
        let (store, smem_store) = widest_copy(names[1], t.vector, &thr, &val, &shared, true)?;
        let grouped = regs.group(&[&[0, 1], &[2], &[3]])?;
        let regs_store = store.retile_s(&grouped)?;
        load.check_relay(&regs, &store, &regs_store, &regs, &[mn, bk])?;
        let fma = mma.tiled();
        let atom = vector_atom(t.frag_vector)?;
        let frag_tiled: TiledCopy = if op == 'A' {
            make_tiled_copy_a(&atom, fma)?
        } else {
            make_tiled_copy_b(&atom, fma)?
        };
        let frag = DeviceCopy::new(names[2], frag_tiled);
        let smem_frag = frag.partition_s(&shared)?;
        let frag_regs = mma.partition_fragment(op, &[mn, 1], CType::F32)?;
        let frag_view = merge_tail(&frag.retile_d(&frag_regs)?, 3)?;
        mma.check_fed_by(op, &frag, &[mn, 1], &frag_view, &frag_regs)?;
        Ok(Staged {
            load,
            store,
            frag,
            global,
            pred,
            regs,
            regs_store,
            smem: shared,
            smem_store,
            smem_frag,
            frag_regs,
            frag_view,
        })
    }

    /// The declaration of this plan's kernel (every tensor, copy and the tiled FMA, checked).
    ///
    /// ```
    /// use tessel_kernels::sgemm::{Major, Rung, SgemmPlan, decl::Mainloop};
    /// let d = SgemmPlan::new(Rung::Tuned, 512, 512, 512, Major::Row, Major::Row).unwrap().declare().unwrap();
    /// let Mainloop::Staged { a, b } = &d.mainloop else { panic!() };
    /// // A row-major: 128-bit global loads along k, scalar stores into the [k][m] tile.
    /// assert_eq!((a.load.value_bits() * a.global.extents()[1], a.store.atom().name()),
    ///            (128, "UniversalCopy<uint32_t>"));
    /// assert_eq!(b.store.atom().name(), "UniversalCopy<uint128_t>");
    /// ```
    pub fn declare(&self) -> GpuResult<Declaration> {
        let t = &self.tiling;
        let mma = self.tiled_fma()?;
        let [ga, gb, gc] = self.globals()?;
        let (mp, np, _) = self.padded();
        let mainloop = if self.rung == super::Rung::Naive {
            Mainloop::Direct {
                a: Box::new(mma.partition_a(&ga.local_tile(&[t.bm, t.bk])?)?),
                b: Box::new(mma.partition_b(&gb.local_tile(&[t.bn, t.bk])?)?),
            }
        } else {
            let sa = t.smem_a()?.layout().clone();
            let sb = t.smem_b()?.layout().clone();
            let a = self.staged(
                &mma,
                &ga,
                (t.bm, self.m, self.a_major == Major::Col),
                &sa,
                'A',
                ["ld_a", "st_a", "frag_a"],
            )?;
            let b = self.staged(
                &mma,
                &gb,
                (t.bn, self.n, self.b_major == Major::Row),
                &sb,
                'B',
                ["ld_b", "st_b", "frag_b"],
            )?;
            Mainloop::Staged {
                a: Box::new(a),
                b: Box::new(b),
            }
        };
        let acc = mma.partition_fragment('C', &[t.bm, t.bn], CType::F32)?;
        // The epilogue takes each thread's accumulators in the tiled FMA's C layout with the
        // values of a row first (N, then M): four consecutive columns are one 128-bit store.
        let tv = mma.tiled().layout_c_tv()?;
        let values = tv.mode(1)?;
        let rest = values.mode(1)?;
        let n_first = Layout::from_modes([
            tv.mode(0)?,
            Layout::from_modes([
                values.mode(0)?,
                Layout::from_modes([rest.mode(1)?, rest.mode(0)?])?,
            ])?,
        ])?;
        let c_tiles = gc.local_tile(&[t.bm, t.bn])?;
        let epilogue = |elems: i64| -> GpuResult<(DeviceCopy, DeviceTensor)> {
            let c = DeviceCopy::new(
                "st_c",
                TiledCopy::new(&vector_atom(elems)?, n_first.clone(), vec![t.bm, t.bn])?,
            );
            let p = c.partition_d(&c_tiles)?;
            Ok((c, p))
        };
        let (store_c, global_c) = match (t.frag_vector == 4).then(|| epilogue(4)) {
            Some(Ok(found)) => found,
            _ => epilogue(1)?,
        };
        let acc_store = store_c.retile_s(&acc)?;
        mma.check_drained_by('C', &store_c, &[t.bm, t.bn], &acc_store, &acc)?;
        let cc = self.coordinates([mp, np])?;
        let pred_c = [
            self.finish_predicate(
                &store_c,
                store_c.partition_d(&cc[0].local_tile(&[t.bm, t.bn])?)?,
                self.m,
            )?,
            self.finish_predicate(
                &store_c,
                store_c.partition_d(&cc[1].local_tile(&[t.bm, t.bn])?)?,
                self.n,
            )?,
        ];
        Ok(Declaration {
            mma,
            mainloop,
            acc,
            store_c,
            acc_store,
            global_c,
            pred_c,
        })
    }
}

impl Declaration {
    /// Adds every piece to the kernel under the names the bodies use.
    pub(crate) fn add_to(&self, mut b: KernelBuilder) -> KernelBuilder {
        b = b.tiled_mma(&self.mma).tiled_copy(&self.store_c);
        match &self.mainloop {
            Mainloop::Direct { a, b: bt } => {
                b = b.tensor("tCgA", a).tensor("tCgB", bt);
            }
            Mainloop::Staged { a, b: bo } => {
                for (op, s) in [("A", a), ("B", bo)] {
                    let x = if op == "A" { "A" } else { "B" };
                    let lower = if op == "A" { "m" } else { "n" };
                    b = b
                        .tiled_copy(&s.load)
                        .tiled_copy(&s.store)
                        .tiled_copy(&s.frag)
                        .tensor(&format!("t{x}g{x}"), &s.global)
                        .tensor(&format!("t{x}p{x}_{lower}"), &s.pred[0])
                        .tensor(&format!("t{x}p{x}_k"), &s.pred[1])
                        .tensor(&format!("t{x}r{x}"), &s.regs)
                        .tensor(&format!("t{x}r{x}_st"), &s.regs_store)
                        .tensor(&format!("s{x}"), &s.smem)
                        .tensor(&format!("t{x}s{x}"), &s.smem_store)
                        .tensor(&format!("tCs{x}"), &s.smem_frag)
                        .tensor(&format!("tCr{x}"), &s.frag_regs)
                        .tensor(&format!("tCr{x}_cp"), &s.frag_view);
                }
            }
        }
        b.tensor("tCrC", &self.acc)
            .tensor("tCrC_st", &self.acc_store)
            .tensor("tCgC", &self.global_c)
            .tensor("tCpC_m", &self.pred_c[0])
            .tensor("tCpC_n", &self.pred_c[1])
    }
}
