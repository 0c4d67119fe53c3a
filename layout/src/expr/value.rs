//! The values an expression evaluates to, and the conversions between them.
//!
//! Conversions follow CuTe: an integer `n` where a layout is expected is `n:1`; a tuple of
//! integers where a layout is expected is the compact column-major layout of that shape, and where
//! a tiler is expected it is the by-mode tiler with one `n:1` per mode.
//!
//! ```
//! use tessel_layout::expr::{eval, Value};
//! assert_eq!(eval("cosize((4,8):(8,1))").unwrap(), Value::Int(32));
//! assert!(matches!(eval("(4,8):(8,1)").unwrap(), Value::Layout(_)));
//! ```

use std::fmt;

use crate::algebra::Tiler;
use crate::atom::{CopyAtom, MmaAtom};
use crate::basis::ScaledBasis;
use crate::composed::{ComposedLayout, Composition};
use crate::error::Result;
use crate::int_tuple::IntTuple;
use crate::layout::{Layout, SliceCoord};
use crate::leaf::Leaf;
use crate::static_int::Integer;
use crate::swizzle::Swizzle;
use crate::tiled::{TiledCopy, TiledMma};
use crate::typed::TypedLayout;
use crate::typed::algebra::TypedTiler;

/// The result of evaluating an expression.
///
/// ```
/// use tessel_layout::expr::{eval, Value};
/// assert_eq!(eval("size((4,8))").unwrap(), Value::Int(32));
/// assert_eq!(eval("(4,8)").unwrap().to_string(), "(4,8)");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Value {
    /// An integer.
    Int(i64),
    /// A tuple of integer tuples (never a bare integer: that is [`Value::Int`]).
    Tuple(IntTuple),
    /// A layout `shape:stride`.
    Layout(Layout),
    /// A swizzled layout `Sw<..> o offset o layout` with at least one swizzle or a nonzero offset.
    Composed(ComposedLayout),
    /// A swizzle functor `Sw<B,M,S>`.
    Swizzle(Swizzle),
    /// A composed layout `INNER o OFFSET o OUTER` whose inner function is a layout (CuTe's
    /// `ComposedLayout` with a `Layout` as `layout_a`), kept unevaluated.
    Composition(Box<Composition>),
    /// A tiler (only by-mode tilers are kept as tilers; a layout tiler is a [`Value::Layout`]).
    Tiler(Tiler),
    /// A truth value.
    Bool(bool),
    /// A slicing coordinate with at least one `_` (CuTe's `Underscore`), e.g. `(_,1)`: it keeps
    /// the modes marked `_` and fixes the others (see `at`).
    Slice(SliceCoord),
    /// A copy atom named as CuTe names it, e.g. `SM75_U32x4_LDSM_N` (see [`crate::atom`]).
    CopyAtom(Box<CopyAtom>),
    /// An MMA atom named as CuTe names it, e.g. `SM80_16x8x16_F32F16F16F32_TN`.
    MmaAtom(Box<MmaAtom>),
    /// A tiled copy (`make_tiled_copy`, see [`crate::tiled`]).
    TiledCopy(Box<TiledCopy>),
    /// A tiled MMA (`make_tiled_mma`).
    TiledMma(Box<TiledMma>),
    /// An integer, tuple or coordinate with a static integer (`_4`) or a basis element (`_1@0`)
    /// among its leaves (see [`crate::static_int`], [`crate::basis`]); one without is an
    /// [`Value::Int`] or [`Value::Tuple`].
    TypedTuple(IntTuple<ScaledBasis>),
    /// A layout with a static integer or a basis stride among its leaves (see
    /// [`crate::typed`]); one without is a [`Value::Layout`].
    TypedLayout(Box<TypedLayout>),
    /// A tiler of typed layouts (see [`TypedTiler`]).
    TypedTiler(TypedTiler),
    /// A typed layout that starts at an offset: what slicing a typed layout, `local_tile` and
    /// `local_partition` return. The offset is an integer (`OFFSET o LAYOUT`), or for basis
    /// strides a coordinate, printed as CuTe prints a coordinate tensor
    /// (`ArithTuple(96,64) o LAYOUT`).
    TypedOffset(Box<(IntTuple<Integer>, TypedLayout)>),
}

impl Value {
    /// The value of an integer tuple: [`Value::Int`] for an integer, else [`Value::Tuple`].
    ///
    /// ```
    /// use tessel_layout::{IntTuple, expr::Value};
    /// assert_eq!(Value::from_int_tuple(IntTuple::Int(3)), Value::Int(3));
    /// ```
    pub fn from_int_tuple(t: IntTuple) -> Value {
        match t {
            IntTuple::Int(v) => Value::Int(v),
            tuple => Value::Tuple(tuple),
        }
    }

    /// The value of a composed layout: a plain [`Value::Layout`] when it has no swizzle and
    /// no offset.
    ///
    /// ```
    /// use tessel_layout::{ComposedLayout, Layout, expr::Value};
    /// let c = ComposedLayout::new(vec![], 0, Layout::vector(8, 1).unwrap());
    /// assert!(matches!(Value::from_composed(c), Value::Layout(_)));
    /// ```
    pub fn from_composed(c: ComposedLayout) -> Value {
        if c.swizzles().is_empty() && c.base_offset() == 0 {
            Value::Layout(c.layout().clone())
        } else {
            Value::Composed(c)
        }
    }

    /// The value of a tiler: a layout tiler is a [`Value::Layout`].
    ///
    /// ```
    /// use tessel_layout::{Layout, Tiler, expr::Value};
    /// let t = Tiler::Layout(Layout::vector(4, 2).unwrap());
    /// assert!(matches!(Value::from_tiler(t), Value::Layout(_)));
    /// ```
    pub fn from_tiler(t: Tiler) -> Value {
        match t {
            Tiler::Layout(l) => Value::Layout(l),
            by_mode => Value::Tiler(by_mode),
        }
    }

    /// The value described with its kind, for error messages: "the integer 4".
    ///
    /// ```
    /// use tessel_layout::expr::Value;
    /// assert_eq!(Value::Int(4).describe(), "the integer 4");
    /// ```
    pub fn describe(&self) -> String {
        let kind = match self {
            Value::Int(_) => "the integer",
            Value::Tuple(_) => "the tuple",
            Value::Layout(_) => "the layout",
            Value::Composed(_) => "the swizzled layout",
            Value::Swizzle(_) => "the swizzle",
            Value::Composition(_) => "the composed layout",
            Value::Tiler(_) => "the tiler",
            Value::Bool(_) => "the boolean",
            Value::Slice(_) => "the slicing coordinate",
            Value::CopyAtom(_) => "the copy atom",
            Value::MmaAtom(_) => "the MMA atom",
            Value::TiledCopy(_) => "the tiled copy",
            Value::TiledMma(_) => "the tiled MMA",
            Value::TypedTuple(t) if t.is_int() => "the integer",
            Value::TypedTuple(_) => "the tuple",
            Value::TypedLayout(_) => "the layout",
            Value::TypedTiler(_) => "the tiler",
            Value::TypedOffset(_) => "the layout at an offset",
        };
        let mut text = self.to_string();
        const LIMIT: usize = 80;
        if text.len() > LIMIT {
            let mut cut = LIMIT;
            while !text.is_char_boundary(cut) {
                cut -= 1;
            }
            text.truncate(cut);
            text.push_str("...");
        }
        format!("{kind} {text}")
    }

    /// The integer or integer tuple this value is, if it is one.
    ///
    /// ```
    /// use tessel_layout::expr::Value;
    /// assert_eq!(Value::Int(4).as_int_tuple().unwrap().to_string(), "4");
    /// assert!(Value::Bool(true).as_int_tuple().is_none());
    /// ```
    pub fn as_int_tuple(&self) -> Option<IntTuple> {
        match self {
            Value::Int(v) => Some(IntTuple::Int(*v)),
            Value::Tuple(t) => Some(t.clone()),
            _ => None,
        }
    }

    /// The slicing coordinate this value stands for: a `_` or a tuple holding one is a
    /// [`Value::Slice`]; an integer or tuple fixes every mode. `None` for other values.
    ///
    /// ```
    /// use tessel_layout::expr::{eval, Value};
    /// assert_eq!(eval("(_,(1,_))").unwrap().as_slice().unwrap().to_string(), "(_,(1,_))");
    /// assert_eq!(Value::Int(3).as_slice().unwrap().to_string(), "3");
    /// assert!(Value::Bool(true).as_slice().is_none());
    /// ```
    pub fn as_slice(&self) -> Option<SliceCoord> {
        match self {
            Value::Slice(c) => Some(c.clone()),
            Value::TypedTuple(t) => t.known().map(|values| SliceCoord::from(&values)),
            other => other.as_int_tuple().map(|t| SliceCoord::from(&t)),
        }
    }

    /// The value of a tuple literal whose elements include a `_` or a slicing coordinate:
    /// `Some(Value::Slice)` when every element is an integer, a tuple or a slicing coordinate
    /// and at least one is a slicing coordinate, `None` otherwise (the tuple is then not a
    /// slicing coordinate).
    ///
    /// ```
    /// use tessel_layout::{SliceCoord, expr::Value};
    /// let v = Value::slice_tuple(&[Value::Slice(SliceCoord::All), Value::Int(1)]).unwrap();
    /// assert_eq!(v.to_string(), "(_,1)");
    /// assert!(Value::slice_tuple(&[Value::Int(2), Value::Int(1)]).is_none());
    /// ```
    pub fn slice_tuple(items: &[Value]) -> Option<Value> {
        if !items.iter().any(|v| matches!(v, Value::Slice(_))) {
            return None;
        }
        items
            .iter()
            .map(Value::as_slice)
            .collect::<Option<Vec<_>>>()
            .map(|parts| Value::Slice(SliceCoord::Tuple(parts)))
    }

    /// The layout this value stands for: `n` is `n:1`, a tuple is its compact column-major
    /// layout. `None` if the value is not layout-like; `Some(Err)` if the conversion fails.
    ///
    /// ```
    /// use tessel_layout::expr::Value;
    /// let l = Value::Tuple("(4,8)".parse().unwrap()).as_layout().unwrap().unwrap();
    /// assert_eq!(l.to_string(), "(4,8):(1,4)");
    /// assert_eq!(Value::Int(8).as_layout().unwrap().unwrap().to_string(), "8:1");
    /// ```
    pub fn as_layout(&self) -> Option<Result<Layout>> {
        match self {
            Value::Layout(l) => Some(Ok(l.clone())),
            Value::Int(n) => Some(Layout::vector(*n, 1)),
            Value::Tuple(t) => Some(Layout::col_major(t)),
            _ => None,
        }
    }

    /// The (possibly swizzled) layout this value stands for; plain layouts have no swizzle.
    ///
    /// ```
    /// use tessel_layout::expr::{eval, Value};
    /// let c = eval("Sw<3,3,3> o (8,64):(64,1)").unwrap().as_composed().unwrap().unwrap();
    /// assert_eq!(c.swizzles().len(), 1);
    /// ```
    pub fn as_composed(&self) -> Option<Result<ComposedLayout>> {
        match self {
            Value::Composed(c) => Some(Ok(c.clone())),
            other => other
                .as_layout()
                .map(|l| l.map(|l| ComposedLayout::new(vec![], 0, l))),
        }
    }

    /// The tiler this value stands for: a layout (or `n` as `n:1`) tiles the whole domain; a
    /// tuple is a by-mode tiler with one element per mode.
    ///
    /// ```
    /// use tessel_layout::{Tiler, expr::Value};
    /// let t = Value::Tuple("(2,3)".parse().unwrap()).as_tiler().unwrap().unwrap();
    /// assert!(matches!(t, Tiler::ByMode(ref modes) if modes.len() == 2));
    /// ```
    pub fn as_tiler(&self) -> Option<Result<Tiler>> {
        match self {
            Value::Tiler(t) => Some(Ok(t.clone())),
            Value::Layout(l) => Some(Ok(Tiler::Layout(l.clone()))),
            Value::Int(n) => Some(Layout::vector(*n, 1).map(Tiler::Layout)),
            Value::Tuple(t) => Some(tuple_tiler(t)),
            _ => None,
        }
    }
}

/// Values with static integers or basis elements (see [`crate::typed`]).
impl Value {
    /// Whether the value carries kinds: a [`Value::TypedTuple`], [`Value::TypedLayout`] or
    /// [`Value::TypedTiler`].
    ///
    /// ```
    /// use tessel_layout::expr::eval;
    /// assert!(eval("(_4,8)").unwrap().is_typed());
    /// assert!(!eval("(4,8)").unwrap().is_typed());
    /// ```
    pub fn is_typed(&self) -> bool {
        matches!(
            self,
            Value::TypedTuple(_)
                | Value::TypedLayout(_)
                | Value::TypedTiler(_)
                | Value::TypedOffset(_)
        )
    }

    /// The value of a typed tuple: a plain [`Value::Int`] or [`Value::Tuple`] when every leaf
    /// is a dynamic integer, else a [`Value::TypedTuple`].
    ///
    /// ```
    /// use tessel_layout::expr::Value;
    /// assert_eq!(Value::from_typed_tuple("(4,8)".parse().unwrap()).to_string(), "(4,8)");
    /// assert!(Value::from_typed_tuple("(_4,8)".parse().unwrap()).is_typed());
    /// ```
    pub fn from_typed_tuple(t: IntTuple<ScaledBasis>) -> Value {
        let plain = t
            .iter_leaves()
            .all(|b| b.is_integer() && !b.value().is_static());
        if plain {
            if let Some(values) = t.known() {
                return Value::from_int_tuple(values);
            }
        }
        Value::TypedTuple(t)
    }

    /// The value of a typed tuple of integers (see [`Value::from_typed_tuple`]).
    ///
    /// ```
    /// use tessel_layout::expr::Value;
    /// assert_eq!(Value::from_integers("(_1,(2,_3))".parse().unwrap()).to_string(), "(_1,(2,_3))");
    /// ```
    pub fn from_integers(t: IntTuple<Integer>) -> Value {
        Value::from_typed_tuple(t.map(&mut |v| ScaledBasis::from(*v)))
    }

    /// The value of a typed layout: a plain [`Value::Layout`] when it has no static leaf and
    /// no basis stride, else a [`Value::TypedLayout`].
    ///
    /// ```
    /// use tessel_layout::expr::Value;
    /// assert!(matches!(Value::from_typed_layout("(4,8):(1,4)".parse().unwrap()), Value::Layout(_)));
    /// ```
    pub fn from_typed_layout(l: TypedLayout) -> Value {
        if l.is_plain() {
            if let Ok(values) = l.values() {
                return Value::Layout(values);
            }
        }
        Value::TypedLayout(Box::new(l))
    }

    /// The value of a typed tiler: a plain tiler when every leaf is dynamic.
    ///
    /// ```
    /// use tessel_layout::expr::Value;
    /// assert!(Value::from_typed_tiler("[_2:_1,4:_1]".parse().unwrap()).is_typed());
    /// ```
    pub fn from_typed_tiler(t: TypedTiler) -> Value {
        match t {
            TypedTiler::Layout(l) => Value::from_typed_layout(*l),
            by_mode => Value::TypedTiler(by_mode),
        }
    }

    /// The typed tuple this value stands for (an integer or tuple: its dynamic leaves).
    ///
    /// ```
    /// use tessel_layout::expr::Value;
    /// assert_eq!(Value::Int(4).as_typed_tuple().unwrap().to_string(), "4");
    /// ```
    pub fn as_typed_tuple(&self) -> Option<IntTuple<ScaledBasis>> {
        match self {
            Value::TypedTuple(t) => Some(t.clone()),
            other => other
                .as_int_tuple()
                .map(|t| t.map(&mut |v| ScaledBasis::from(Integer::Dynamic(*v)))),
        }
    }

    /// The typed tuple of integers this value stands for; `Some(Err)` for basis elements.
    ///
    /// ```
    /// use tessel_layout::expr::eval;
    /// assert_eq!(eval("(_4,8)").unwrap().as_integers().unwrap().unwrap().to_string(), "(_4,8)");
    /// assert!(eval("_1@0").unwrap().as_integers().unwrap().is_err());
    /// ```
    pub fn as_integers(&self) -> Option<Result<IntTuple<Integer>>> {
        self.as_typed_tuple().map(|t| {
            t.map_to(&mut |b| {
                if b.is_integer() {
                    Ok(b.value())
                } else {
                    Err(crate::Error::invalid(format!(
                        "the basis element {b} stands where an integer is expected"
                    )))
                }
            })
        })
    }

    /// The typed layout this value stands for: a layout as it is (dynamic), an integer or a
    /// tuple as its compact layout with CuTe's kinds (`8` is `8:_1`).
    ///
    /// ```
    /// use tessel_layout::expr::eval;
    /// assert_eq!(eval("(_4,8)").unwrap().as_typed_layout().unwrap().unwrap().to_string(), "(_4,8):(_1,_4)");
    /// ```
    pub fn as_typed_layout(&self) -> Option<Result<TypedLayout>> {
        match self {
            Value::TypedLayout(l) => Some(Ok((**l).clone())),
            Value::Layout(l) => Some(Ok(TypedLayout::of(l, false))),
            Value::Int(_) | Value::Tuple(_) | Value::TypedTuple(_) => Some(
                self.as_integers()?
                    .and_then(|shape| TypedLayout::compact(&shape)),
            ),
            _ => None,
        }
    }

    /// The typed tiler this value stands for: a layout tiles the whole domain; a shape is a
    /// by-mode tiler whose every integer `n` is `n:_1`; a plain by-mode tiler has dynamic
    /// leaves (and no `_`, which typed tilers do not take).
    ///
    /// ```
    /// use tessel_layout::expr::eval;
    /// assert_eq!(eval("(_2,4)").unwrap().as_typed_tiler().unwrap().unwrap().to_string(), "[_2:_1,4:_1]");
    /// ```
    pub fn as_typed_tiler(&self) -> Option<Result<TypedTiler>> {
        fn shape_tiler(t: &IntTuple<Integer>) -> Result<TypedTiler> {
            match t {
                IntTuple::Int(_) => {
                    TypedLayout::compact(t).map(|l| TypedTiler::Layout(Box::new(l)))
                }
                IntTuple::Tuple(items) => items
                    .iter()
                    .map(|i| shape_tiler(&i))
                    .collect::<Result<_>>()
                    .map(TypedTiler::ByMode),
            }
        }
        match self {
            Value::TypedTiler(t) => Some(Ok(t.clone())),
            Value::TypedLayout(l) => Some(Ok(TypedTiler::Layout(l.clone()))),
            Value::Layout(l) => Some(Ok(TypedTiler::Layout(Box::new(TypedLayout::of(l, false))))),
            Value::Tiler(t) => Some(TypedTiler::of(t, false).ok_or_else(|| {
                crate::Error::invalid(format!(
                    "the tiler {t} keeps a mode with '_': typed layouts take tilers without '_'"
                ))
            })),
            Value::Int(_) | Value::Tuple(_) | Value::TypedTuple(_) => {
                Some(self.as_integers()?.and_then(|t| shape_tiler(&t)))
            }
            _ => None,
        }
    }

    /// The value without kinds: static integers as plain integers, typed layouts and tilers as
    /// plain ones; an error for basis elements, which have no plain value. Other values are
    /// returned as they are.
    ///
    /// ```
    /// use tessel_layout::expr::eval;
    /// assert_eq!(eval("(_4,8):(_1,_4)").unwrap().to_plain().unwrap().to_string(), "(4,8):(1,4)");
    /// assert!(eval("(4,8):(_1@0,_1@1)").unwrap().to_plain().is_err());
    /// ```
    pub fn to_plain(&self) -> Result<Value> {
        Ok(match self {
            Value::TypedTuple(t) => {
                let values = t.map_to(&mut |b| {
                    b.known().ok_or_else(|| {
                        crate::Error::invalid(format!(
                            "the basis element {b} has no integer value (in {t})"
                        ))
                    })
                })?;
                Value::from_int_tuple(values)
            }
            Value::TypedLayout(l) => Value::Layout(l.values()?),
            Value::TypedTiler(t) => Value::from_tiler(t.values()?),
            Value::TypedOffset(at) => match &at.0 {
                IntTuple::Int(offset) => Value::from_composed(ComposedLayout::new(
                    vec![],
                    offset.value(),
                    at.1.values()?,
                )),
                coord => {
                    return Err(crate::Error::invalid(format!(
                        "the coordinate layout starting at {coord} has no plain value"
                    )));
                }
            },
            other => other.clone(),
        })
    }
}

/// A shape as a by-mode tiler: every integer `n` becomes `n:1`, every sub-tuple a nested tiler.
fn tuple_tiler(t: &IntTuple) -> Result<Tiler> {
    match t {
        IntTuple::Int(n) => Layout::vector(*n, 1).map(Tiler::Layout),
        IntTuple::Tuple(items) => items
            .iter()
            .map(|item| tuple_tiler(&item).map(Some))
            .collect::<Result<Vec<_>>>()
            .map(Tiler::ByMode),
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Int(v) => write!(f, "{v}"),
            Value::Tuple(t) => write!(f, "{t}"),
            Value::Layout(l) => write!(f, "{l}"),
            Value::Composed(c) => write!(f, "{c}"),
            Value::Swizzle(s) => write!(f, "{s}"),
            Value::Composition(c) => write!(f, "{c}"),
            Value::Tiler(t) => write!(f, "{t}"),
            Value::Bool(b) => write!(f, "{b}"),
            Value::Slice(c) => write!(f, "{c}"),
            Value::CopyAtom(a) => write!(f, "{a}"),
            Value::MmaAtom(a) => write!(f, "{a}"),
            Value::TiledCopy(c) => write_tiled_copy(f, c),
            Value::TiledMma(m) => write_tiled_mma(f, m),
            Value::TypedTuple(t) => write!(f, "{t}"),
            Value::TypedLayout(l) => write!(f, "{l}"),
            Value::TypedTiler(t) => write!(f, "{t}"),
            Value::TypedOffset(at) => match &at.0 {
                IntTuple::Int(offset) => write!(f, "{offset} o {}", at.1),
                coord => write!(f, "ArithTuple{coord} o {}", at.1),
            },
        }
    }
}

/// A tuple of integers in CuTe notation: `(16,64)`, or `16` for one.
fn int_list(items: &[i64]) -> String {
    match items {
        [one] => one.to_string(),
        _ => {
            let parts: Vec<String> = items.iter().map(i64::to_string).collect();
            format!("({})", parts.join(","))
        }
    }
}

/// A tiled copy on one line, with the facts CuTe's `print(tiled_copy)` lists.
fn write_tiled_copy(f: &mut fmt::Formatter<'_>, c: &TiledCopy) -> fmt::Result {
    write!(
        f,
        "TiledCopy(Tiler_MN: {}, TiledLayout_TV: {}, {})",
        int_list(c.tiler()),
        c.layout_tv(),
        c.atom()
    )
}

/// A tiled MMA on one line, with the facts CuTe's `print(tiled_mma)` lists.
fn write_tiled_mma(f: &mut fmt::Formatter<'_>, m: &TiledMma) -> fmt::Result {
    write!(f, "TiledMMA(ThrLayoutVMNK: {}", m.thr_layout_vmnk())?;
    let perms: Vec<String> = (0..3)
        .map(|i| {
            m.permutation_mnk(i)
                .map_or_else(|_| "_".into(), |p| p.to_string())
        })
        .collect();
    write!(f, ", PermutationMNK: ({})", perms.join(","))?;
    write!(f, ", {})", m.atom())
}
