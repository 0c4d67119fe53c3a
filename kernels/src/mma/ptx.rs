//! The instruction wrappers the tensor-core swizzle kernels call, as `dev::` device-function
//! pieces, in ONE place (each a small function returning the name and the code).
//!
//! Calling convention (shared with the generator of atom wrappers): the parameters follow the
//! atom's inline-asm operand order (`tessel_layout::atom::CopyAtom::operands`,
//! `MmaAtom::operands`) and are named by role; a written register group is `T*`, a read-only
//! group of more than one register `const T*`, a read-only single register by value; `b32` for
//! `"r"` and `float` for `"f"` registers. The strings are written by hand from the atoms'
//! templates ([`ldsm`] and [`ldsm_t`] from `SM75_U32x4_LDSM_N` / `SM75_U16x8_LDSM_T`, [`mma`] from
//! `SM80_16x8x16_F32F16F16F32_TN`); the module's tests check that each contains its atom's
//! opcode.
//!
//! ```
//! use tessel_kernels::mma::ptx;
//! let (name, code) = ptx::mma();
//! assert_eq!(name, "mma");
//! assert!(code.contains("void mma(float* d, const b32* a, const b32* b, const float* c)"));
//! ```

/// `dev::ldsm(b32* dst, b32 smem)`: `ldmatrix.sync.aligned.m8n8.x4.shared.b16` (four 8x8 b16
/// matrices; `smem` is the 32-bit shared address of the row this lane provides). `volatile` with
/// a memory clobber: it reads shared memory other lanes wrote.
///
/// ```
/// let (name, code) = tessel_kernels::mma::ptx::ldsm();
/// assert_eq!(name, "ldsm");
/// assert!(code.contains("ldmatrix.sync.aligned.m8n8.x4.shared.b16"));
/// ```
pub fn ldsm() -> (&'static str, &'static str) {
    (
        "ldsm",
        r#"__device__ __forceinline__ void ldsm(b32* dst, b32 smem) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
               : "=r"(dst[0]), "=r"(dst[1]), "=r"(dst[2]), "=r"(dst[3])
               : "r"(smem) : "memory");
}"#,
    )
}

/// `dev::ldsm_t(b32* dst, b32 smem)`: `ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16`.
///
/// ```
/// let (name, code) = tessel_kernels::mma::ptx::ldsm_t();
/// assert_eq!(name, "ldsm_t");
/// assert!(code.contains("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16"));
/// ```
pub fn ldsm_t() -> (&'static str, &'static str) {
    (
        "ldsm_t",
        r#"__device__ __forceinline__ void ldsm_t(b32* dst, b32 smem) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];"
               : "=r"(dst[0]), "=r"(dst[1]), "=r"(dst[2]), "=r"(dst[3])
               : "r"(smem) : "memory");
}"#,
    )
}

/// `dev::mma(float* d, const b32* a, const b32* b, const float* c)`:
/// `mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32`, `d = a * b + c` (not `volatile`: a pure
/// function of registers).
///
/// ```
/// let (_, code) = tessel_kernels::mma::ptx::mma();
/// assert!(code.contains("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"));
/// ```
pub fn mma() -> (&'static str, &'static str) {
    (
        "mma",
        r#"__device__ __forceinline__ void mma(float* d, const b32* a, const b32* b, const float* c) {
  asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
      "{%8, %9}, {%10, %11, %12, %13};"
      : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]),
        "f"(c[0]), "f"(c[1]), "f"(c[2]), "f"(c[3]));
}"#,
    )
}

/// `dev::pack_half2(float lo, float hi)`: two floats rounded to fp16 (round to nearest even) in
/// one 32-bit word, `lo` in the low half (`cvt.rn.f16x2.f32` puts its first source in the upper
/// half, PTX ISA "cvt").
///
/// ```
/// let (_, code) = tessel_kernels::mma::ptx::pack_half2();
/// assert!(code.contains("cvt.rn.f16x2.f32 %0, %2, %1;"));
/// ```
pub fn pack_half2() -> (&'static str, &'static str) {
    (
        "pack_half2",
        r#"__device__ __forceinline__ b32 pack_half2(float lo, float hi) {
  b32 w;
  asm("cvt.rn.f16x2.f32 %0, %2, %1;" : "=r"(w) : "f"(lo), "f"(hi));
  return w;
}"#,
    )
}
