//! The library GEMM on sm_80 and later: `mma.sync` with `cp.async` and `ldmatrix` (the SM80
//! GEMM of [`crate::gemm`] with every extent, leading dimension and pointer a run-time value).
//! It runs where wgmma does not (sm_80, sm_86, sm_89), and on sm_90 for operands TMA cannot
//! load (an address or leading dimension that is not a multiple of 16 bytes). 16-bit inputs
//! take `mma.sync.m16n8k16` (sm_80); 8-bit ones (e4m3, e5m2, both K-major: `ldmatrix` cannot
//! transpose bytes) `mma.sync.m16n8k32` (sm_89, the catalogue's `SM89_16x8x32_*` atoms), with
//! K-tiles of 64 bytes in both cases. The 8-bit products of each k tile are summed from zero
//! in a partial per accumulator fragment and then added to the fp32 accumulators
//! (`tessel::gemm_promoted`; the "staged accumulation" CUTLASS applies to sm_89's 8-bit
//! `mma.sync`, `is_sm89_staged_policy_v` in
//! [`include/cutlass/arch/mma_sm89.h`](https://github.com/NVIDIA/cutlass/blob/v4.2.1/include/cutlass/arch/mma_sm89.h)),
//! as the Hopper GEMM promotes its wgmma sums ([`crate::hopper`]).
//!
//! One kernel per [`Sm80Config`] (input and output types, the operands' majors, the copy
//! widths, whether C is read), compiled for `sm_80` (`sm_89` for 8-bit inputs,
//! [`Sm80Config::arch`]) and reused for every shape. A and B are
//! loaded into shared memory in their global order (a K-major operand as `(rows, k)`, an
//! MN-major one as `(k, rows)`, swizzled), read by `ldmatrix` (`.trans` for an MN-major
//! operand: the catalogue's `SM75_U16x8_LDSM_T`), and multiplied by the tiled MMA of
//! [`GemmConfig::tiled_mma_of`]. Each copy moves [`copy_width`] elements: 16 bytes where the
//! operand's address and leading dimension allow, down to one element where they do not.
//! Ragged tiles are zero-filled (`tessel::copy_zfill`: `cp.async` with a source size), and the
//! epilogue stores each accumulator inside D only.

use std::fmt;

use tessel_layout::atom::{SmemSide, copy_atom};
use tessel_layout::bank::{BankReport, analyze_copy};
use tessel_layout::gmma::Major;
use tessel_layout::tiled::{TiledCopy, make_tiled_copy, make_tiled_copy_a, make_tiled_copy_b};
use tessel_layout::{ComposedLayout, IntTuple, Layout, Swizzle};

use super::check::{MatrixDesc, Problem, source_matrix};
use super::order::Order;
use crate::Arch;
use crate::element::{DeviceElement, Element};
use crate::error::{GpuError, GpuResult};
use crate::gemm::{BM, GemmBanks, GemmConfig};
use crate::hopper::promotes;
use crate::kernel::{CType, Elem, Field, Kernel, KernelBuilder, Param, Scalar, Value};
use crate::layer::{DeviceCopy, DeviceMma, DeviceTensor};

/// The device body ([`Sm80Config::kernel`] declares what it names).
///
/// ```
/// assert!(tessel_kernels::blas::SM80_BODY.contains("tessel::copy_zfill<k::A_BYTES>"));
/// ```
pub const SM80_BODY: &str = include_str!("../../cuda/gemm_sm80.cu");

/// The block tile and pipeline of every configuration: 128 x 128 x 32, 3 stages, 4 warps
/// (48 KiB of shared memory, which every sm_80+ GPU has). `bk` counts 16-bit elements: a k tile
/// is 64 bytes of each row, 32 elements of 16-bit inputs and 64 of 8-bit ones
/// ([`Sm80Config::bk`]).
pub const SM80_TILE: GemmConfig = GemmConfig::DEFAULT;

/// The fields of the kernel's run-time struct `args`, in declaration order.
pub const SM80_ARGS: [&str; 15] = [
    "a", "b", "c", "d", "lda", "ldb", "c_rs", "c_cs", "d_rs", "d_cs", "m", "n", "k", "alpha",
    "beta",
];

/// Elements one copy of an operand moves: the widest of 16, 8, 4 or 2 bytes that divides its
/// address and its row pitch (leading dimension in bytes), so that every copy of every tile is
/// aligned, else one element. 16 bytes is what TMA needs too; the narrower widths are the path
/// for the operands it cannot take.
///
/// ```
/// use tessel_kernels::{Element, blas::{MatrixDesc, Order, copy_width}};
/// let a = MatrixDesc { address: 0x1000, bytes: 1 << 20, elem: Element::F16, order: Order::RowMajor, ld: 520 };
/// assert_eq!(copy_width(&a), 8); // 16-byte cp.async
/// assert_eq!(copy_width(&MatrixDesc { address: 0x1002, ..a }), 1); // offset by one element
/// assert_eq!(copy_width(&MatrixDesc { ld: 522, ..a }), 2);
/// assert_eq!(copy_width(&MatrixDesc { ld: 9, ..a }), 1);
/// ```
pub fn copy_width(m: &MatrixDesc) -> i64 {
    let bytes = m.elem.bytes();
    [16, 8, 4, 2]
        .into_iter()
        .find(|&w| {
            w >= bytes && m.address.is_multiple_of(w as u64) && m.ld.saturating_mul(bytes) % w == 0
        })
        .map_or(1, |w| (w / bytes).max(1))
}

/// One compiled configuration of the mma.sync GEMM.
///
/// ```
/// use tessel_kernels::{Element, blas::Sm80Config};
/// use tessel_layout::gmma::Major;
/// let c = Sm80Config { input: Element::F16, output: Element::F32, a_major: Major::K,
///                      b_major: Major::MN, a_width: 8, b_width: 1, source: false };
/// assert_eq!(c.kernel_name(), "gemm_sm80_ak8_bn1_f16_f32");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Sm80Config {
    /// A's and B's type (f16, bf16, e4m3 or e5m2).
    pub input: Element,
    /// C's and D's type (f32, f16 or bf16).
    pub output: Element,
    /// A's contiguous mode (K: row-major A).
    pub a_major: Major,
    /// B's contiguous mode (K: column-major B).
    pub b_major: Major,
    /// Elements per copy of A ([`copy_width`]).
    pub a_width: i64,
    /// Elements per copy of B.
    pub b_width: i64,
    /// Whether the kernel reads C (`beta != 0`).
    pub source: bool,
}

impl fmt::Display for Sm80Config {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.kernel_name())
    }
}

fn major_letter(m: Major) -> char {
    match m {
        Major::K => 'k',
        Major::MN => 'n',
    }
}

fn parse(text: &str) -> GpuResult<Layout> {
    Ok(text.parse()?)
}

/// The operand's load of one k tile, as the kernel declares it.
struct OperandLoad {
    /// The stages in the operand's global order (outer, inner, stage).
    physical: DeviceTensor,
    /// The stages as the MMA sees them (rows, k, stage).
    logical: DeviceTensor,
    /// The copy of one tile (outer, inner) into a stage.
    copy: DeviceCopy,
    /// The tile's shape (outer, inner).
    tile: [i64; 2],
    /// The operand's contiguous mode.
    major: Major,
    /// Elements per copy.
    width: i64,
}

impl OperandLoad {
    /// Checks what `tessel::copy_zfill` relies on beyond the layer's checks of each partition:
    /// the identity tensors `co`, `ci` and the destination `dst` (partitioned by the same copy)
    /// put every element of the `(outer, inner)` tile in exactly one copy, at the place of every
    /// stage where the `ldmatrix` partition of the `(rows, k, stage)` view reads it; each copy's
    /// values are `width` consecutive inner coordinates from a multiple of `width` (so one
    /// aligned global address covers them).
    fn check(&self, co: &DeviceTensor, ci: &DeviceTensor, dst: &DeviceTensor) -> GpuResult<()> {
        let [outer, inner] = self.tile;
        let (threads, per_stage) = (co.extents()[0], co.size());
        let stages = dst.size() / per_stage;
        let fail = |what: String| {
            Err(GpuError::InvalidArgument(format!(
                "{}: {what}",
                self.copy.name()
            )))
        };
        let mut seen = vec![false; (outer * inner) as usize];
        for idx in 0..per_stage {
            let (o, i) = (co.layout().offset(idx)?, ci.layout().offset(idx)?);
            let v = (idx / threads) % self.width;
            let first = idx - threads * v;
            let (o0, i0) = (co.layout().offset(first)?, ci.layout().offset(first)?);
            if o != o0 || i != i0 + v || i0 % self.width != 0 {
                return fail(format!(
                    "value {v} of a copy is element ({o}, {i}), not ({o0}, {}) of a run from a multiple of {}",
                    i0 + v,
                    self.width
                ));
            }
            if !(0..outer).contains(&o) || !(0..inner).contains(&i) {
                return fail(format!(
                    "element ({o}, {i}) is outside the {outer} x {inner} tile"
                ));
            }
            let e = (o * inner + i) as usize;
            if std::mem::replace(&mut seen[e], true) {
                return fail(format!("element ({o}, {i}) is copied twice"));
            }
            let (row, k) = match self.major {
                Major::K => (o, i),
                Major::MN => (i, o),
            };
            let rows = match self.major {
                Major::K => outer,
                Major::MN => inner,
            };
            let bk = outer * inner / rows;
            for s in 0..stages {
                let got = dst.layout().offset(idx + per_stage * s)?;
                let want = self.logical.layout().offset(row + rows * (k + bk * s))?;
                if got != want {
                    return fail(format!(
                        "element (row {row}, k {k}) of stage {s} is copied to {got}, read from {want}"
                    ));
                }
            }
        }
        if seen.iter().any(|&x| !x) {
            return fail(format!(
                "a copy leaves elements of the {outer} x {inner} tile out"
            ));
        }
        Ok(())
    }
}

impl Sm80Config {
    /// The kernel's name, e.g. `gemm_sm80_ak8_bk8_f16_f32` (its architecture, majors and copy
    /// widths of A and B, types, `_c` when it reads C; `gemm_sm89_...` for 8-bit inputs).
    pub fn kernel_name(&self) -> String {
        format!(
            "gemm_{}_a{}{}_b{}{}_{}_{}{}",
            self.arch().to_string().replace('_', ""),
            major_letter(self.a_major),
            self.a_width,
            major_letter(self.b_major),
            self.b_width,
            self.input,
            self.output,
            if self.source { "_c" } else { "" }
        )
    }

    /// `Err` unless the kernel supports the configuration, naming what it takes.
    pub fn check(&self) -> GpuResult<()> {
        if !matches!(
            self.input,
            Element::F16 | Element::BF16 | Element::E4M3 | Element::E5M2
        ) {
            return Err(GpuError::InvalidArgument(format!(
                "A and B of type {}: the mma.sync GEMM takes f16, bf16, e4m3 or e5m2 inputs",
                self.input
            )));
        }
        if self.input.is_fp8() && (self.a_major, self.b_major) != (Major::K, Major::K) {
            return Err(GpuError::InvalidArgument(format!(
                "A {}-major and B {}-major of type {}: the mma.sync GEMM takes 8-bit inputs \
                 K-major only (A row-major, B column-major: ldmatrix cannot transpose bytes)",
                self.a_major, self.b_major, self.input
            )));
        }
        if !matches!(self.output, Element::F32 | Element::F16 | Element::BF16) {
            return Err(GpuError::InvalidArgument(format!(
                "D of type {}: the mma.sync GEMM writes f32, f16 or bf16",
                self.output
            )));
        }
        let bytes = self.input.bytes();
        for (name, w) in [("A", self.a_width), ("B", self.b_width)] {
            if !matches!(w * bytes, 1 | 2 | 4 | 8 | 16) {
                return Err(GpuError::InvalidArgument(format!(
                    "{name}: a copy width of {w} elements of {} ({} bytes): a power of two \
                     of at most 16 bytes",
                    self.input,
                    w * bytes
                )));
            }
        }
        Ok(())
    }

    /// The architecture the kernel is compiled for: sm_80, sm_89 for 8-bit inputs (the
    /// `mma.sync` of e4m3 and e5m2).
    ///
    /// ```
    /// use tessel_kernels::{Arch, Element, blas::Sm80Config};
    /// use tessel_layout::gmma::Major;
    /// let c = Sm80Config { input: Element::E4M3, output: Element::BF16, a_major: Major::K,
    ///                      b_major: Major::K, a_width: 16, b_width: 16, source: false };
    /// assert_eq!(c.arch(), Arch::new(8, 9).unwrap());
    /// ```
    pub fn arch(&self) -> Arch {
        if self.input.is_fp8() {
            Arch::SM89
        } else {
            Arch::SM80
        }
    }

    /// Elements of one k tile (64 bytes of a row): 32 of a 16-bit input, 64 of an 8-bit one.
    ///
    /// ```
    /// use tessel_kernels::{Element, blas::Sm80Config};
    /// use tessel_layout::gmma::Major;
    /// let c = Sm80Config { input: Element::F16, output: Element::F32, a_major: Major::K,
    ///                      b_major: Major::K, a_width: 8, b_width: 8, source: false };
    /// assert_eq!((c.bk(), Sm80Config { input: Element::E5M2, ..c }.bk()), (32, 64));
    /// ```
    pub fn bk(&self) -> i64 {
        SM80_TILE.bk * 2 / self.input.bytes()
    }

    /// The MMA atom (CuTe's name): `m16n8k16` for 16-bit inputs, `m16n8k32` for 8-bit ones.
    fn mma_atom(&self) -> String {
        match self.input {
            Element::BF16 => "SM80_16x8x16_F32BF16BF16F32_TN".to_string(),
            Element::E4M3 | Element::E5M2 => {
                let t = self.input.cute_token();
                format!("SM89_16x8x32_F32{t}{t}F32_TN")
            }
            _ => "SM80_16x8x16_F32F16F16F32_TN".to_string(),
        }
    }

    /// The copy of one `(outer, inner)` tile of `bits`-bit elements, `width` consecutive
    /// elements of a row per thread: the atom of that many bytes (`cp.async` of 16, 8 or 4, a
    /// 2- or 1-byte copy below), the threads along the rows first.
    fn load_copy(tile: [i64; 2], width: i64, bits: i64) -> GpuResult<TiledCopy> {
        let atom = match width * bits / 8 {
            16 => "SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>",
            8 => "SM80_CP_ASYNC_CACHEALWAYS<uint64_t>",
            4 => "SM80_CP_ASYNC_CACHEALWAYS<uint32_t>",
            2 => "UniversalCopy<uint16_t>",
            _ => "UniversalCopy<uint8_t>",
        };
        let chunks = tile[1] / width;
        let rows = SM80_TILE.threads() / chunks;
        Ok(make_tiled_copy(
            &copy_atom(atom)?.typed(bits)?,
            &parse(&format!("({rows},{chunks}):({chunks},1)"))?,
            &parse(&format!("(1,{width}):(0,1)"))?,
        )?)
    }

    /// One operand's stages and copies: `rows` rows (BM or BN) by BK, K-major ones
    /// `(rows,BK):(BK,1)` under `Sw<2,3,3>` (as [`crate::gemm`]; `Sw<2,4,3>` for 8-bit elements,
    /// the same swizzle of the same bytes), MN-major ones `(rows,BK):(1,rows)` under `Sw<3,3,4>`
    /// (the 16-byte chunk index XOR the k row's low bits: the eight rows an `ldmatrix.trans`
    /// reads lie in eight different chunks).
    fn operand(
        &self,
        name: &str,
        rows: i64,
        major: Major,
        width: i64,
        pipe: i64,
    ) -> GpuResult<OperandLoad> {
        let bk = self.bk();
        let stage = rows * bk;
        let ints = |v: [i64; 3]| IntTuple::from_ints(v);
        // Bits of an element's offset within a 16-byte chunk: 3 for 16-bit, 4 for 8-bit.
        let chunk_bits = if self.input.is_fp8() { 4 } else { 3 };
        let (swizzle, logical, physical, tile) = match major {
            Major::K => (
                Swizzle::new(2, chunk_bits, 3)?,
                Layout::new(ints([rows, bk, pipe]), ints([bk, 1, stage]))?,
                Layout::new(ints([rows, bk, pipe]), ints([bk, 1, stage]))?,
                [rows, bk],
            ),
            Major::MN => (
                Swizzle::new(3, 3, 4)?,
                Layout::new(ints([rows, bk, pipe]), ints([1, rows, stage]))?,
                Layout::new(ints([bk, rows, pipe]), ints([rows, 1, stage]))?,
                [bk, rows],
            ),
        };
        let storage = self.input.c_type();
        let smem =
            |l: Layout| DeviceTensor::shared(storage, ComposedLayout::new(vec![swizzle], 0, l));
        Ok(OperandLoad {
            physical: smem(physical),
            logical: smem(logical),
            copy: DeviceCopy::new(name, Self::load_copy(tile, width, self.input.bits())?),
            tile,
            major,
            width,
        })
    }

    /// The bank model (`tessel_layout::bank::analyze_copy`) of one block's shared-memory traffic
    /// per k tile: every warp's copies into a stage and `ldmatrix` reads of both operands.
    ///
    /// ```
    /// use tessel_kernels::{Element, blas::Sm80Config};
    /// use tessel_layout::gmma::Major;
    /// let c = Sm80Config { input: Element::F16, output: Element::F32, a_major: Major::MN,
    ///                      b_major: Major::K, a_width: 8, b_width: 8, source: false };
    /// assert_eq!(c.bank_reports().unwrap().excess(), 0);
    /// ```
    pub fn bank_reports(&self) -> GpuResult<GemmBanks> {
        self.check()?;
        let mma = SM80_TILE.tiled_mma_of(&self.mma_atom())?;
        let sum = |reports: Vec<BankReport>| reports.into_iter().sum::<BankReport>();
        let mut out = Vec::new();
        for (rows, major, width, operand) in [
            (BM, self.a_major, self.a_width, 'A'),
            (SM80_TILE.bn, self.b_major, self.b_width, 'B'),
        ] {
            let op = self.operand("g2s", rows, major, width, 1)?;
            let ldsm = copy_atom(ldsm_atom(major))?.typed(self.input.bits())?;
            let s2r = if operand == 'A' {
                make_tiled_copy_a(&ldsm, &mma)?
            } else {
                make_tiled_copy_b(&ldsm, &mma)?
            };
            out.push((
                sum(analyze_copy(
                    op.copy.tiled(),
                    op.physical.layout(),
                    SmemSide::Destination,
                )?),
                sum(analyze_copy(&s2r, op.logical.layout(), SmemSide::Source)?),
            ));
        }
        Ok(GemmBanks {
            store_a: out[0].0,
            store_b: out[1].0,
            ldsm_a: out[0].1,
            ldsm_b: out[1].1,
        })
    }

    /// The kernel (for `sm_80`, running on every later GPU): the tensors and copies the body
    /// names, each derivation checked by the layer, the loads (every element of a tile copied
    /// once, to where `ldmatrix` reads it, in aligned runs of the copy width) and the hand-offs
    /// from `ldmatrix` to the MMA ([`DeviceMma::check_fed_by`]). Parameter: the struct `args` ([`SM80_ARGS`]); grid
    /// `(ceil(M / 128), ceil(N / 128))`, set at launch.
    ///
    /// ```
    /// use tessel_kernels::{Arch, Element, blas::Sm80Config};
    /// use tessel_layout::gmma::Major;
    /// let c = Sm80Config { input: Element::BF16, output: Element::BF16, a_major: Major::MN,
    ///                      b_major: Major::K, a_width: 1, b_width: 8, source: true };
    /// let k = c.kernel().unwrap();
    /// assert_eq!(k.target(), Some(Arch::new(8, 0).unwrap()));
    /// assert!(k.source().contains("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"));
    /// assert!(k.source().contains("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16"));
    /// ```
    pub fn kernel(&self) -> GpuResult<Kernel> {
        let parts = self.parts()?;
        let cfg = SM80_TILE;
        let (bn, bk) = (cfg.bn, self.bk());
        let atom_k = parts.mma.tiled().atom().shape_mnk()[2];
        let out = self.output.c_type();
        let header = format!(
            "GEMM D = alpha A B + beta C on {} (mma.sync), {} in, {} out, A {}-major ({} per \
             copy), B {}-major ({} per copy){}: generated by tessel-kernels.",
            self.arch(),
            self.input,
            self.output,
            self.a_major,
            self.a_width,
            self.b_major,
            self.b_width,
            if self.source { ", reads C" } else { "" }
        );
        let bytes = |w: i64| w * self.input.bytes();
        let fields = SM80_ARGS
            .iter()
            .map(|&name| match name {
                "a" | "b" => Field::pointer(name, Elem::alias("TAB")),
                "c" | "d" => Field::pointer(name, Elem::alias("TC")),
                "alpha" | "beta" => Field::scalar(name, Scalar::F32),
                "m" | "n" | "k" => Field::scalar(name, Scalar::I32),
                _ => Field::scalar(name, Scalar::I64),
            })
            .collect();
        let mut builder = KernelBuilder::new(&self.kernel_name(), SM80_BODY)
            .comment(&header)
            .alias("TAB", self.input.c_type())
            .alias("TC", out)
            .int("BM", BM)
            .int("BN", bn)
            .int("BK", bk)
            .int("PIPE", cfg.stages)
            .int("KB", bk / atom_k)
            .int("SMEM_A", BM * bk * cfg.stages)
            .int("A_MN", i64::from(self.a_major == Major::MN))
            .int("B_MN", i64::from(self.b_major == Major::MN))
            .int("A_BYTES", bytes(self.a_width))
            .int("B_BYTES", bytes(self.b_width))
            .int("ACC", parts.tensor("tCrC")?.size())
            .int("OUT", output_code(self.output))
            .int("SOURCE", i64::from(self.source))
            .int("PROMOTE", i64::from(promotes(self.input)))
            .tiled_copy(&parts.s2r_a)
            .tiled_copy(&parts.s2r_b)
            .tiled_mma(&parts.mma);
        for (name, t) in &parts.tensors {
            builder = builder.tensor(name, t);
        }
        builder
            .param(Param::values("args", fields))
            .threads(u32::try_from(cfg.threads()).unwrap_or(0))
            .grid(1, 1, 1)
            .dynamic_smem(u32::try_from(cfg.smem_bytes()).unwrap_or(u32::MAX))
            .target(self.arch())
            .build()
    }

    /// The MMA, the `ldmatrix` copies and the tensors the body names ([`SM80_TENSORS`]), each
    /// derivation and hand-off checked (see [`Sm80Config::kernel`]).
    pub(crate) fn parts(&self) -> GpuResult<Sm80Parts> {
        self.check()?;
        let cfg = SM80_TILE;
        let (bn, bk, bits) = (cfg.bn, self.bk(), self.input.bits());
        let mma = DeviceMma::new("mma", cfg.tiled_mma_of(&self.mma_atom())?);
        let s2r_a = DeviceCopy::new(
            "s2r_a",
            make_tiled_copy_a(
                &copy_atom(ldsm_atom(self.a_major))?.typed(bits)?,
                mma.tiled(),
            )?,
        );
        let s2r_b = DeviceCopy::new(
            "s2r_b",
            make_tiled_copy_b(
                &copy_atom(ldsm_atom(self.b_major))?.typed(bits)?,
                mma.tiled(),
            )?,
        );
        let a = self.operand("g2s_a", BM, self.a_major, self.a_width, cfg.stages)?;
        let b = self.operand("g2s_b", bn, self.b_major, self.b_width, cfg.stages)?;
        let coords = |op: &OperandLoad, which| {
            op.copy
                .partition_s(&DeviceTensor::identity(&op.tile, which)?)
        };
        let (ta_o, ta_i, ts_a) = (
            coords(&a, 0)?,
            coords(&a, 1)?,
            a.copy.partition_d(&a.physical)?,
        );
        let (tb_o, tb_i, ts_b) = (
            coords(&b, 0)?,
            coords(&b, 1)?,
            b.copy.partition_d(&b.physical)?,
        );
        a.check(&ta_o, &ta_i, &ts_a)?;
        b.check(&tb_o, &tb_i, &ts_b)?;
        let tc_ra = mma.partition_fragment('A', &[BM, bk], self.input.c_type())?;
        let tc_rb = mma.partition_fragment('B', &[bn, bk], self.input.c_type())?;
        let tc_rc = mma.partition_fragment('C', &[BM, bn], CType::F32)?;
        let tx_ra = s2r_a.retile_d(&tc_ra)?;
        let tx_rb = s2r_b.retile_d(&tc_rb)?;
        mma.check_fed_by('A', &s2r_a, &[BM, bk], &tx_ra, &tc_ra)?;
        mma.check_fed_by('B', &s2r_b, &[bn, bk], &tx_rb, &tc_rb)?;
        let tensors = vec![
            ("tAsA", ts_a),
            ("tBsB", ts_b),
            ("tAcA_o", ta_o),
            ("tAcA_i", ta_i),
            ("tBcB_o", tb_o),
            ("tBcB_i", tb_i),
            ("tXsA", s2r_a.partition_s(&a.logical)?),
            ("tXsB", s2r_b.partition_s(&b.logical)?),
            ("tCrA", tc_ra),
            ("tCrB", tc_rb),
            ("tCrC", tc_rc),
            ("tXrA", tx_ra),
            ("tXrB", tx_rb),
            (
                "crow",
                mma.partition_c(&DeviceTensor::identity(&[BM, bn], 0)?)?,
            ),
            (
                "ccol",
                mma.partition_c(&DeviceTensor::identity(&[BM, bn], 1)?)?,
            ),
        ];
        Ok(Sm80Parts {
            mma,
            s2r_a,
            s2r_b,
            tensors,
        })
    }
}

/// The names of the mma.sync GEMM's tensors (`tensor::NAME` in [`SM80_BODY`]):
/// - `tAsA`, `tBsB`: the copies' destinations, the stages in the operand's global order
///   `(thread, CPY, CPY atoms, CPY_OUTER, CPY_INNER, stage)`;
/// - `tAcA_o`, `tAcA_i`, `tBcB_o`, `tBcB_i`: the identity tensors of the `(outer, inner)` tile
///   partitioned like them (each copy's first element's coordinates);
/// - `tXsA`, `tXsB`: the `ldmatrix` source partitions of the stages;
/// - `tCrA`, `tCrB`, `tCrC`: the MMA's fragments; `tXrA`, `tXrB`: `tCrA`, `tCrB` as the
///   `ldmatrix` destinations;
/// - `crow`, `ccol`: the identity tensor of the block tile partitioned like the accumulators.
///
/// ```
/// use tessel_kernels::blas::{SM80_BODY, SM80_TENSORS};
/// assert!(SM80_TENSORS.iter().all(|t| SM80_BODY.contains(&format!("tensor::{t}("))));
/// ```
pub const SM80_TENSORS: [&str; 15] = [
    "tAsA", "tBsB", "tAcA_o", "tAcA_i", "tBcB_o", "tBcB_i", "tXsA", "tXsB", "tCrA", "tCrB", "tCrC",
    "tXrA", "tXrB", "crow", "ccol",
];

/// What [`Sm80Config::parts`] derives: the kernel's MMA, its `ldmatrix` copies and its tensors
/// by name ([`SM80_TENSORS`]).
pub(crate) struct Sm80Parts {
    pub(crate) mma: DeviceMma,
    pub(crate) s2r_a: DeviceCopy,
    pub(crate) s2r_b: DeviceCopy,
    pub(crate) tensors: Vec<(&'static str, DeviceTensor)>,
}

impl Sm80Parts {
    /// The tensor `name`.
    pub(crate) fn tensor(&self, name: &str) -> GpuResult<&DeviceTensor> {
        self.tensors
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, t)| t)
            .ok_or_else(|| GpuError::InvalidArgument(format!("mma.sync GEMM: no tensor {name}")))
    }
}

/// The `ldmatrix.x4` atom of an operand's fragments: plain for a K-major stage, `.trans` for an
/// MN-major one.
fn ldsm_atom(major: Major) -> &'static str {
    match major {
        Major::K => "SM75_U32x4_LDSM_N",
        Major::MN => "SM75_U16x8_LDSM_T",
    }
}

/// The `OUT` code of `tessel::to_float` / `from_float`: 0 fp32, 1 fp16, 2 bf16.
fn output_code(output: Element) -> i64 {
    match output {
        Element::F32 => 0,
        Element::F16 => 1,
        _ => 2,
    }
}

/// Everything one launch of the mma.sync GEMM needs, derived from a [`crate::blas::Problem`].
#[derive(Clone, Debug, PartialEq)]
pub struct Sm80Call {
    /// The compiled kernel's configuration.
    pub config: Sm80Config,
    /// The struct `args` in [`SM80_ARGS`] order.
    pub args: Vec<Value>,
    /// The grid: `(ceil(M / 128), ceil(N / 128))`.
    pub grid: (u32, u32),
}

/// The strides `(row, column)` of a matrix of this order and leading dimension.
fn strides(order: Order, ld: i64) -> (i64, i64) {
    match order {
        Order::RowMajor => (ld, 1),
        Order::ColMajor => (1, ld),
    }
}

/// The largest M and K the kernel's 32-bit coordinates take: a tile's origin plus its extent
/// (128) stays below 2^31.
const INT_EXTENT: i64 = i32::MAX as i64 - 255;

/// Checks `p` for the mma.sync GEMM and derives its launch. Errors name the violated
/// condition: an extent outside `1..=2^31 - 256` (N up to 65535 tiles: the grid's y extent),
/// A and B of different types or not f16/bf16/e4m3/e5m2, 8-bit ones not both K-major (A
/// row-major, B column-major), an unsupported output
/// type, C of another type than D, `beta != 0` without C, a leading dimension below the
/// contiguous extent, a buffer too small, an address not aligned to its elements. Any alignment
/// beyond the element's is taken ([`copy_width`]).
///
/// ```
/// use tessel_kernels::{Element, blas::{MatrixDesc, Order, Problem, plan_sm80}};
/// let mat = |address, order, ld, rows: i64, cols: i64, elem: Element| MatrixDesc {
///     address, bytes: (rows * cols * elem.bytes()) as usize + 16, elem, order, ld };
/// let (m, n, k) = (17, 33, 9);
/// let p = Problem {
///     m, n, k,
///     a: mat(0x10002, Order::RowMajor, k, m, k, Element::F16),
///     b: mat(0x20000, Order::ColMajor, 16, k, n * 2, Element::F16),
///     c: None,
///     d: mat(0x30000, Order::RowMajor, n, m, n, Element::F32),
///     alpha: 1.0, beta: 0.0,
/// };
/// let call = plan_sm80(&p).unwrap();
/// assert_eq!(call.config.kernel_name(), "gemm_sm80_ak1_bk8_f16_f32");
/// assert_eq!(call.grid, (1, 1));
/// // 8-bit inputs (sm_89): A row-major and B column-major only.
/// let e4m3 = |m: MatrixDesc| MatrixDesc { elem: Element::E4M3, ..m };
/// let e4m3 = Problem { a: e4m3(p.a), b: e4m3(p.b), ..p };
/// assert_eq!(plan_sm80(&e4m3).unwrap().config.kernel_name(), "gemm_sm89_ak1_bk16_e4m3_f32");
/// let nn = Problem { b: MatrixDesc { order: Order::RowMajor, ld: n * 2, ..e4m3.b }, ..e4m3 };
/// assert!(plan_sm80(&nn).unwrap_err().to_string().contains("K-major only"));
/// ```
pub fn plan_sm80(p: &Problem) -> GpuResult<Sm80Call> {
    for (name, v, max) in [
        ("M", p.m, INT_EXTENT),
        ("N", p.n, 65535 * BM),
        ("K", p.k, INT_EXTENT),
    ] {
        if !(1..=max).contains(&v) {
            return Err(GpuError::InvalidArgument(format!(
                "{name} = {v} is outside 1..={max} (the mma.sync GEMM's grid: N below 65536 \
                 tiles of 128; its 32-bit coordinates: a tile's last row below 2^31)"
            )));
        }
    }
    if p.a.elem != p.b.elem {
        return Err(GpuError::InvalidArgument(format!(
            "A is {} and B {}: the mma.sync GEMM takes A and B of one type",
            p.a.elem, p.b.elem
        )));
    }
    let source = p.beta != 0.0;
    let c = source_matrix(p, false)?;
    let major = |order, row_major| {
        if order == row_major {
            Major::K
        } else {
            Major::MN
        }
    };
    let config = Sm80Config {
        input: p.a.elem,
        output: p.d.elem,
        a_major: major(p.a.order, Order::RowMajor),
        b_major: major(p.b.order, Order::ColMajor),
        a_width: copy_width(&p.a),
        b_width: copy_width(&p.b),
        source,
    };
    config.check()?;
    p.a.check_fits("A", p.m, p.k)?;
    p.b.check_fits("B", p.k, p.n)?;
    p.d.check_fits("D", p.m, p.n)?;
    if let Some(c) = &c {
        c.check_fits("C", p.m, p.n)?;
    }
    let (c_rs, c_cs) = c.map_or((0, 0), |c| strides(c.order, c.ld));
    let (d_rs, d_cs) = strides(p.d.order, p.d.ld);
    let args = vec![
        Value::Pointer(p.a.address),
        Value::Pointer(p.b.address),
        Value::Pointer(c.map_or(0, |c| c.address)),
        Value::Pointer(p.d.address),
        Value::I64(p.a.ld),
        Value::I64(p.b.ld),
        Value::I64(c_rs),
        Value::I64(c_cs),
        Value::I64(d_rs),
        Value::I64(d_cs),
        Value::I32(p.m as i32),
        Value::I32(p.n as i32),
        Value::I32(p.k as i32),
        Value::F32(p.alpha),
        Value::F32(p.beta),
    ];
    let tiles = |x: i64, t: i64| u32::try_from((x + t - 1) / t).unwrap_or(u32::MAX);
    Ok(Sm80Call {
        config,
        args,
        grid: (tiles(p.m, BM), tiles(p.n, SM80_TILE.bn)),
    })
}
