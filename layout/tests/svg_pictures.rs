//! SVG pictures: well-formed XML (parsed back by a small checker), the expected content, and a
//! snapshot of one picture.

use tessel_layout::svg::{layout_svg, tv_svg};
use tessel_layout::{ComposedLayout, Layout};

/// One parsed element: name, attributes, and the text directly inside it.
#[derive(Debug)]
struct Element {
    name: String,
    attrs: Vec<(String, String)>,
    text: String,
}

/// A minimal XML parser for what the pictures use: elements, attributes with double-quoted
/// values, text, the five predefined entities. Panics (fails the test) on anything malformed:
/// unbalanced or mismatched tags, duplicate attributes, raw '<' or '&' in text or values.
fn parse_xml(doc: &str) -> Vec<Element> {
    let bytes = doc.as_bytes();
    let mut i = 0;
    let mut stack: Vec<usize> = Vec::new();
    let mut out: Vec<Element> = Vec::new();
    let mut roots = 0;
    while i < bytes.len() {
        if bytes[i] == b'<' {
            let end = doc[i..].find('>').map(|e| i + e).expect("unterminated tag");
            let inner = &doc[i + 1..end];
            assert!(!inner.contains('<'), "'<' inside a tag: {inner}");
            if let Some(name) = inner.strip_prefix('/') {
                let open = stack.pop().expect("closing tag without an open one");
                assert_eq!(out[open].name, name.trim(), "mismatched closing tag");
            } else {
                let self_closing = inner.ends_with('/');
                let body = inner.trim_end_matches('/');
                let (name, attrs) = parse_tag(body);
                if stack.is_empty() {
                    roots += 1;
                }
                out.push(Element {
                    name,
                    attrs,
                    text: String::new(),
                });
                if !self_closing {
                    stack.push(out.len() - 1);
                }
            }
            i = end + 1;
        } else {
            let end = doc[i..].find('<').map_or(bytes.len(), |e| i + e);
            let text = &doc[i..end];
            check_entities(text);
            if let Some(&open) = stack.last() {
                out[open].text.push_str(&unescape(text));
            } else {
                assert!(text.trim().is_empty(), "text outside the root: {text:?}");
            }
            i = end;
        }
    }
    assert!(stack.is_empty(), "unclosed elements");
    assert_eq!(roots, 1, "exactly one root element");
    out
}

fn parse_tag(body: &str) -> (String, Vec<(String, String)>) {
    let name_end = body.find(char::is_whitespace).unwrap_or(body.len());
    let name = body[..name_end].to_string();
    assert!(!name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-'));
    let mut attrs: Vec<(String, String)> = Vec::new();
    let mut rest = body[name_end..].trim_start();
    while !rest.is_empty() {
        let eq = rest.find('=').expect("attribute without '='");
        let key = rest[..eq].trim().to_string();
        assert!(
            key.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == ':'),
            "{key}"
        );
        let after = &rest[eq + 1..];
        assert!(after.starts_with('"'), "unquoted attribute {key}");
        let close = after[1..].find('"').expect("unterminated attribute value") + 1;
        let value = &after[1..close];
        check_entities(value);
        assert!(
            !attrs.iter().any(|(k, _)| *k == key),
            "duplicate attribute {key}"
        );
        attrs.push((key, unescape(value)));
        rest = after[close + 1..].trim_start();
    }
    (name, attrs)
}

fn check_entities(text: &str) {
    assert!(!text.contains('<'), "raw '<' in {text:?}");
    for (pos, _) in text.match_indices('&') {
        let tail = &text[pos..];
        assert!(
            ["&lt;", "&gt;", "&amp;", "&quot;", "&apos;"]
                .iter()
                .any(|e| tail.starts_with(e)),
            "bad entity in {text:?}"
        );
    }
}

fn unescape(text: &str) -> String {
    text.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&apos;", "'")
        .replace("&amp;", "&")
}

fn texts(elements: &[Element]) -> Vec<&str> {
    elements
        .iter()
        .filter(|e| e.name == "text")
        .map(|e| e.text.as_str())
        .collect()
}

#[test]
fn swizzled_grid_is_well_formed_and_coloured_by_bank() {
    let c: ComposedLayout = "Sw<3,2,3> o (8,32):(32,1)".parse().unwrap();
    let svg = layout_svg(&c, Some(4)).unwrap();
    let xml = parse_xml(&svg);
    assert_eq!(xml[0].name, "svg");
    let title = xml.iter().find(|e| e.name == "title").unwrap();
    assert!(title.text.contains("Sw<3,2,3> o (8,32):(32,1)"));
    let labels = texts(&xml);
    // every offset 0..256 appears once as a cell label (a bijection), plus headers and legend
    for o in 0..256 {
        assert!(labels.contains(&o.to_string().as_str()), "offset {o}");
    }
    for k in 0..32 {
        assert!(labels.contains(&format!("bank {k}").as_str()));
    }
    // cells: the background, 256 cells and 32 legend swatches
    let rects = xml.iter().filter(|e| e.name == "rect").count();
    assert_eq!(rects, 1 + 256 + 32);
    // the cells of one column of the swizzled tile have 8 different colours (conflict-free)
    let fills: Vec<&str> = xml
        .iter()
        .filter(|e| e.name == "rect")
        .skip(1)
        .take(8)
        .map(|e| {
            e.attrs
                .iter()
                .find(|(k, _)| k == "fill")
                .unwrap()
                .1
                .as_str()
        })
        .collect();
    let mut distinct = fills.clone();
    distinct.sort();
    distinct.dedup();
    assert_eq!(distinct.len(), 8, "{fills:?}");
}

#[test]
fn unswizzled_column_shares_one_bank() {
    let l: Layout = "(8,32):(32,1)".parse().unwrap();
    let xml = parse_xml(&layout_svg(&l, Some(4)).unwrap());
    let mut fills: Vec<String> = xml
        .iter()
        .filter(|e| e.name == "rect")
        .skip(1)
        .take(8)
        .map(|e| e.attrs.iter().find(|(k, _)| k == "fill").unwrap().1.clone())
        .collect();
    fills.dedup();
    assert_eq!(fills.len(), 1);
}

#[test]
fn tv_picture_labels_threads_and_values() {
    // CuTe mma_traits_sm80.hpp: the SM80 16x8x16 C fragment ((4,8),(2,2)):((32,1),(16,8)), 16x8.
    let tv: Layout = "((4,8),(2,2)):((32,1),(16,8))".parse().unwrap();
    let xml = parse_xml(&tv_svg(&tv, 16, 8).unwrap());
    let labels = texts(&xml);
    for t in 0..32 {
        for v in 0..4 {
            assert!(labels.contains(&format!("T{t}V{v}").as_str()), "T{t}V{v}");
        }
    }
    // Cells are listed column-major. The PTX ISA figure of the m16n8 C fragment: thread 0
    // holds (0,0),(0,1),(8,0),(8,1); thread 1 holds (0,2); row 1 starts with thread 4.
    let cells: Vec<&str> = labels
        .iter()
        .copied()
        .filter(|l| l.starts_with('T'))
        .collect();
    assert_eq!(cells.len(), 128);
    assert_eq!(cells[0], "T0V0"); // (0,0)
    assert_eq!(cells[16], "T0V1"); // (0,1)
    assert_eq!(cells[8], "T0V2"); // (8,0)
    assert_eq!(cells[24], "T0V3"); // (8,1)
    assert_eq!(cells[32], "T1V0"); // (0,2)
    assert_eq!(cells[1], "T4V0"); // (1,0)
}

#[test]
fn errors_instead_of_huge_or_wrong_pictures() {
    let big: Layout = "(1024,1024):(1,1024)".parse().unwrap();
    assert!(layout_svg(&big, None).is_err());
    let tv: Layout = "(4,2):(1,4)".parse().unwrap();
    assert!(tv_svg(&tv, 2, 2).is_err());
    assert!(tv_svg(&tv, 0, 2).is_err());
}

#[test]
fn snapshot_of_a_small_swizzled_tile() {
    let c: ComposedLayout = "Sw<1,1,2> o (4,4):(4,1)".parse().unwrap();
    insta::assert_snapshot!(layout_svg(&c, Some(4)).unwrap());
}

/// The bank of an element offset by the model's definition (32 banks of 4 bytes), computed
/// here independently of `tessel_layout::svg::bank_of`.
fn bank(offset: i64, elem_bytes: i64) -> i64 {
    (offset * elem_bytes / 4) % 32
}

fn attr<'a>(e: &'a Element, key: &str) -> &'a str {
    e.attrs
        .iter()
        .find(|(k, _)| k == key)
        .map_or("", |(_, v)| v.as_str())
}

/// Each cell (a `rect` of the grid) with the offset label and the bank label drawn inside it.
fn cells(xml: &[Element]) -> Vec<(i64, String)> {
    let num = |e: &Element, k: &str| attr(e, k).parse::<i64>().unwrap();
    let rects: Vec<&Element> = xml
        .iter()
        .filter(|e| e.name == "rect" && attr(e, "stroke").is_empty() && attr(e, "x") != "0")
        .collect();
    let texts: Vec<&Element> = xml.iter().filter(|e| e.name == "text").collect();
    rects
        .iter()
        .map(|r| {
            let (x, y) = (num(r, "x"), num(r, "y"));
            let (w, h) = (num(r, "width"), num(r, "height"));
            let inside: Vec<&str> = texts
                .iter()
                .filter(|t| {
                    let (tx, ty) = (num(t, "x"), num(t, "y"));
                    tx > x && tx < x + w && ty > y && ty < y + h
                })
                .map(|t| t.text.as_str())
                .collect();
            assert_eq!(inside.len(), 2, "cell at ({x},{y}) holds {inside:?}");
            (inside[0].parse().unwrap(), inside[1].to_string())
        })
        .collect()
}

#[test]
fn every_cell_names_its_bank_under_its_offset() {
    // The 8x64 fp16 tile with CuTe's Sw<3,3,3> (the 128-byte swizzle).
    let c: ComposedLayout = "Sw<3,3,3> o (8,64):(64,1)".parse().unwrap();
    let xml = parse_xml(&layout_svg(&c, Some(2)).unwrap());
    let cells = cells(&xml);
    assert_eq!(cells.len(), 512);
    for (offset, label) in &cells {
        assert_eq!(*label, format!("b{}", bank(*offset, 2)), "offset {offset}");
    }
    // Every offset 0..512 is drawn once (a bijection).
    let mut offsets: Vec<i64> = cells.iter().map(|c| c.0).collect();
    offsets.sort();
    assert_eq!(offsets, (0..512).collect::<Vec<_>>());
    // The legend names all 32 banks, with a swatch each.
    let legend = texts(&xml);
    for k in 0..32 {
        assert!(legend.contains(&format!("bank {k}").as_str()), "bank {k}");
    }
}

#[test]
fn a_wide_tile_is_wrapped_into_blocks_of_columns() {
    let c: ComposedLayout = "Sw<3,3,3> o (8,64):(64,1)".parse().unwrap();
    let svg = layout_svg(&c, Some(2)).unwrap();
    let xml = parse_xml(&svg);
    let width: i64 = attr(&xml[0], "width").parse().unwrap();
    assert!(width <= tessel_layout::svg::MAX_WIDTH, "{width}");
    // Two blocks of 32 columns: the cells of column 32 lie below those of column 0, at the
    // same x; column headers 0..64 are all present.
    let rects: Vec<(i64, i64)> = xml
        .iter()
        .filter(|e| e.name == "rect" && attr(e, "stroke").is_empty() && attr(e, "x") != "0")
        .map(|e| (attr(e, "x").parse().unwrap(), attr(e, "y").parse().unwrap()))
        .collect();
    // Cells are listed column-major, 8 per column.
    let (col0, col32) = (rects[0], rects[32 * 8]);
    assert_eq!(col0.0, col32.0);
    assert!(col32.1 > rects[7].1, "{col0:?} {col32:?}");
    let labels = texts(&xml);
    for n in 0..64 {
        assert!(labels.contains(&n.to_string().as_str()), "column {n}");
    }
    // A narrow tile is not wrapped: one row of cells per row of the layout.
    let narrow: Layout = "(4,8):(8,1)".parse().unwrap();
    let xml = parse_xml(&layout_svg(&narrow, Some(4)).unwrap());
    let ys: std::collections::BTreeSet<&str> = xml
        .iter()
        .filter(|e| e.name == "rect" && attr(e, "stroke").is_empty() && attr(e, "x") != "0")
        .map(|e| attr(e, "y"))
        .collect();
    assert_eq!(ys.len(), 4);
}
