//! Linear algebra over GF(2) on offsets seen as bit vectors.
//!
//! A layout whose extents and strides are powers of two and whose modes occupy disjoint bit
//! ranges moves index bits to offset bits without carries, and a swizzle XORs bits into other
//! bits: both are linear maps over GF(2). [`AffineMap`] holds such a map as the images of the
//! basis vectors `1 << k` plus a constant, which is enough to decide injectivity by rank.

use crate::error::{Error, Result};

/// A map `x -> constant ^ XOR_{k : bit k of x set} columns[k]` on `columns.len()`-bit inputs.
///
/// ```
/// use tessel_layout::f2::AffineMap;
/// // swap bits 0 and 1, then flip bit 2
/// let m = AffineMap::new(vec![0b010, 0b001], 0b100);
/// assert_eq!(m.apply(0b01), 0b110);
/// assert_eq!(m.rank(), 2);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct AffineMap {
    columns: Vec<u64>,
    constant: u64,
}

impl AffineMap {
    /// The map with the given basis images (`columns[k]` = image of `1 << k` minus the constant)
    /// and constant (the image of 0).
    ///
    /// ```
    /// let m = tessel_layout::f2::AffineMap::new(vec![1, 2, 4], 0);
    /// assert_eq!(m.input_bits(), 3);
    /// ```
    pub fn new(columns: Vec<u64>, constant: u64) -> AffineMap {
        AffineMap { columns, constant }
    }

    /// Probes `f` on 0 and on every `1 << k` for `k < input_bits`, assuming `f` is affine.
    /// The caller must know that `f` is affine (see [`AffineMap::is_affine_exhaustive`] to
    /// check it on small domains).
    ///
    /// ```
    /// use tessel_layout::f2::AffineMap;
    /// let m = AffineMap::probe(3, |x| Ok(x ^ ((x & 4) >> 2))).unwrap();
    /// assert_eq!(m.columns(), &[1, 2, 5]);
    /// ```
    pub fn probe(input_bits: u32, f: impl Fn(u64) -> Result<u64>) -> Result<AffineMap> {
        if input_bits > 63 {
            return Err(Error::invalid(format!(
                "an affine map on {input_bits} input bits does not fit in 64-bit offsets"
            )));
        }
        let constant = f(0)?;
        let columns = (0..input_bits)
            .map(|k| f(1u64 << k).map(|y| y ^ constant))
            .collect::<Result<Vec<u64>>>()?;
        Ok(AffineMap { columns, constant })
    }

    /// Whether `f` agrees with the affine map built from its basis images on all of
    /// `0..2^input_bits` (exhaustive; for tests and small domains).
    ///
    /// ```
    /// use tessel_layout::f2::AffineMap;
    /// assert!(AffineMap::is_affine_exhaustive(4, |x| Ok(x ^ 8)).unwrap());
    /// assert!(!AffineMap::is_affine_exhaustive(4, |x| Ok(3 * x)).unwrap());
    /// ```
    pub fn is_affine_exhaustive(input_bits: u32, f: impl Fn(u64) -> Result<u64>) -> Result<bool> {
        if input_bits > 24 {
            return Err(Error::invalid(format!(
                "checking affinity on 2^{input_bits} inputs is too large to decide exhaustively"
            )));
        }
        let map = AffineMap::probe(input_bits, &f)?;
        for x in 0..(1u64 << input_bits) {
            if f(x)? != map.apply(x) {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// The basis images without the constant.
    ///
    /// ```
    /// assert_eq!(tessel_layout::f2::AffineMap::new(vec![4], 1).columns(), &[4]);
    /// ```
    pub fn columns(&self) -> &[u64] {
        &self.columns
    }

    /// The image of 0.
    ///
    /// ```
    /// assert_eq!(tessel_layout::f2::AffineMap::new(vec![4], 1).constant(), 1);
    /// ```
    pub fn constant(&self) -> u64 {
        self.constant
    }

    /// The number of input bits.
    ///
    /// ```
    /// assert_eq!(tessel_layout::f2::AffineMap::new(vec![4, 8], 0).input_bits(), 2);
    /// ```
    pub fn input_bits(&self) -> u32 {
        self.columns.len() as u32
    }

    /// Evaluates the map (input bits beyond `input_bits` are ignored).
    ///
    /// ```
    /// assert_eq!(tessel_layout::f2::AffineMap::new(vec![4, 8], 1).apply(3), 13);
    /// ```
    pub fn apply(&self, x: u64) -> u64 {
        self.columns
            .iter()
            .enumerate()
            .filter(|&(k, _)| x.checked_shr(k as u32).is_some_and(|v| v & 1 == 1))
            .fold(self.constant, |acc, (_, c)| acc ^ c)
    }

    /// The rank of the linear part (Gaussian elimination over GF(2)).
    ///
    /// ```
    /// use tessel_layout::f2::AffineMap;
    /// assert_eq!(AffineMap::new(vec![3, 5, 6], 0).rank(), 2); // 3 ^ 5 == 6
    /// ```
    pub fn rank(&self) -> u32 {
        rank(&self.columns)
    }

    /// Whether the map is injective on `0..2^input_bits` (full column rank).
    ///
    /// ```
    /// use tessel_layout::f2::AffineMap;
    /// assert!(AffineMap::new(vec![2, 1], 7).is_injective());
    /// assert!(!AffineMap::new(vec![2, 2], 0).is_injective());
    /// ```
    pub fn is_injective(&self) -> bool {
        self.rank() == self.input_bits()
    }

    /// Whether the map is a bijection of `0..2^input_bits` onto itself: injective, and no column
    /// nor the constant has a bit at or above `input_bits`.
    ///
    /// ```
    /// use tessel_layout::f2::AffineMap;
    /// assert!(AffineMap::new(vec![2, 1], 3).is_bijective_onto_domain());
    /// assert!(!AffineMap::new(vec![2, 4], 0).is_bijective_onto_domain());
    /// ```
    pub fn is_bijective_onto_domain(&self) -> bool {
        let n = self.input_bits();
        let high = |v: u64| n < 64 && (v >> n) != 0;
        self.is_injective() && !high(self.constant) && !self.columns.iter().any(|&c| high(c))
    }
}

/// The rank over GF(2) of a set of bit vectors.
///
/// ```
/// assert_eq!(tessel_layout::f2::rank(&[1, 2, 3]), 2);
/// assert_eq!(tessel_layout::f2::rank(&[0, 0]), 0);
/// ```
pub fn rank(vectors: &[u64]) -> u32 {
    // Keep a reduced basis indexed by leading bit.
    let mut basis = [0u64; 64];
    let mut rank = 0;
    for &v in vectors {
        let mut x = v;
        while x != 0 {
            let lead = 63 - x.leading_zeros() as usize;
            if basis[lead] == 0 {
                basis[lead] = x;
                rank += 1;
                break;
            }
            x ^= basis[lead];
        }
    }
    rank
}

/// `log2(v)` when `v` is a positive power of two.
///
/// ```
/// assert_eq!(tessel_layout::f2::exact_log2(64), Some(6));
/// assert_eq!(tessel_layout::f2::exact_log2(48), None);
/// ```
pub fn exact_log2(v: i64) -> Option<u32> {
    (v > 0 && v & (v - 1) == 0).then(|| v.trailing_zeros())
}
