//! `tessel eval 'EXPR'`: evaluate an algebra expression and print the result on one line.

use std::io::Write;

use serde::Serialize;
use tessel_kit::Result;
use tessel_kit::expr::{Value, eval, registry};

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
(6,2):(8,2) o (4,3):(3,1) is a composition, A o 3 o B (a layout, an integer, a layout) is CuTe's \
composed layout A(3 + B(c)) kept as it is. Step<_1,X,_1> is CuTe's step (X is '_'). Functions use CuTe's names ('tessel help functions' \
lists them). Atoms are written by their CuTe names (SM75_U32x4_LDSM_N, UniversalCopy<uint128_t>; \
'tessel atom --list'); make_tiled_copy(ATOM, thr, val[, bits]) and make_tiled_mma(ATOM, atoms) \
build tiled copies and MMAs, partition_S/D/A/B/C(X, thread, L) partition a layout for a thread. Several words are joined with spaces; put '--' before an expression that starts \
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
    /// `integer`, `tuple`, `layout`, `swizzled layout`, `swizzle`, `tiler`, `slicing
    /// coordinate`, `boolean`, `copy atom`, `mma atom`, `tiled copy` or `tiled mma`.
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
    /// The facts of a `tiled copy`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tiled_copy: Option<TiledCopyJson>,
    /// The facts of a `tiled mma`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tiled_mma: Option<TiledMmaJson>,
}

/// Facts of a tiled copy.
#[derive(Debug, Serialize)]
pub struct TiledCopyJson {
    /// The copy atom's name.
    pub atom: String,
    /// Bits per value the atom is typed for.
    pub value_bits: i64,
    /// Tiler_MN: the tile's extent per mode.
    pub tiler: Vec<i64>,
    /// TiledLayout_TV: (thread, value) -> tile index.
    pub layout_tv: String,
    /// get_layoutS_TV.
    pub layout_s_tv: String,
    /// get_layoutD_TV.
    pub layout_d_tv: String,
    /// Threads.
    pub threads: i64,
    /// Values per thread.
    pub values: i64,
}

/// Facts of a tiled MMA.
#[derive(Debug, Serialize)]
pub struct TiledMmaJson {
    /// The MMA atom's name.
    pub atom: String,
    /// ThrLayoutVMNK: (V, M, N, K) -> thread.
    pub thr_layout_vmnk: String,
    /// The permutation (tiler) of M, N and K.
    pub permutation_mnk: Vec<String>,
    /// The tile (M, N, K).
    pub tile_mnk: Vec<i64>,
    /// Threads.
    pub threads: i64,
    /// get_layoutA_TV, (thread, value) -> m + M*k.
    pub layout_a_tv: String,
    /// get_layoutB_TV, (thread, value) -> n + N*k.
    pub layout_b_tv: String,
    /// get_layoutC_TV, (thread, value) -> m + M*n.
    pub layout_c_tv: String,
}

impl TiledCopyJson {
    /// The facts of `c`.
    pub fn of(c: &tessel_kit::tiled::TiledCopy) -> Result<TiledCopyJson> {
        Ok(TiledCopyJson {
            atom: c.atom().atom().name().to_string(),
            value_bits: c.atom().value_bits(),
            tiler: c.tiler().to_vec(),
            layout_tv: c.layout_tv().to_string(),
            layout_s_tv: c.layout_s_tv()?.to_string(),
            layout_d_tv: c.layout_d_tv()?.to_string(),
            threads: c.threads(),
            values: c.values(),
        })
    }
}

impl TiledMmaJson {
    /// The facts of `m`.
    pub fn of(m: &tessel_kit::tiled::TiledMma) -> Result<TiledMmaJson> {
        Ok(TiledMmaJson {
            atom: m.atom().name().to_string(),
            thr_layout_vmnk: m.thr_layout_vmnk().to_string(),
            permutation_mnk: (0..3)
                .map(|i| m.permutation_mnk(i).map(|p| p.to_string()))
                .collect::<Result<_>>()?,
            tile_mnk: (0..3).map(|i| m.tile_size(i)).collect::<Result<_>>()?,
            threads: m.threads(),
            layout_a_tv: m.layout_a_tv()?.to_string(),
            layout_b_tv: m.layout_b_tv()?.to_string(),
            layout_c_tv: m.layout_c_tv()?.to_string(),
        })
    }
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
    pub fn of(l: &tessel_kit::Layout) -> LayoutJson {
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
fn to_json(expression: String, value: &Value) -> Result<EvalJson> {
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
        Value::Composition(c) => (
            "composed layout",
            None,
            None,
            Some(LayoutJson::of(
                tessel_kit::composed::ComposedAlgebra::outer(&**c),
            )),
        ),
        Value::Tiler(_) => ("tiler", None, None, None),
        Value::Slice(_) => ("slicing coordinate", None, None, None),
        Value::Bool(b) => ("boolean", None, Some(*b), None),
        Value::CopyAtom(_) => ("copy atom", None, None, None),
        Value::MmaAtom(_) => ("mma atom", None, None, None),
        Value::TiledCopy(_) => ("tiled copy", None, None, None),
        Value::TiledMma(_) => ("tiled mma", None, None, None),
        // Static integers and basis elements (layout/src/expr/typed.rs): the plain kinds; a
        // layout whose values are coordinates is a coordinate layout.
        Value::TypedTuple(t) => match t {
            tessel_kit::IntTuple::Int(b) if b.is_integer() => {
                ("integer", Some(b.value().value()), None, None)
            }
            _ => ("tuple", None, None, None),
        },
        Value::TypedLayout(l) => match l.values() {
            Ok(plain) => ("layout", None, None, Some(LayoutJson::of(&plain))),
            Err(_) => ("coordinate layout", None, None, None),
        },
        Value::TypedTiler(_) => ("tiler", None, None, None),
        Value::TypedOffset(at) => match (&at.0, at.1.values()) {
            (tessel_kit::IntTuple::Int(_), Ok(plain)) => {
                ("swizzled layout", None, None, Some(LayoutJson::of(&plain)))
            }
            _ => ("coordinate layout", None, None, None),
        },
    };
    let tiled_copy = match value {
        Value::TiledCopy(c) => Some(TiledCopyJson::of(c)?),
        _ => None,
    };
    let tiled_mma = match value {
        Value::TiledMma(m) => Some(TiledMmaJson::of(m)?),
        _ => None,
    };
    Ok(EvalJson {
        expression,
        kind,
        value: value.to_string(),
        integer,
        boolean,
        layout,
        tiled_copy,
        tiled_mma,
    })
}

/// Evaluates and prints.
pub fn run(args: &Args, out: &mut dyn Write) -> Result<()> {
    let text = expression("eval", &args.expr)?;
    let value = eval(&text)?;
    if args.json {
        return print_json(out, &to_json(text, &value)?);
    }
    print(out, &format!("{value}\n"))
}

/// The function table as help text.
pub fn function_list() -> String {
    let mut text = String::from("functions of the expression language:\n\n");
    for f in registry::all() {
        let call = format!("{}{}", f.name, f.params);
        if call.len() > 34 {
            // A long call gets its own line; the summary goes under it.
            text.push_str(&format!("  {call}\n  {:<34} {}\n", "", f.summary));
        } else {
            text.push_str(&format!("  {call:<34} {}\n", f.summary));
        }
    }
    text.push_str(
        "\nATOM is a copy or MMA atom by its CuTe name (SM75_U32x4_LDSM_N, \
         UniversalCopy<uint128_t>, SM80_16x8x16_F32F16F16F32_TN; 'tessel atom --list' lists \
         them);\nCOPY a tiled copy, MMA a tiled MMA or an MMA atom.\n",
    );
    text
}
