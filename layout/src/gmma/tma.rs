//! The shared-memory layout a TMA box writes (`cp.async.bulk.tensor` with a tiled tensor map),
//! and a proof by enumeration that it is the layout an operand expects.
//!
//! A box of `box[0] x box[1] x ...` elements (`box[0]` innermost, as `cuTensorMapEncodeTiled`'s
//! `boxDim` lists them) lands in shared memory densely, innermost dimension first, and the
//! tensor map's swizzle mode permutes the 16-byte chunks of each byte address (`Sw<B,4,3>`, see
//! [`SwizzleMode`]); a swizzled box's innermost extent is at most the swizzle span (CUDA driver
//! API, `cuTensorMapEncodeTiled`). The destination must start at a multiple of the swizzle's
//! repeat for the tile-relative layout below to be the written one.

use super::{Major, SwizzleMode};
use crate::{ComposedLayout, Error, Layout, Result};

/// The shared layout, in elements of `elem_bytes` bytes, that a TMA box of extents `box_dims`
/// (innermost first) writes with swizzle `mode`: `Sw o (b0,b1,..):(1,b0,b0*b1,..)`, the byte
/// swizzle counted in elements.
///
/// Errors: rank outside 1..=5 or an extent outside 1..=256 (`boxDim` limits), an innermost
/// extent that is not a multiple of 16 bytes, or one wider than the swizzle span.
///
/// ```
/// use tessel_layout::gmma::{SwizzleMode, tma_box_layout};
/// let l = tma_box_layout(&[64, 8], 2, SwizzleMode::B128).unwrap();
/// assert_eq!(l.to_string(), "Sw<3,3,3> o (64,8):(1,64)");
/// // 128 fp16 = 256 bytes do not fit in one 128-byte swizzled row.
/// assert!(tma_box_layout(&[128, 8], 2, SwizzleMode::B128).is_err());
/// ```
pub fn tma_box_layout(
    box_dims: &[i64],
    elem_bytes: i64,
    mode: SwizzleMode,
) -> Result<ComposedLayout> {
    let context = |e: Error| {
        e.context(format!(
            "the TMA box {box_dims:?} of {elem_bytes}-byte elements with the {mode} swizzle"
        ))
    };
    if !(1..=5).contains(&box_dims.len()) {
        return Err(context(Error::invalid(format!(
            "a tiled tensor map has rank 1 to 5, not {}",
            box_dims.len()
        ))));
    }
    if let Some(bad) = box_dims.iter().find(|&&d| !(1..=256).contains(&d)) {
        return Err(context(Error::invalid(format!(
            "every box extent is 1 to 256 elements, not {bad}"
        ))));
    }
    if ![1, 2, 4, 8].contains(&elem_bytes) {
        return Err(context(Error::invalid(format!(
            "tensor-map elements are 1, 2, 4 or 8 bytes, not {elem_bytes}"
        ))));
    }
    let inner_bytes = box_dims[0] * elem_bytes;
    if inner_bytes % 16 != 0 {
        return Err(context(Error::inadmissible(format!(
            "the innermost extent spans {inner_bytes} bytes, not a multiple of 16"
        ))));
    }
    if mode != SwizzleMode::None && inner_bytes > mode.span_bytes() {
        return Err(context(Error::inadmissible(format!(
            "the innermost extent spans {inner_bytes} bytes, more than the {} bytes of a \
             swizzled row",
            mode.span_bytes()
        ))));
    }
    let mut modes = Vec::with_capacity(box_dims.len());
    let mut stride = 1;
    for &d in box_dims {
        modes.push(Layout::vector(d, stride).map_err(context)?);
        stride *= d;
    }
    let layout = Layout::from_modes(modes).map_err(context)?;
    let swizzles = if mode == SwizzleMode::None {
        vec![]
    } else {
        vec![mode.byte_swizzle().upcast(elem_bytes).map_err(context)?]
    };
    Ok(ComposedLayout::new(swizzles, 0, layout))
}

/// Checks that the box layout `boxed` ([`tma_box_layout`], rank 2) writes every element where
/// the operand layout `expected` (mode 0 MN, mode 1 K) keeps it. A K-major operand is loaded
/// with K innermost (box coordinates `(k, mn)`), an MN-major one with MN innermost (`(mn, k)`).
/// The error names the first element (in the operand's coordinates) at different offsets.
///
/// ```
/// use tessel_layout::{ComposedLayout, gmma::{Major, SwizzleMode, check_box_matches, tma_box_layout}};
/// let boxed = tma_box_layout(&[64, 8], 2, SwizzleMode::B128).unwrap();
/// let atom: ComposedLayout = "Sw<3,3,3> o (8,64):(64,1)".parse().unwrap();
/// assert!(check_box_matches(&boxed, &atom, Major::K).is_ok());
/// // The 64-byte swizzle is a different permutation of the same bytes.
/// let sw64 = tma_box_layout(&[64, 8], 2, SwizzleMode::B64);
/// assert!(sw64.is_err()); // 128 bytes do not fit a 64-byte row
/// let narrow = tma_box_layout(&[32, 8], 2, SwizzleMode::B64).unwrap();
/// let err = check_box_matches(&narrow, &atom, Major::K).unwrap_err();
/// assert!(err.to_string().contains("box is 32x8"), "{err}");
/// ```
pub fn check_box_matches(
    boxed: &ComposedLayout,
    expected: &ComposedLayout,
    major: Major,
) -> Result<()> {
    let context = |e: Error| {
        e.context(format!(
            "the TMA box layout {boxed} against the {major}-major operand layout {expected}"
        ))
    };
    let (b, e) = (boxed.layout(), expected.layout());
    if b.rank() != 2 || e.rank() != 2 {
        return Err(context(Error::inadmissible(format!(
            "both must have rank 2, not {} and {}",
            b.rank(),
            e.rank()
        ))));
    }
    let (inner, outer) = (b.mode(0)?.size(), b.mode(1)?.size());
    let (mn_size, k_size) = (e.mode(0)?.size(), e.mode(1)?.size());
    let box_shape = match major {
        Major::K => (k_size, mn_size),
        Major::MN => (mn_size, k_size),
    };
    if (inner, outer) != box_shape {
        return Err(context(Error::inadmissible(format!(
            "the box is {inner}x{outer} (innermost first) but a {major}-major {mn_size}x{k_size} \
             (MN x K) operand needs a {}x{} box",
            box_shape.0, box_shape.1
        ))));
    }
    for k in 0..k_size {
        for mn in 0..mn_size {
            let box_index = match major {
                Major::K => k + inner * mn,
                Major::MN => mn + inner * k,
            };
            let written = boxed.offset(box_index).map_err(context)?;
            let wanted = expected.offset(mn + mn_size * k).map_err(context)?;
            if written != wanted {
                return Err(context(Error::inadmissible(format!(
                    "element (mn,k) = ({mn},{k}) is written at element offset {written} but \
                     expected at {wanted}"
                ))));
            }
        }
    }
    Ok(())
}
