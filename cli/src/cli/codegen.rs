//! `tessel codegen 'EXPR' [--name NAME] [--wide] [--no-crd]`: the C/CUDA index functions of a
//! layout, from the same emitter as the `cuda_index!` macro.

use std::io::Write;

use serde::Serialize;
use tessel_kit::Result;
use tessel_kit::codegen::{EmitOptions, IndexWidth, index_function, parse_source};

use super::json::print_json;
use super::{expression, print};

/// Options of `tessel codegen`.
#[derive(Debug, clap::Args)]
#[command(
    about = "Print C/CUDA functions computing a layout's offsets (index math)",
    long_about = "Evaluates EXPR to a layout (see 'tessel help eval'; identifiers in a \
literal stride such as (128,64):(ld,1) are run-time parameters) and prints C/CUDA source of\n\n  \
TESSEL_FN long long NAME(long long i, SYMS)           offset of the 1-D index i\n  \
TESSEL_FN long long NAME_crd(long long c0, ..., SYMS)  offset of a coordinate, one per top-level mode\n\n\
TESSEL_FN is __device__ __forceinline__ under nvcc/NVRTC and static inline for host C; the text \
compiles as C99 and as CUDA C++."
)]
pub struct Args {
    /// The layout expression (quote it for the shell)
    #[arg(value_name = "EXPR", allow_negative_numbers = true)]
    pub expr: Vec<String>,
    /// The function name
    #[arg(long, value_name = "NAME", default_value = "layout_offset")]
    pub name: String,
    /// Always use 64-bit arithmetic (default: 32-bit when every value fits)
    #[arg(long)]
    pub wide: bool,
    /// Omit NAME_crd
    #[arg(long)]
    pub no_crd: bool,
    /// Print the source inside JSON (schema: docs/cli.md)
    #[arg(long)]
    pub json: bool,
}

/// `tessel codegen --json`: the emitted source and what it was emitted from.
#[derive(Debug, Serialize)]
pub struct CodegenJson {
    /// The function name.
    pub name: String,
    /// The layout in CuTe notation.
    pub layout: String,
    /// Run-time stride parameters, in the order the functions take them.
    pub symbols: Vec<String>,
    /// Whether 64-bit arithmetic was forced (`--wide`).
    pub wide: bool,
    /// Whether `NAME_crd` is included.
    pub coordinate_function: bool,
    /// The C/CUDA source (what `tessel codegen` prints).
    pub source: String,
}

/// Emits and prints.
pub fn run(args: &Args, out: &mut dyn Write) -> Result<()> {
    let opts = EmitOptions {
        width: if args.wide {
            IndexWidth::Bits64
        } else {
            IndexWidth::Auto
        },
        coordinate_function: !args.no_crd,
        ..EmitOptions::default()
    };
    let text = expression("codegen", &args.expr)?;
    let layout = parse_source(&text)?;
    let source = index_function(&args.name, &layout, &opts)?;
    if args.json {
        return print_json(
            out,
            &CodegenJson {
                name: args.name.clone(),
                layout: layout.to_string(),
                symbols: layout.layout().symbols(),
                wide: args.wide,
                coordinate_function: !args.no_crd,
                source,
            },
        );
    }
    print(out, &source)
}
