//! Validated layout values to the tokens of constant expressions of `tessel`'s own layout
//! types: tuples in static storage, built with the `const fn` constructors
//! (`Layout::from_const`, `Swizzle::from_const`, `ComposedLayout::from_const`).

use proc_macro2::TokenStream;
use quote::quote;
use tessel_layout::{ComposedLayout, IntTuple, Layout, Swizzle};

/// A tuple node's elements become `const` slices of their structure codes and leaves, so every
/// level lives in static storage.
pub fn int_tuple(t: &IntTuple) -> TokenStream {
    match t {
        IntTuple::Int(v) => quote!(::tessel_kit::IntTuple::Int(#v)),
        IntTuple::Tuple(items) => {
            let codes = items.codes();
            let leaves = items.leaf_slice();
            quote!(::tessel_kit::IntTuple::Tuple(::tessel_kit::Modes::from_static(
                &[#(#codes),*],
                &[#(#leaves),*],
            )))
        }
    }
}

pub fn layout(l: &Layout) -> TokenStream {
    let shape = int_tuple(l.shape());
    let stride = int_tuple(l.stride());
    quote!(::tessel_kit::Layout::from_const(#shape, #stride))
}

pub fn swizzle(sw: &Swizzle) -> TokenStream {
    let (bits, base, shift) = (sw.bits(), sw.base(), sw.shift());
    quote!(::tessel_kit::Swizzle::from_const(#bits, #base, #shift))
}

/// A plain layout becomes a `tessel_kit::Layout`; one with swizzles or an offset a
/// `tessel_kit::ComposedLayout`. Wrapped in a block with a `const` item so the value is built at
/// compile time in any context.
pub fn composed(c: &ComposedLayout) -> TokenStream {
    if c.is_plain() {
        let l = layout(c.layout());
        return quote!({
            const TESSEL_LAYOUT: ::tessel_kit::Layout = #l;
            TESSEL_LAYOUT
        });
    }
    let swizzles = c.swizzles().iter().map(swizzle);
    let offset = c.base_offset();
    let l = layout(c.layout());
    quote!({
        const TESSEL_LAYOUT: ::tessel_kit::ComposedLayout =
            ::tessel_kit::ComposedLayout::from_const(&[#(#swizzles),*], #offset, #l);
        TESSEL_LAYOUT
    })
}
