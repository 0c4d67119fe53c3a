//! Scaled basis elements: strides that step a coordinate instead of an offset (CuTe's
//! `ScaledBasis` and `E<i...>`, `include/cute/numeric/arithmetic_tuple.hpp`, CUTLASS v4.2.1).
//!
//! `E<0>` is the unit vector `(1,0,0,...)`, `E<1>` is `(0,1,0,...)`, `E<1,0>` is
//! `(0,(1,0,...),...)`; a basis element scaled by `v` holds `v` at that position. A layout
//! whose strides are basis elements maps a coordinate to a coordinate: the identity layout
//! `(4,8):(_1@0,_1@1)` maps `(i,j)` to `(i,j)`, which is what CuTe's `make_identity_tensor`
//! builds for predication. CuTe writes the scale, then `@` and the mode indices innermost first:
//! `E<1,0>` prints `_1@0@1`. With no mode index the element is the plain integer (CuTe's `E<>`
//! is `_1`), so [`ScaledBasis`] is also the stride leaf of layouts whose strides are ordinary
//! static or dynamic integers.
//!
//! ```
//! use tessel_layout::basis::ScaledBasis;
//! use tessel_layout::static_int::Integer;
//! let e10: ScaledBasis = "_1@0@1".parse().unwrap();
//! assert_eq!(e10.modes(), &[1, 0]);
//! assert_eq!(e10.value(), Integer::Static(1));
//! assert_eq!(ScaledBasis::unit(&[1, 0]).to_string(), "_1@0@1");
//! assert_eq!("4".parse::<ScaledBasis>().unwrap().to_string(), "4");
//! ```

use std::fmt;
use std::str::FromStr;

use smallvec::SmallVec;

use crate::error::{Error, ErrorKind, Result};
use crate::int_tuple::IntTuple;
use crate::leaf::{Leaf, integer_literal, integer_token};
use crate::static_int::Integer;

/// A mode path, outermost first.
pub type Path = SmallVec<[u16; 3]>;

/// An [`Integer`] scaled onto a basis direction: `value` at the position `modes` (outermost
/// first) of an otherwise zero coordinate. With no mode it is the integer itself.
///
/// ```
/// use tessel_layout::{basis::ScaledBasis, static_int::Integer};
/// let e = ScaledBasis::new(Integer::Dynamic(3), &[1]);
/// assert_eq!(e.to_string(), "3@1");
/// assert_eq!(e.to_coord().unwrap().to_string(), "(_0,3)");
/// assert!(ScaledBasis::from(Integer::Static(4)).is_integer());
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ScaledBasis {
    value: Integer,
    modes: Path,
}

impl ScaledBasis {
    /// `value` at the mode path `modes` (outermost first).
    ///
    /// ```
    /// use tessel_layout::{basis::ScaledBasis, static_int::Integer};
    /// assert_eq!(ScaledBasis::new(Integer::Static(2), &[0]).to_string(), "_2@0");
    /// ```
    pub fn new(value: Integer, modes: &[u16]) -> ScaledBasis {
        ScaledBasis {
            value,
            modes: modes.iter().copied().collect(),
        }
    }

    /// The unit element `E<modes...>` (scale `_1`).
    ///
    /// ```
    /// assert_eq!(tessel_layout::basis::ScaledBasis::unit(&[1]).to_string(), "_1@1");
    /// ```
    pub fn unit(modes: &[u16]) -> ScaledBasis {
        ScaledBasis::new(Integer::Static(1), modes)
    }

    /// The scale.
    ///
    /// ```
    /// use tessel_layout::{basis::ScaledBasis, static_int::Integer};
    /// assert_eq!(ScaledBasis::unit(&[0]).value(), Integer::Static(1));
    /// ```
    pub fn value(&self) -> Integer {
        self.value
    }

    /// The mode path, outermost first (empty for a plain integer).
    ///
    /// ```
    /// assert_eq!(tessel_layout::basis::ScaledBasis::unit(&[2, 1]).modes(), &[2, 1]);
    /// ```
    pub fn modes(&self) -> &[u16] {
        &self.modes
    }

    /// Whether this is a plain integer (no mode).
    ///
    /// ```
    /// use tessel_layout::basis::ScaledBasis;
    /// assert!(!ScaledBasis::unit(&[0]).is_integer());
    /// ```
    pub fn is_integer(&self) -> bool {
        self.modes.is_empty()
    }

    /// The same direction with the scale `f(scale)`.
    ///
    /// ```
    /// use tessel_layout::{basis::ScaledBasis, static_int::{Integer, Num}};
    /// let e = ScaledBasis::unit(&[1]).scaled(|v| v.times(Integer::Dynamic(4))).unwrap();
    /// assert_eq!(e.to_string(), "4@1");
    /// ```
    pub fn scaled(&self, f: impl FnOnce(Integer) -> Result<Integer>) -> Result<ScaledBasis> {
        Ok(ScaledBasis {
            value: f(self.value)?,
            modes: self.modes.clone(),
        })
    }

    /// The coordinate this element stands for: the scale at its position, `_0` elsewhere
    /// (CuTe's `as_arithmetic_tuple`); the plain integer for no mode.
    ///
    /// ```
    /// use tessel_layout::basis::ScaledBasis;
    /// assert_eq!(ScaledBasis::unit(&[1, 0]).to_coord().unwrap().to_string(), "(_0,(_1))");
    /// ```
    pub fn to_coord(&self) -> Result<IntTuple<Integer>> {
        let mut coord = IntTuple::Int(self.value);
        for &m in self.modes.iter().rev() {
            let mut items: Vec<IntTuple<Integer>> =
                vec![IntTuple::Int(Integer::Static(0)); usize::from(m)];
            items.push(coord);
            coord = IntTuple::Tuple(items.into());
        }
        Ok(coord)
    }
}

impl From<Integer> for ScaledBasis {
    /// A plain integer (no mode).
    fn from(value: Integer) -> ScaledBasis {
        ScaledBasis {
            value,
            modes: Path::new(),
        }
    }
}

impl fmt::Display for ScaledBasis {
    /// The scale, then `@i` for each mode index, innermost first (CuTe's `print`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.value)?;
        for m in self.modes.iter().rev() {
            write!(f, "@{m}")?;
        }
        Ok(())
    }
}

impl Leaf for ScaledBasis {
    fn from_int(v: i64) -> Self {
        ScaledBasis::from(Integer::Dynamic(v))
    }

    /// The integer of a plain element; `None` for a basis element (not an integer).
    fn known(&self) -> Option<i64> {
        self.is_integer().then_some(self.value.value())
    }

    const EXPECTED: &'static str = "an integer or a basis element (_1@0)";

    fn scan(text: &str, start: usize) -> Result<Option<(Self, usize)>> {
        let Some((v, is_static, mut end)) = integer_token(text, start)? else {
            return Ok(None);
        };
        let mut modes = Path::new();
        while text.as_bytes().get(end) == Some(&b'@') {
            let at = end;
            let index = match integer_literal(text, at + 1)? {
                Some((m, next)) if !text[at + 1..next].starts_with('-') => {
                    end = next;
                    u16::try_from(m).ok()
                }
                _ => None,
            };
            let Some(index) = index else {
                return Err(Error::new(
                    ErrorKind::Parse,
                    "expected a mode index (0 to 65535) after '@'",
                )
                .at(at..end.max(at + 1)));
            };
            modes.push(index);
        }
        modes.reverse();
        Ok(Some((
            ScaledBasis {
                value: Integer::of(v, is_static),
                modes,
            },
            end,
        )))
    }
}

impl FromStr for ScaledBasis {
    type Err = Error;

    /// `_1@0`, `4@1@0`, or a plain integer `_4` / `4`.
    fn from_str(s: &str) -> Result<ScaledBasis> {
        match s.parse::<IntTuple<ScaledBasis>>()? {
            IntTuple::Int(e) => Ok(e),
            IntTuple::Tuple(_) => Err(Error::new(
                ErrorKind::Parse,
                format!("expected a basis element such as _1@0, found the tuple {s}"),
            )),
        }
    }
}

/// CuTe's `make_basis_like(shape)`: the tuple congruent to `shape` whose leaf at mode path `p`
/// is the unit element `E<p...>`: the stride of the identity layout of `shape`.
///
/// ```
/// use tessel_layout::{IntTuple, basis::basis_like, static_int::Integer};
/// let shape: IntTuple<Integer> = "(4,(2,_3))".parse().unwrap();
/// assert_eq!(basis_like(&shape).to_string(), "(_1@0,(_1@0@1,_1@1@1))");
/// ```
pub fn basis_like<T: Leaf>(shape: &IntTuple<T>) -> IntTuple<ScaledBasis> {
    fn go<T: Leaf>(t: &IntTuple<T>, path: &mut Vec<u16>) -> IntTuple<ScaledBasis> {
        match t {
            IntTuple::Int(_) => IntTuple::Int(ScaledBasis::unit(path)),
            IntTuple::Tuple(items) => IntTuple::Tuple(
                items
                    .iter()
                    .enumerate()
                    .map(|(i, item)| {
                        path.push(u16::try_from(i).unwrap_or(u16::MAX));
                        let r = go(&item, path);
                        path.pop();
                        r
                    })
                    .collect(),
            ),
        }
    }
    match shape {
        // A rank-1 shape that is an integer is its own mode 0 (CuTe: E<> for an integer shape
        // is the integer 1, the identity of a 1-D domain).
        IntTuple::Int(_) => IntTuple::Int(ScaledBasis::from(Integer::Static(1))),
        _ => go(shape, &mut Vec::new()),
    }
}
