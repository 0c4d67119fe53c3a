//! Validated layout values to the tokens of `::tessel::constant` constants.

use proc_macro2::TokenStream;
use quote::quote;
use tessel_layout::{ComposedLayout, IntTuple, Layout, Swizzle};

pub fn int_tuple(t: &IntTuple) -> TokenStream {
    match t {
        IntTuple::Int(v) => quote!(::tessel::constant::ConstIntTuple::Int(#v)),
        IntTuple::Tuple(items) => {
            let items = items.iter().map(int_tuple);
            quote!(::tessel::constant::ConstIntTuple::Tuple(&[#(#items),*]))
        }
    }
}

pub fn layout(l: &Layout) -> TokenStream {
    let shape = int_tuple(l.shape());
    let stride = int_tuple(l.stride());
    quote!(::tessel::constant::ConstLayout { shape: #shape, stride: #stride })
}

pub fn swizzle(sw: &Swizzle) -> TokenStream {
    let (bits, base, shift) = (sw.bits(), sw.base(), sw.shift());
    quote!(::tessel::constant::ConstSwizzle { bits: #bits, base: #base, shift: #shift })
}

/// A plain layout becomes a `ConstLayout`; one with swizzles or an offset a
/// `ConstComposedLayout`. Wrapped in a block with a `const` item so the value is built at
/// compile time in any context.
pub fn composed(c: &ComposedLayout) -> TokenStream {
    if c.swizzles().is_empty() && c.base_offset() == 0 {
        let l = layout(c.layout());
        return quote!({
            const TESSEL_LAYOUT: ::tessel::constant::ConstLayout = #l;
            TESSEL_LAYOUT
        });
    }
    let swizzles = c.swizzles().iter().map(swizzle);
    let offset = c.base_offset();
    let l = layout(c.layout());
    quote!({
        const TESSEL_LAYOUT: ::tessel::constant::ConstComposedLayout =
            ::tessel::constant::ConstComposedLayout {
                swizzles: &[#(#swizzles),*],
                offset: #offset,
                layout: #l,
            };
        TESSEL_LAYOUT
    })
}
