//! The SM80 GEMM, written with the tensor layer, compiles with NVRTC for sm_80 and sm_90 (no
//! GPU needed; skipped with a reason when libnvrtc cannot be loaded, failing instead under
//! `TESSEL_REQUIRE_NVRTC=1`) to the instruction mix of the hand-written kernel it replaced: one
//! 16-byte `cp.async` per chunk, one `ldmatrix.x4` per fragment pair, one `mma.sync` per
//! 16 x 8 x 16 step, 8-byte stores of the accumulators, no local memory; ptxas keeps it in the
//! registers that hold three 4-warp blocks per SM, without spills; and, where `nvdisasm` is
//! available (`TESSEL_NVDISASM=/path/to/nvdisasm`), the main loop's SASS is no longer than the
//! hand-written kernel's.

mod common;

use common::nvrtc_or_skip;
use tessel_kernels::Arch;
use tessel_kernels::compile::compile_ptx;
use tessel_kernels::gemm::{BM, GemmConfig, GemmPlan, MI, NI};

/// The instructions one block's kernel issues, by the tile: `(cp.async, ldmatrix, mma, 8-byte
/// stores)` in the PTX (the prologue's PIPE - 1 stage loads unrolled, the main loop once).
fn expected_counts(cfg: GemmConfig) -> [usize; 4] {
    let chunks = |rows: i64| rows * cfg.bk / 8 / cfg.threads(); // 16-byte chunks per thread
    let k_steps = cfg.bk / 16;
    [
        (cfg.stages * (chunks(BM) + chunks(cfg.bn))) as usize,
        (k_steps * (MI + NI / 2)) as usize,
        (k_steps * MI * NI) as usize,
        (MI * NI * 2) as usize,
    ]
}

fn plan(cfg: GemmConfig) -> GemmPlan {
    GemmPlan::with_config(4096, 4096, 4096, cfg).unwrap()
}

#[test]
#[cfg_attr(
    not(tessel_nvrtc),
    ignore = "needs libnvrtc: see the README's Testing section"
)]
fn every_configuration_compiles_to_the_instruction_mix_of_its_tile() {
    if !nvrtc_or_skip("gemm_nvrtc") {
        return;
    }
    // Every configuration for sm_90 (where the kernel is measured), the two that `tessel bench
    // gemm` times for sm_80 too.
    let mut cases: Vec<(GemmConfig, Arch)> = GemmConfig::all()
        .into_iter()
        .map(|c| (c, Arch::new(9, 0).unwrap()))
        .collect();
    for cfg in [GemmConfig::DEFAULT, GemmConfig::LARGE] {
        cases.push((cfg, Arch::new(8, 0).unwrap()));
    }
    for (cfg, arch) in cases {
        let plan = plan(cfg);
        let name = format!("{} {arch}", plan.kernel_name());
        let ptx = compile_ptx(&plan.source().unwrap(), &plan.kernel_name(), arch)
            .unwrap_or_else(|e| panic!("{name}: {e}"))
            .to_src();
        let count = |op: &str| ptx.matches(op).count();
        let [cp, ldsm, mma, st] = expected_counts(cfg);
        assert_eq!(count("cp.async.cg.shared.global [%"), cp, "{name}");
        assert_eq!(
            count("ldmatrix.sync.aligned.m8n8.x4.shared.b16"),
            ldsm,
            "{name}"
        );
        assert_eq!(
            count("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"),
            mma,
            "{name}"
        );
        assert_eq!(count("st.global.v2.b32"), st, "{name}");
        assert_eq!(count("st.global"), st, "{name}: other global stores");
        assert_eq!(
            count("ld.global"),
            0,
            "{name}: global loads outside cp.async"
        );
        assert!(!ptx.contains(".local"), "{name} uses local memory");
    }
}

/// ptxas's report for the configurations `tessel bench gemm` times: no stack, no spills, and
/// registers within what the hand-written kernel needed (docs/journal.md, "GEMM (tensor
/// cores ...)": "ptxas: 165-170 registers ... (206)"): at most 170 for the 4-warp default tile,
/// so that three 128-thread blocks share an SM's 65536 registers, and at most 212 for the
/// 8-warp tile.
#[test]
#[cfg_attr(
    not(tessel_nvrtc),
    ignore = "needs libnvrtc: see the README's Testing section"
)]
fn ptxas_keeps_the_default_tile_at_three_blocks_per_sm_without_spills() {
    if !nvrtc_or_skip("gemm_nvrtc") {
        return;
    }
    for (cfg, arch, most) in [
        (
            GemmConfig::DEFAULT,
            Arch::new(8, 0).unwrap(),
            65536 / (3 * 128),
        ),
        (
            GemmConfig::DEFAULT,
            Arch::new(9, 0).unwrap(),
            65536 / (3 * 128),
        ),
        (GemmConfig::LARGE, Arch::new(9, 0).unwrap(), 212),
    ] {
        let plan = plan(cfg);
        let name = format!("{} {arch}", plan.kernel_name());
        let c = common::verbose_cubin(&plan.source().unwrap(), &plan.kernel_name(), arch);
        common::assert_no_spills(&name, &c.log);
        let regs: i64 = c
            .log
            .split("Used ")
            .nth(1)
            .and_then(|r| r.split(' ').next())
            .and_then(|r| r.parse().ok())
            .unwrap_or_else(|| panic!("{name}: no register count in {}", c.log));
        assert!(regs <= most, "{name}: {regs} registers, at most {most}");
        if let Ok(nvdisasm) = std::env::var("TESSEL_NVDISASM") {
            main_loop_is_no_longer(&nvdisasm, &c.bytes, cfg, &name);
        }
    }
}

/// The main loop of the SASS (the backward branch whose body holds the `HMMA`s): its `LDGSTS`,
/// `LDSM` and `HMMA` are one per chunk, fragment pair and MMA step; no `LDSM` result is read
/// within 4 instructions of its load; and it has no more instructions than the hand-written
/// kernel's loop had (`nvdisasm -c` of NVRTC 13.0's CUBIN of that kernel: 128x128x32s3 130 on
/// sm_80 and 138 on sm_90, 128x256x64s4 237 on sm_90), except 7 more for the default tile on
/// sm_80 (137: ptxas forms the stage offsets of the ldmatrix addresses with 6 `IMAD`s there
/// instead of one uniform shift, as it did for the hand-written kernel on sm_90).
fn main_loop_is_no_longer(nvdisasm: &str, cubin: &[u8], cfg: GemmConfig, name: &str) {
    let sass = common::sass_of(nvdisasm, cubin, "gemm_nvrtc");
    // (label or instruction) lines in order.
    let mut labels = std::collections::HashMap::new();
    let mut ops: Vec<(String, String)> = Vec::new();
    for line in sass.lines() {
        let t = line.trim();
        if let Some(label) = t.strip_suffix(':').filter(|l| l.starts_with(".L_x_")) {
            labels.insert(label.to_string(), ops.len());
        } else if let Some(rest) = t.strip_prefix("/*").and_then(|r| r.split_once("*/")) {
            let text = rest.1.trim().trim_end_matches(';').trim().to_string();
            let op = text
                .split_whitespace()
                .find(|w| !w.starts_with('@'))
                .unwrap_or("")
                .to_string();
            ops.push((op, text));
        }
    }
    let body = ops
        .iter()
        .enumerate()
        .filter(|(_, (op, _))| op.starts_with("BRA"))
        .filter_map(|(i, (_, text))| {
            let label = text.split(['(', ')']).find(|w| w.starts_with(".L_x_"))?;
            let start = *labels.get(label)?;
            (start <= i && ops[start..=i].iter().any(|(o, _)| o.starts_with("HMMA")))
                .then(|| &ops[start..=i])
        })
        .max_by_key(|b| b.len())
        .unwrap_or_else(|| panic!("{name}: no main loop in the SASS"));
    let count = |p: &str| body.iter().filter(|(o, _)| o.starts_with(p)).count();
    let chunks = |rows: i64| (rows * cfg.bk / 8 / cfg.threads()) as usize;
    let k_steps = (cfg.bk / 16) as usize;
    assert_eq!(count("LDGSTS"), chunks(BM) + chunks(cfg.bn), "{name}");
    assert_eq!(count("LDSM"), k_steps * (MI + NI / 2) as usize, "{name}");
    assert_eq!(count("HMMA"), k_steps * (MI * NI) as usize, "{name}");
    // Every ldmatrix result has other instructions to hide its latency before its first use:
    // the hand-written kernel's loop (NVRTC 13.0, sm_90) reads an `LDSM`'s destination 5 or
    // more instructions later in both configurations; a layer body whose extra live registers
    // left ptxas one buffer for B's fragments read 6 of them by the very next instruction.
    for (i, (op, text)) in body.iter().enumerate() {
        if !op.starts_with("LDSM") {
            continue;
        }
        let first = ldsm_first_use(body, i)
            .unwrap_or_else(|| panic!("{name}: `{text}` is not read in the loop"));
        assert!(
            first >= 4,
            "{name}: `{text}` is read {first} instruction(s) later (latency exposed)"
        );
    }
    let most = match (cfg == GemmConfig::DEFAULT, name.ends_with("sm_80")) {
        (true, true) => 137,
        (true, false) => 138,
        (false, _) => 237,
    };
    assert!(
        body.len() <= most,
        "{name}: {} instructions in the main loop",
        body.len()
    );
}

/// How many instructions after `body[at]` (an `LDSM` writing four registers from `Rd`) the
/// first instruction that reads one of them comes (searching to the loop's end, then from its
/// start: the next iteration), `None` if none does.
fn ldsm_first_use(body: &[(String, String)], at: usize) -> Option<usize> {
    let text = &body[at].1;
    let first: u32 = text
        .split_whitespace()
        .find_map(|w| w.trim_end_matches(',').strip_prefix('R')?.parse().ok())?;
    let regs: Vec<String> = (first..first + 4).map(|r| format!("R{r}")).collect();
    let reads = |t: &str| {
        // The operands after the destination (the first comma).
        t.split_once(',').is_some_and(|(_, srcs)| {
            srcs.split(|c: char| !c.is_ascii_alphanumeric())
                .any(|w| regs.iter().any(|r| r == w))
        })
    };
    (1..body.len()).find(|&d| reads(&body[(at + d) % body.len()].1))
}
