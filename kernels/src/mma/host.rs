//! CPU side of the tensor-core swizzle problems: the [PTX ISA 9.0](https://docs.nvidia.com/cuda/archive/13.0.0/parallel-thread-execution/index.html)'s `ldmatrix` and `mma` rules (to
//! replay a plan's data movement on the host through the very layouts the kernel is emitted
//! from), the references and their error bounds (a result is held to them by
//! [`crate::measure::compare::expect_close`]).
//!
//! Fragment rules ([PTX ISA 9.0](https://docs.nvidia.com/cuda/archive/13.0.0/parallel-thread-execution/index.html), "Matrix fragments for mma.m16n8k16 with floating point type" and
//! "ldmatrix"), lane `l`, `g = l / 4`, `q = l % 4`:
//! - `ldmatrix.x4`: lanes `8j..8j+7` give the row addresses of matrix `j`; register `j` of lane
//!   `l` receives row `g`, columns `2q, 2q+1` of matrix `j` (`.trans`: rows `2q, 2q+1` of
//!   column `g`), the first in the low half.
//! - A (16x16 f16, 4 registers): register `r`, half `h` is `(row g + 8 (r % 2), col 2q + h + 8 (r / 2))`.
//! - B (16x8, 2 registers): register `r`, half `h` is `(k 2q + h + 8 r, n g)`.
//! - C/D (16x8 f32, 4 values): value `i` is `(row g + 8 (i / 2), col 2q + i % 2)`.
//!
//! Error bounds: a product of two fp16 values is exact in fp32, so a 16-term dot product
//! accumulated in fp32 differs from the exact sum by at most `16 u S` with `S = sum |a_k b_k|`
//! and `u` the unit roundoff; allowing the tensor core's adder to truncate (`u = 2^-23`) and
//! the CPU to round, GPU and CPU differ by at most [`DOT_BOUND`]` * S`. For `A^n` each product
//! is also rounded to fp16 (`2^-11` relative, twice that between two results that straddle a
//! rounding boundary), which propagates: see [`power_reference`].
//!
//! ```
//! use tessel_kernels::mma::host::{lane_a, lane_c};
//! // Lane 5 (g = 1, q = 1): its A register 3 holds row 9, columns 10 and 11.
//! assert_eq!(lane_a(5, 3, 1), (9, 11));
//! assert_eq!(lane_c(5, 2), (9, 2));
//! ```

use half::f16;

use crate::error::{GpuError, GpuResult};

/// The bound on `|gpu - cpu| / sum |a_k b_k|` of one fp32-accumulated 16-term fp16 dot
/// product: `2 * 16 * 2^-23 = 2^-18`.
///
/// ```
/// assert_eq!(tessel_kernels::mma::host::DOT_BOUND, 2f32.powi(-18));
/// ```
pub const DOT_BOUND: f32 = 1.0 / 262_144.0;

/// Registers of one lane of a warp-wide fragment.
pub type Regs<const N: usize> = [[u32; N]; 32];

/// `(row, column)` of A-fragment register `r`, half `h` of lane `l` of `mma.m16n8k16` with
/// 16-bit types ([`lane_a_of`] with two values per register).
///
/// ```
/// assert_eq!(tessel_kernels::mma::host::lane_a(0, 2, 0), (0, 8));
/// ```
pub fn lane_a(l: usize, r: usize, h: usize) -> (usize, usize) {
    lane_a_of(2, l, r, h)
}

/// `(k, n)` of B-fragment register `r`, half `h` of lane `l` of `mma.m16n8k16` with 16-bit
/// types ([`lane_b_of`] with two values per register).
///
/// ```
/// assert_eq!(tessel_kernels::mma::host::lane_b(6, 1, 1), (13, 1)); // g = 1, q = 2
/// ```
pub fn lane_b(l: usize, r: usize, h: usize) -> (usize, usize) {
    lane_b_of(2, l, r, h)
}

/// `(row, column)` of value `h` of A-fragment register `r` of lane `l`, with `vals` values in
/// each 32-bit register: 2 for `mma.m16n8k16` of 16-bit types, 4 for `mma.m16n8k32` of 8-bit
/// ones ([PTX ISA 9.0](https://docs.nvidia.com/cuda/archive/13.0.0/parallel-thread-execution/index.html),
/// "Matrix Fragments for mma.m16n8k16 with floating point type" and "for mma.m16n8k32": row
/// `groupID` or `groupID + 8` for the odd registers, column `vals threadID_in_group + h`, plus
/// `4 vals` from register 2 on).
///
/// ```
/// use tessel_kernels::mma::host::lane_a_of;
/// assert_eq!(lane_a_of(4, 5, 3, 2), (9, 22)); // g = 1, q = 1: a14 of m16n8k32
/// ```
pub fn lane_a_of(vals: usize, l: usize, r: usize, h: usize) -> (usize, usize) {
    (l / 4 + 8 * (r % 2), vals * (l % 4) + h + 4 * vals * (r / 2))
}

/// `(k, n)` of value `h` of B-fragment register `r` of lane `l`, with `vals` values in each
/// 32-bit register (as [`lane_a_of`]): k `vals threadID_in_group + h`, plus `4 vals` for
/// register 1; n `groupID`.
///
/// ```
/// use tessel_kernels::mma::host::lane_b_of;
/// assert_eq!(lane_b_of(4, 6, 1, 3), (27, 1)); // g = 1, q = 2: b7 of m16n8k32
/// ```
pub fn lane_b_of(vals: usize, l: usize, r: usize, h: usize) -> (usize, usize) {
    (vals * (l % 4) + h + 4 * vals * r, l / 4)
}

/// `(row, column)` of accumulator value `i` of lane `l` ([PTX ISA 9.0](https://docs.nvidia.com/cuda/archive/13.0.0/parallel-thread-execution/index.html)).
///
/// ```
/// assert_eq!(tessel_kernels::mma::host::lane_c(31, 3), (15, 7));
/// ```
pub fn lane_c(l: usize, i: usize) -> (usize, usize) {
    (l / 4 + 8 * (i / 2), 2 * (l % 4) + i % 2)
}

fn pack(lo: f16, hi: f16) -> u32 {
    u32::from(lo.to_bits()) | (u32::from(hi.to_bits()) << 16)
}

fn unpack(w: u32, h: usize) -> f32 {
    f16::from_bits((w >> (16 * h)) as u16).to_f32()
}

/// `ldmatrix.sync.aligned.m8n8.x4[.trans].shared.b16` on the host: `smem` holds the elements,
/// `rows[l]` is the element offset lane `l` gives. `Err` when a row leaves `smem`.
///
/// ```
/// use half::f16;
/// use tessel_kernels::mma::host::ldmatrix_x4;
/// let smem: Vec<f16> = (0..256).map(|i| f16::from_f32(i as f32)).collect();
/// let rows: [i64; 32] = std::array::from_fn(|l| 8 * l as i64); // matrix j = elements 64j..
/// let r = ldmatrix_x4(&smem, &rows, false).unwrap();
/// let bits = |x: f32| u32::from(f16::from_f32(x).to_bits());
/// assert_eq!(r[1][0], (bits(3.0) << 16) | bits(2.0)); // lane 1: row 0, columns 2 and 3
/// let t = ldmatrix_x4(&smem, &rows, true).unwrap();
/// assert_eq!(t[1][0] & 0xffff, f16::from_f32(16.0).to_bits() as u32); // row 2, column 0
/// ```
pub fn ldmatrix_x4(smem: &[f16], rows: &[i64; 32], trans: bool) -> GpuResult<Regs<4>> {
    let values = ldmatrix_x4_values(smem, rows, 2, trans)?;
    let mut out = [[0u32; 4]; 32];
    for (regs, lane) in out.iter_mut().zip(&values) {
        for (reg, v) in regs.iter_mut().zip(lane) {
            *reg = pack(v[0], v[1]);
        }
    }
    Ok(out)
}

/// `ldmatrix.x4` for one warp, register by register: `vals` elements in each 32-bit register
/// (2 of 16 bits, 4 of 8 bits: the instruction moves rows of 16 bytes whatever they hold), lane
/// `l` handing the row address `rows[l]` (in elements). `out[lane][matrix][j]`, `j < vals`, is
/// element `vals (lane % 4) + j` of row `lane / 4` of matrix `matrix` (whose rows come from
/// lanes `8 matrix ..`), lowest bytes first; with `trans` (16-bit elements only) element `lane
/// / 4` of rows `2 (lane % 4) + j` (PTX ISA 9.0, "ldmatrix": the matrix read column by column).
pub(crate) fn ldmatrix_x4_values<T: Copy + Default>(
    smem: &[T],
    rows: &[i64; 32],
    vals: usize,
    trans: bool,
) -> GpuResult<[[[T; 4]; 4]; 32]> {
    let at = |matrix: usize, row: usize, col: usize| -> GpuResult<T> {
        let o = rows[8 * matrix + row] + col as i64;
        usize::try_from(o)
            .ok()
            .and_then(|o| smem.get(o).copied())
            .ok_or_else(|| {
                GpuError::InvalidArgument(format!(
                    "ldmatrix row {} + {col} outside shared memory of {} elements",
                    rows[8 * matrix + row],
                    smem.len()
                ))
            })
    };
    if trans && vals != 2 {
        return Err(GpuError::InvalidArgument(format!(
            "ldmatrix .trans moves 16-bit elements, not {vals} per register"
        )));
    }
    let mut out = [[[T::default(); 4]; 4]; 32];
    for (l, lane) in out.iter_mut().enumerate() {
        let (g, q) = (l / 4, l % 4);
        for (j, reg) in lane.iter_mut().enumerate() {
            for (h, x) in reg.iter_mut().take(vals).enumerate() {
                *x = if trans {
                    at(j, vals * q + h, g)?
                } else {
                    at(j, g, vals * q + h)?
                };
            }
        }
    }
    Ok(out)
}

/// `mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32` on the host: `d = a b + c`, every dot
/// product accumulated in fp32 over `k = 0..15`, then `c` added.
///
/// ```
/// use half::f16;
/// use tessel_kernels::mma::host::mma_m16n8k16;
/// let one = u32::from(f16::ONE.to_bits()) * 0x1_0001; // both halves 1.0
/// let d = mma_m16n8k16(&[[one; 4]; 32], &[[one; 2]; 32], &[[0.5; 4]; 32]);
/// assert_eq!(d[0], [16.5; 4]);
/// ```
pub fn mma_m16n8k16(a: &Regs<4>, b: &Regs<2>, c: &[[f32; 4]; 32]) -> [[f32; 4]; 32] {
    let mut av = [[0f32; 16]; 32];
    let mut bv = [[0f32; 8]; 32];
    for (l, (ra, rb)) in a.iter().zip(b).enumerate() {
        for (r, &w) in ra.iter().enumerate() {
            for h in 0..2 {
                av[l][2 * r + h] = unpack(w, h);
            }
        }
        for (r, &w) in rb.iter().enumerate() {
            for h in 0..2 {
                bv[l][2 * r + h] = unpack(w, h);
            }
        }
    }
    let mut d = *c;
    mma_of(2, &mut d, &av, &bv);
    d
}

/// `mma.sync.m16n8k{8 vals}.row.col` for one warp with `vals` values in each 32-bit register
/// (2: the 16-bit types, k16; 4: the 8-bit ones, k32): A's value `vals r + h` (register `r`,
/// element `h`) of lane `l` is at [`lane_a_of`], B's at [`lane_b_of`], C's value `v` at
/// [`lane_c`]. The products of one k step are summed in f32 (k ascending) and added to the
/// accumulator.
pub(crate) fn mma_of(
    vals: usize,
    acc: &mut [[f32; 4]; 32],
    a: &[[f32; 16]; 32],
    b: &[[f32; 8]; 32],
) {
    let k = 8 * vals;
    let mut am = [[0f32; 32]; 16];
    let mut bm = [[0f32; 8]; 32];
    for l in 0..32 {
        for r in 0..4 {
            for h in 0..vals {
                let (row, col) = lane_a_of(vals, l, r, h);
                am[row][col] = a[l][vals * r + h];
            }
        }
        for r in 0..2 {
            for h in 0..vals {
                let (kk, n) = lane_b_of(vals, l, r, h);
                bm[kk][n] = b[l][vals * r + h];
            }
        }
    }
    for (l, c) in acc.iter_mut().enumerate() {
        for (v, cv) in c.iter_mut().enumerate() {
            let (row, col) = lane_c(l, v);
            *cv += (0..k).map(|kx| am[row][kx] * bm[kx][col]).sum::<f32>();
        }
    }
}

/// `C[m][n] = sum_k A(m, k) B(n, k)` over `k = 0..15` in fp32 (k ascending), with the bound
/// `DOT_BOUND * sum_k |A(m,k) B(n,k)|` per element: the reference of every 16x16x16 product
/// here (`a(m, k)`, `b(n, k)` read the operands).
///
/// ```
/// use tessel_kernels::mma::host::dot16;
/// let (c, bound) = dot16(|m, k| (m + k) as f32, |n, k| if n == k { 1.0 } else { 0.0 });
/// assert_eq!(c[3 * 16 + 5], 8.0); // A(3, 5)
/// assert!(bound[3 * 16 + 5] > 0.0);
/// ```
pub fn dot16(
    a: impl Fn(usize, usize) -> f32,
    b: impl Fn(usize, usize) -> f32,
) -> (Vec<f32>, Vec<f32>) {
    let mut c = vec![0f32; 256];
    let mut bound = vec![0f32; 256];
    for m in 0..16 {
        for n in 0..16 {
            let (mut s, mut abs) = (0f32, 0f32);
            for k in 0..16 {
                let p = a(m, k) * b(n, k);
                s += p;
                abs += p.abs();
            }
            c[16 * m + n] = s;
            bound[16 * m + n] = DOT_BOUND * abs;
        }
    }
    (c, bound)
}

/// A reference of fp32-accumulated results that the kernel stores as fp16 (round to nearest
/// even): `want` rounded to fp16 (returned as `f32`, exactly) and the bound on `|gpu - cpu|`
/// after both sides rounded. With `d` the fp32 bound ([`dot16`]) and `x` the CPU's fp32 value,
/// the GPU's fp32 value `y` is within `d` of `x`; rounding moves each of `x` and `y` by at most
/// half an fp16 ulp, i.e. `2^-11 |.|` among normals and `2^-25` among subnormals, so the two
/// fp16 results differ by at most `2^-11 (|x| + |x| + d) + 2^-24` beyond `d`:
/// `(1 + 2^-11) d + 2^-10 |x| + 2^-24`. (Half an ulp alone bounds the distance of the GPU's
/// fp16 result to the unrounded `x`; against a rounded reference both roundings count: two
/// values a hair apart on either side of a rounding boundary round one ulp apart.) fp16 overflow
/// is out of scope: every result here is at most 16 in magnitude.
///
/// ```
/// use tessel_kernels::mma::host::round_to_f16;
/// let (r, b) = round_to_f16(&[1.0 + 1.0 / 4096.0], &[0.0]);
/// assert_eq!(r[0], 1.0); // 2^-12 is half an fp16 ulp at 1: ties to even
/// assert!(b[0] >= 1.0 / 1024.0); // one ulp: 1 + 2^-12 + a hair rounds to 1 + 2^-10
/// ```
pub fn round_to_f16(want: &[f32], bound: &[f32]) -> (Vec<f32>, Vec<f32>) {
    let half_ulp = 2f64.powi(-11);
    want.iter()
        .zip(bound)
        .map(|(&x, &d)| {
            let d = f64::from(d);
            let b = (1.0 + half_ulp) * d + 2.0 * half_ulp * f64::from(x.abs()) + 2f64.powi(-24);
            (f16::from_f32(x).to_f32(), (b * (1.0 + 1e-6)) as f32)
        })
        .unzip()
}

/// Deterministic fp16 test data in `[-0.5, 0.5)`: [`crate::bits::random_data`] (values in
/// `[1, 2)`) minus 1.5, which is exact in fp16.
///
/// ```
/// let x = tessel_kernels::mma::host::random_f16(100, 3);
/// assert!(x.iter().all(|v| (-0.5..0.5).contains(&v.to_f32())));
/// ```
pub fn random_f16(n: usize, seed: u64) -> Vec<f16> {
    crate::bits::random_data::<f16>(n, seed)
        .into_iter()
        .map(|x| f16::from_f32(x.to_f32() - 1.5))
        .collect()
}

/// `A^n` of a 16x16 fp16 row-major `A` the way the kernel computes it (`P_1 = A`, `P_k = A
/// P_{k-1}` accumulated in fp32 over k ascending, rounded to fp16 to nearest even), and the
/// bound on `|gpu - cpu|` per element. With `x` the CPU's fp32 value of an element of `A
/// P_{k-1}`, the GPU's differs by at most `d = |A| E_{k-1} + DOT_BOUND |A| |P_{k-1}|` (the
/// propagated difference and the accumulation, [`DOT_BOUND`]); rounding both to fp16 (relative
/// error `2^-11` each, absolute `2^-25` among subnormals) adds at most `2^-11 (|x| + |x| + d)
/// + 2^-24`. So, entrywise in f64: `E_1 = 0`, `E_k = (1 + 2^-11) d + 2^-10 |x| + 2^-24`.
/// `Err` unless `n >= 1` and `a` has 256 elements.
///
/// ```
/// use half::f16;
/// use tessel_kernels::mma::host::power_reference;
/// let mut a = vec![f16::ZERO; 256];
/// for i in 0..16 { a[17 * i] = f16::from_f32(0.5); } // A = I / 2
/// let (p, bound) = power_reference(&a, 3).unwrap();
/// assert_eq!(p[0].to_f32(), 0.125);
/// assert!(bound[0] > 0.0 && bound[0] < 1e-3);
/// assert!(power_reference(&a, 0).is_err());
/// ```
pub fn power_reference(a: &[f16], n: u32) -> GpuResult<(Vec<f16>, Vec<f32>)> {
    if n < 1 || a.len() != 256 {
        return Err(GpuError::InvalidArgument(format!(
            "A^n needs n >= 1 and a 16x16 A, not n = {n} and {} elements",
            a.len()
        )));
    }
    let af: Vec<f32> = a.iter().map(|x| x.to_f32()).collect();
    let abs_a: Vec<f64> = af.iter().map(|x| f64::from(x.abs())).collect();
    let mut p = a.to_vec();
    let mut e = vec![0f64; 256];
    let (half_ulp, dot) = (2f64.powi(-11), f64::from(DOT_BOUND));
    for _ in 1..n {
        let mut next = vec![f16::ZERO; 256];
        let mut next_e = vec![0f64; 256];
        for m in 0..16 {
            for c in 0..16 {
                let (mut s, mut ap, mut ae) = (0f32, 0f64, 0f64);
                for k in 0..16 {
                    s += af[16 * m + k] * p[16 * k + c].to_f32();
                    ap += abs_a[16 * m + k] * f64::from(p[16 * k + c].to_f32().abs());
                    ae += abs_a[16 * m + k] * e[16 * k + c];
                }
                next[16 * m + c] = f16::from_f32(s);
                let d = ae + dot * ap;
                next_e[16 * m + c] =
                    (1.0 + half_ulp) * d + 2.0 * half_ulp * f64::from(s.abs()) + 2f64.powi(-24);
            }
        }
        p = next;
        e = next_e;
    }
    Ok((
        p,
        e.into_iter().map(|x| (x * (1.0 + 1e-6)) as f32).collect(),
    ))
}
