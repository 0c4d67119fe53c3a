//! The attention kernel's host proofs that do not belong to the tensor layer: every TMA box
//! writes (or reads) exactly the shared block the kernel addresses, at the byte offset the body
//! computes; a consumer's share of the two-warpgroup output accumulator is the one-warpgroup
//! fragment its epilogue converts; the bank model of the epilogue's shared-memory accesses.

use tessel_layout::atom::{SmemSide, copy_atom, mma_atom};
use tessel_layout::bank::{BankReport, analyze_copy};
use tessel_layout::gmma::{Major, SwizzleMode, check_box_matches};
use tessel_layout::tiled::{TiledCopy, make_tiled_copy, make_tiled_copy_c, make_tiled_mma};
use tessel_layout::{ComposedLayout, SliceCoord};

use super::{AttnConfig, AttnPlan, BM, COL_BLOCK};
use crate::element::Element;
use crate::error::{GpuError, GpuResult};
use crate::kernel::CType;
use crate::layer::{DeviceMma, DeviceTensor};
use crate::tma::{TmaPlan, TmaTensor};

/// Elements of the 128-byte swizzle's repeat (1024 bytes of 16-bit elements): a block starting
/// at a multiple of it is swizzled like a block starting at 0.
const REPEAT: i64 = 512;

fn err(what: String) -> GpuError {
    GpuError::InvalidArgument(format!("attention: {what}"))
}

/// Block `at` of the tiles of extents `tile` of the shared layout `layout` (`at`: one index
/// per tile coordinate and per further mode): the block's layout relative to its first
/// element, and that element's offset, a multiple of the swizzle's repeat (checked).
pub(super) fn block(
    layout: &ComposedLayout,
    tile: &[i64],
    at: &[i64],
) -> GpuResult<(ComposedLayout, i64)> {
    let tiles = DeviceTensor::shared(CType::B16, layout.clone()).local_tile(tile)?;
    let mut coord = vec![SliceCoord::All; tile.len()];
    coord.extend(at.iter().map(|&i| SliceCoord::Index(i)));
    if coord.len() != tiles.rank() {
        return Err(err(format!(
            "block {at:?} of the {tile:?} tiles of {layout}: {} coordinates for rank {}",
            coord.len(),
            tiles.rank()
        )));
    }
    let sliced = tiles.layout().slice(&SliceCoord::Tuple(coord))?;
    let first = sliced.base_offset();
    if first % REPEAT != 0 {
        return Err(err(format!(
            "block {at:?} of {layout} starts at element {first}, not a multiple of the \
             swizzle's repeat {REPEAT}"
        )));
    }
    Ok((
        ComposedLayout::new(sliced.swizzles().to_vec(), 0, sliced.layout().clone()),
        first,
    ))
}

/// A tensor of rank 4 (fixed lengths: `[dim, seq, heads, batch]`) or 3 (varlen: `[dim, rows,
/// heads]`) that only fixes the rank and the element type of a template plan.
fn probe(config: &AttnConfig, rows: i64) -> GpuResult<TmaTensor> {
    let d = config.head_dim;
    let (dims, strides) = if config.varlen {
        (vec![d, rows, 1], vec![d, d * rows])
    } else {
        (vec![d, rows, 1, 1], vec![d, d * rows, d * rows])
    };
    TmaTensor::new(&dims, &strides, config.dtype)
}

/// One TMA box of `[64, rows]` (plus 1s) proven against every block `ats` of the tiles `tile`
/// of `layout`, each at the element offset `want(at)`.
fn box_for_every(
    config: &AttnConfig,
    layout: &ComposedLayout,
    tile: &[i64],
    ats: &[Vec<i64>],
    want: impl Fn(&[i64]) -> i64,
) -> GpuResult<TmaPlan> {
    let rows = tile[0];
    let tensor = probe(config, rows)?;
    let mut dims = vec![COL_BLOCK, rows];
    dims.resize(tensor.rank(), 1);
    let mut plan: Option<TmaPlan> = None;
    for at in ats {
        let (blk, first) = block(layout, tile, at)?;
        if first != want(at) {
            return Err(err(format!(
                "block {at:?} of {layout} starts at element {first}; the kernel addresses it at \
                 {}",
                want(at)
            )));
        }
        match &plan {
            None => {
                plan = Some(TmaPlan::for_tensor(
                    tensor.clone(),
                    &dims,
                    SwizzleMode::B128,
                    &blk,
                    Major::K,
                )?)
            }
            Some(p) => check_box_matches(p.box_layout(), &blk, Major::K)?,
        }
    }
    plan.ok_or_else(|| err(format!("no block of {layout} to load")))
}

/// The three boxes of the kernel: Q's column blocks (`[64, BM]` at `j BM 64` elements), K's and
/// V's (`[64, BN]` of stage `s` at `s BN D + j BN 64`), and the O blocks of consumer `c`
/// (`[64, 64]` at `c 64 64 + j BM 64`, inside Q's buffer).
pub(super) fn boxes(
    config: &AttnConfig,
    q_smem: &ComposedLayout,
    kv_smem: &ComposedLayout,
) -> GpuResult<(TmaPlan, TmaPlan, TmaPlan)> {
    let (d, bn) = (config.head_dim, config.block_n);
    let col_blocks = d / COL_BLOCK;
    let q_ats: Vec<Vec<i64>> = (0..col_blocks).map(|j| vec![0, j]).collect();
    let q = box_for_every(config, q_smem, &[BM, COL_BLOCK], &q_ats, |at| {
        at[1] * BM * COL_BLOCK
    })?;
    let kv_ats: Vec<Vec<i64>> = (0..config.stages)
        .flat_map(|s| (0..col_blocks).map(move |j| vec![0, j, s]))
        .collect();
    let kv = box_for_every(config, kv_smem, &[bn, COL_BLOCK], &kv_ats, |at| {
        at[2] * bn * d + at[1] * bn * COL_BLOCK
    })?;
    let o_ats: Vec<Vec<i64>> = (0..BM / 64)
        .flat_map(|c| (0..col_blocks).map(move |j| vec![c, j]))
        .collect();
    let o = box_for_every(config, q_smem, &[64, COL_BLOCK], &o_ats, |at| {
        at[0] * 64 * COL_BLOCK + at[1] * BM * COL_BLOCK
    })?;
    Ok((q, kv, o))
}

impl AttnPlan {
    /// The output MMA of one consumer: the `pv` atom on one warpgroup over its `64 x D` rows
    /// (the epilogue's fragment and stores are laid out by it).
    pub(super) fn one_consumer(&self) -> GpuResult<DeviceMma> {
        let atom = mma_atom(&self.config.gmma(self.config.head_dim, true))?;
        Ok(DeviceMma::new(
            "o1",
            make_tiled_mma(&atom, &"1:0".parse()?, &[])?,
        ))
    }

    /// The `stmatrix` copy of a consumer's O fragment into its `64 x D` tile.
    pub(super) fn o_store_copy(&self) -> GpuResult<TiledCopy> {
        let one = self.one_consumer()?;
        let atom = copy_atom("SM90_U32x4_STSM_N")?.typed(16)?;
        Ok(make_tiled_copy_c(&atom, one.tiled())?)
    }

    /// The 16-byte loads of a consumer's `64 x D` tile back into registers for the predicated
    /// stores of varlen: `D / 8` threads per row, `128 / (D / 8)` rows per pass.
    pub(super) fn o_load_copy(&self) -> GpuResult<TiledCopy> {
        let per_row = self.config.head_dim / 8;
        let atom = copy_atom("UniversalCopy<uint128_t>")?.typed(16)?;
        let thr = format!("({},{per_row}):({per_row},1)", 128 / per_row).parse()?;
        Ok(make_tiled_copy(&atom, &thr, &"(1,8):(0,1)".parse()?)?)
    }

    /// Consumer `c`'s `64 x D` tile of `q_smem`, relative to its first element (which is `c 64
    /// 64` elements in).
    pub(super) fn o_tile(&self, c: i64) -> GpuResult<ComposedLayout> {
        Ok(block(&self.q_smem, &[64, self.config.head_dim], &[c, 0])?.0)
    }

    /// Checks that thread `t` of consumer `c` holds, as value `i` of its share of the
    /// two-warpgroup accumulator of `pv`, the element that value `i` of thread `t` of the
    /// one-warpgroup MMA `one` holds, 64 c rows further: the epilogue converts its share as
    /// `one`'s fragment.
    pub(super) fn check_consumer_fragment(
        &self,
        two: &DeviceMma,
        one: &DeviceMma,
    ) -> GpuResult<()> {
        let d = self.config.head_dim;
        let whole = [
            two.partition_c(&DeviceTensor::identity(&[BM, d], 0)?)?,
            two.partition_c(&DeviceTensor::identity(&[BM, d], 1)?)?,
        ];
        let part = [
            one.partition_c(&DeviceTensor::identity(&[64, d], 0)?)?,
            one.partition_c(&DeviceTensor::identity(&[64, d], 1)?)?,
        ];
        let values = whole[0].size() / 256;
        if part[0].size() / 128 != values {
            return Err(err(format!(
                "a consumer holds {values} output values but the one-warpgroup fragment {}",
                part[0].size() / 128
            )));
        }
        for c in 0..2 {
            for t in 0..128 {
                for i in 0..values {
                    let w = [
                        whole[0].layout().offset(128 * c + t + 256 * i)?,
                        whole[1].layout().offset(128 * c + t + 256 * i)?,
                    ];
                    let p = [
                        part[0].layout().offset(t + 128 * i)? + 64 * c,
                        part[1].layout().offset(t + 128 * i)?,
                    ];
                    if w != p {
                        return Err(err(format!(
                            "output value {i} of thread {t} of consumer {c} is element {w:?}, \
                             the epilogue's fragment puts it at {p:?}"
                        )));
                    }
                }
            }
        }
        Ok(())
    }

    /// The bank model of the epilogue's shared-memory accesses of one consumer: the
    /// `stmatrix` stores of O into its tile and (varlen) the 16-byte loads back, one report per
    /// warp instruction. Both are free of conflicts ([`AttnPlan::kernel`] refuses the plan
    /// otherwise).
    ///
    /// ```
    /// use tessel_kernels::attention::{AttnConfig, AttnPlan};
    /// use tessel_kernels::element::Element;
    /// let p = AttnPlan::new(AttnConfig::new(128, Element::F16, false, true).unwrap()).unwrap();
    /// let (st, ld) = p.epilogue_banks().unwrap();
    /// // stmatrix.x4: 4 wavefronts each (512 bytes); lds.128: 4 each.
    /// assert!(st.iter().chain(&ld).all(|r| r.excess == 0 && r.wavefronts == 4));
    /// ```
    pub fn epilogue_banks(&self) -> GpuResult<(Vec<BankReport>, Vec<BankReport>)> {
        let tile = self.o_tile(0)?;
        let st = analyze_copy(&self.o_store_copy()?, &tile, SmemSide::Destination)?;
        let ld = analyze_copy(&self.o_load_copy()?, &tile, SmemSide::Source)?;
        Ok((st, ld))
    }

    /// The TMA element type of the operands.
    pub(super) fn tma_elem(&self) -> Element {
        self.config.dtype
    }
}
