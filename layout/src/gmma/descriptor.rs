//! The wgmma matrix descriptor of a shared-memory operand layout, derived and then verified
//! element by element against the canonical layout the descriptor's fields define.
//!
//! A descriptor addresses one operand of one `wgmma` instruction: an `MN x K` tile whose K extent
//! is 32 bytes (16 fp16/bf16, 8 tf32, 32 8-bit elements). In units of 16 bytes (`T` elements,
//! one core-matrix row) the canonical layouts are (PTX ISA, "Shared Memory Matrix Layout";
//! CuTe's `make_gmma_desc` comments), before the mode's byte swizzle `Sw<B,4,3>` with
//! `W = 2^B` chunks per swizzled row:
//!
//! | major | mode | (MN, K) -> 16-byte unit |
//! |---|---|---|
//! | K | none | `((8,n),(T,2)) : ((1,SBO),(-,LBO))` |
//! | K | 32/64/128B | `((8,n),(T,2)) : ((W,SBO),(-,1))` |
//! | MN | none | `((T,n),(8,k)) : ((-,SBO),(1,LBO))` |
//! | MN | 32/64/128B | `((T,(W,n)),(8,k)) : ((-,(1,LBO)),(W,SBO))` |
//!
//! (`-`: the element within a 16-byte unit.) [`GmmaDescriptor::address`] spells these out;
//! [`gmma_descriptor`] reads LBO and SBO off the given layout and then checks every element.

use super::{Major, SwizzleMode};
use crate::{ComposedLayout, Error, Result, checked_add, checked_mul};

/// Bytes a descriptor's 14-bit, 16-byte-granular fields reach: `16 << 14`.
const DESCRIPTOR_WINDOW: i64 = 16 << 14;

/// `a - b`, or an error naming `what` on overflow.
fn checked_sub(a: i64, b: i64, what: &str) -> Result<i64> {
    a.checked_sub(b)
        .ok_or_else(|| Error::overflow(format!("{what} {a} - {b} overflows i64")))
}

/// The fields of a wgmma matrix descriptor, in bytes (the encoding drops their 4 low bits).
///
/// ```
/// use tessel_layout::gmma::{GmmaDescriptor, Major, SwizzleMode};
/// let d = GmmaDescriptor {
///     major: Major::K, mode: SwizzleMode::B128, start_address: 0x400,
///     leading_byte_offset: 16, stride_byte_offset: 1024, base_offset: 0,
/// };
/// // start 0x400 >> 4 = 64, LBO 1, SBO 64, layout type 1 (128B) in bits 62-63.
/// assert_eq!(d.encode().unwrap(), 64 | 1 << 16 | 64 << 32 | 1 << 62);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GmmaDescriptor {
    /// Which mode is contiguous (the instruction's `tnspA`/`tnspB` immediate: 0 for K-major).
    pub major: Major,
    /// The swizzle mode (layout type, bits 62-63).
    pub mode: SwizzleMode,
    /// Shared-memory byte address of element (0,0) before swizzling (bits 0-13, `>> 4`).
    pub start_address: i64,
    /// Leading dimension byte offset (bits 16-29, `>> 4`): between core matrices along K for
    /// K-major without swizzle; between groups of `W` chunks along MN for swizzled MN-major;
    /// 16 (unused) for swizzled K-major.
    pub leading_byte_offset: i64,
    /// Stride dimension byte offset (bits 32-45, `>> 4`): between 8-row groups along MN for
    /// K-major; between groups of 8 K rows for swizzled MN-major, between 16-byte MN chunks
    /// without swizzle.
    pub stride_byte_offset: i64,
    /// Matrix base offset (bits 49-51): 0, since tessel requires swizzled tiles to start at a
    /// multiple of the pattern's repeat.
    pub base_offset: u32,
}

/// A field that fits the descriptor's 14-bit, 16-byte-granular encoding.
fn encodable(name: &str, bytes: i64) -> Result<u64> {
    if bytes < 0 || bytes % 16 != 0 || bytes >= DESCRIPTOR_WINDOW {
        return Err(Error::inadmissible(format!(
            "the {name} is {bytes} bytes; a descriptor holds a multiple of 16 bytes below \
             {DESCRIPTOR_WINDOW} (14 bits of bytes >> 4)"
        )));
    }
    Ok((bytes >> 4) as u64)
}

impl GmmaDescriptor {
    /// The 64-bit descriptor (PTX ISA "Matrix Descriptor Format"), or an error naming a field
    /// that does not fit its bits.
    ///
    /// ```
    /// use tessel_layout::gmma::{GmmaDescriptor, Major, SwizzleMode};
    /// let mut d = GmmaDescriptor {
    ///     major: Major::K, mode: SwizzleMode::None, start_address: 0,
    ///     leading_byte_offset: 1024, stride_byte_offset: 128, base_offset: 0,
    /// };
    /// assert_eq!(d.encode().unwrap(), 64 << 16 | 8 << 32);
    /// d.stride_byte_offset = 120;
    /// assert!(d.encode().unwrap_err().to_string().contains("multiple of 16"));
    /// ```
    pub fn encode(&self) -> Result<u64> {
        let start = encodable("start address", self.start_address)?;
        let lbo = encodable("leading byte offset", self.leading_byte_offset)?;
        let sbo = encodable("stride byte offset", self.stride_byte_offset)?;
        Ok(start
            | lbo << 16
            | sbo << 32
            | u64::from(self.base_offset & 7) << 49
            | self.mode.descriptor_code() << 62)
    }

    /// The shared-memory byte address the descriptor gives element `(mn, k)` of an operand of
    /// `elem_bytes`-byte elements: the canonical layout of the module table, then the mode's
    /// swizzle on the absolute address. Exact for every descriptor that
    /// [encodes](Self::encode); for fields beyond any encoding the address saturates at the
    /// ends of `i64` instead of overflowing.
    ///
    /// ```
    /// use tessel_layout::gmma::{GmmaDescriptor, Major, SwizzleMode};
    /// let d = GmmaDescriptor {
    ///     major: Major::K, mode: SwizzleMode::B128, start_address: 0,
    ///     leading_byte_offset: 16, stride_byte_offset: 1024, base_offset: 0,
    /// };
    /// // fp16 row 1, element 0: byte 128, whose chunk the 128B swizzle XORs with row 1.
    /// assert_eq!(d.address(1, 0, 2), 128 + 16);
    /// // Row 8 starts the next 8-row group, SBO bytes further.
    /// assert_eq!(d.address(8, 0, 2), 1024);
    /// ```
    pub fn address(&self, mn: i64, k: i64, elem_bytes: i64) -> i64 {
        let linear = self.linear_address(mn, k, elem_bytes);
        // Saturates where no encodable descriptor comes near (its fields are below 2^18).
        let linear = i64::try_from(linear).unwrap_or(if linear < 0 { i64::MIN } else { i64::MAX });
        self.mode.byte_swizzle().apply(linear)
    }

    /// The canonical (unswizzled) byte address of `(mn, k)`, exact in `i128` for any fields
    /// (products and sums of a few `i64` values).
    fn linear_address(&self, mn: i64, k: i64, elem_bytes: i64) -> i128 {
        let w128 = i128::from;
        let (mn, k, eb) = (w128(mn), w128(k), w128(elem_bytes.max(1)));
        let t = 16 / eb; // elements per 16-byte unit
        let w = w128(self.mode.span_bytes() / 16); // 16-byte chunks per swizzled row
        let (lbo, sbo) = (
            w128(self.leading_byte_offset),
            w128(self.stride_byte_offset),
        );
        let t = t.max(1);
        let linear = match (self.major, self.mode) {
            (Major::K, SwizzleMode::None) => {
                (mn % 8) * 16 + (mn / 8) * sbo + (k / t) * lbo + (k % t) * eb
            }
            (Major::K, _) => (mn % 8) * 16 * w + (mn / 8) * sbo + (k / t) * 16 + (k % t) * eb,
            (Major::MN, SwizzleMode::None) => {
                (mn / t) * sbo + (k % 8) * 16 + (k / 8) * lbo + (mn % t) * eb
            }
            (Major::MN, _) => {
                let chunk = mn / t;
                (chunk % w) * 16
                    + (chunk / w) * lbo
                    + (k % 8) * 16 * w
                    + (k / 8) * sbo
                    + (mn % t) * eb
            }
        };
        w128(self.start_address) + linear
    }
}

/// The wgmma descriptor of `operand`, an `MN x K` tile of `elem_bytes`-byte elements in shared
/// memory whose element offset 0 is at byte `tile_base`: mode 0 of the layout is MN, mode 1 is
/// K. `major` picks K- or MN-major; `None` tries K, then MN. The descriptor is verified by
/// enumeration: every element's address under the descriptor ([`GmmaDescriptor::address`])
/// equals `tile_base + elem_bytes * operand(mn, k)`.
///
/// Errors name the violated condition: K must span 32 bytes; MN-major needs 16-bit elements;
/// the swizzle must be one of [`SwizzleMode`]'s on bytes; a swizzled tile must start at a
/// multiple of the swizzle's repeat; a field must fit its bits; or the first element that no
/// descriptor of that form reaches.
///
/// ```
/// use tessel_layout::{ComposedLayout, gmma::{Major, SwizzleMode, gmma_descriptor}};
/// // fp16 K-major, no swizzle: 8x8 core matrices of 128 contiguous bytes, stacked along MN
/// // (stride 64 elements) and along K (stride 512 elements).
/// let op: ComposedLayout = "((8,8),(8,2)):((8,64),(1,512))".parse().unwrap();
/// let d = gmma_descriptor(&op, 2, 0, None).unwrap();
/// assert_eq!((d.major, d.mode), (Major::K, SwizzleMode::None));
/// assert_eq!((d.stride_byte_offset, d.leading_byte_offset), (128, 1024));
/// // Rows padded to 72 halves: the rows of a core matrix are not 16 bytes apart.
/// let padded: ComposedLayout = "(64,16):(72,1)".parse().unwrap();
/// let err = gmma_descriptor(&padded, 2, 0, Some(Major::K)).unwrap_err();
/// assert!(err.to_string().contains("element (1,0)"), "{err}");
/// ```
pub fn gmma_descriptor(
    operand: &ComposedLayout,
    elem_bytes: i64,
    tile_base: i64,
    major: Option<Major>,
) -> Result<GmmaDescriptor> {
    let context = |e: Error| e.context(format!("wgmma descriptor of {operand}"));
    match major {
        Some(major) => derive(operand, elem_bytes, tile_base, major).map_err(context),
        None => derive(operand, elem_bytes, tile_base, Major::K).or_else(|as_k| {
            derive(operand, elem_bytes, tile_base, Major::MN).map_err(|as_mn| {
                context(Error::inadmissible(format!(
                    "as K-major: {}; as MN-major: {}",
                    as_k.message(),
                    as_mn.message()
                )))
            })
        }),
    }
}

/// [`gmma_descriptor`] for one major mode.
fn derive(
    operand: &ComposedLayout,
    elem_bytes: i64,
    tile_base: i64,
    major: Major,
) -> Result<GmmaDescriptor> {
    if ![1, 2, 4].contains(&elem_bytes) {
        return Err(Error::invalid(format!(
            "wgmma reads 1-, 2- or 4-byte elements from shared memory, not {elem_bytes}-byte ones"
        )));
    }
    if major == Major::MN && elem_bytes != 2 {
        return Err(Error::inadmissible(format!(
            "MN-major operands exist only for 16-bit elements (PTX ISA: the transpose of wgmma \
             is defined for .f16 and .bf16), not {elem_bytes}-byte ones"
        )));
    }
    let layout = operand.layout();
    if layout.rank() != 2 {
        return Err(Error::inadmissible(format!(
            "an operand is a rank-2 (MN, K) tile, this layout has rank {}",
            layout.rank()
        )));
    }
    let (mn_size, k_size) = (layout.mode(0)?.size(), layout.mode(1)?.size());
    let t = 16 / elem_bytes;
    if k_size * elem_bytes != 32 {
        return Err(Error::inadmissible(format!(
            "one wgmma reads 32 bytes of K ({} elements of {elem_bytes} bytes); the K mode has \
             {k_size}",
            32 / elem_bytes
        )));
    }
    let rows = if major == Major::K { 8 } else { t };
    if mn_size % rows != 0 {
        return Err(Error::inadmissible(format!(
            "the MN mode must hold whole {rows}-element core-matrix {}, it has {mn_size} elements",
            if major == Major::K {
                "row groups"
            } else {
                "rows"
            }
        )));
    }
    let mode = swizzle_mode(operand, elem_bytes)?;
    if mode != SwizzleMode::None && tile_base % mode.repeat_bytes() != 0 {
        return Err(Error::inadmissible(format!(
            "a {mode}-swizzled tile must start at a multiple of {} bytes (the swizzle acts on \
             absolute addresses), this one starts at byte {tile_base}",
            mode.repeat_bytes()
        )));
    }
    // The shared-memory window a descriptor addresses: 14 bits of (bytes >> 4).
    if !(0..DESCRIPTOR_WINDOW).contains(&tile_base) {
        return Err(Error::inadmissible(format!(
            "the tile starts at byte {tile_base}, outside the 0..{DESCRIPTOR_WINDOW} bytes a \
             descriptor's start address reaches (14 bits of bytes >> 4)"
        )));
    }
    // The byte address of element offset `offset` (before the outer swizzle), or an overflow
    // error.
    let byte = |offset: i64| -> Result<i64> {
        let bytes = checked_mul(offset, elem_bytes, "the element's byte offset")?;
        checked_add(tile_base, bytes, "the element's byte address")
    };
    // The unswizzled byte address of (mn, k), from which the strides are read.
    let linear = |mn: i64, k: i64| -> Result<i64> {
        let inner = layout.offset(mn + mn_size * k)?;
        byte(checked_add(
            operand.base_offset(),
            inner,
            "the element offset",
        )?)
    };
    let start = linear(0, 0)?;
    let step = |mn: i64, k: i64, used: bool| -> Result<i64> {
        if used {
            checked_sub(linear(mn, k)?, start, "the byte offset")
        } else {
            Ok(0)
        }
    };
    let w = mode.span_bytes() / 16;
    let (leading, stride) = match (major, mode) {
        (Major::K, SwizzleMode::None) => (step(0, t, true)?, step(8, 0, mn_size > 8)?),
        (Major::K, _) => (16, step(8, 0, mn_size > 8)?),
        (Major::MN, SwizzleMode::None) => (step(0, 8, k_size > 8)?, step(t, 0, mn_size > t)?),
        (Major::MN, _) => (step(w * t, 0, mn_size > w * t)?, step(0, 8, k_size > 8)?),
    };
    let desc = GmmaDescriptor {
        major,
        mode,
        start_address: start,
        leading_byte_offset: leading,
        stride_byte_offset: stride,
        base_offset: 0,
    };
    desc.encode()?;
    crate::budget::charge(
        checked_mul(mn_size, k_size, "the operand's size")?,
        &format!("checking the wgmma descriptor of {operand}"),
    )?;
    for k in 0..k_size {
        for mn in 0..mn_size {
            let actual = byte(operand.apply_outer(layout.offset(mn + mn_size * k)?))?;
            let reached = desc.address(mn, k, elem_bytes);
            if actual != reached {
                return Err(Error::inadmissible(format!(
                    "element ({mn},{k}) is at byte {actual}, but the only {major}-major {mode} \
                     descriptor that fits the layout's first strides (LBO {leading}, SBO \
                     {stride}) reads it from byte {reached}"
                )));
            }
        }
    }
    Ok(desc)
}

/// The swizzle mode of `operand`'s swizzles, counted on bytes.
fn swizzle_mode(operand: &ComposedLayout, elem_bytes: i64) -> Result<SwizzleMode> {
    match operand.swizzles() {
        [] => Ok(SwizzleMode::None),
        [sw] => {
            let bytes = sw.downcast(elem_bytes)?;
            SwizzleMode::from_byte_swizzle(bytes).ok_or_else(|| {
                Error::inadmissible(format!(
                    "its swizzle {sw} on {elem_bytes}-byte elements is {bytes} on bytes, not one \
                     of the descriptor's modes Sw<1,4,3> (32B), Sw<2,4,3> (64B), Sw<3,4,3> (128B)"
                ))
            })
        }
        chain => Err(Error::inadmissible(format!(
            "a descriptor has one swizzle mode, the layout chains {} swizzles",
            chain.len()
        ))),
    }
}
