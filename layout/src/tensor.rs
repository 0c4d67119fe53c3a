//! A host tensor: data plus a (possibly swizzled) layout, CuTe's `Tensor` for CPU code.
//!
//! A [`Tensor`] pairs storage (an owned `Vec<T>`, a borrowed `&[T]` or `&mut [T]`) with a
//! [`ComposedLayout`]: element `i` of the tensor is `data[layout(i)]`. Every layout a tensor
//! is given is checked once to stay inside the data, so indexing never reads out of bounds;
//! an index or coordinate outside the layout's domain is an error.
//!
//! Views are cheap: [`Tensor::view`] / [`Tensor::view_mut`] borrow the data, and the
//! partitioners ([`local_tile`](Tensor::local_tile), [`local_partition`](Tensor::local_partition),
//! the [`ThrCopy`] and [`ThrMma`] partitions, [`compose`](Tensor::compose)) take a tensor by
//! value and return it with the new layout, so `t.view().local_tile(..)` reads a tile and
//! `t.view_mut().local_tile(..)` writes one.
//!
//! ```
//! use tessel_layout::tensor::{Tensor, copy};
//! use tessel_layout::{IntTuple, Layout};
//! // A 4x4 row-major matrix and its transpose, copied elementwise.
//! let a = Tensor::new((0..16).collect::<Vec<i32>>(), "(4,4):(4,1)".parse::<Layout>().unwrap()).unwrap();
//! let mut b = Tensor::new(vec![0; 16], "(4,4):(1,4)".parse::<Layout>().unwrap()).unwrap();
//! copy(&a, &mut b).unwrap();
//! assert_eq!(b.data()[1], 4); // b is column-major: data[1] is (1,0) = a's 4
//! assert_eq!(*a.at(&IntTuple::from_ints([2, 3])).unwrap(), 11);
//! ```

use crate::tiled::{ThrCopy, ThrMma};
use crate::{ComposedLayout, Coord, Error, Layout, Result, SliceCoord, Tiler};

/// The most elements whose offsets are enumerated to check that a layout stays inside its
/// data, when the layout's bounds alone do not show it.
pub const BOUNDS_ENUMERATION_LIMIT: i64 = 1 << 24;

/// Contiguous element storage a [`Tensor`] reads.
///
/// ```
/// use tessel_layout::tensor::Storage;
/// let v = vec![1, 2, 3];
/// assert_eq!(v.as_slice_of(), &[1, 2, 3]);
/// ```
pub trait Storage {
    /// The element type.
    type Elem;
    /// The elements.
    fn as_slice_of(&self) -> &[Self::Elem];
}

/// Storage a [`Tensor`] can write.
///
/// ```
/// use tessel_layout::tensor::StorageMut;
/// let mut v = vec![1, 2, 3];
/// v.as_mut_slice_of()[0] = 7;
/// assert_eq!(v, [7, 2, 3]);
/// ```
pub trait StorageMut: Storage {
    /// The elements, writable.
    fn as_mut_slice_of(&mut self) -> &mut [Self::Elem];
}

impl<T> Storage for Vec<T> {
    type Elem = T;
    fn as_slice_of(&self) -> &[T] {
        self
    }
}

impl<T> StorageMut for Vec<T> {
    fn as_mut_slice_of(&mut self) -> &mut [T] {
        self
    }
}

impl<T> Storage for &[T] {
    type Elem = T;
    fn as_slice_of(&self) -> &[T] {
        self
    }
}

impl<T> Storage for &mut [T] {
    type Elem = T;
    fn as_slice_of(&self) -> &[T] {
        self
    }
}

impl<T> StorageMut for &mut [T] {
    fn as_mut_slice_of(&mut self) -> &mut [T] {
        self
    }
}

/// Data and a layout: element `i` is `data[layout(i)]`.
///
/// ```
/// use tessel_layout::{tensor::Tensor, ComposedLayout};
/// let layout: ComposedLayout = "Sw<1,0,1> o 4:1".parse().unwrap();
/// let t = Tensor::new(vec!['a', 'b', 'c', 'd'], layout).unwrap();
/// assert_eq!(t.iter().collect::<String>(), "abdc");
/// assert!(Tensor::new(vec![0; 3], "4:1".parse::<tessel_layout::Layout>().unwrap()).is_err());
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tensor<S> {
    data: S,
    layout: ComposedLayout,
}

/// An owned tensor.
///
/// ```
/// let t: tessel_layout::tensor::OwnedTensor<f32> =
///     tessel_layout::tensor::Tensor::filled(0.5, "(2,3):(3,1)".parse::<tessel_layout::Layout>().unwrap()).unwrap();
/// assert_eq!(t.size(), 6);
/// ```
pub type OwnedTensor<T> = Tensor<Vec<T>>;

/// Checks that every value of `layout` indexes one of `len` elements.
fn check_bounds(layout: &ComposedLayout, len: usize) -> Result<()> {
    let len = i64::try_from(len).unwrap_or(i64::MAX);
    let fits = |lo: i64, hi: i64| lo >= 0 && hi < len;
    if let Ok((lo, hi)) = layout.value_range() {
        if fits(lo, hi) {
            return Ok(());
        }
    }
    if layout.size() > BOUNDS_ENUMERATION_LIMIT {
        return Err(Error::invalid(format!(
            "the layout {layout} may reach outside the {len} elements of the data, and its \
             {} elements are more than the {BOUNDS_ENUMERATION_LIMIT} that are enumerated to \
             check it",
            layout.size()
        )));
    }
    let offsets = layout.offsets();
    match offsets.iter().find(|&&o| !(0..len).contains(&o)) {
        Some(o) => Err(Error::invalid(format!(
            "the layout {layout} reaches element {o}, outside the {len} elements of the data"
        ))),
        None => Ok(()),
    }
}

impl<T: Clone> Tensor<Vec<T>> {
    /// A tensor of `layout` whose data has `cosize` elements, all `value` (the layout's
    /// offsets must be non-negative).
    ///
    /// ```
    /// use tessel_layout::{tensor::Tensor, Layout};
    /// let t = Tensor::filled(1u8, "(4,2):(2,1)".parse::<Layout>().unwrap()).unwrap();
    /// assert_eq!(t.data().len(), 8);
    /// ```
    pub fn filled(value: T, layout: impl Into<ComposedLayout>) -> Result<Tensor<Vec<T>>> {
        let layout = layout.into();
        let (_, hi) = layout.value_range()?;
        let len = usize::try_from(hi.saturating_add(1)).unwrap_or(0);
        Tensor::new(vec![value; len], layout)
    }
}

impl<S: Storage> Tensor<S> {
    /// A tensor over `data` with `layout`; every value of the layout must index an element of
    /// `data`.
    ///
    /// ```
    /// use tessel_layout::{tensor::Tensor, Layout};
    /// let t = Tensor::new(vec![1, 2, 3, 4, 5, 6], "(2,3):(3,1)".parse::<Layout>().unwrap()).unwrap();
    /// assert_eq!(*t.get(1).unwrap(), 4); // index 1 is (1,0): offset 3
    /// let err = Tensor::new(vec![1, 2], "(2,3):(3,1)".parse::<Layout>().unwrap()).unwrap_err();
    /// assert!(err.message().contains("outside"));
    /// ```
    pub fn new(data: S, layout: impl Into<ComposedLayout>) -> Result<Tensor<S>> {
        let layout = layout.into();
        check_bounds(&layout, data.as_slice_of().len())?;
        Ok(Tensor { data, layout })
    }

    /// The layout.
    ///
    /// ```
    /// use tessel_layout::{tensor::Tensor, Layout};
    /// let t = Tensor::new(vec![0; 4], "4:1".parse::<Layout>().unwrap()).unwrap();
    /// assert_eq!(t.layout().to_string(), "4:1");
    /// ```
    pub fn layout(&self) -> &ComposedLayout {
        &self.layout
    }

    /// All the underlying data (not only the elements the layout reaches).
    ///
    /// ```
    /// use tessel_layout::{tensor::Tensor, Layout};
    /// let t = Tensor::new(vec![1, 2, 3], "2:2".parse::<Layout>().unwrap()).unwrap();
    /// assert_eq!(t.data(), &[1, 2, 3]);
    /// ```
    pub fn data(&self) -> &[S::Elem] {
        self.data.as_slice_of()
    }

    /// The storage.
    ///
    /// ```
    /// use tessel_layout::{tensor::Tensor, Layout};
    /// let t = Tensor::new(vec![1, 2], "2:1".parse::<Layout>().unwrap()).unwrap();
    /// assert_eq!(t.into_data(), vec![1, 2]);
    /// ```
    pub fn into_data(self) -> S {
        self.data
    }

    /// Number of elements (the layout's domain size).
    ///
    /// ```
    /// use tessel_layout::{tensor::Tensor, Layout};
    /// assert_eq!(Tensor::new(vec![0; 8], "(2,4):(4,1)".parse::<Layout>().unwrap()).unwrap().size(), 8);
    /// ```
    pub fn size(&self) -> i64 {
        self.layout.size()
    }

    /// The same data with another layout (checked to stay inside the data).
    ///
    /// ```
    /// use tessel_layout::{tensor::Tensor, Layout};
    /// let t = Tensor::new(vec![1, 2, 3, 4], "4:1".parse::<Layout>().unwrap()).unwrap();
    /// let r = t.with_layout("2:3".parse::<Layout>().unwrap()).unwrap();
    /// assert_eq!(r.iter().copied().collect::<Vec<_>>(), [1, 4]);
    /// ```
    pub fn with_layout(self, layout: impl Into<ComposedLayout>) -> Result<Tensor<S>> {
        Tensor::new(self.data, layout)
    }

    /// A borrowed view of the same elements.
    ///
    /// ```
    /// use tessel_layout::{tensor::Tensor, Layout};
    /// let t = Tensor::new(vec![1, 2, 3, 4], "4:1".parse::<Layout>().unwrap()).unwrap();
    /// assert_eq!(t.view().size(), 4);
    /// ```
    pub fn view(&self) -> Tensor<&[S::Elem]> {
        Tensor {
            data: self.data.as_slice_of(),
            layout: self.layout.clone(),
        }
    }

    /// The element at the 1-D index `index`.
    ///
    /// ```
    /// use tessel_layout::{tensor::Tensor, Layout};
    /// let t = Tensor::new(vec![1, 2, 3, 4], "(2,2):(2,1)".parse::<Layout>().unwrap()).unwrap();
    /// assert_eq!(*t.get(1).unwrap(), 3);
    /// assert!(t.get(4).is_err());
    /// ```
    pub fn get(&self, index: i64) -> Result<&S::Elem> {
        let o = self.layout.offset(index)?;
        self.element(o)
    }

    /// The element at a coordinate (1-D, flat or hierarchical) of the layout's shape.
    ///
    /// ```
    /// use tessel_layout::{tensor::Tensor, IntTuple, Layout};
    /// let t = Tensor::new(vec![1, 2, 3, 4], "(2,2):(2,1)".parse::<Layout>().unwrap()).unwrap();
    /// assert_eq!(*t.at(&IntTuple::from_ints([0, 1])).unwrap(), 2);
    /// assert!(t.at(&IntTuple::from_ints([2, 0])).is_err());
    /// ```
    pub fn at(&self, coord: &Coord) -> Result<&S::Elem> {
        let o = self.layout.at(coord)?;
        self.element(o)
    }

    fn element(&self, offset: i64) -> Result<&S::Elem> {
        usize::try_from(offset)
            .ok()
            .and_then(|o| self.data.as_slice_of().get(o))
            .ok_or_else(|| Error::invalid(format!("offset {offset} is outside the data")))
    }

    /// The elements in domain order (index 0, 1, ...).
    ///
    /// ```
    /// use tessel_layout::{tensor::Tensor, Layout};
    /// let t = Tensor::new(vec![1, 2, 3, 4], "(2,2):(2,1)".parse::<Layout>().unwrap()).unwrap();
    /// assert_eq!(t.iter().copied().collect::<Vec<_>>(), [1, 3, 2, 4]);
    /// ```
    pub fn iter(&self) -> impl Iterator<Item = &S::Elem> + '_ {
        let data = self.data.as_slice_of();
        // The offsets were checked to lie inside the data when the layout was given.
        self.layout
            .offsets()
            .into_iter()
            .filter_map(move |o| usize::try_from(o).ok().and_then(|o| data.get(o)))
    }

    /// The elements in domain order, copied out.
    ///
    /// ```
    /// use tessel_layout::{tensor::Tensor, Layout};
    /// let t = Tensor::new(vec![1, 2, 3, 4], "2:2".parse::<Layout>().unwrap()).unwrap();
    /// assert_eq!(t.to_vec(), [1, 3]);
    /// ```
    pub fn to_vec(&self) -> Vec<S::Elem>
    where
        S::Elem: Clone,
    {
        self.iter().cloned().collect()
    }

    fn sub(self, layout: Layout, offset: i64) -> Result<Tensor<S>> {
        let base = crate::checked_add(self.layout.base_offset(), offset, "the tensor offset")?;
        let composed = ComposedLayout::new(self.layout.swizzles().to_vec(), base, layout);
        self.with_layout(composed)
    }

    /// `layout o b`: the tensor read through `b` (CuTe's `tensor.compose(b)`).
    ///
    /// ```
    /// use tessel_layout::{tensor::Tensor, Layout};
    /// let t = Tensor::new((0..8).collect::<Vec<i32>>(), "8:1".parse::<Layout>().unwrap()).unwrap();
    /// let r = t.compose(&"(2,2):(4,1)".parse().unwrap()).unwrap();
    /// assert_eq!(r.to_vec(), [0, 4, 1, 5]);
    /// ```
    pub fn compose(self, b: &Layout) -> Result<Tensor<S>> {
        let layout = self.layout.compose(b)?;
        self.with_layout(layout)
    }

    /// Slices the tensor: modes fixed by an index, kept by `_` (CuTe's `tensor(_, 1)`).
    ///
    /// ```
    /// use tessel_layout::{tensor::Tensor, Layout, SliceCoord::{All, Index, Tuple}};
    /// let t = Tensor::new((0..6).collect::<Vec<i32>>(), "(2,3):(3,1)".parse::<Layout>().unwrap()).unwrap();
    /// assert_eq!(t.slice(&Tuple(vec![Index(1), All])).unwrap().to_vec(), [3, 4, 5]);
    /// ```
    pub fn slice(self, coord: &SliceCoord) -> Result<Tensor<S>> {
        let layout = self.layout.slice(coord)?;
        self.with_layout(layout)
    }

    /// CuTe's `local_tile(tensor, tiler, coord)`: the tile `coord` of the tiling by `tiler`.
    ///
    /// ```
    /// use tessel_layout::{tensor::Tensor, Layout, SliceCoord, Tiler};
    /// let t = Tensor::new((0..16).collect::<Vec<i32>>(), "(4,4):(4,1)".parse::<Layout>().unwrap()).unwrap();
    /// let tiler = Tiler::ByMode(vec![Some(Layout::vector(2, 1).unwrap().into()),
    ///                                Some(Layout::vector(2, 1).unwrap().into())]);
    /// let tile = t.view().local_tile(&tiler, &SliceCoord::from(&"(1,0)".parse().unwrap())).unwrap();
    /// assert_eq!(tile.to_vec(), [8, 12, 9, 13]);
    /// ```
    pub fn local_tile(self, tiler: &Tiler, coord: &SliceCoord) -> Result<Tensor<S>> {
        let (l, off) = crate::local_tile(self.layout.layout(), tiler, coord)?;
        self.sub(l, off)
    }

    /// CuTe's `local_partition(tensor, thr_layout, index)`: thread `index`'s elements of every
    /// tile shaped like `thr_layout`.
    ///
    /// ```
    /// use tessel_layout::{tensor::Tensor, Layout};
    /// let t = Tensor::new((0..8).collect::<Vec<i32>>(), "8:1".parse::<Layout>().unwrap()).unwrap();
    /// let mine = t.view().local_partition(&"4:1".parse().unwrap(), 1).unwrap();
    /// assert_eq!(mine.to_vec(), [1, 5]);
    /// ```
    pub fn local_partition(self, thr: &Layout, index: i64) -> Result<Tensor<S>> {
        let (l, off) = crate::local_partition(self.layout.layout(), thr, index)?;
        self.sub(l, off)
    }

    /// CuTe's `thr_copy.partition_S(tensor)`: the thread's source elements `(CPY, CPY_M, ...)`.
    ///
    /// ```
    /// use tessel_layout::{atom::copy_atom, tensor::Tensor, tiled::make_tiled_copy, Layout};
    /// let atom = copy_atom("UniversalCopy<uint64_t>").unwrap().typed(32).unwrap();
    /// let c = make_tiled_copy(&atom, &"4:1".parse().unwrap(), &"2:1".parse().unwrap()).unwrap();
    /// let t = Tensor::new((0..16).collect::<Vec<i32>>(), "16:1".parse::<Layout>().unwrap()).unwrap();
    /// let mine = t.view().partition_s(&c.get_slice(1).unwrap()).unwrap();
    /// assert_eq!(mine.to_vec(), [2, 3, 10, 11]);
    /// ```
    pub fn partition_s(self, thr: &ThrCopy) -> Result<Tensor<S>> {
        let (l, off) = thr.partition_s(self.layout.layout())?;
        self.sub(l, off)
    }

    /// CuTe's `thr_copy.partition_D(tensor)`: the thread's destination elements.
    ///
    /// ```
    /// use tessel_layout::{atom::copy_atom, tensor::Tensor, tiled::make_tiled_copy, Layout};
    /// let atom = copy_atom("UniversalCopy<uint64_t>").unwrap().typed(32).unwrap();
    /// let c = make_tiled_copy(&atom, &"4:1".parse().unwrap(), &"2:1".parse().unwrap()).unwrap();
    /// let t = Tensor::new((0..8).collect::<Vec<i32>>(), "8:1".parse::<Layout>().unwrap()).unwrap();
    /// assert_eq!(t.view().partition_d(&c.get_slice(3).unwrap()).unwrap().to_vec(), [6, 7]);
    /// ```
    pub fn partition_d(self, thr: &ThrCopy) -> Result<Tensor<S>> {
        let (l, off) = thr.partition_d(self.layout.layout())?;
        self.sub(l, off)
    }

    /// CuTe's `thr_mma.partition_A(tensor)`: the thread's A elements `(MMA, MMA_M, MMA_K, ...)`.
    ///
    /// ```
    /// use tessel_layout::{atom::mma_atom, tensor::Tensor, tiled::make_tiled_mma, Layout};
    /// let mma = make_tiled_mma(&mma_atom("SM80_16x8x16_F32F16F16F32_TN").unwrap(),
    ///                          &"1:0".parse().unwrap(), &[]).unwrap();
    /// let a = Tensor::new((0..256).collect::<Vec<i32>>(), "(16,16):(16,1)".parse::<Layout>().unwrap()).unwrap();
    /// // Lane 0 holds (0,0),(0,1),(8,0),(8,1),(0,8),(0,9),(8,8),(8,9) (PTX ISA 9.0 m16n8k16 A).
    /// assert_eq!(a.view().partition_a(&mma.get_slice(0).unwrap()).unwrap().to_vec(),
    ///            [0, 1, 128, 129, 8, 9, 136, 137]);
    /// ```
    pub fn partition_a(self, thr: &ThrMma) -> Result<Tensor<S>> {
        let (l, off) = thr.partition_a(self.layout.layout())?;
        self.sub(l, off)
    }

    /// CuTe's `thr_mma.partition_B(tensor)`: the thread's B elements `(MMA, MMA_N, MMA_K, ...)`.
    ///
    /// ```
    /// use tessel_layout::{atom::mma_atom, tensor::Tensor, tiled::make_tiled_mma, Layout};
    /// let mma = make_tiled_mma(&mma_atom("SM80_16x8x8_F16F16F16F16_TN").unwrap(),
    ///                          &"1:0".parse().unwrap(), &[]).unwrap();
    /// let b = Tensor::new((0..64).collect::<Vec<i32>>(), "(8,8):(8,1)".parse::<Layout>().unwrap()).unwrap();
    /// // Lane 5: n = 1, k = 2, 3.
    /// assert_eq!(b.view().partition_b(&mma.get_slice(5).unwrap()).unwrap().to_vec(), [10, 11]);
    /// ```
    pub fn partition_b(self, thr: &ThrMma) -> Result<Tensor<S>> {
        let (l, off) = thr.partition_b(self.layout.layout())?;
        self.sub(l, off)
    }

    /// CuTe's `thr_mma.partition_C(tensor)`: the thread's C elements `(MMA, MMA_M, MMA_N, ...)`.
    ///
    /// ```
    /// use tessel_layout::{atom::mma_atom, tensor::Tensor, tiled::make_tiled_mma, Layout};
    /// let mma = make_tiled_mma(&mma_atom("SM80_16x8x8_F16F16F16F16_TN").unwrap(),
    ///                          &"1:0".parse().unwrap(), &[]).unwrap();
    /// let c = Tensor::new((0..128).collect::<Vec<i32>>(), "(16,8):(8,1)".parse::<Layout>().unwrap()).unwrap();
    /// assert_eq!(c.view().partition_c(&mma.get_slice(0).unwrap()).unwrap().to_vec(), [0, 1, 64, 65]);
    /// ```
    pub fn partition_c(self, thr: &ThrMma) -> Result<Tensor<S>> {
        let (l, off) = thr.partition_c(self.layout.layout())?;
        self.sub(l, off)
    }
}

impl<S: StorageMut> Tensor<S> {
    /// A mutable borrowed view of the same elements.
    ///
    /// ```
    /// use tessel_layout::{tensor::Tensor, Layout};
    /// let mut t = Tensor::new(vec![0; 4], "4:1".parse::<Layout>().unwrap()).unwrap();
    /// t.view_mut().with_layout("2:2".parse::<Layout>().unwrap()).unwrap().set(1, 9).unwrap();
    /// assert_eq!(t.data(), &[0, 0, 9, 0]);
    /// ```
    pub fn view_mut(&mut self) -> Tensor<&mut [S::Elem]> {
        Tensor {
            data: self.data.as_mut_slice_of(),
            layout: self.layout.clone(),
        }
    }

    /// The element at the 1-D index `index`, writable.
    ///
    /// ```
    /// use tessel_layout::{tensor::Tensor, Layout};
    /// let mut t = Tensor::new(vec![0; 4], "(2,2):(2,1)".parse::<Layout>().unwrap()).unwrap();
    /// *t.get_mut(1).unwrap() = 5;
    /// assert_eq!(t.data(), &[0, 0, 5, 0]);
    /// ```
    pub fn get_mut(&mut self, index: i64) -> Result<&mut S::Elem> {
        let o = self.layout.offset(index)?;
        self.element_mut(o)
    }

    /// Writes the element at the 1-D index `index`.
    ///
    /// ```
    /// use tessel_layout::{tensor::Tensor, Layout};
    /// let mut t = Tensor::new(vec![0; 4], "4:1".parse::<Layout>().unwrap()).unwrap();
    /// t.set(3, 1).unwrap();
    /// assert!(t.set(4, 1).is_err());
    /// assert_eq!(t.data(), &[0, 0, 0, 1]);
    /// ```
    pub fn set(&mut self, index: i64, value: S::Elem) -> Result<()> {
        *self.get_mut(index)? = value;
        Ok(())
    }

    /// Writes the element at a coordinate.
    ///
    /// ```
    /// use tessel_layout::{tensor::Tensor, IntTuple, Layout};
    /// let mut t = Tensor::new(vec![0; 4], "(2,2):(2,1)".parse::<Layout>().unwrap()).unwrap();
    /// t.set_at(&IntTuple::from_ints([1, 0]), 7).unwrap();
    /// assert_eq!(t.data(), &[0, 0, 7, 0]);
    /// ```
    pub fn set_at(&mut self, coord: &Coord, value: S::Elem) -> Result<()> {
        let o = self.layout.at(coord)?;
        *self.element_mut(o)? = value;
        Ok(())
    }

    fn element_mut(&mut self, offset: i64) -> Result<&mut S::Elem> {
        usize::try_from(offset)
            .ok()
            .and_then(|o| self.data.as_mut_slice_of().get_mut(o))
            .ok_or_else(|| Error::invalid(format!("offset {offset} is outside the data")))
    }
}

/// CuTe's `copy(src, dst)` on the host: element `i` of `dst` becomes element `i` of `src`, for
/// every `i` (the two tensors must have the same size; their shapes may differ).
///
/// ```
/// use tessel_layout::{tensor::{Tensor, copy}, Layout};
/// let src = Tensor::new(vec![1, 2, 3, 4], "4:1".parse::<Layout>().unwrap()).unwrap();
/// let mut dst = Tensor::new(vec![0; 8], "(2,2):(1,4)".parse::<Layout>().unwrap()).unwrap();
/// copy(&src, &mut dst).unwrap();
/// assert_eq!(dst.data(), &[1, 2, 0, 0, 3, 4, 0, 0]);
/// let mut small = Tensor::new(vec![0; 2], "2:1".parse::<Layout>().unwrap()).unwrap();
/// assert!(copy(&src, &mut small).is_err());
/// ```
pub fn copy<S, D>(src: &Tensor<S>, dst: &mut Tensor<D>) -> Result<()>
where
    S: Storage,
    D: StorageMut<Elem = S::Elem>,
    S::Elem: Clone,
{
    if src.size() != dst.size() {
        return Err(Error::invalid(format!(
            "copy from {} elements ({}) to {} elements ({}): the sizes must be equal",
            src.size(),
            src.layout,
            dst.size(),
            dst.layout
        )));
    }
    let offsets = dst.layout.offsets();
    for (value, o) in src.iter().zip(offsets) {
        *dst.element_mut(o)? = value.clone();
    }
    Ok(())
}
