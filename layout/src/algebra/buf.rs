//! [`Buf`]: the algebra's small lists of values (modes, structure codes, leaves), inline up to
//! a fixed length so that the operations on small layouts allocate nothing.

/// A list of values, the first `N` inline, all of them on the heap beyond `N`.
///
/// Two uses: the builders push values one by one ([`Buf::push`], one comparison per value),
/// and the one-shot results take a list of a known length at once ([`Buf::list`]) and write it
/// in place. Either way nothing is allocated up to `N` values.
#[derive(Clone)]
pub(crate) struct Buf<T: Copy + Default, const N: usize> {
    len: usize,
    inline: [T; N],
    /// All values once there are more than `N`.
    heap: Vec<T>,
}

impl<T: Copy + Default, const N: usize> Buf<T, N> {
    /// No values.
    #[inline(always)]
    pub(crate) fn new() -> Self {
        Buf {
            len: 0,
            inline: [T::default(); N],
            heap: Vec::new(),
        }
    }

    /// The number of values.
    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Makes the list `n` values long, keeping its first `min(n, len)` values, and returns
    /// it to be written (the values past those are `T::default()` or earlier values; callers
    /// overwrite them). A list written once can thus be read back shorter: `list(n)`, write,
    /// then `list(m)` with `m <= n` holds the first `m` values written, inline or not.
    #[inline]
    pub(crate) fn list(&mut self, n: usize) -> &mut [T] {
        let len = std::mem::replace(&mut self.len, n);
        if n <= N && len <= N {
            &mut self.inline[..n]
        } else {
            self.relist(len, n)
        }
    }

    /// [`Buf::list`] where the old or the new length is past `N` (out of line: the heap).
    #[cold]
    #[inline(never)]
    fn relist(&mut self, len: usize, n: usize) -> &mut [T] {
        if n <= N {
            self.inline[..n].copy_from_slice(&self.heap[..n]);
            &mut self.inline[..n]
        } else {
            if len <= N {
                self.heap.clear();
                self.heap.extend_from_slice(&self.inline[..len]);
            }
            self.heap.resize(n, T::default());
            &mut self.heap
        }
    }

    /// Appends `v`.
    #[inline]
    pub(crate) fn push(&mut self, v: T) {
        if self.len < N {
            self.inline[self.len] = v;
        } else {
            self.push_heap(v);
        }
        self.len += 1;
    }

    #[cold]
    fn push_heap(&mut self, v: T) {
        if self.len == N {
            self.heap.extend_from_slice(&self.inline);
        }
        self.heap.push(v);
    }

    /// Appends the values of `values`.
    #[inline]
    pub(crate) fn extend_from_slice(&mut self, values: &[T]) {
        for &v in values {
            self.push(v);
        }
    }

    /// The values.
    #[inline]
    pub(crate) fn as_slice(&self) -> &[T] {
        if self.len <= N {
            &self.inline[..self.len]
        } else {
            &self.heap
        }
    }

    /// The values, to update.
    #[inline]
    pub(crate) fn as_mut_slice(&mut self) -> &mut [T] {
        if self.len <= N {
            &mut self.inline[..self.len]
        } else {
            &mut self.heap
        }
    }

    /// The inline array (of which the first [`Buf::len`] values are set), `None` on the heap.
    #[inline]
    pub(crate) fn inline_array(&self) -> Option<&[T; N]> {
        (self.len <= N).then_some(&self.inline)
    }
}

impl<T: Copy + Default, const N: usize> Extend<T> for Buf<T, N> {
    #[inline]
    fn extend<I: IntoIterator<Item = T>>(&mut self, values: I) {
        for v in values {
            self.push(v);
        }
    }
}
