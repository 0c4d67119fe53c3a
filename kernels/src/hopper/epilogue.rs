//! The Hopper GEMM's shared-memory epilogue, proven on the host: the C fragment of the GMMA
//! atom, the chunks each thread writes and where, the fp32 pair order that makes the stores
//! conflict-free, and the TMA store that reads each chunk.

use tessel_layout::ComposedLayout;
use tessel_layout::bank::{BankReport, SmemOp, analyze_indices};
use tessel_layout::gmma::{Major, SwizzleMode};

use super::{BK, C_BUFS, Epilogue, Sm90Plan};
use crate::element::Element;
use crate::error::{GpuError, GpuResult};
use crate::tma::{TmaMatrix, TmaPlan};

impl Sm90Plan {
    /// The TMA store of the epilogue's chunks of a `bn`-column tile (box `C_COLS x rows` of D,
    /// `m x n` with leading dimension `ld`, the chunk's swizzle [`Sm90Plan::c_swizzle`], proven
    /// to read `c_box`, whose rows it takes from mode 0), or `None` where TMA cannot address D:
    /// its row pitch is not a multiple of 16 bytes.
    pub(crate) fn c_store_tma(
        (m, n, ld): (i64, i64, i64),
        bn: i64,
        output: Element,
        c_box: &ComposedLayout,
    ) -> GpuResult<Option<TmaPlan>> {
        let elem = output;
        if (ld * elem.bytes()) % 16 != 0 {
            return Ok(None);
        }
        let matrix = TmaMatrix {
            rows: m,
            cols: n,
            ld,
            elem,
        };
        let rows = c_box.layout().mode(0)?.size();
        let tma = TmaPlan::new(
            matrix,
            [Self::c_cols(output, bn), rows],
            Self::c_swizzle(output, bn),
            c_box,
            Major::K,
        )?;
        Ok(Some(tma))
    }

    /// Bytes between the two consumers' rows in an A stage (64 rows of 128 bytes).
    ///
    /// ```
    /// assert_eq!(tessel_kernels::hopper::Sm90Plan::A_WG_BYTES, 64 * 128);
    /// ```
    pub const A_WG_BYTES: i64 = 64 * BK * 2;

    /// The epilogue stores values `v` and `v + 1` (even `v`) of a thread as two adjacent
    /// columns of one row, and the fragment covers the 64 x 256 tile once.
    pub(super) fn check_c_frag(&self) -> GpuResult<()> {
        let f = &self.c_frag;
        let (threads, values) = (f.mode(0)?.size(), f.mode(1)?.size());
        let bn = self.bn();
        let mut seen = vec![false; (64 * bn) as usize];
        for t in 0..threads {
            for v in 0..values {
                let off = f.offset(t + threads * v)?;
                let slot = seen.get_mut(off as usize).ok_or_else(|| {
                    GpuError::InvalidArgument(format!("C fragment offset {off} outside 64 x {bn}"))
                })?;
                if *slot {
                    return Err(GpuError::InvalidArgument(format!(
                        "C fragment offset {off} is held twice"
                    )));
                }
                *slot = true;
                if v % 2 == 1 && off != f.offset(t + threads * (v - 1))? + 64 {
                    return Err(GpuError::InvalidArgument(format!(
                        "C fragment values {} and {v} of thread {t} are not adjacent columns",
                        v - 1
                    )));
                }
            }
        }
        if threads != 128 || seen.iter().any(|s| !s) {
            return Err(GpuError::InvalidArgument(format!(
                "the C fragment {f} does not cover the 64 x {bn} tile with 128 threads"
            )));
        }
        Ok(())
    }

    /// Columns of one epilogue chunk of a tile of `bn` columns: 128 bytes of the output type
    /// (32 fp32, 64 fp16/bf16), or the whole tile where it is narrower (the 32-column tile of
    /// a 16-bit output: 64 bytes).
    ///
    /// ```
    /// use tessel_kernels::Element;
    /// use tessel_kernels::hopper::Sm90Plan;
    /// assert_eq!((Sm90Plan::c_cols(Element::F32, 256), Sm90Plan::c_cols(Element::BF16, 256)), (32, 64));
    /// assert_eq!(Sm90Plan::c_cols(Element::F16, 32), 32);
    /// ```
    pub fn c_cols(output: Element, bn: i64) -> i64 {
        (128 / output.bytes()).min(bn)
    }

    /// The swizzle of an epilogue chunk: the one whose rows are the chunk's (128, 64 or 32
    /// bytes), so that the chunk is one swizzle-atom column ([`Sm90Plan::c_cols`]).
    ///
    /// ```
    /// use tessel_kernels::Element;
    /// use tessel_kernels::hopper::Sm90Plan;
    /// use tessel_layout::gmma::SwizzleMode;
    /// assert_eq!(Sm90Plan::c_swizzle(Element::F32, 32), SwizzleMode::B128);
    /// assert_eq!(Sm90Plan::c_swizzle(Element::BF16, 32), SwizzleMode::B64);
    /// ```
    pub fn c_swizzle(output: Element, bn: i64) -> SwizzleMode {
        let row = Self::c_cols(output, bn) * output.bytes();
        SwizzleMode::ALL
            .into_iter()
            .find(|m| m.span_bytes() == row)
            .unwrap_or(SwizzleMode::None)
    }

    /// [`Sm90Plan::c_cols`] of this plan's output and tile.
    pub(super) fn chunk_cols(&self) -> i64 {
        Self::c_cols(self.output, self.bn())
    }

    /// Chunks of the consumer's 64 x BN tile in the shared-memory epilogue (`BN / c_cols`:
    /// 8 for fp32, 4 for 16-bit outputs of the 256-wide tile, 1 for the 32-column tile).
    pub(super) fn c_chunks(&self) -> i64 {
        self.bn() / self.chunk_cols()
    }

    /// Epilogue buffers per consumer: [`C_BUFS`], or one per chunk where a tile has fewer
    /// chunks or a number [`C_BUFS`] does not divide (the 64-column tile of a 16-bit output is
    /// one chunk: its single buffer is refilled once the previous tile's store has read it;
    /// the 192-column tile's three 16-bit chunks take three buffers), so that the chunks
    /// rotate through the buffers evenly.
    ///
    /// ```
    /// use tessel_kernels::Element;
    /// use tessel_kernels::hopper::{Sm90Config, Sm90Plan, Sm90Tile};
    /// let bufs = |tile, output| {
    ///     let c = Sm90Config { tile, ..Sm90Config::tn(Element::F16, output) };
    ///     Sm90Plan::for_config(c).unwrap().c_bufs()
    /// };
    /// assert_eq!((bufs(Sm90Tile::T128x64, Element::F32), bufs(Sm90Tile::T128x64, Element::BF16)), (2, 1));
    /// assert_eq!((bufs(Sm90Tile::T128x192, Element::F32), bufs(Sm90Tile::T128x192, Element::BF16)), (2, 3));
    /// ```
    pub fn c_bufs(&self) -> i64 {
        let chunks = self.c_chunks();
        if chunks % C_BUFS == 0 { C_BUFS } else { chunks }
    }

    /// Accumulator values of one thread per epilogue chunk (`ACC / c_chunks`).
    pub(super) fn c_vals(&self) -> i64 {
        self.c_frag.mode(1).map_or(0, |m| m.size()) * self.chunk_cols() / self.bn()
    }

    /// The shared-memory element index (of [`Sm90Plan::c_smem`]'s domain) of value `v` of
    /// consumer thread `t` in chunk `ch`, as the kernel computes it.
    pub(super) fn c_index(&self, t: i64, v: i64, ch: i64) -> GpuResult<i64> {
        Ok(self.c_frag.offset(t + 128 * v)? - ch * 64 * self.chunk_cols())
    }

    /// The first of the two fp32 values thread `t` stores at step `u` (even, `0 .. C_VALS`) of
    /// chunk `ch`: `(ch * C_VALS + u) ^ mask` where bit `bit` of `t` is set (`c_flip`), else
    /// `ch * C_VALS + u`, as the kernel selects it.
    pub(super) fn c_pair_value(&self, t: i64, ch: i64, u: i64) -> i64 {
        let (mask, bit) = self.c_flip;
        let flip = if (t >> bit) & 1 == 1 { mask } else { 0 };
        (ch * self.c_vals() + u) ^ flip
    }

    /// Domain indices of every epilogue store instruction of one warpgroup into one chunk, as
    /// the bank model takes them (`[instruction][lane][value]`), with the op: `sts.64` (two
    /// fp32 columns per lane, in the lane's pair order [`Sm90Plan::c_flip`]) or `stsm.x4`
    /// (lane `l` addresses the 8 columns of row `l % 8` of matrix `l / 8`, which starts where
    /// thread `4 (l % 8)` of the warp holds value `v + 2 (l / 8)`).
    ///
    /// ```
    /// use tessel_kernels::Element;
    /// use tessel_kernels::hopper::Sm90Plan;
    /// let p = Sm90Plan::new(128, 256, 64, Element::F16, Element::F16).unwrap();
    /// let (op, idx) = p.epilogue_accesses(0).unwrap();
    /// assert_eq!(op.to_string(), "stsm.x4");
    /// assert_eq!(idx.len(), 4 * 4 * 32 * 8); // 4 warps x 4 stmatrix x 32 lanes x 8 halves
    /// ```
    pub fn epilogue_accesses(&self, ch: i64) -> GpuResult<(SmemOp, Vec<i64>)> {
        let vals = self.c_vals();
        let mut idx = Vec::new();
        if self.output == Element::F32 {
            for w in 0..4 {
                for u in (0..vals).step_by(2) {
                    for l in 0..32 {
                        let t = 32 * w + l;
                        let i = self.c_index(t, self.c_pair_value(t, ch, u), ch)?;
                        idx.extend([i, i + 64]);
                    }
                }
            }
            Ok(("sts.64".parse()?, idx))
        } else {
            for w in 0..4 {
                for u in (0..vals).step_by(8) {
                    for l in 0..32 {
                        let i =
                            self.c_index(32 * w + 4 * (l % 8), ch * vals + u + 2 * (l / 8), ch)?;
                        idx.extend((0..8).map(|e| i + 64 * e));
                    }
                }
            }
            Ok(("stsm.x4".parse()?, idx))
        }
    }

    /// The bank model of one warpgroup's epilogue stores into one chunk: one report per
    /// instruction (the kernel's chunks are alike).
    ///
    /// ```
    /// use tessel_kernels::Element;
    /// use tessel_kernels::hopper::{OUTPUTS, Sm90Plan};
    /// for out in OUTPUTS {
    ///     let p = Sm90Plan::new(128, 256, 64, Element::F16, out).unwrap();
    ///     // sts.64: 2 wavefronts per store (the lane-dependent pair order); stsm.x4: 4.
    ///     assert!(p.epilogue_banks().unwrap().iter().all(|r| r.excess == 0));
    /// }
    /// ```
    pub fn epilogue_banks(&self) -> GpuResult<Vec<BankReport>> {
        let (op, idx) = self.epilogue_accesses(0)?;
        Ok(analyze_indices(
            &self.c_smem,
            self.output.bytes(),
            op,
            &idx,
        )?)
    }

    /// Proves the shared-memory epilogue: the values `ch * C_VALS ..` of every thread are
    /// exactly chunk `ch`'s columns; every store puts each value where `c_smem` places its
    /// element (`st.shared.v2`: the pair is contiguous; `stmatrix`: lane `L`'s register `i`
    /// lands at column `2 (L % 4)` of row `L / 4` of matrix `i`, [PTX ISA 9.0](https://docs.nvidia.com/cuda/archive/13.0.0/parallel-thread-execution/index.html) "stmatrix"); the fp32
    /// pair order stores each value of the chunk exactly once; the stores are free of bank
    /// conflicts (fp32 with `pair_order: false` excepted: 2-way, measured).
    pub(super) fn check_c_chunks(&self) -> GpuResult<()> {
        let bad = |what: String| Err(GpuError::InvalidArgument(format!("epilogue: {what}")));
        let cols = self.chunk_cols();
        let vals = self.c_vals();
        let chunks = self.c_chunks();
        let sm = |i: i64| self.c_smem.offset(i);
        for ch in 0..chunks {
            for t in 0..128 {
                for u in 0..vals {
                    let v = ch * vals + u;
                    let i = self.c_index(t, v, ch)?;
                    if !(0..64 * cols).contains(&i) {
                        return bad(format!("value {v} of thread {t} is outside chunk {ch}"));
                    }
                }
            }
            for w in 0..4 {
                for u in (0..vals).step_by(8) {
                    for l in 0..32 {
                        for i in 0..4 {
                            let v = ch * vals + u + 2 * i;
                            for e in 0..2 {
                                let here = sm(self.c_index(32 * w + l, v + e, ch)?)?;
                                let pair = sm(self.c_index(32 * w + l, v, ch)?)? + e;
                                let row = sm(self.c_index(32 * w + 4 * (l / 4), v, ch)?)?;
                                if here != pair
                                    || (self.output != Element::F32
                                        && here != row + 2 * (l % 4) + e)
                                {
                                    return bad(format!(
                                        "value {} of thread {} is not where the store puts it",
                                        v + e,
                                        32 * w + l
                                    ));
                                }
                            }
                            // stmatrix rows: 8 contiguous 16-bit columns.
                            let first = self.c_index(32 * w + 4 * (l % 8), v, ch)?;
                            for e in 0..8 {
                                if self.output != Element::F32
                                    && sm(first + 64 * e)? != sm(first)? + e
                                {
                                    return bad(format!(
                                        "the stmatrix row of value {v} is not contiguous"
                                    ));
                                }
                            }
                        }
                    }
                }
            }
        }
        // fp32: the kernel stores, at step u, values c_pair_value(t, ch, u) and + 1 at the
        // place of the first (checked above for every pair): the steps must visit every pair
        // of the chunk once.
        if self.output == Element::F32 {
            if self.c_flip != (0, 0) && self.flip_xor()? != Some(self.c_flip_xor) {
                return bad(format!(
                    "the pair order {:?} does not move every value by the offset XOR {}",
                    self.c_flip, self.c_flip_xor
                ));
            }
            for ch in 0..chunks {
                for t in 0..128 {
                    let mut seen = vec![false; vals as usize];
                    for u in (0..vals).step_by(2) {
                        let v = self.c_pair_value(t, ch, u);
                        let slot = (v - ch * vals) as usize;
                        if v % 2 != 0 || slot >= seen.len() || seen[slot] {
                            return bad(format!(
                                "thread {t} stores value {v} at step {u} of chunk {ch}: not a \
                                 permutation of the chunk's pairs"
                            ));
                        }
                        seen[slot] = true;
                    }
                }
            }
        }
        // With the same pair order in every lane, the fp32 `st.shared.v2` stores take 4
        // wavefronts, not 2: each half-warp writes rows g and g ^ 1 into the same banks of the
        // 128B swizzle (docs/bank-model.md, conflict_s64_epilogue_sm90, measured). That
        // variant is allowed; every other epilogue must be conflict-free.
        let banks = self.epilogue_banks()?;
        let seq = self.output == Element::F32 && self.c_flip == (0, 0);
        if let Some(r) = banks.iter().find(|r| r.excess != 0 && !seq) {
            return bad(format!(
                "a store into {} has bank conflicts ({r})",
                self.c_smem
            ));
        }
        Ok(())
    }

    /// The fp32 pair order: the first `(mask, bit)` (bit of the thread index 2 .. 4, the
    /// accumulator row bits of a lane; mask an even value index below `C_VALS`) whose stores
    /// the bank model finds conflict-free, or `(0, 0)` (the same order in every lane) for
    /// 16-bit outputs, the direct epilogue, or when no candidate is free.
    pub(super) fn choose_c_flip(&self) -> GpuResult<((i64, i64), i64)> {
        if self.output != Element::F32 || self.epilogue != Epilogue::TmaStore {
            return Ok(((0, 0), 0));
        }
        let mut trial = self.clone();
        for bit in 2..5 {
            for mask in (2..self.c_vals()).step_by(2) {
                trial.c_flip = (mask, bit);
                if let Some(x) = trial.flip_xor()?
                    && trial.epilogue_banks()?.iter().all(|r| r.excess == 0)
                {
                    return Ok(((mask, bit), x));
                }
            }
        }
        Ok(((0, 0), 0))
    }

    /// The one element-offset XOR `X` with `c_smem(value v ^ mask) == c_smem(value v) ^ X` for
    /// every thread that flips, every chunk and every pair, below 256 elements (the kernel
    /// XORs byte addresses of 1024-byte aligned buffers); `None` where there is none.
    pub(super) fn flip_xor(&self) -> GpuResult<Option<i64>> {
        let (mask, bit) = self.c_flip;
        let vals = self.c_vals();
        let mut x = None;
        for ch in 0..self.c_chunks() {
            for t in (0..128).filter(|t| (t >> bit) & 1 == 1) {
                for u in (0..vals).step_by(2) {
                    let v = ch * vals + u;
                    let here = self.c_smem.offset(self.c_index(t, v, ch)?)?;
                    let there = self.c_smem.offset(self.c_index(t, v ^ mask, ch)?)?;
                    let d = here ^ there;
                    if *x.get_or_insert(d) != d || d >= 256 {
                        return Ok(None);
                    }
                }
            }
        }
        Ok(x)
    }
}
