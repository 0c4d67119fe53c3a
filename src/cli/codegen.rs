//! `tessel codegen 'EXPR' [--name NAME] [--wide] [--no-crd]`: the C/CUDA index functions of a
//! layout, from the same emitter as the `cuda_index!` macro.

use std::io::Write;

use tessel::Result;
use tessel::codegen::{EmitOptions, IndexWidth, index_function, parse_source};

use super::flags::Flags;
use super::{Command, expression, print};

pub const COMMAND: Command = Command {
    name: "codegen",
    usage: "'EXPR' [--name NAME] [--wide] [--no-crd]",
    summary: "print C/CUDA functions computing a layout's offsets (index math)",
    help: "Evaluates EXPR to a layout (see 'tessel help eval'; identifiers in a literal stride\n\
        such as (128,64):(ld,1) are run-time parameters) and prints C/CUDA source of\n\n\
        \x20 TESSEL_FN long long NAME(long long i, SYMS)       offset of the 1-D index i\n\
        \x20 TESSEL_FN long long NAME_crd(long long c0, ..., SYMS)  offset of a coordinate,\n\
        \x20                                                    one per top-level mode\n\n\
        TESSEL_FN is __device__ __forceinline__ under nvcc/NVRTC and static inline for host C;\n\
        the text compiles as C99 and as CUDA C++.\n\n\
        --name NAME  the function name (default: layout_offset)\n\
        --wide       always use 64-bit arithmetic (default: 32-bit when every value fits)\n\
        --no-crd     omit NAME_crd",
    run,
};

fn run(args: &[String], out: &mut dyn Write) -> Result<()> {
    let flags = Flags::parse("codegen", args, &["name"], &["wide", "no-crd"])?;
    let name = flags.value("name").unwrap_or("layout_offset");
    let opts = EmitOptions {
        width: if flags.switch("wide") {
            IndexWidth::Bits64
        } else {
            IndexWidth::Auto
        },
        coordinate_function: !flags.switch("no-crd"),
        ..EmitOptions::default()
    };
    let text = expression("codegen", flags.positional())?;
    let layout = parse_source(&text)?;
    print(out, &index_function(name, &layout, &opts)?)
}
