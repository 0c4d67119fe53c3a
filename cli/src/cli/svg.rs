//! `tessel show --svg FILE [--elem-bytes N | --tv RxC]`: the picture of a layout, a tiled copy or a
//! tiled MMA.

use tessel_kit::expr::Value;
use tessel_kit::svg::{layout_svg, tiled_copy_svg, tiled_mma_svg, tv_svg};
use tessel_kit::{Error, Result};

/// The options of the picture.
#[derive(Default)]
pub struct SvgOptions {
    /// Colour cells by the bank of `elem_bytes`-byte elements.
    pub elem_bytes: Option<i64>,
    /// Draw the value as a TV layout over a `rows x cols` tile.
    pub tv_tile: Option<(i64, i64)>,
}

/// Parses `RxC` (or `R,C`), the value of `--tv`.
pub fn parse_tile(text: &str) -> std::result::Result<(i64, i64), String> {
    let parsed = text
        .split_once(['x', ','])
        .and_then(|(r, c)| Some((r.trim().parse().ok()?, c.trim().parse().ok()?)));
    parsed.ok_or_else(|| format!("the tile is ROWSxCOLS (e.g. 16x8), got '{text}'"))
}

/// Whether `value` is drawn as a tiled copy or a tiled MMA (an MMA atom is its tiled MMA of
/// one atom).
pub fn is_tiled(value: &Value) -> bool {
    matches!(
        value,
        Value::TiledCopy(_) | Value::TiledMma(_) | Value::MmaAtom(_)
    )
}

/// The picture of a tiled copy or tiled MMA.
fn tiled_picture(value: &Value, options: &SvgOptions) -> Result<String> {
    if options.tv_tile.is_some() || options.elem_bytes.is_some() {
        return Err(Error::invalid(format!(
            "--tv and --elem-bytes draw layouts; {} is drawn by thread without them",
            value.describe()
        )));
    }
    match value {
        Value::TiledCopy(c) => tiled_copy_svg(c),
        Value::TiledMma(m) => tiled_mma_svg(m),
        Value::MmaAtom(a) => tiled_mma_svg(&tessel_kit::tiled::make_tiled_mma(
            a,
            &tessel_kit::Layout::vector(1, 0)?,
            &[],
        )?),
        other => Err(Error::invalid(format!(
            "--svg cannot draw {}",
            other.describe()
        ))),
    }
}

/// Writes the picture of `value` to `path`.
pub fn write(value: &Value, path: &str, options: &SvgOptions) -> Result<()> {
    if is_tiled(value) {
        let svg = tiled_picture(value, options)?;
        return std::fs::write(path, svg)
            .map_err(|e| Error::invalid(format!("cannot write the picture to {path}: {e}")));
    }
    let svg = match options.tv_tile {
        Some((rows, cols)) => {
            if options.elem_bytes.is_some() {
                return Err(Error::invalid(
                    "--tv and --elem-bytes do not go together: a TV picture is coloured by thread",
                ));
            }
            let tv = value.as_layout().ok_or_else(|| {
                Error::invalid(format!(
                    "--tv needs a TV layout without swizzle, got {}",
                    value.describe()
                ))
            })??;
            tv_svg(&tv, rows, cols)?
        }
        None => {
            let c = value.as_composed().ok_or_else(|| {
                Error::invalid(format!("--svg needs a layout, got {}", value.describe()))
            })??;
            layout_svg(&c, options.elem_bytes)?
        }
    };
    std::fs::write(path, svg)
        .map_err(|e| Error::invalid(format!("cannot write the picture to {path}: {e}")))
}
