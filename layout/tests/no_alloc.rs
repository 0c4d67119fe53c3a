//! Small layouts do not allocate: a tuple node keeps the tokens of its elements inline (up to
//! twelve), so building, copying and querying a small layout and every algebra operation of the
//! benchmark (`layout/benches/algebra.rs`) on small layouts allocate nothing.
//!
//! Allocations are counted per thread by a counting global allocator, so the tests of this
//! file may run in parallel.

use std::alloc::{GlobalAlloc, Layout as AllocLayout, System};
use std::cell::Cell;

use tessel_layout::{
    IntTuple, Layout, Tiler, blocked_product, coalesce, complement, composition, filter,
    left_inverse, logical_divide, logical_product, raked_product, right_inverse, zipped_product,
};

struct Counting;

thread_local! {
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

fn count_one() {
    // `try_with`: the allocator also runs while thread-locals are torn down.
    let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
}

// SAFETY: every call is forwarded unchanged to the system allocator.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: AllocLayout) -> *mut u8 {
        count_one();
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: AllocLayout) -> *mut u8 {
        count_one();
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: AllocLayout, new_size: usize) -> *mut u8 {
        count_one();
        unsafe { System.realloc(ptr, layout, new_size) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: AllocLayout) {
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// `f()` and the number of allocations (and reallocations) it made on this thread.
fn allocations<T>(f: impl FnOnce() -> T) -> (usize, T) {
    let before = ALLOCATIONS.with(Cell::get);
    let value = f();
    (ALLOCATIONS.with(Cell::get) - before, value)
}

fn layout(s: &str) -> Layout {
    s.parse().unwrap()
}

#[test]
fn queries_of_small_layouts_do_not_allocate() {
    for (text, index, offset) in [
        // index 5 = coordinate (1,1): 8 + 1
        ("(4,8):(8,1)", 5, 9),
        // index 37 = ((1,1),(1,0)): 32 + 1 + 16
        ("((4,8),(2,2)):((32,1),(16,8))", 37, 49),
        // eight leaves: index 255 is every coordinate 1, the sum of the strides
        ("(2,2,2,2,2,2,2,2):(1,2,4,8,16,32,64,128)", 255, 255),
        ("32:3", 7, 21),
    ] {
        let l = layout(text);
        let coord = IntTuple::Int(index);
        let (n, got) = allocations(|| {
            (
                l.offset(index).unwrap(),
                l.offset_unchecked(index),
                l.crd2idx(&coord).unwrap(),
                l.size(),
                l.cosize(),
                l.offset_range().unwrap(),
                l.rank(),
                l.depth(),
            )
        });
        assert_eq!(n, 0, "{text}: queries allocated {n} times");
        assert_eq!((got.0, got.1, got.2), (offset, offset, offset), "{text}");
        // size and cosize by their definitions: product of the extents, max offset + 1.
        let brute_max = (0..l.size()).map(|i| l.offset_unchecked(i)).max().unwrap();
        assert_eq!(got.3, l.shape().leaves().iter().product::<i64>(), "{text}");
        assert_eq!(got.4, brute_max + 1, "{text}");
    }
}

#[test]
fn an_index_outside_the_domain_is_still_an_error() {
    let l = layout("(4,8):(8,1)");
    assert!(l.offset(32).is_err());
    assert!(l.offset(-1).is_err());
    assert_eq!(l.offset(31).unwrap(), 3 * 8 + 7);
}

#[test]
fn single_mode_results_do_not_allocate() {
    let a = layout("(2,(1,6)):(1,(6,2))");
    let b = layout("(4,8):(1,4)");
    let c = layout("4:1");
    let d = layout("16:2");
    let e = layout("(4,2):(1,0)");
    type Op<'a> = Box<dyn Fn() -> Layout + 'a>;
    let cases: Vec<(&str, Op<'_>, &str)> = vec![
        // CuTe docs (02_layout_algebra.md): coalesce((2,(1,6)):(1,(6,2))) = 12:1.
        ("coalesce", Box::new(|| coalesce(&a).unwrap()), "12:1"),
        // CuTe docs (02_layout_algebra.md): complement(4:1, 24) = 6:4.
        (
            "complement",
            Box::new(|| complement(&c, 24).unwrap()),
            "6:4",
        ),
        // (4,8):(1,4) is 32:1 as a function, so composing with 16:2 gives 16:2.
        (
            "composition",
            Box::new(|| composition(&b, &d).unwrap()),
            "16:2",
        ),
        (
            "right_inverse",
            Box::new(|| right_inverse(&b).unwrap()),
            "32:1",
        ),
        (
            "left_inverse",
            Box::new(|| left_inverse(&b).unwrap()),
            "32:1",
        ),
        // The stride-0 mode is dropped.
        ("filter", Box::new(|| filter(&e).unwrap()), "4:1"),
    ];
    // The inputs' tuples were built above; each operation runs on them without allocating.
    for (name, op, expected) in &cases {
        let (n, r) = allocations(op);
        assert_eq!(r.to_string(), *expected, "{name}");
        assert_eq!(n, 0, "{name} allocated {n} times for the single mode {r}");
    }
}

#[test]
fn benchmarked_operations_do_not_allocate() {
    let l = layout;
    let tiler = |parts: &[&str]| {
        Tiler::ByMode(
            parts
                .iter()
                .map(|p| Some(Tiler::Layout(layout(p))))
                .collect(),
        )
    };
    let (a1, b1) = (l("(6,2):(8,2)"), l("(4,3):(3,1)"));
    let (a5, b5) = (l("(128,64):(64,1)"), l("((8,16),(8,8)):((1,64),(8,512))"));
    let rowmajor = l("(4,3):(3,1)");
    let semantics = l("(2,4,6):(4,1,8)");
    let tv = l("((4,8),(2,2)):((32,1),(16,8))");
    let (c1, c2) = (l("4:2"), l("((2,2),(4,2),2):((1,64),(2,512),4096)"));
    let (a2, t2) = (l("(4,2,3):(2,1,8)"), Tiler::Layout(l("4:2")));
    let (a3, t3) = (l("(2,2):(4,1)"), Tiler::Layout(l("6:1")));
    let (a4, t4) = (l("(4096,4096):(4096,1)"), tiler(&["128:1", "64:1"]));
    let (a6, t6) = (l("(9,(4,8)):(59,(13,1))"), tiler(&["3:3", "(2,4):(1,8)"]));
    let (a7, t7) = (l("(2,2):(1,2)"), tiler(&["3:1", "2:1"]));
    let (a8, b8) = (l("(2,5):(5,1)"), l("(3,4):(1,3)"));
    type Op<'a> = Box<dyn Fn() -> Layout + 'a>;
    // (operation, result). Inputs and results
    // are the benchmark's (layout/benches/algebra.rs): CuTe docs (02_layout_algebra.md) and
    // docs/semantics.md reference values.
    let cases: Vec<(&str, Op<'_>, &str)> = vec![
        (
            "composition",
            Box::new(|| composition(&a1, &b1).unwrap()),
            "((2,2),3):((24,2),8)",
        ),
        (
            "composition of a tile",
            Box::new(|| composition(&a5, &b5).unwrap()),
            "((8,(2,8)),(8,8)):((64,(4096,1)),(512,4))",
        ),
        (
            "complement",
            Box::new(|| complement(&c1, 24).unwrap()),
            "(2,3):(1,8)",
        ),
        (
            "complement of a nested layout",
            Box::new(|| complement(&c2, 1 << 16).unwrap()),
            "(8,4,4,8):(8,128,1024,8192)",
        ),
        (
            "coalesce",
            Box::new(|| coalesce(&rowmajor).unwrap()),
            "(4,3):(3,1)",
        ),
        (
            "right_inverse",
            Box::new(|| right_inverse(&semantics).unwrap()),
            "(4,2,6):(2,1,8)",
        ),
        (
            "left_inverse",
            Box::new(|| left_inverse(&tv).unwrap()),
            "(8,2,2,4):(4,64,32,1)",
        ),
        (
            "logical_divide",
            Box::new(|| logical_divide(&a2, &t2).unwrap()),
            "((2,2),(2,3)):((4,1),(2,8))",
        ),
        (
            "logical_product",
            Box::new(|| logical_product(&a3, &t3).unwrap()),
            "((2,2),(2,3)):((4,1),(2,8))",
        ),
        (
            "logical_divide by mode",
            Box::new(|| logical_divide(&a4, &t4).unwrap()),
            "((128,32),(64,64)):((4096,524288),(1,64))",
        ),
        (
            "zipped_product by mode",
            Box::new(|| zipped_product(&a7, &t7).unwrap()),
            "((2,2),(3,2)):((1,2),(2,1))",
        ),
        (
            "logical_divide by mode of a nested layout",
            Box::new(|| logical_divide(&a6, &t6).unwrap()),
            "((3,3),((2,4),(2,2))):((177,59),((13,2),(26,1)))",
        ),
        (
            "blocked_product",
            Box::new(|| blocked_product(&a8, &b8).unwrap()),
            "((2,3),(5,4)):((5,10),(1,30))",
        ),
        (
            "raked_product",
            Box::new(|| raked_product(&a8, &b8).unwrap()),
            "((3,2),(4,5)):((10,5),(30,1))",
        ),
    ];
    for (name, op, expected) in &cases {
        let (n, r) = allocations(op);
        assert_eq!(r.to_string(), *expected, "{name}");
        assert_eq!(n, 0, "{name} allocated {n} times for {r}");
    }
}

#[test]
fn building_and_copying_small_layouts_does_not_allocate() {
    let (n, (built, copy, modes)) = allocations(|| {
        let shape = IntTuple::tuple([IntTuple::from_ints([4, 8]), IntTuple::Int(2)]);
        let stride = IntTuple::tuple([IntTuple::from_ints([32, 1]), IntTuple::Int(16)]);
        let built = Layout::new(shape, stride).unwrap();
        let copy = built.clone();
        let modes = Layout::from_modes(copy.iter_modes()).unwrap();
        (built, copy, modes)
    });
    assert_eq!(n, 0, "building {built} allocated {n} times");
    assert_eq!(built.to_string(), "((4,8),2):((32,1),16)");
    assert_eq!((copy == built, modes == built), (true, true));
    // Past the inline capacity a tuple moves to the heap and stays correct.
    let (n, wide) = allocations(|| IntTuple::from_ints(1..=20));
    assert!(n > 0, "twenty leaves fit no inline storage");
    assert_eq!(wide.product().unwrap(), (1..=20).product::<i64>());
    assert_eq!(wide.clone(), wide);
}
