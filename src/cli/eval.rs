//! `tessel eval 'EXPR'`: evaluate an algebra expression and print the result on one line.

use std::io::Write;

use tessel::Result;
use tessel::expr::{eval, functions};

use super::{Command, expression, print};

pub const COMMAND: Command = Command {
    name: "eval",
    usage: "'EXPR'",
    summary: "evaluate a layout-algebra expression, print the result in CuTe notation",
    help: "Evaluates EXPR and prints the result on one line.\n\n\
        Literals: layouts (4,(2,3)):(1,(8,16)) and 8:1; a bare shape (4,8) where a layout is\n\
        expected is compact column-major; integers; tuples (2,3); by-mode tilers [3:4, _, 8:2];\n\
        swizzles Sw<3,3,3>. 'o' composes: Sw<3,3,3> o 32 o (8,64):(64,1) is a swizzled layout\n\
        with offset 32, (6,2):(8,2) o (4,3):(3,1) is a composition.\n\
        Functions use CuTe's names ('tessel help functions' lists them), e.g.\n\n\
        \x20 tessel eval 'logical_divide((4,2,3):(2,1,8), 4:2)'\n\
        \x20 tessel eval 'at(Sw<3,3,3> o (8,64):(64,1), (7,63))'",
    run,
};

fn run(args: &[String], out: &mut dyn Write) -> Result<()> {
    let text = expression("eval", args)?;
    let value = eval(&text)?;
    print(out, &format!("{value}\n"))
}

/// The function table as help text.
pub fn function_list() -> String {
    let mut text = String::from("functions of the expression language:\n\n");
    for f in functions::all() {
        let call = format!("{}{}", f.name, f.params);
        text.push_str(&format!("  {call:<34} {}\n", f.summary));
    }
    text
}
