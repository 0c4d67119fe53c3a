//! Layouts with more leaves than the algebra keeps inline (six leaves in a tuple, eight modes in
//! a scratch list): the operations take their heap paths there and must give exactly what they
//! give on the same function written with few leaves.
//!
//! Each wide layout is a narrow one with extent-1 modes (which change no offset) inserted
//! between its modes. Coalesce, filter, complement and both inverses depend only on the
//! function, so wide and narrow must give the same layout (or both an error of the same kind);
//! and each result is checked against its defining property by brute force.

use tessel_layout::{
    ErrorKind, Layout, coalesce, complement, composition, filter, left_inverse, right_inverse,
};

fn layout(s: &str) -> Layout {
    s.parse().unwrap_or_else(|e| panic!("{s}: {e}"))
}

/// `narrow` with `pad` extent-1 modes (stride `7k`, any stride is the same) before each mode and
/// after the last: a flat layout of `(pad + 1) * rank + pad` leaves with the same offsets.
fn widen(narrow: &Layout, pad: usize) -> Layout {
    let modes: Vec<(i64, i64)> = narrow.flat_modes().into_iter().collect();
    let mut shape = Vec::new();
    let mut stride = Vec::new();
    let mut filler = 0i64;
    let mut push_filler = |shape: &mut Vec<String>, stride: &mut Vec<String>| {
        for _ in 0..pad {
            shape.push("1".to_string());
            stride.push((7 * filler).to_string());
            filler += 1;
        }
    };
    for (s, d) in modes {
        push_filler(&mut shape, &mut stride);
        shape.push(s.to_string());
        stride.push(d.to_string());
    }
    push_filler(&mut shape, &mut stride);
    let wide = layout(&format!("({}):({})", shape.join(","), stride.join(",")));
    assert_eq!(wide.size(), narrow.size());
    for i in 0..narrow.size() {
        assert_eq!(wide.offset(i).unwrap(), narrow.offset(i).unwrap());
    }
    wide
}

/// Flat layouts of 1 to 10 modes: injective and not, with holes, with stride-0 modes; the
/// last three coalesce to nine or ten modes, past the scratch lists' inline length by
/// themselves.
const NARROW: [&str; 12] = [
    "(2,4):(4,1)",
    "(4,3):(3,1)",
    "(2,4,6):(4,1,8)",
    "(2,2,2):(1,6,24)",
    "(2,3,2,2):(1,2,12,48)",
    "(4,2):(0,1)",
    "(2,3):(390,391)",
    "(3,2,2,2,2):(1,3,6,12,24)",
    "8:2",
    "(2,2,2,2,2,2,2,2,2,2):(2,1,8,4,32,16,128,64,512,256)",
    "(2,2,2,2,2,2,2,2,2,2):(1,4,16,64,256,1024,4096,16384,65536,262144)",
    "(2,3,2,2,2,2,2,2,2):(390,391,392,393,394,396,397,398,399)",
];

/// Pads that put the wide layout past six leaves and past eight modes.
const PADS: [usize; 3] = [2, 5, 40];

/// The offsets of `l`, sorted, each once.
fn image(l: &Layout) -> Vec<i64> {
    let mut offsets: Vec<i64> = (0..l.size()).map(|i| l.offset(i).unwrap()).collect();
    offsets.sort_unstable();
    offsets.dedup();
    offsets
}

/// The left inverse's condition, by its definition: the modes of extent above 1 and non-zero
/// stride, sorted by stride, each have a stride that is a multiple of the previous
/// extent*stride.
fn divisible(l: &Layout) -> bool {
    let mut modes: Vec<(i64, i64)> = l
        .flat_modes()
        .into_iter()
        .filter(|&(s, d)| s > 1 && d != 0)
        .collect();
    modes.sort_by_key(|&(_, d)| d);
    modes.windows(2).all(|w| w[1].1 % (w[0].0 * w[0].1) == 0)
}

/// The same result (or an error of the same kind) on the narrow and the wide layout.
fn same<T: PartialEq + std::fmt::Display>(
    what: &str,
    narrow: &Layout,
    wide: &Layout,
    f: impl Fn(&Layout) -> tessel_layout::Result<T>,
) -> Option<T> {
    match (f(narrow), f(wide)) {
        (Ok(a), Ok(b)) => {
            assert!(a == b, "{what}: {narrow} gives {a}, {wide} gives {b}");
            Some(b)
        }
        (Err(a), Err(b)) => {
            assert_eq!(a.kind(), b.kind(), "{what}: {a} / {b}");
            None
        }
        (a, b) => panic!(
            "{what} of {narrow} and of {wide}: {:?} / {:?}",
            a.map(|x| x.to_string()).map_err(|e| e.to_string()),
            b.map(|x| x.to_string()).map_err(|e| e.to_string())
        ),
    }
}

#[test]
fn coalesce_and_filter_of_wide_layouts_keep_the_function() {
    for text in NARROW {
        let narrow = layout(text);
        for pad in PADS {
            let wide = widen(&narrow, pad);
            let c = same("coalesce", &narrow, &wide, coalesce).unwrap();
            for i in 0..wide.size() {
                assert_eq!(
                    c.offset(i).unwrap(),
                    wide.offset(i).unwrap(),
                    "{wide} at {i}"
                );
            }
            let f = same("filter", &narrow, &wide, filter).unwrap();
            // filter drops the stride-0 and extent-1 modes: its image is the layout's image.
            assert_eq!(image(&wide), image(&f), "filter({wide}) = {f}");
        }
    }
}

#[test]
fn inverses_of_wide_layouts_are_inverses() {
    for text in NARROW {
        let narrow = layout(text);
        for pad in PADS {
            let wide = widen(&narrow, pad);
            // right inverse: L(R(i)) = i for every i in R's domain, and where L is a bijection
            // onto 0..size(L), R is its whole inverse.
            let r = same("right_inverse", &narrow, &wide, right_inverse).unwrap();
            for i in 0..r.size() {
                let j = r.offset(i).unwrap();
                assert_eq!(wide.offset(j).unwrap(), i, "{wide} o {r} at {i}");
            }
            let image = image(&wide);
            if image.iter().copied().eq(0..wide.size()) {
                assert_eq!(r.size(), wide.size(), "right_inverse({wide}) = {r}");
            }
            // left inverse (where it exists): L^-1(L(i)) = i for every i in L's domain when L
            // is injective (for a layout with stride-0 modes it inverts the other modes only).
            let injective = image.len() as i64 == wide.size();
            let l = same("left_inverse", &narrow, &wide, left_inverse);
            assert!(
                l.is_some() || !divisible(&narrow),
                "left_inverse({wide}) fails although its strides meet the divisibility condition"
            );
            if let Some(l) = l
                && injective
            {
                for i in 0..wide.size() {
                    assert_eq!(
                        l.offset(wide.offset(i).unwrap()).unwrap(),
                        i,
                        "{l} o {wide}"
                    );
                }
            }
        }
    }
}

#[test]
fn the_left_inverse_of_a_wide_overlapping_layout_names_the_condition() {
    // (2,3):(390,391) overlaps (2*391 = 390+392 ...); with 400 leaves the error is the narrow
    // layout's, not an artefact of the heap path.
    let wide = widen(&layout("(2,3):(390,391)"), 200);
    let err = left_inverse(&wide).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Inadmissible, "{err}");
    assert!(
        err.to_string()
            .contains("left inverse divisibility condition"),
        "{err}"
    );
}

#[test]
fn complements_of_wide_layouts_fill_the_holes() {
    for text in NARROW {
        let narrow = layout(text);
        for pad in PADS {
            let wide = widen(&narrow, pad);
            let Some(c) = same("complement", &narrow, &wide, |l| complement(l, 1 << 12)) else {
                continue;
            };
            // The complement meets the layout's image only at 0 and (A, C) is injective.
            let image = image(&wide);
            let mut seen = std::collections::BTreeSet::new();
            for j in 0..c.size() {
                let cj = c.offset(j).unwrap();
                assert!(
                    j == 0 || image.binary_search(&cj).is_err(),
                    "complement({wide}) = {c} at {j}"
                );
                for &a in &image {
                    assert!(seen.insert(a + cj), "(A, complement) not injective: {c}");
                }
            }
        }
    }
}

#[test]
fn composition_with_a_wide_layout_matches_the_narrow_one() {
    for text in NARROW {
        let narrow = layout(text);
        let size = narrow.size();
        for pad in PADS {
            let wide = widen(&narrow, pad);
            // A o B for B = size:1 is A's function on its own domain.
            let b = layout(&format!("{size}:1"));
            if let Some(ab) = same("composition", &narrow, &wide, |a| composition(a, &b)) {
                for i in 0..size {
                    assert_eq!(
                        ab.offset(i).unwrap(),
                        wide.offset(i).unwrap(),
                        "{ab} at {i}"
                    );
                }
            }
        }
    }
}
