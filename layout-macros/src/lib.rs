//! # tessel-macros
//!
//! Compile-time layouts and CUDA index math for tessel. A thin proc-macro layer over
//! `tessel-layout`: the macros render their tokens as notation text, parse and validate it with
//! the same code as the `tessel` command line, and expand to constant values of tessel's own
//! layout types in static storage (`layout!`, `swizzle!`)
//! or to the source text of the shared emitter (`cuda_index!`). Invalid input is a
//! `compile_error!` at the offending token, naming the violated condition.
//!
//! Use the macros through the `tessel-kit` crate, which re-exports them: their expansions name
//! `::tessel_kit::Layout` and its siblings, so the crate that invokes them depends on `tessel-kit`.
//!
//! ```
//! use tessel_kit::{cuda_index, layout};
//! static TILE: tessel_kit::ComposedLayout = layout!(Sw<3,3,3> o (8,64):(64,1));
//! const SRC: &str = cuda_index!(tile_off, Sw<3,3,3> o (8,64):(64,1));
//! const AT1: i64 = TILE.const_offset(1);
//! assert_eq!(AT1, 72);
//! assert!(SRC.contains("TESSEL_FN long long tile_off(long long i)"));
//! ```

mod expand;
mod text;

use proc_macro::TokenStream;
use proc_macro2::{TokenStream as TokenStream2, TokenTree};
use tessel_layout::codegen::{EmitOptions, SymComposedLayout, index_function, parse_source};
use tessel_layout::parse::Cursor;
use tessel_layout::{ComposedLayout, Swizzle};
use text::TokenText;

/// A layout known at compile time: literal notation `(8,(2,4)):(1,(64,8))`, a bare shape
/// `(4,8)` (column-major), or a swizzled form `Sw<B,M,S> o ... o [OFFSET o] LAYOUT`.
///
/// Expands to a `tessel_kit::Layout` (no swizzle, no offset) or a `tessel_kit::ComposedLayout` whose
/// tuples live in static storage: the same types the rest of the algebra takes, built at
/// compile time without a heap allocation. Put it in a `static` item to evaluate it in other
/// constants with the `const fn`s `size`, `checked_offset` and `const_offset` (a layout may own
/// heap memory in general, so constants cannot copy it into a `const fn`), or in a `const` item
/// to use it as a value. Non-congruent shapes and strides, bad swizzle parameters,
/// offsets that overflow `i64` (checked as `tessel eval` checks them) and syntax errors are
/// compile errors at the offending tokens.
///
/// Integer literals mean their value in any base Rust allows (`0x40`, `0b11`, `1_024`); a type
/// suffix (`64i64`) is an error. Groups nest at most `tessel_kit::expr::MAX_DEPTH` levels, the limit
/// of every tessel parser; deeper input is a compile error at the first group beyond it.
///
/// ```
/// use tessel_kit::{ComposedLayout, Layout};
/// static L: Layout = tessel_kit::layout!((8,(2,4)):(1,(64,8)));
/// static S: ComposedLayout = tessel_kit::layout!(Sw<3,3,3> o (8,64):(64,1));
/// const SIZE: i64 = L.size();
/// const AT: i64 = S.const_offset(7 + 63 * 8);
/// assert_eq!(SIZE, 64);
/// assert_eq!(L.to_string(), "(8,(2,4)):(1,(64,8))");
/// assert_eq!(AT, 455); // docs/semantics.md: coordinate (7,63) -> 455
/// const HEX: Layout = tessel_kit::layout!((0x8, 1_0):(0b1, 0x8));
/// assert_eq!(HEX.to_string(), "(8,10):(1,8)");
/// // The whole algebra takes it as it is.
/// assert_eq!(tessel_kit::coalesce(&L).unwrap().to_string(), "(8,2,4):(1,64,8)");
/// ```
#[proc_macro]
pub fn layout(input: TokenStream) -> TokenStream {
    match TokenText::new(input.into()).and_then(|text| layout_value(&text)) {
        Ok(c) => expand::composed(&c).into(),
        Err(e) => e.into_compile_error().into(),
    }
}

fn layout_value(text: &TokenText) -> syn::Result<ComposedLayout> {
    let source = parse_source(text.text()).map_err(|e| text.error_from(&e))?;
    if let Some(symbol) = source.layout().symbols().first() {
        return Err(text.error_at_ident(
            symbol,
            &format!(
                "invalid argument: layout! needs integer strides, but '{symbol}' is a run-time \
                 symbol (use cuda_index! for symbolic strides)"
            ),
        ));
    }
    source.bind(&|_| None).map_err(|e| text.error_from(&e))
}

/// `swizzle!(B, M, S)`: a `tessel_kit::Swizzle`, checked at compile time
/// (`|S| >= B`, non-negative `B` and `M`, at most 62 bits).
///
/// ```
/// const SW: tessel_kit::Swizzle = tessel_kit::swizzle!(3, 3, 3);
/// const AT72: i64 = SW.apply(72);
/// assert_eq!(AT72, 64);
/// assert_eq!(tessel_kit::swizzle!(1, 4, -1).to_string(), "Sw<1,4,-1>");
/// ```
#[proc_macro]
pub fn swizzle(input: TokenStream) -> TokenStream {
    match TokenText::new(input.into()).and_then(|text| swizzle_value(&text)) {
        Ok(sw) => {
            let tokens = expand::swizzle(&sw);
            quote::quote!({
                const TESSEL_SWIZZLE: ::tessel_kit::Swizzle = #tokens;
                TESSEL_SWIZZLE
            })
            .into()
        }
        Err(e) => e.into_compile_error().into(),
    }
}

fn swizzle_value(text: &TokenText) -> syn::Result<Swizzle> {
    let mut c = Cursor::new(text.text());
    let parsed = (|| {
        let b = c.integer()?;
        c.expect(',', "','")?;
        let m = c.integer()?;
        c.expect(',', "','")?;
        let s = c.integer()?;
        c.finish()?;
        Ok((b, m, s))
    })();
    let (b, m, s) = parsed.map_err(|e| text.error_from(&e))?;
    Swizzle::new(b, m, s).map_err(|e| text.error_all(&format!("{}: {e}", e.kind().name())))
}

/// `cuda_index!(NAME, LAYOUT)`: a `&'static str` with the C/CUDA functions `NAME(i, SYMS)` and
/// `NAME_crd(c0, ..., SYMS)` computing the layout's offset, produced by the same emitter as
/// `tessel codegen` (`tessel_kit::codegen::index_function` with default options; see there for the
/// exact signatures and the guarantee of no undefined behaviour). Identifiers in the stride are
/// run-time symbols and become trailing `long long` parameters. Literals and nesting are read as
/// in `layout!`.
///
/// ```
/// const SMEM: &str = tessel_kit::cuda_index!(smem_off, Sw<3,3,3> o (8,64):(64,1));
/// const TILE: &str = tessel_kit::cuda_index!(tile_off, (128,64):(ld,1));
/// assert!(SMEM.contains("o ^= (int)(((unsigned int)o & 448u) >> 3);"));
/// assert!(TILE.contains("TESSEL_FN long long tile_off(long long i, long long ld) {"));
///
/// // A kernel source assembled at compile time, ready for NVRTC:
/// const KERNEL: &str = concat!(
///     tessel_kit::cuda_index!(smem_off, Sw<3,3,3> o (8,64):(64,1)),
///     tessel_kit::cuda_index!(gmem_off, (128,64):(ld,1)),
///     "extern \"C\" __global__ void load(const unsigned short* g, long long ld) {\n",
///     "  __shared__ unsigned short s[512];\n",
///     "  long long i = threadIdx.x;\n",
///     "  s[smem_off(i)] = g[gmem_off(i, ld)];\n",
///     "}\n",
/// );
/// assert!(KERNEL.contains("TESSEL_FN long long gmem_off_crd(long long c0, long long c1, long long ld)"));
/// ```
#[proc_macro]
pub fn cuda_index(input: TokenStream) -> TokenStream {
    match cuda_index_source(input.into()) {
        Ok(src) => {
            TokenStream2::from(TokenTree::Literal(proc_macro2::Literal::string(&src))).into()
        }
        Err(e) => e.into_compile_error().into(),
    }
}

fn cuda_index_source(input: TokenStream2) -> syn::Result<String> {
    let mut trees = input.clone().into_iter();
    let name = match trees.next() {
        Some(TokenTree::Ident(name)) => name,
        Some(other) => {
            return Err(syn::Error::new_spanned(
                other,
                "invalid argument: cuda_index! expects a function name, then ',' and a layout",
            ));
        }
        None => {
            return Err(syn::Error::new(
                proc_macro2::Span::call_site(),
                "invalid argument: cuda_index! expects a function name, then ',' and a layout",
            ));
        }
    };
    match trees.next() {
        Some(TokenTree::Punct(p)) if p.as_char() == ',' => {}
        other => {
            return Err(syn::Error::new_spanned(
                other.unwrap_or_else(|| TokenTree::Ident(name.clone())),
                "parse error: expected ',' after the function name",
            ));
        }
    }
    let text = TokenText::new(trees.collect())?;
    let source: SymComposedLayout = parse_source(text.text()).map_err(|e| text.error_from(&e))?;
    index_function(&name.to_string(), &source, &EmitOptions::default()).map_err(|e| {
        let shown = format!("{}: {e}", e.kind().name());
        match source
            .layout()
            .symbols()
            .iter()
            .find(|s| e.message().contains(&format!("'{s}'")))
        {
            Some(symbol) => text.error_at_ident(symbol, &shown),
            None if e.message().contains(&format!("'{name}'")) => {
                syn::Error::new_spanned(name.clone(), shown)
            }
            None => text.error_all(&shown),
        }
    })
}
