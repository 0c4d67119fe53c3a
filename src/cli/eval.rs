//! `tessel eval 'EXPR'`: evaluate an algebra expression and print the result on one line.

use std::io::Write;

use serde::Serialize;
use tessel::Result;
use tessel::expr::{Value, eval, functions};

use super::json::print_json;
use super::{expression, print};

/// Options of `tessel eval`.
#[derive(Debug, clap::Args)]
#[command(
    about = "Evaluate a layout-algebra expression, print the result in CuTe notation",
    long_about = "Evaluates EXPR and prints the result on one line.\n\n\
Literals: layouts (4,(2,3)):(1,(8,16)) and 8:1; a bare shape (4,8) where a layout is expected is \
compact column-major; integers; tuples (2,3); by-mode tilers [3:4, _, 8:2]; swizzles Sw<3,3,3>. \
'o' composes: Sw<3,3,3> o 32 o (8,64):(64,1) is a swizzled layout with offset 32, \
(6,2):(8,2) o (4,3):(3,1) is a composition. Functions use CuTe's names ('tessel help functions' \
lists them). Several words are joined with spaces; put '--' before an expression that starts \
with '-'.",
    after_help = "Examples:\n  tessel eval 'logical_divide((4,2,3):(2,1,8), 4:2)'\n  \
tessel eval 'at(Sw<3,3,3> o (8,64):(64,1), (7,63))'\n  tessel eval --json 'complement(4:2, 24)'"
)]
pub struct Args {
    /// The expression (quote it for the shell)
    #[arg(value_name = "EXPR", allow_negative_numbers = true)]
    pub expr: Vec<String>,
    /// Print the result as JSON (schema: docs/cli.md)
    #[arg(long)]
    pub json: bool,
}

/// `tessel eval --json`: the expression, the kind of its value and the value in CuTe notation;
/// integers, booleans and layouts add typed fields.
#[derive(Debug, Serialize)]
pub struct EvalJson {
    /// The expression as given.
    pub expression: String,
    /// `integer`, `tuple`, `layout`, `swizzled layout`, `swizzle`, `tiler` or `boolean`.
    pub kind: &'static str,
    /// The value in CuTe notation (what `tessel eval` prints).
    pub value: String,
    /// The integer, for `integer`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub integer: Option<i64>,
    /// The truth value, for `boolean`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub boolean: Option<bool>,
    /// Shape, stride, size, cosize and rank of the (unswizzled) layout.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub layout: Option<LayoutJson>,
}

/// Facts of a layout.
#[derive(Debug, Serialize)]
pub struct LayoutJson {
    /// The shape in CuTe notation.
    pub shape: String,
    /// The stride in CuTe notation.
    pub stride: String,
    /// Number of coordinates.
    pub size: i64,
    /// One past the largest offset.
    pub cosize: i64,
    /// Number of top-level modes.
    pub rank: usize,
}

impl LayoutJson {
    /// The facts of `l`.
    pub fn of(l: &tessel::Layout) -> LayoutJson {
        LayoutJson {
            shape: l.shape().to_string(),
            stride: l.stride().to_string(),
            size: l.size(),
            cosize: l.cosize(),
            rank: l.rank(),
        }
    }
}

/// The JSON of an evaluated expression.
fn to_json(expression: String, value: &Value) -> EvalJson {
    let (kind, integer, boolean, layout) = match value {
        Value::Int(n) => ("integer", Some(*n), None, None),
        Value::Tuple(_) => ("tuple", None, None, None),
        Value::Layout(l) => ("layout", None, None, Some(LayoutJson::of(l))),
        Value::Composed(c) => (
            "swizzled layout",
            None,
            None,
            Some(LayoutJson::of(c.layout())),
        ),
        Value::Swizzle(_) => ("swizzle", None, None, None),
        Value::Tiler(_) => ("tiler", None, None, None),
        Value::Slice(_) => ("slicing coordinate", None, None, None),
        Value::Bool(b) => ("boolean", None, Some(*b), None),
    };
    EvalJson {
        expression,
        kind,
        value: value.to_string(),
        integer,
        boolean,
        layout,
    }
}

/// Evaluates and prints.
pub fn run(args: &Args, out: &mut dyn Write) -> Result<()> {
    let text = expression("eval", &args.expr)?;
    let value = eval(&text)?;
    if args.json {
        return print_json(out, &to_json(text, &value));
    }
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
