//! CuTe's `make_tma_copy` (`include/cute/atom/copy_traits_sm90_tma.hpp`, CUTLASS v4.2.1): from a
//! global layout, a shared layout and a CTA tile (and a cluster size for multicast), the TMA
//! box, the tensor map's parameters and the copy's (CTA, value) layout, checked element by
//! element.
//!
//! The derivation follows CuTe's `construct_tma_gbasis`, `fill_tma_gmem_shape_stride`,
//! `make_tma_copy_desc` and `make_tma_copy_tiled`:
//!
//! 1. The CTA tile maps a tile index to a global coordinate (CuTe: the identity layout of the
//!    global shape composed with the tiler). tessel writes a coordinate as its column-major
//!    index over the global layout's flat modes, each extent widened where the tile reaches past
//!    it (a box may hang over the tensor's edge; TMA fills those elements), so the algebra's own
//!    layouts carry it; [`TmaParams::coord_basis`](crate::atom::TmaParams::coord_basis) gives the
//!    per-mode bases CuTe writes as `E<i>` strides.
//! 2. The shared layout's right inverse orders the tile by shared-memory offset; the leading
//!    modes of `tile o inverse` that step one coordinate along a global mode (CuTe: basis value
//!    1) are the box, in the order TMA writes it.
//! 3. The box through the global layout gives its global strides; contiguous modes merge while
//!    the merged extent stays within 256 (CuTe's `coalesce_256`); global modes the box does not
//!    cover join as extent-1 dimensions; past five, the trailing ones are grouped. Each
//!    dimension's extent and stride come from the global modes it covers (CuTe's recurrence:
//!    `gcd` of the strides). The first dimension must be contiguous.
//! 4. With multicast over `cluster` CTAs the box is cut from its outermost dimension: each CTA
//!    loads `1 / cluster` of it into every CTA's shared memory.
//! 5. The copy's TV layout: CTA `t` starts at shared offset `t * box / cluster`; its values are
//!    its slice of the box, then the boxes that tile the rest of the tile. With multicast this
//!    differs from CuTe on purpose: CuTe's atom carries the whole box's bits and its TV layout
//!    gives every CTA the whole box from its own start (overlapping the others', only each
//!    atom's first element is used); tessel's atom is one CTA's instruction (`box / cluster`
//!    elements), so the TV layout is a bijection onto the tile and partitions are exact.
//!    Without multicast both are the same.
//!
//! Then every tile element is checked by the definition of the instruction: the box element
//! that instruction `(t, k)` writes at shared offset `start + p` is the global element at the
//! tensor map's address of `origin + box_coordinate(p)`, and that must be the tile element the
//! shared layout keeps there. The first element that breaks this is the error.

use super::{TiledCopy, shape_tiler};
use crate::atom::{TmaOp, TmaParams, tma_atom};
use crate::gmma::{SwizzleMode, TensorMapParams};
use crate::{
    ComposedLayout, Error, IntTuple, Layout, Result, Tiler, checked_add, checked_mul, coalesce,
    complement, compose_tiler, composition, right_inverse,
};

/// The largest box extent TMA takes (`boxDim[i] <= 256`), CuTe's bound in `coalesce_256`.
const MAX_BOX: i64 = 256;

/// A bound on one stage's bytes: no GPU has more shared memory per block (Hopper: 228 KiB).
const MAX_SMEM_BYTES: i64 = 1 << 18;

/// The shared-memory address alignment of a tensor copy (CUDA C++ Programming Guide, "Tensor
/// Memory Access", the alignment table for `cp.async.bulk.tensor`: 128 bytes).
const SMEM_ALIGN_BYTES: i64 = 128;

/// CuTe's `make_tma_copy(op, gtensor, slayout, cta_tiler, cluster_size)` for elements of
/// `elem_bits` bits (8, 16, 32 or 64): `gmem` is the global tensor's layout (in elements),
/// `smem` one stage of the shared tile (offset 0; its swizzle must be one of TMA's, on bytes
/// `Sw<B,4,3>`), `cta_tile` the tile of the global tensor one CTA copies (`None`: the shared
/// layout's extent per mode, CuTe's default `product_each(shape(slayout))`), `cluster` the CTAs
/// a multicast load shares its box with (1 for the other operations; a power of two up to 16).
///
/// Returns CuTe's `TiledCopy`: its atom is the TMA atom of one CTA's instruction (one box, or
/// its `1 / cluster` slice with multicast), carrying the tensor map and coordinate bases
/// ([`CopyAtom::tma`](crate::atom::CopyAtom::tma)); its TV layout maps `(CTA, value)` to a tile
/// index; its tile is the CTA tile's extent per mode.
///
/// Errors name the violated condition: no common vector between the shared layout and a
/// global mode, a first dimension that is not contiguous in global memory (the shared layout's
/// major mode differs from the tensor's), the tensor map's rules ([`TensorMapParams::tiled`]), an
/// unaligned instruction, or the first tile element the boxes would put somewhere the shared
/// layout does not keep it.
///
/// ```
/// use tessel_layout::{atom::TmaOp, tiled::make_tma_copy, ComposedLayout, IntTuple, Layout};
/// use tessel_layout::gmma::{Major, SwizzleMode, smem_atom};
/// // A 4096 x 4096 fp16 K-major A (row-major M x K), a 128 x 64 stage of 128B-swizzled atoms.
/// let gmem: Layout = "(4096,4096):(4096,1)".parse().unwrap();
/// let stage = smem_atom(Major::K, SwizzleMode::B128, 16).unwrap()
///     .tile_to_shape(&IntTuple::from_ints([128, 64])).unwrap();
/// let copy = make_tma_copy(TmaOp::Load, &gmem, &stage, None, 1, 16).unwrap();
/// let map = copy.atom().atom().tma().unwrap().tensor_map();
/// assert_eq!((map.dims(), map.strides(), map.box_dims()),
///            (&[4096, 4096][..], &[8192][..], &[64, 128][..]));
/// assert_eq!(map.swizzle(), SwizzleMode::B128);
/// assert_eq!(copy.tiler(), &[128, 64]);
/// // A row-major (K-major) stage cannot be loaded from an M-major tensor: the box's first
/// // dimension would have to step along M, which is not contiguous in global memory.
/// let m_major: Layout = "(4096,4096):(1,4096)".parse().unwrap();
/// let err = make_tma_copy(TmaOp::Load, &m_major, &stage, None, 1, 16).unwrap_err();
/// assert!(err.to_string().contains("not contiguous"), "{err}");
/// ```
pub fn make_tma_copy(
    op: TmaOp,
    gmem: &Layout,
    smem: &ComposedLayout,
    cta_tile: Option<&Tiler>,
    cluster: i64,
    elem_bits: i64,
) -> Result<TiledCopy> {
    let tile_text = cta_tile.map_or_else(String::new, |t| format!(", {t}"));
    let what = format!(
        "make_tma_copy({}, {gmem}, {smem}{tile_text}, cluster {cluster}, {elem_bits}-bit)",
        op.name()
    );
    derive(op, gmem, smem, cta_tile, cluster, elem_bits).map_err(|e| e.context(what))
}

fn derive(
    op: TmaOp,
    gmem: &Layout,
    smem: &ComposedLayout,
    cta_tile: Option<&Tiler>,
    cluster: i64,
    elem_bits: i64,
) -> Result<TiledCopy> {
    if ![8, 16, 32, 64].contains(&elem_bits) {
        return Err(Error::invalid(format!(
            "a tensor map holds elements of 8, 16, 32 or 64 bits, not {elem_bits}"
        )));
    }
    let elem_bytes = elem_bits / 8;
    check_cluster(op, cluster)?;
    if smem.base_offset() != 0 {
        return Err(Error::inadmissible(format!(
            "the shared layout starts at element {}, not 0: give one stage's layout (TMA writes \
             from the stage's start)",
            smem.base_offset()
        )));
    }
    let swizzle = smem_swizzle(smem, elem_bytes)?;
    let s = smem.layout();
    let bytes = s.size().saturating_mul(elem_bytes);
    if bytes > MAX_SMEM_BYTES {
        return Err(Error::invalid(format!(
            "the shared tile holds {bytes} bytes, more than the {MAX_SMEM_BYTES} of shared \
             memory any GPU has (228 KiB per block on Hopper)"
        )));
    }
    let tiler = match cta_tile {
        Some(t) => t.clone(),
        None => shape_tiler(&per_mode_sizes(s))?,
    };
    let space = CoordSpace::new(gmem, &tiler)?;
    // (1) tile index -> global coordinate (its linear index in the widened space).
    let cta_v_map = compose_tiler(&space.identity, &tiler)?;
    if cta_v_map.size() != s.size() {
        return Err(Error::inadmissible(format!(
            "the CTA tile has {} elements but the shared layout {}: they must be the same tile",
            cta_v_map.size(),
            s.size()
        )));
    }
    // (2) shared offset -> tile index -> global coordinate; keep the unit-step prefix.
    let inv_smem = right_inverse(s)?;
    let full = coalesce(&composition(&cta_v_map, &inv_smem)?)?;
    let prefix: Vec<(i64, i64)> = full
        .flat_modes()
        .into_iter()
        .filter(|&(n, _)| n != 1)
        .take_while(|&(_, d)| space.decode_stride(d).is_some_and(|(_, scale)| scale == 1))
        .collect();
    if prefix.is_empty() {
        let what = if inv_smem.size() > 1 {
            format!("holds tile element {}", inv_smem.offset(1)?)
        } else {
            "holds no tile element".to_string()
        };
        return Err(Error::inadmissible(format!(
            "no common vector: shared offset 1 {what}, which is not one step along a global \
             mode from tile element 0 (the tile {cta_v_map}; does it select out the tensor's \
             major mode?)"
        )));
    }
    let box_elems: i64 = prefix.iter().map(|m| m.0).product();
    // (3) the box, split at the global modes it crosses: (extent, global mode) runs.
    let box_modes = space.split(&prefix)?;
    let dims = tma_dims(&space, &box_modes)?;
    let (global_dims, global_strides) = fill_dims_strides(&space, &dims)?;
    if global_strides[0] != 1 {
        return Err(Error::inadmissible(format!(
            "the box's first dimension (global modes {:?}) has element stride {}, not 1: it is \
             not contiguous in global memory (the shared layout's major mode is not the \
             tensor's)",
            dims[0].modes, global_strides[0]
        )));
    }
    // (4) the box, cut by the multicast from its outermost dimension.
    let mut box_dims: Vec<i64> = dims.iter().map(|d| d.extent).collect();
    multicast_box(&mut box_dims, cluster)?;
    let byte_strides = global_strides[1..]
        .iter()
        .map(|&d| checked_mul(d, elem_bytes, "a global byte stride"))
        .collect::<Result<Vec<_>>>()?;
    let tensor_map =
        TensorMapParams::tiled(elem_bytes, &global_dims, &byte_strides, &box_dims, swizzle)?;
    let coord_basis = coord_basis(&space, &dims, &global_strides);
    let params = TmaParams {
        tensor_map,
        dim_modes: dims.iter().map(|d| d.modes.clone()).collect(),
        coord_basis,
        multicast: cluster,
    };
    // (5) the TV layout: (CTA, value) -> tile index. CTA t's instruction k moves the slice of
    // box k at shared offsets t * per_cta ..; values: the slice, then the boxes.
    let per_cta = box_elems / cluster;
    let cta_mode = composition(&inv_smem, &Layout::vector(cluster, per_cta)?).map_err(|e| {
        e.context(format!(
            "the {cluster} CTAs' slices of the box ({per_cta} elements each) as tile elements"
        ))
    })?;
    let slice = composition(&inv_smem, &Layout::vector(per_cta, 1)?)?;
    let whole_box = composition(&inv_smem, &Layout::vector(box_elems, 1)?)?;
    let boxes = complement(&whole_box, s.size())?;
    let value_mode = coalesce(&Layout::from_modes([slice, boxes])?)?;
    let layout_tv = Layout::from_modes([cta_mode, value_mode])?;
    let bits = checked_mul(per_cta, elem_bits, "the bits of one instruction")?;
    let atom = tma_atom(op, bits, Some(params.tensor_map.rank()))?.with_tma(params);
    let typed = atom.typed(elem_bits)?;
    let check = Check {
        space: &space,
        cta_v_map: &cta_v_map,
        smem: s,
        layout_tv: &layout_tv,
        params: atom
            .tma()
            .ok_or_else(|| Error::invalid("internal: a TMA atom without params"))?,
        box_elems,
        per_cta,
        cluster,
        elem_bytes,
    };
    check.every_element()?;
    TiledCopy::new(&typed, layout_tv, per_mode_sizes(&cta_v_map))
}

/// Multicast is one load's box shared by `cluster` CTAs (CuTe: a static power of two up to 16).
fn check_cluster(op: TmaOp, cluster: i64) -> Result<()> {
    if !(1..=16).contains(&cluster) || cluster & (cluster - 1) != 0 {
        return Err(Error::invalid(format!(
            "the cluster size {cluster} is not a power of two from 1 to 16"
        )));
    }
    if cluster > 1 && op != TmaOp::LoadMulticast {
        return Err(Error::invalid(format!(
            "{} loads or stores one CTA's box; only SM90_TMA_LOAD_MULTICAST shares a box over \
             a cluster of {cluster} CTAs",
            op.name()
        )));
    }
    Ok(())
}

/// The TMA swizzle mode of the shared layout's swizzle (none without one).
fn smem_swizzle(smem: &ComposedLayout, elem_bytes: i64) -> Result<SwizzleMode> {
    match smem.swizzles() {
        [] => Ok(SwizzleMode::None),
        [sw] => {
            let bytes = sw.downcast(elem_bytes)?;
            SwizzleMode::from_byte_swizzle(bytes).ok_or_else(|| {
                Error::inadmissible(format!(
                    "the shared swizzle {sw} on {elem_bytes}-byte elements is {bytes} on bytes, \
                     not one of TMA's Sw<1,4,3> (32B), Sw<2,4,3> (64B), Sw<3,4,3> (128B)"
                ))
            })
        }
        chain => Err(Error::inadmissible(format!(
            "a tensor map has one swizzle mode, the shared layout chains {} swizzles",
            chain.len()
        ))),
    }
}

/// The size of each top-level mode (CuTe's `product_each(shape(l))`).
fn per_mode_sizes(l: &Layout) -> Vec<i64> {
    if l.shape().is_int() {
        vec![l.size()]
    } else {
        l.modes().iter().map(Layout::size).collect()
    }
}

/// The global coordinate space: the global layout's flat modes, each extent widened to what the
/// CTA tile reaches, and a coordinate written as its column-major index over them.
struct CoordSpace {
    /// The flat extents of the global layout.
    extents: Vec<i64>,
    /// Its flat strides.
    strides: Vec<i64>,
    /// The widened extents.
    padded: Vec<i64>,
    /// Column-major prefix products of `padded`.
    prefix: Vec<i64>,
    /// Column-major layout of the widened shape, nested as the global layout.
    identity: Layout,
    /// The global layout over the widened flat shape.
    gmem: Layout,
}

impl CoordSpace {
    fn new(gmem: &Layout, tiler: &Tiler) -> Result<CoordSpace> {
        let padded_shape = widen(gmem.shape(), Some(tiler))?;
        let extents: Vec<i64> = gmem.shape().leaves().to_vec();
        let strides: Vec<i64> = gmem.stride().leaves().to_vec();
        let padded: Vec<i64> = padded_shape.leaves().to_vec();
        let identity = Layout::col_major(&padded_shape)?;
        let prefix = identity.flatten().stride().leaves().to_vec();
        let gmem = Layout::new(
            IntTuple::from_ints(padded.iter().copied()),
            IntTuple::from_ints(strides.iter().copied()),
        )?;
        Ok(CoordSpace {
            extents,
            strides,
            padded,
            prefix,
            identity,
            gmem,
        })
    }

    /// The flat mode and the scale of a coordinate stride (CuTe's `scale * E<mode>`), or
    /// `None` when it is not one mode's multiple.
    fn decode_stride(&self, d: i64) -> Option<(usize, i64)> {
        if d <= 0 {
            return None;
        }
        let j = (0..self.padded.len())
            .rev()
            .find(|&j| self.padded[j] > 1 && self.prefix[j] <= d)?;
        (d % self.prefix[j] == 0).then(|| (j, d / self.prefix[j]))
    }

    /// The unit-step modes `(extent, linear stride)` of the box as runs `(extent, global
    /// mode)`: a run longer than its mode's (widened) extent continues into the next mode, as a
    /// contiguous run of the linear index does, and must cover whole modes to do so.
    fn split(&self, modes: &[(i64, i64)]) -> Result<Vec<(i64, usize)>> {
        let mut out = Vec::new();
        for &(n, d) in modes {
            let (mut j, _) = self.decode_stride(d).ok_or_else(|| {
                Error::invalid(format!(
                    "internal: {d} is not a unit step of one global mode"
                ))
            })?;
            let mut left = n;
            while left > 1 {
                let extent = self.padded[j];
                if left <= extent || j + 1 == self.padded.len() {
                    out.push((left, j));
                    break;
                }
                if left % extent != 0 {
                    return Err(Error::inadmissible(format!(
                        "the box runs {left} elements along global mode {j} of extent {extent} \
                         and on into the next mode, which needs whole runs of {extent}"
                    )));
                }
                out.push((extent, j));
                left /= extent;
                j += 1;
                while j + 1 < self.padded.len() && self.padded[j] == 1 {
                    j += 1;
                }
            }
        }
        Ok(out)
    }

    /// The per-mode coordinates of a linear coordinate index.
    fn decode_index(&self, mut x: i64) -> Vec<i64> {
        let last = self.padded.len().saturating_sub(1);
        self.padded
            .iter()
            .enumerate()
            .map(|(j, &n)| {
                if j == last {
                    x
                } else {
                    let c = x % n;
                    x /= n;
                    c
                }
            })
            .collect()
    }
}

/// `shape` with the last leaf of each part a tiler entry covers widened to what that entry
/// reaches (`ceil(cosize / the other leaves' product)`), so every tile coordinate has one
/// column-major index.
fn widen(shape: &IntTuple, tiler: Option<&Tiler>) -> Result<IntTuple> {
    match tiler {
        None => Ok(shape.clone()),
        Some(Tiler::Layout(l)) => {
            let (low, high) = l.offset_range()?;
            if low < 0 {
                return Err(Error::inadmissible(format!(
                    "the tile {l} reaches below coordinate 0"
                )));
            }
            let reach = checked_add(high, 1, "the tile's reach")?;
            let mut leaves = shape.leaves().to_vec();
            let Some((last, rest)) = leaves.split_last_mut() else {
                return Ok(shape.clone());
            };
            let below: i64 = rest.iter().product();
            *last = (*last).max((reach + below - 1) / below.max(1));
            shape
                .with_leaves(&leaves)
                .ok_or_else(|| Error::invalid("internal: widening the global shape"))
        }
        Some(Tiler::ByMode(parts)) => {
            if shape.is_int() {
                return match parts.as_slice() {
                    [part] => widen(shape, part.as_ref()),
                    _ => Err(Error::invalid(format!(
                        "the tile has {} modes but the global shape {shape} has one",
                        parts.len()
                    ))),
                };
            }
            if parts.len() > shape.rank() {
                return Err(Error::invalid(format!(
                    "the tile has {} modes but the global shape {shape} has {}",
                    parts.len(),
                    shape.rank()
                )));
            }
            let modes = shape
                .modes()
                .iter()
                .enumerate()
                .map(|(i, m)| widen(&m.clone(), parts.get(i).and_then(Option::as_ref)))
                .collect::<Result<Vec<_>>>()?;
            Ok(IntTuple::tuple(modes))
        }
    }
}

/// One dimension of the tensor map: its box extent and the flat global modes it covers.
#[derive(Clone, Debug)]
struct Dim {
    extent: i64,
    modes: Vec<usize>,
}

/// The tensor map's dimensions: the box's modes merged where contiguous in global memory up
/// to 256 (CuTe's `coalesce_256`), the global modes the box misses as extent-1 dimensions, and
/// dimensions past the fifth grouped into it.
fn tma_dims(space: &CoordSpace, box_modes: &[(i64, usize)]) -> Result<Vec<Dim>> {
    let mut dims: Vec<Dim> = Vec::new();
    // The extent and global stride of the last dimension's merged run.
    let mut back: Option<(i64, i64)> = None;
    for &(n, mode) in box_modes {
        let d = space.strides[mode];
        match (back, dims.last_mut()) {
            (Some((bn, bd)), Some(last))
                if bn.checked_mul(bd) == Some(d)
                    && bn.checked_mul(n).is_some_and(|p| p <= MAX_BOX) =>
            {
                last.extent *= n;
                last.modes.push(mode);
                back = Some((bn * n, bd));
            }
            _ => {
                dims.push(Dim {
                    extent: n,
                    modes: vec![mode],
                });
                back = Some((n, d));
            }
        }
    }
    // Global modes with extent > 1 and a nonzero stride that the box does not cover.
    for j in 0..space.extents.len() {
        let covered = dims.iter().any(|d| d.modes.contains(&j));
        if !covered && space.extents[j] != 1 && space.strides[j] != 0 {
            dims.push(Dim {
                extent: 1,
                modes: vec![j],
            });
        }
    }
    if dims.len() > 5 {
        let tail: Vec<Dim> = dims.split_off(4);
        dims.push(Dim {
            extent: tail.iter().map(|d| d.extent).product(),
            modes: tail.into_iter().flat_map(|d| d.modes).collect(),
        });
    }
    Ok(dims)
}

/// The tensor map's extent and element stride of each dimension, from the global modes it
/// covers (CuTe's `fill_tma_gmem_shape_stride`: one mode gives its extent and stride; several
/// give the `gcd` of their strides and the extent that reaches their last element).
fn fill_dims_strides(space: &CoordSpace, dims: &[Dim]) -> Result<(Vec<i64>, Vec<i64>)> {
    let mut shapes = Vec::with_capacity(dims.len());
    let mut strides = Vec::with_capacity(dims.len());
    for dim in dims {
        let (mut shape, mut stride) = (1i64, 0i64);
        for &j in &dim.modes {
            let (s_j, d_j) = (space.extents[j], space.strides[j]);
            if d_j < 0 {
                return Err(Error::inadmissible(format!(
                    "global mode {j} has the negative stride {d_j}; tensor map strides are \
                     unsigned"
                )));
            }
            let old = stride;
            stride = num_integer::gcd(stride, d_j);
            shape = if stride == 0 {
                s_j
            } else {
                // (shape - 1) * (old / g) + (s_j - 1) * (d_j / g) + 1
                let a = checked_mul(shape - 1, old / stride, "a tensor map extent")?;
                let b = checked_mul(s_j - 1, d_j / stride, "a tensor map extent")?;
                checked_add(
                    checked_add(a, b, "a tensor map extent")?,
                    1,
                    "a tensor map extent",
                )?
            };
        }
        shapes.push(shape);
        strides.push(stride);
    }
    Ok((shapes, strides))
}

/// Cuts the box by `cluster` from its outermost dimension (CuTe's `make_tma_copy_desc`): each
/// dimension either divides the remaining multicast or is divided by it.
fn multicast_box(box_dims: &mut [i64], cluster: i64) -> Result<()> {
    let mut multicast = cluster;
    for i in (0..box_dims.len()).rev() {
        if multicast <= 1 {
            break;
        }
        let b = box_dims[i];
        if b % multicast != 0 && multicast % b != 0 {
            return Err(Error::inadmissible(format!(
                "the box dimension {i} of extent {b} and the remaining multicast {multicast} do \
                 not divide one another: the cluster cannot split the box evenly"
            )));
        }
        box_dims[i] = (b + multicast - 1) / multicast;
        multicast = (multicast + b - 1) / b;
    }
    if multicast > 1 {
        return Err(Error::inadmissible(format!(
            "the box has fewer elements than the {cluster} CTAs that share it"
        )));
    }
    Ok(())
}

/// For each flat global mode, the tensor-map dimension and scale its coordinate moves (CuTe's
/// `gmem_tma_basis_stride`): the first dimension counts elements (scale: the mode's element
/// stride), a dimension of one mode counts that mode (scale 1), a grouped one its `gcd`
/// stride's multiples.
fn coord_basis(space: &CoordSpace, dims: &[Dim], strides: &[i64]) -> Vec<Option<(usize, i64)>> {
    (0..space.extents.len())
        .map(|j| {
            if space.extents[j] == 1 || space.strides[j] == 0 {
                return None;
            }
            let i = dims.iter().position(|d| d.modes.contains(&j))?;
            let scale = if i == 0 {
                space.strides[j]
            } else if dims[i].modes.len() == 1 {
                1
            } else {
                space.strides[j] / strides[i].max(1)
            };
            Some((i, scale))
        })
        .collect()
}

/// The element-by-element check of a derived TMA copy (see the module docs).
struct Check<'a> {
    space: &'a CoordSpace,
    cta_v_map: &'a Layout,
    smem: &'a Layout,
    layout_tv: &'a Layout,
    params: &'a TmaParams,
    box_elems: i64,
    per_cta: i64,
    cluster: i64,
    elem_bytes: i64,
}

impl Check<'_> {
    /// The global coordinate (per flat mode) of tile element `v`.
    fn coord(&self, v: i64) -> Result<Vec<i64>> {
        Ok(self.space.decode_index(self.cta_v_map.offset(v)?))
    }

    /// The tile element written by CTA `t`'s value `value`.
    fn element(&self, t: i64, value: i64) -> Result<i64> {
        let ctas = self.layout_tv.mode(0)?;
        let values = self.layout_tv.mode(1)?;
        Ok(ctas.offset(t)? + values.offset(value)?)
    }

    fn describe(&self, v: i64) -> String {
        match self.coord(v) {
            Ok(c) => format!(
                "tile element {v} (global coordinate {})",
                IntTuple::from_ints(c)
            ),
            Err(_) => format!("tile element {v}"),
        }
    }

    fn every_element(&self) -> Result<()> {
        let size = self.smem.size();
        crate::budget::charge(size, "checking the TMA copy element by element")?;
        let map = &self.params.tensor_map;
        let box_dims = map.box_dims().to_vec();
        let per_cta = self.per_cta;
        let mut seen = vec![false; usize::try_from(size).unwrap_or(0)];
        let mut written = std::collections::HashSet::new();
        for k in 0..size / self.box_elems {
            for t in 0..self.cluster {
                let start_v = self.element(t, k * per_cta)?;
                let start = self.smem.offset(start_v)?;
                if (start * self.elem_bytes) % SMEM_ALIGN_BYTES != 0 {
                    return Err(Error::inadmissible(format!(
                        "instruction {k} of CTA {t} starts at shared byte {} (tile element \
                         {start_v}), not a multiple of {SMEM_ALIGN_BYTES}: a tensor copy's shared \
                         address is {SMEM_ALIGN_BYTES}-byte aligned",
                        start * self.elem_bytes
                    )));
                }
                let origin = self
                    .params
                    .tma_coord(&self.coord(start_v)?)
                    .ok_or_else(|| Error::overflow("a TMA coordinate overflows i64"))?;
                for p in 0..per_cta {
                    let v = self.element(t, k * per_cta + p)?;
                    if !(0..size).contains(&v) || std::mem::replace(&mut seen[v as usize], true) {
                        return Err(Error::inadmissible(format!(
                            "box element {p} of instruction {k} of CTA {t} is {} again or outside \
                             the tile: the boxes do not tile it once",
                            self.describe(v)
                        )));
                    }
                    // The definition: box element p is written at shared offset start + p ...
                    let at = start + p;
                    let kept = self.smem.offset(v)?;
                    if kept != at || !written.insert(at) {
                        return Err(Error::inadmissible(format!(
                            "the box of instruction {k} (CTA {t}) writes its element {p} at shared \
                             offset {at}, but the shared layout keeps {} at offset {kept}",
                            self.describe(v)
                        )));
                    }
                    // ... from the tensor map's address of origin + its box coordinate.
                    let mut coord = origin.clone();
                    let mut rest = p;
                    for (c, &b) in coord.iter_mut().zip(&box_dims) {
                        *c += rest % b;
                        rest /= b;
                    }
                    let read = map.byte_offset(&coord).map(|b| b / self.elem_bytes);
                    let want = self.space.gmem.offset(self.cta_v_map.offset(v)?)?;
                    if read != Some(want) {
                        return Err(Error::inadmissible(format!(
                            "the box of instruction {k} (CTA {t}) reads its element {p} from \
                             tensor coordinate {} (global element {}), but the shared layout \
                             keeps {} there, global element {want}",
                            IntTuple::from_ints(coord),
                            read.map_or_else(|| "overflow".into(), |r| r.to_string()),
                            self.describe(v)
                        )));
                    }
                }
            }
        }
        if let Some(missed) = seen.iter().position(|s| !s) {
            return Err(Error::inadmissible(format!(
                "no box writes {}",
                self.describe(missed as i64)
            )));
        }
        Ok(())
    }
}
