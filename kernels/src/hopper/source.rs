//! The Hopper GEMM's declaration: the tensors, tiled copy and tiled MMA [`BODY`] names, derived
//! with the tensor layer from the plan's layouts (each derivation checked), its constants, and
//! its run-time struct `args` ([`Sm90Args`]).

use tessel_layout::atom::{copy_atom, mma_atom};
use tessel_layout::tiled::{make_tiled_copy_c, make_tiled_mma};
use tessel_layout::{ComposedLayout, Layout};

use tessel_layout::gmma::Major;

use super::{
    BM, BODY, CONSUMER_REGS, CONSUMERS, Epilogue, MN_BOX, PRODUCER_REGS, Sm90Plan, gmma_atom_pair,
    output_code, promotes,
};
use crate::Arch;
use crate::element::{DeviceElement, Element};
use crate::error::{GpuError, GpuResult};
use crate::kernel::{CType, Elem, Field, Kernel, KernelBuilder, Param, Scalar, Value};
use crate::layer::{DeviceCopy, DeviceMma, DeviceTensor};

/// The fields of the kernel's run-time struct `args`, in declaration order ([`Sm90Plan::kernel`]
/// declares them, [`Sm90Args::values`] gives their values).
pub const ARGS: [&str; 19] = [
    "d",
    "c",
    "partials",
    "arrivals",
    "ldd",
    "ldc",
    "d_col",
    "c_col",
    "m",
    "n",
    "k_tiles",
    "tiles_m",
    "tiles_n",
    "log2_group",
    "splits",
    "alpha",
    "beta",
    "d_pair",
    "c_pair",
];

/// One call of a Hopper GEMM kernel: what the kernel's struct `args` holds besides the tensor
/// maps (device addresses of D and C and of the split-K workspace, their leading dimensions,
/// the extents, the tile order and split, the scalars).
///
/// ```
/// use tessel_kernels::Element;
/// use tessel_kernels::hopper::{Sm90Args, Sm90Plan};
/// let plan = Sm90Plan::new(1000, 1000, 1000, Element::F16, Element::F32).unwrap();
/// let a = Sm90Args::for_plan(&plan, 0x1000);
/// assert_eq!((a.tiles_m, a.tiles_n, a.k_tiles, a.log2_group), (8, 4, 16, 2));
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sm90Args {
    /// D's device address.
    pub d: u64,
    /// C's device address (read when the configuration reads C).
    pub c: u64,
    /// The split-K workspace (read and written only when `splits > 1`): fp32 partial sums,
    /// one 128 x BN slab per unit of work (`blas::split::partials_bytes`).
    pub partials: u64,
    /// The split-K arrival counters (used only when `splits > 1`): one `u32` per consumer
    /// half of each tile, 0 before the call and left 0 after it (`blas::split::arrivals`).
    pub arrivals: u64,
    /// Elements between two rows of D as the kernel indexes it: D's leading dimension, or 1
    /// where the kernel writes D's transpose (a swapped call, `blas::Sm90Call::swapped`).
    pub ldd: i64,
    /// Elements between two rows of C, as `ldd`.
    pub ldc: i64,
    /// Elements between two columns of D as the kernel indexes it: 1, or D's leading
    /// dimension where the kernel writes D's transpose (the direct epilogue only).
    pub d_col: i64,
    /// Elements between two columns of C, as `d_col`.
    pub c_col: i64,
    /// Rows of D.
    pub m: i32,
    /// Columns of D.
    pub n: i32,
    /// k-tiles (`ceil(K / BK)`).
    pub k_tiles: i32,
    /// Tile rows.
    pub tiles_m: i32,
    /// Tile columns.
    pub tiles_n: i32,
    /// `log2` of the raster group ([`crate::tiled::GroupedRaster`]).
    pub log2_group: i32,
    /// k-ranges per tile (1: no split).
    pub splits: i32,
    /// Scale of the product.
    pub alpha: f32,
    /// Scale of C.
    pub beta: f32,
    /// 1 when two adjacent columns of D are one aligned vector (direct stores).
    pub d_pair: i32,
    /// 1 when two adjacent columns of C are one aligned vector.
    pub c_pair: i32,
}

impl Sm90Args {
    /// The arguments of the plan's own problem (alpha 1, beta 0, no split, D at `d` with the
    /// plan's leading dimension).
    pub fn for_plan(plan: &Sm90Plan, d: u64) -> Sm90Args {
        let bn = plan.bn();
        let (ty, tx) = ((plan.m + BM - 1) / BM, (plan.n + bn - 1) / bn);
        let log2 = crate::tiled::GroupedRaster::new(ty, tx, super::RASTER_GROUP)
            .map_or(0, |r| r.log2_group() as i32);
        let ldd = plan
            .g_c
            .stride()
            .leaves()
            .first()
            .copied()
            .unwrap_or(plan.n);
        let pair = i32::from(d.is_multiple_of(2 * plan.output.bytes() as u64) && ldd % 2 == 0);
        Sm90Args {
            d,
            c: 0,
            partials: 0,
            arrivals: 0,
            ldd,
            ldc: 0,
            d_col: 1,
            c_col: 1,
            m: plan.m as i32,
            n: plan.n as i32,
            k_tiles: ((plan.k + plan.bk() - 1) / plan.bk()) as i32,
            tiles_m: ty as i32,
            tiles_n: tx as i32,
            log2_group: log2,
            splits: 1,
            alpha: 1.0,
            beta: 0.0,
            d_pair: pair,
            c_pair: 0,
        }
    }

    /// The struct's field values in [`ARGS`] order.
    pub fn values(&self) -> Vec<Value> {
        vec![
            Value::Pointer(self.d),
            Value::Pointer(self.c),
            Value::Pointer(self.partials),
            Value::Pointer(self.arrivals),
            Value::I64(self.ldd),
            Value::I64(self.ldc),
            Value::I64(self.d_col),
            Value::I64(self.c_col),
            Value::I32(self.m),
            Value::I32(self.n),
            Value::I32(self.k_tiles),
            Value::I32(self.tiles_m),
            Value::I32(self.tiles_n),
            Value::I32(self.log2_group),
            Value::I32(self.splits),
            Value::F32(self.alpha),
            Value::F32(self.beta),
            Value::I32(self.d_pair),
            Value::I32(self.c_pair),
        ]
    }
}

impl Sm90Plan {
    /// The kernel of the plan's configuration, for `sm_90a` (the same source for every shape),
    /// with one block; launches set the persistent grid ([`Kernel::with_grid`]: at most one
    /// block per SM). Parameters: the tensor maps `tmap_a`, `tmap_b`, `tmap_c` (D's, unread by
    /// the direct epilogue) and the struct `args` ([`ARGS`], [`Sm90Args`]).
    ///
    /// ```
    /// use tessel_kernels::Element;
    /// use tessel_kernels::{Arch, hopper::Sm90Plan};
    /// let k = Sm90Plan::new(1000, 1000, 1000, Element::F16, Element::BF16).unwrap().kernel().unwrap();
    /// assert_eq!(k.target(), Some(Arch::SM90A));
    /// assert!(k.source().contains("__launch_bounds__(384, 1)"));
    /// assert!(k.source().contains("const __grid_constant__ tessel_tensor_map tmap_a"));
    /// assert!(k.source().contains("const args_t args"));
    /// ```
    pub fn kernel(&self) -> GpuResult<Kernel> {
        let config = self.config;
        let (bn, bk) = (self.bn(), self.bk());
        let header = format!(
            "Hopper GEMM D = alpha A B + beta C, {} in, {} out, A {}-major, B {}-major, tile {BM} \
             x {bn} x {bk}, {} stages, {} epilogue{}{}: generated by tessel-kernels.",
            self.input,
            self.output,
            config.a_major,
            config.b_major,
            self.stages(),
            config.epilogue,
            if config.source { ", reads C" } else { "" },
            if promotes(self.input) {
                ", accumulators promoted every k-tile"
            } else {
                ""
            }
        );
        // The descriptors add k-steps and stages to the start field (address >> 4, 14 bits):
        // every shared address (after the 1 KiB the driver reserves per block) must stay below
        // 2^18.
        if self.smem_bytes() + 1024 >= 1 << 18 {
            return Err(GpuError::InvalidArgument(format!(
                "Hopper GEMM: wgmma descriptors need shared addresses below 2^18, {} bytes has \
                 more",
                self.smem_bytes()
            )));
        }
        let out = self.output.c_type();
        let tma_store = self.epilogue == Epilogue::TmaStore;
        let mma = DeviceMma::new("wgmma", self.mma.clone());
        let (a_elem, b_elem) = (self.config.input, self.config.input_b);
        let a_stages = DeviceTensor::shared(a_elem.c_type(), self.a_stages()?);
        let b_stages = DeviceTensor::shared(b_elem.c_type(), self.b_stages()?);
        let acc = mma.partition_fragment('C', &[BM, bn], CType::F32)?;
        // A unit's split-K partial sums, one consumer's half: value pair i of thread t at
        // pair 128 i + t (a warpgroup's store of one pair index writes 1 KiB contiguous).
        let slab = Layout::new(
            tessel_layout::IntTuple::from_ints([128, acc.size() / 2]),
            tessel_layout::IntTuple::from_ints([1, 128]),
        )?;
        // The slab holds one consumer's 64 x BN partial sums, each pair once, in 0 .. 32 BN
        // (the kernel spaces the consumers' and units' slabs 32 BN and 64 BN pairs apart).
        if slab.size() != 32 * bn || !tessel_layout::verify::is_bijective(&slab)? {
            return Err(GpuError::InvalidArgument(format!(
                "Hopper GEMM: the split-K slab {slab} is not the 64 x {bn} partial sums, once each"
            )));
        }
        let part = DeviceTensor::global(CType::new("float2", 8), slab);
        let a_stage_bytes = self.a_load.boxes * self.a_load.box_bytes();
        let b_stage_bytes = self.b_load.boxes * self.b_load.box_bytes();
        let b = KernelBuilder::new(&config.kernel_name(), BODY)
            .comment(&header)
            .alias("TC", out)
            .int("BM", BM)
            .int("BN", bn)
            .int("BK", bk)
            .int("PROMOTE", i64::from(promotes(self.input)))
            .int("STAGES", self.stages())
            .int("A_STAGE_BYTES", a_stage_bytes)
            .int("B_STAGE_BYTES", b_stage_bytes)
            .int("A_BOXES", self.a_load.boxes)
            .int("B_BOXES", self.b_load.boxes)
            .int("A_BOX_BYTES", self.a_load.box_bytes())
            .int("B_BOX_BYTES", self.b_load.box_bytes())
            .int("A_MN", i64::from(config.a_major == Major::MN))
            .int("B_MN", i64::from(config.b_major == Major::MN))
            .int("MN_BOX", MN_BOX)
            .int("TX_BYTES", self.stage_bytes())
            .int("PRODUCER_REGS", PRODUCER_REGS)
            .int("CONSUMER_REGS", CONSUMER_REGS)
            .int("ACC", acc.size())
            .int("OUT", output_code(self.output)?)
            .int("TMA_STORE", i64::from(tma_store))
            .int("SOURCE", i64::from(config.source))
            .int("C_COLS", self.chunk_cols())
            .int("C_CHUNKS", self.c_chunks())
            .int("C_VALS", self.c_vals())
            .int("C_BUF_BYTES", self.c_buf_bytes())
            .int("C_BUFS", self.c_bufs())
            .int("C_FLIP", self.c_flip.0)
            .int("C_FLIP_BIT", self.c_flip.1)
            .int("C_FLIP_XOR", self.c_flip_xor)
            .tiled_mma(&mma)
            .tensor("acc", &acc)
            .tensor("part", &part)
            .tensor("da", &mma.partition_descriptors('A', &a_stages)?)
            .tensor("db", &mma.partition_descriptors('B', &b_stages)?)
            .param(Param::tensor_map("tmap_a"))
            .param(Param::tensor_map("tmap_b"));
        // tmap_c is a parameter of every configuration (the body names it); the direct
        // epilogue never reads it.
        let b = self
            .epilogue_pieces(b, out)?
            .param(Param::tensor_map("tmap_c"));
        let tc = || Elem::alias("TC");
        let fields = ARGS
            .iter()
            .map(|&name| match name {
                "d" | "c" => Field::pointer(name, tc()),
                "partials" => Field::pointer(name, Elem::from(CType::F32)),
                "arrivals" => Field::pointer(name, Elem::from(CType::B32)),
                "ldd" | "ldc" | "d_col" | "c_col" => Field::scalar(name, Scalar::I64),
                "alpha" | "beta" => Field::scalar(name, Scalar::F32),
                _ => Field::scalar(name, Scalar::I32),
            })
            .collect();
        b.param(Param::values("args", fields))
            .threads(128 * (1 + CONSUMERS as u32))
            .min_blocks(Some(1))
            .grid(1, 1, 1)
            .dynamic_smem(u32::try_from(self.smem_bytes()).unwrap_or(u32::MAX))
            .target(Arch::SM90A)
            .build()
    }

    /// One consumer's 64 x 256 tile of C in its epilogue buffers: chunk `ch` (columns `ch
    /// C_COLS ..`) in buffer `ch % c_bufs` laid out as [`Sm90Plan::c_smem`].
    fn c_staging(&self) -> GpuResult<ComposedLayout> {
        let chunk = self.c_smem.layout();
        let rotation = Layout::new(
            tessel_layout::IntTuple::from_ints([self.c_bufs(), self.c_chunks() / self.c_bufs()]),
            tessel_layout::IntTuple::from_ints([64 * self.chunk_cols(), 0]),
        )?;
        let cols = Layout::from_modes([chunk.mode(1)?, rotation])?;
        Ok(ComposedLayout::new(
            self.c_smem.swizzles().to_vec(),
            self.c_smem.base_offset(),
            Layout::from_modes([chunk.mode(0)?, cols])?,
        ))
    }

    /// The epilogue's pieces (the body names all of them; the plan's epilogue decides which
    /// run): the tiled copy `cw` that writes a chunk into shared memory (`st.shared.v2` of
    /// fp32 column pairs, or `stmatrix` of 16-bit values), laid out by the C fragment of a
    /// 64 x C_COLS GMMA atom; `h` (a chunk's values in the output type), `hs` (its registers
    /// as `cw` reads them) and `ct` (their places in the buffers); for direct stores and the
    /// read of C `crow`/`ccol` (each value's row and column in the consumer's tile), and the
    /// consumer's 64 x BN tiles of D (`gd`) and C (`gsrc`), global tensors whose strides are
    /// run-time values (`ldd` and `d_col`, `ldc` and `c_col`: [`Sm90Args`]).
    fn epilogue_pieces(&self, b: KernelBuilder, out: CType) -> GpuResult<KernelBuilder> {
        let bn = self.bn();
        // One consumer's MMA: the 64 x BN atom on one warpgroup.
        let one = DeviceMma::new(
            "one",
            make_tiled_mma(
                &mma_atom(&gmma_atom_pair(self.config.input, self.config.input_b, bn)?)?,
                &"1:0".parse()?,
                &[],
            )?,
        );
        let cols = self.chunk_cols();
        let chunk_atom = mma_atom(&gmma_atom_pair(
            self.config.input,
            self.config.input_b,
            cols,
        )?)?;
        let chunk = DeviceMma::new("chunk", make_tiled_mma(&chunk_atom, &"1:0".parse()?, &[])?);
        let atom = match self.output {
            Element::F32 => copy_atom("UniversalCopy<uint64_t>")?.typed(32)?,
            _ => copy_atom("SM90_U32x4_STSM_N")?.typed(16)?,
        };
        let cw = DeviceCopy::new("cw", make_tiled_copy_c(&atom, chunk.tiled())?);
        let h = chunk.partition_fragment('C', &[64, cols], out)?;
        let hs = cw.retile_s(&h)?;
        chunk.check_drained_by('C', &cw, &[64, cols], &hs, &h)?;
        self.check_c_chunk_fragment(&one, &chunk)?;
        let ct = cw.partition_d(&DeviceTensor::shared(out, self.c_staging()?))?;
        self.check_c_places(&ct)?;
        let rows = one.partition_c(&DeviceTensor::identity(&[64, bn], 0)?)?;
        let cols = one.partition_c(&DeviceTensor::identity(&[64, bn], 1)?)?;
        let tile = |ld: &str, col: &str| -> GpuResult<DeviceTensor> {
            DeviceTensor::global_strided(out, format!("(64,{bn}):({ld},{col})").parse()?)
        };
        Ok(b.int("C_FLIP_STEP", self.c_flip.0 / 2)
            .tiled_copy(&cw)
            .tensor("h", &h)
            .tensor("hs", &hs)
            .tensor("ct", &ct)
            .tensor("crow", &rows)
            .tensor("ccol", &cols)
            .tensor("gd", &tile("ldd", "d_col")?)
            .tensor("gsrc", &tile("ldc", "c_col")?))
    }

    /// `ct`'s slice `(t, _, r..., ch)` starts where the epilogue's proofs put step `r` of chunk
    /// `ch` of thread `t` (`c_smem` of [`Sm90Plan::c_index`], in buffer `ch % c_bufs`): fp32
    /// value pair `r` of the thread, or the `stmatrix` row the thread's lane addresses: the
    /// bank reports, the pair order and its address XOR, proven on those places, hold for the
    /// copy.
    fn check_c_places(&self, ct: &DeviceTensor) -> GpuResult<()> {
        let ext = ct.extents();
        let (threads, values) = (ext[0], ext[1]);
        let steps = ext[2..ext.len() - 1].iter().product::<i64>();
        let per_chunk = threads * values * steps;
        let elems = 64 * self.chunk_cols();
        let vals = self.c_vals();
        for ch in 0..self.c_chunks() {
            for t in 0..threads {
                for r in 0..steps {
                    let got = ct
                        .layout()
                        .offset(t + threads * values * r + per_chunk * ch)?;
                    // fp32: the thread's own pair r; stmatrix: lane l addresses row l % 8 of
                    // matrix l / 8 of step r, which starts where thread 4 (l % 8) of the warp
                    // holds value 8 r + 2 (l / 8) (PTX ISA "stmatrix").
                    let (owner, v) = if self.output == Element::F32 {
                        (t, ch * vals + values * r)
                    } else {
                        let (w, l) = (t / 32, t % 32);
                        (32 * w + 4 * (l % 8), ch * vals + values * r + 2 * (l / 8))
                    };
                    let want = self.c_smem.offset(self.c_index(owner, v, ch)?)?
                        + elems * (ch % self.c_bufs());
                    if got != want {
                        return Err(GpuError::InvalidArgument(format!(
                            "epilogue: the copy puts step {r} of thread {t} in chunk {ch} at \
                             element {got}, the proofs at {want} (value {v})"
                        )));
                    }
                }
            }
        }
        Ok(())
    }

    /// The values `ch * C_VALS ..` of a consumer thread's 64 x 256 accumulator are, in order,
    /// the values of the 64 x C_COLS chunk fragment `chunk` partitions, at columns `ch C_COLS`
    /// further: the 16-bit epilogue converts them in that order into the chunk's fragment.
    fn check_c_chunk_fragment(&self, one: &DeviceMma, chunk: &DeviceMma) -> GpuResult<()> {
        let cols = self.chunk_cols();
        let whole = [
            one.partition_c(&DeviceTensor::identity(&[64, self.bn()], 0)?)?,
            one.partition_c(&DeviceTensor::identity(&[64, self.bn()], 1)?)?,
        ];
        let part = [
            chunk.partition_c(&DeviceTensor::identity(&[64, cols], 0)?)?,
            chunk.partition_c(&DeviceTensor::identity(&[64, cols], 1)?)?,
        ];
        let vals = self.c_vals();
        for ch in 0..self.c_chunks() {
            for t in 0..128 {
                for i in 0..vals {
                    let w = [
                        whole[0].layout().offset(t + 128 * (ch * vals + i))?,
                        whole[1].layout().offset(t + 128 * (ch * vals + i))?,
                    ];
                    let p = [
                        part[0].layout().offset(t + 128 * i)?,
                        part[1].layout().offset(t + 128 * i)? + ch * cols,
                    ];
                    if w != p {
                        return Err(GpuError::InvalidArgument(format!(
                            "epilogue: value {} of thread {t} is element {w:?} of the tile but \
                             value {i} of chunk {ch}'s fragment is {p:?}",
                            ch * vals + i
                        )));
                    }
                }
            }
        }
        Ok(())
    }
}
