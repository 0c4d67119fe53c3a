//! The storage of a tuple node's elements: their pre-order tokens, inline for small tuples, on
//! the heap past [`INLINE`] tokens, or in static storage for tuples built at compile time.

use std::mem::MaybeUninit;

use crate::leaf::Leaf;

use super::Token;

/// Tokens held inline before the storage moves to the heap: a tuple of up to twelve leaves and
/// headers (every layout of the algebra benchmark) allocates nothing.
pub(crate) const INLINE: usize = 12;

/// A short list of tokens; readable in `const fn`s in every storage.
pub(crate) enum Tokens<L: Leaf> {
    /// Up to [`INLINE`] tokens, the first `len` initialized.
    Inline {
        len: u8,
        buf: [MaybeUninit<Token<L>>; INLINE],
    },
    /// More than [`INLINE`] tokens.
    Heap(Vec<Token<L>>),
    /// Tokens in static storage.
    Static(&'static [Token<L>]),
}

impl<L: Leaf> Tokens<L> {
    /// No tokens.
    #[inline]
    pub(crate) const fn new() -> Self {
        Tokens::Inline {
            len: 0,
            buf: [const { MaybeUninit::uninit() }; INLINE],
        }
    }

    /// The tokens as a slice (a `const fn`).
    #[inline]
    pub(crate) const fn as_slice(&self) -> &[Token<L>] {
        match self {
            // SAFETY: the first `len` elements of `buf` are initialized.
            Tokens::Inline { len, buf } => unsafe {
                std::slice::from_raw_parts(buf.as_ptr() as *const Token<L>, *len as usize)
            },
            Tokens::Heap(v) => v.as_slice(),
            Tokens::Static(s) => s,
        }
    }

    /// Appends `token`.
    #[inline]
    pub(crate) fn push(&mut self, token: Token<L>) {
        match self {
            Tokens::Inline { len, buf } if (*len as usize) < INLINE => {
                buf[*len as usize].write(token);
                *len += 1;
            }
            Tokens::Heap(v) => v.push(token),
            Tokens::Static(s) if s.len() < INLINE => {
                let s: &'static [Token<L>] = s;
                *self = Tokens::from_slice(s);
                self.push(token);
            }
            _ => {
                let mut v = Vec::with_capacity(2 * INLINE);
                v.extend_from_slice(self.as_slice());
                v.push(token);
                // The old inline tokens are dropped by the assignment.
                *self = Tokens::Heap(v);
            }
        }
    }

    /// Appends clones of `tokens`.
    #[inline]
    pub(crate) fn extend_from_slice(&mut self, tokens: &[Token<L>]) {
        if let Tokens::Inline { len, buf } = self {
            let n = *len as usize;
            if n + tokens.len() <= INLINE {
                for (slot, t) in buf[n..].iter_mut().zip(tokens) {
                    slot.write(t.clone());
                    // Count each one as it is written, so a panicking clone leaks nothing.
                    *len += 1;
                }
                return;
            }
        }
        for t in tokens {
            self.push(t.clone());
        }
    }

    /// Tokens holding clones of `tokens`.
    #[inline]
    pub(crate) fn from_slice(tokens: &[Token<L>]) -> Self {
        let mut out = Tokens::new();
        out.extend_from_slice(tokens);
        out
    }
}

impl<L: Leaf> Drop for Tokens<L> {
    fn drop(&mut self) {
        if let Tokens::Inline { len, buf } = self {
            if std::mem::needs_drop::<L>() {
                for slot in &mut buf[..*len as usize] {
                    // SAFETY: the first `len` elements are initialized and dropped once.
                    unsafe { slot.assume_init_drop() };
                }
            }
        }
    }
}

impl<L: Leaf> Clone for Tokens<L> {
    #[inline]
    fn clone(&self) -> Self {
        match self {
            Tokens::Static(s) => Tokens::Static(s),
            _ => Tokens::from_slice(self.as_slice()),
        }
    }
}
