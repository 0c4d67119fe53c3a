//! The tour chapter "Tensor-core swizzle problems" shows the kernels' own layouts: every shared
//! layout and access pattern the kernels of `tessel_kit::kernels::mma` derive from the atoms and
//! synthesis appears in one of the chapter's `tessel conflicts` steps, which report what the
//! kernels' predictions say (ideal when swizzled).

#[path = "cli_support/mod.rs"]
mod cli_support;

use tessel_kit::Layout;
use tessel_kit::kernels::mma::flat_tv;
use tessel_kit::kernels::mma::modes::{ModesKind, ModesPlan};
use tessel_kit::kernels::mma::pair::PairPlan;
use tessel_kit::kernels::mma::power::PowerPlan;

/// `(smem, op, access, output)` of every `tessel conflicts` step of the chapter.
fn steps() -> Vec<(String, String, Layout, String)> {
    let json: serde_json::Value =
        serde_json::from_str(&cli_support::success(&["tour", "--json"])).unwrap();
    let chapter = json["chapters"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["title"] == "Tensor-core swizzle problems")
        .expect("the chapter is listed");
    let quoted = |cmd: &str, opt: &str| -> String {
        let rest = &cmd[cmd.find(&format!("{opt} '")).unwrap() + opt.len() + 2..];
        rest[..rest.find('\'').unwrap()].to_string()
    };
    chapter["steps"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|s| {
            let cmd = s["command"].as_str().unwrap();
            cmd.starts_with("tessel conflicts").then(|| {
                let op = cmd
                    .split("--op ")
                    .nth(1)
                    .unwrap()
                    .split(' ')
                    .next()
                    .unwrap();
                (
                    quoted(cmd, "--smem"),
                    op.to_string(),
                    quoted(cmd, "--access").parse().unwrap(),
                    s["output"].as_str().unwrap().to_string(),
                )
            })
        })
        .collect()
}

/// The chapter has a step of `op` on `smem` whose access enumerates the offsets `tv` does (its
/// first `prefix` elements when given: the chapter leaves out a mode the kernel does not run).
fn shown(
    steps: &[(String, String, Layout, String)],
    smem: &str,
    op: &str,
    tv: &Layout,
    prefix: Option<usize>,
) -> String {
    let mut want = tv.offsets();
    if let Some(n) = prefix {
        want.truncate(n);
    }
    steps
        .iter()
        .find(|(s, o, a, _)| s == smem && o == op && a.offsets() == want)
        .unwrap_or_else(|| panic!("no step shows {op} {tv} on {smem}"))
        .3
        .clone()
}

#[test]
fn the_chapter_shows_the_kernels_layouts_and_their_verdicts() {
    let steps = steps();
    let ideal = |out: &str| assert!(out.ends_with("excess 0"), "{out}");
    let power = PowerPlan::new(true, 1, 2).unwrap();
    let s = power.smem.to_string();
    ideal(&shown(
        &steps,
        &s,
        "ldsm.x4.trans",
        &flat_tv(&power.part_p).unwrap(),
        None,
    ));
    ideal(&shown(
        &steps,
        &s,
        "sts.32",
        &power.write_back().unwrap(),
        None,
    ));
    let plain = power.smem.layout().to_string();
    assert!(
        shown(
            &steps,
            &plain,
            "ldsm.x4.trans",
            &flat_tv(&power.part_p).unwrap(),
            None
        )
        .contains("excess 4")
    );

    let pair = PairPlan::new(true, 1).unwrap();
    let s = pair.smem.to_string();
    ideal(&shown(
        &steps,
        &s,
        "ldsm.x4",
        &flat_tv(&pair.part_a).unwrap(),
        Some(256),
    ));
    ideal(&shown(
        &steps,
        &s,
        "ldsm.x4.trans",
        &flat_tv(&pair.part_b).unwrap(),
        None,
    ));

    let modes = ModesPlan::new(ModesKind::Shared, true, 1).unwrap();
    let s = modes.smem1.to_string();
    ideal(&shown(
        &steps,
        &s,
        "ldsm.x4",
        &flat_tv(&modes.mode1_a).unwrap(),
        None,
    ));
    ideal(&shown(
        &steps,
        &s,
        "ldsm.x4",
        &flat_tv(&modes.mode2_a).unwrap(),
        None,
    ));
    let fill = modes.accesses().unwrap()[0].tv.clone();
    ideal(&shown(&steps, &s, "sts.128", &fill, None));

    let relayout = ModesPlan::new(ModesKind::Relayout, true, 1).unwrap();
    let s2 = relayout.smem2.to_string();
    ideal(&shown(
        &steps,
        &s2,
        "ldsm.x4",
        &flat_tv(&relayout.mode2_a).unwrap(),
        None,
    ));
    ideal(&shown(&steps, &s2, "sts.128", &fill, None));
    let c2_write = relayout.c2_write().unwrap();
    ideal(&shown(&steps, &s2, "sts.32", &c2_write, None));
    let plain = relayout.smem2.layout().to_string();
    let unswizzled = shown(&steps, &plain, "sts.32", &c2_write, None);
    assert!(unswizzled.ends_with("excess 64"), "{unswizzled}");
    let s1 = relayout.smem1.to_string();
    let cross = shown(
        &steps,
        &s1,
        "ldsm.x4",
        &flat_tv(&relayout.mode2_a).unwrap(),
        None,
    );
    assert!(!cross.ends_with("excess 0"), "{cross}");
}
