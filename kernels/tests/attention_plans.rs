//! Host tests of the attention kernel's plans and checks (no GPU, no NVRTC): every
//! configuration's proofs, the layer's accumulator views against CuTe's published GMMA
//! layouts, the argument checks of the API, and the f64 reference and its error bound against
//! a CPU model of the kernel's blocked online softmax.

use tessel_kernels::Element;
use tessel_kernels::attention::reference::{
    HostOperands, RowReference, checked_rows, compare_rows, reference_row, visible_keys,
};
use tessel_kernels::attention::{AttnConfig, AttnPlan, HEAD_DIMS, Problem, SMEM_LIMIT, Strides};
use tessel_kernels::element::DeviceElement;
use tessel_kernels::hopper::INPUTS;
use tessel_kernels::kernel::CType;
use tessel_kernels::layer::{DeviceMma, DeviceTensor};
use tessel_layout::atom::mma_atom;
use tessel_layout::tiled::make_tiled_mma;

/// Every configuration the kernel is built for: the default tile of each head dimension, and the
/// short-sequence tile of head dimension 64 (two blocks per SM).
fn configs() -> Vec<AttnConfig> {
    let mut out = Vec::new();
    for d in HEAD_DIMS {
        for dtype in INPUTS {
            for causal in [false, true] {
                for varlen in [false, true] {
                    if !varlen {
                        let p = Problem::new(1, 512, 512, 1, 1, d).causal(causal);
                        out.push(AttnConfig::for_problem(&p, dtype).unwrap());
                    }
                    out.push(AttnConfig::new(d, dtype, causal, varlen).unwrap());
                }
            }
        }
    }
    out.dedup();
    out
}

#[test]
fn every_configuration_is_proven_and_declared() {
    for config in configs() {
        let plan = AttnPlan::new(config).unwrap();
        assert!(plan.smem_bytes() <= SMEM_LIMIT, "{config}");
        let kernel = plan.kernel().unwrap_or_else(|e| panic!("{config}: {e}"));
        assert_eq!(kernel.name(), config.kernel_name());
        let src = kernel.source();
        // Q and K are read K-major (tnsp 0), V^T MN-major (tnsp 1): V is stored (key, dim),
        // dim contiguous, and is the B operand (N = dim, K = key) of O += P V. The transpose
        // travels in the descriptor tensor's engine (`tessel::descriptors<TNSP>`).
        for (name, tnsp) in [("dq", 0), ("dk", 0), ("dv", 1)] {
            let decl = format!(
                "tessel::Tensor<tessel::descriptors<{tnsp}>, {name}_layout> {name}(b32 smem)"
            );
            assert!(src.contains(&decl), "{config}: {decl}");
        }
        assert!(src.contains("enum : int { ROW_LANES = 3 };"), "{config}");
    }
}

#[test]
fn the_epilogue_is_free_of_bank_conflicts() {
    for config in configs() {
        let plan = AttnPlan::new(config).unwrap();
        let (st, ld) = plan.epilogue_banks().unwrap();
        // stmatrix.x4 (4 matrices of 8 rows of 16 bytes) and lds.128 (32 lanes x 16 bytes) move
        // 512 bytes each: 4 wavefronts without conflicts.
        for r in st.iter().chain(&ld) {
            assert_eq!((r.wavefronts, r.ideal, r.excess), (4, 4, 0), "{config}");
        }
        // 64 x D 16-bit elements per consumer, 512 bytes per instruction.
        let per = 64 * config.head_dim * 2 / 512;
        assert_eq!(st.len() as i64, per, "{config}");
        assert_eq!(ld.len() as i64, per, "{config}");
    }
}

#[test]
fn tiles_that_do_not_fit_are_refused() {
    let c = AttnConfig::new(256, Element::F16, false, false).unwrap();
    let err = AttnPlan::new(c.with_tile(64, 3).unwrap()).unwrap_err();
    assert!(err.to_string().contains("shared memory"), "{err}");
    assert!(AttnConfig::new(32, Element::F16, false, false).is_err());
    assert!(c.with_tile(72, 2).is_err()); // not a multiple of 16
    assert!(c.with_tile(64, 1).is_err());
    // A non-default tile that fits is proven like the defaults.
    let wide = AttnConfig::new(128, Element::BF16, true, false)
        .unwrap()
        .with_tile(176, 2)
        .unwrap();
    AttnPlan::new(wide).unwrap().kernel().unwrap();
}

/// The two warpgroups' MMAs of the kernel: `S = Q K^T` (SS, N = BN) and `O += P V` (RS, N = D).
fn mmas(dtype: &str, bn: i64, d: i64) -> (DeviceMma, DeviceMma) {
    let two = "(2,1,1):(1,0,0)".parse().unwrap();
    let qk = mma_atom(&format!("SM90_64x{bn}x16_{dtype}_SS")).unwrap();
    let pv = mma_atom(&format!("SM90_64x{d}x16_{dtype}_RS")).unwrap();
    (
        DeviceMma::new("qk", make_tiled_mma(&qk, &two, &[]).unwrap()),
        DeviceMma::new("pv", make_tiled_mma(&pv, &two, &[]).unwrap()),
    )
}

#[test]
fn p_is_read_from_s_register_for_register() {
    // cute/atom/mma_traits_sm90_gmma.hpp (CUTLASS v4.2.1): CLayout_64xN =
    // ((4,8,4),(2,2,N/8)):((128,1,16),(64,8,512)) and ALayout_64x16 (the RS A operand) =
    // ((4,8,4),(2,2,2)):((128,1,16),(64,8,512)), both (thread, value) -> m + 64 col. So value
    // 8 kb + v of a thread's S accumulator is value v of its A operand for k-block kb: in the
    // compact fragments, A register i of k-block kb is S register 8 kb + i.
    for (bn, d) in [(128, 64), (128, 128), (64, 256), (176, 128)] {
        let (qk, pv) = mmas("F32F16F16", bn, d);
        let s = qk.partition_fragment('C', &[128, bn], CType::F32).unwrap();
        let view = pv.retile_a_from_c(&qk, &s, &[128, bn]).unwrap();
        assert_eq!(view.extents(), vec![8, 1, bn / 16]);
        for i in 0..view.size() {
            let (v, kb) = (i % 8, i / 8);
            assert_eq!(view.layout().offset(i).unwrap(), 8 * kb + v, "bn {bn}");
        }
    }
}

#[test]
fn a_wrong_p_view_is_refused() {
    let (qk, pv) = mmas("F32BF16BF16", 64, 64);
    let s = qk.partition_fragment('C', &[128, 64], CType::F32).unwrap();
    let right = pv.retile_a_from_c(&qk, &s, &[128, 64]).unwrap();
    pv.check_a_from_c(&qk, &[128, 64], &right, &s).unwrap();
    // k-blocks 1 and 2 exchanged: (8,1,(2,2)):(1,8,(16,8)).
    let frag = DeviceTensor::fragment(CType::F32, &"(8,1,2,2)".parse().unwrap()).unwrap();
    let wrong = frag.group(&[&[0], &[1], &[3, 2]]).unwrap();
    assert_eq!(wrong.extents(), vec![8, 1, 4]);
    let err = pv
        .check_a_from_c(&qk, &[128, 64], &wrong, &s)
        .unwrap_err()
        .to_string();
    assert!(err.contains("thread 0: A value 8 is element"), "{err}");
    assert!(err.contains("register 16"), "{err}");
}

#[test]
fn rows_of_the_gmma_accumulator() {
    // CLayout_64xN (see above): thread t = t0 + 4 t1 + 32 t2 holds rows t1 + 16 t2 + 8 v1 and
    // columns 2 t0 + v0 + 8 v2 (v = v0 + 2 v1 + 4 v2); the second warpgroup 64 rows further.
    for (bn, d) in [(128, 64), (64, 256)] {
        let (qk, pv) = mmas("F32F16F16", bn, d);
        let s = qk.partition_fragment('C', &[128, bn], CType::F32).unwrap();
        let rv = qk.row_view(&s, &[128, bn]).unwrap();
        assert_eq!(
            (rv.columns(), rv.rows_per_thread(), rv.lane_mask),
            (bn / 4, 2, 0b11)
        );
        for t in 0..256 {
            let (t0, t1, t2, wg) = (t % 4, (t / 4) % 8, (t / 32) % 4, t / 128);
            for r in 0..2 {
                for j in 0..bn / 4 {
                    let at = t + 256 * (j + bn / 4 * r);
                    let (v0, v2) = (j % 2, j / 2);
                    assert_eq!(
                        rv.rows.layout().offset(at).unwrap(),
                        64 * wg + t1 + 16 * t2 + 8 * r
                    );
                    assert_eq!(rv.cols.layout().offset(at).unwrap(), 2 * t0 + v0 + 8 * v2);
                    // The view's register holds that value: v = v0 + 2 r + 4 v2.
                    assert_eq!(
                        rv.view.layout().offset(j + bn / 4 * r).unwrap(),
                        v0 + 2 * r + 4 * v2
                    );
                }
            }
        }
        let o = pv.partition_fragment('C', &[128, d], CType::F32).unwrap();
        let ov = pv.row_view(&o, &[128, d]).unwrap();
        rv.check_same_rows(&ov).unwrap();
    }
}

#[test]
fn problems_are_checked_with_named_conditions() {
    let ok = Problem::new(2, 1000, 1000, 16, 4, 128);
    ok.check().unwrap();
    let cases: Vec<(Problem, &str)> = vec![
        (Problem::new(1, 8, 8, 1, 1, 96), "head dimension 96"),
        (
            Problem::new(1, 8, 8, 6, 4, 64),
            "not a multiple of the 4 KV heads",
        ),
        (Problem::new(1, 0, 8, 1, 1, 64), "0 queries per sequence"),
        (Problem::new(1, 8, 0, 1, 1, 64), "0 keys per sequence"),
        (Problem::new(0, 8, 8, 1, 1, 64), "batch 0"),
        (Problem::new(1, 8, 8, 0, 1, 64), "0 query heads"),
        (
            Problem::new(1, 8, 8, 1, 1, 64).scale(f32::NAN),
            "the softmax scale NaN",
        ),
        (
            Problem::new(1, 8, 8, 1, 1, 64).scale(0.0),
            "the softmax scale 0 ",
        ),
        (
            Problem::varlen(vec![0, 5, 3], vec![0, 5, 9], 1, 1, 64),
            "the query offsets decrease at sequence 1",
        ),
        (
            Problem::varlen(vec![1, 5], vec![0, 5], 1, 1, 64),
            "the query offsets start at 1",
        ),
        (
            Problem::varlen(vec![0, 5], vec![0, 5, 6], 1, 1, 64),
            "2 query offsets and 3 key offsets",
        ),
        (
            Problem::varlen(vec![0, 0], vec![0, 0], 1, 1, 64),
            "0 query rows in all sequences",
        ),
    ];
    for (p, want) in cases {
        let err = p.check().unwrap_err().to_string();
        assert!(err.contains(want), "{want}: {err}");
    }
    // Strides: 16-byte multiples, and O must not overlap itself.
    let mut p = ok.clone();
    p.k.head = 100;
    let err = p.check().unwrap_err().to_string();
    assert!(err.contains("K: the head stride is 100 elements"), "{err}");
    let mut p = ok.clone();
    p.o = Strides {
        batch: p.o.batch,
        seq: 128, // 16 heads of 128 in 128 elements: heads overlap rows
        head: 128,
    };
    let err = p.check().unwrap_err().to_string();
    assert!(err.contains("O: the strides"), "{err}");
    // Q, K, V may overlap (read only): K and V in one buffer, interleaved per row.
    let mut p = Problem::new(1, 64, 64, 2, 2, 64);
    p.k = Strides {
        batch: 64 * 256,
        seq: 256,
        head: 64,
    };
    p.v = p.k;
    p.check().unwrap();
}

#[test]
fn buffers_are_checked_against_the_strides() {
    let p = Problem::new(2, 100, 300, 4, 2, 64);
    let lens = [
        2 * 100 * 4 * 64,
        2 * 300 * 2 * 64,
        2 * 300 * 2 * 64,
        2 * 100 * 4 * 64,
        2 * 4 * 100,
    ];
    let at = [0x10000, 0x20000, 0x30000, 0x40000];
    p.check_buffers(lens, at).unwrap();
    let mut short = lens;
    short[4] -= 1;
    let err = p.check_buffers(short, at).unwrap_err().to_string();
    assert!(err.contains("the LSE holds 799 elements"), "{err}");
    let mut odd = at;
    odd[2] += 8;
    let err = p.check_buffers(lens, odd).unwrap_err().to_string();
    assert!(err.contains("V at device address 0x30008"), "{err}");
}

/// Values of `n` random elements in [-1, 1] of type `t` (a small xorshift; exact in `t`).
fn random(n: usize, seed: u64, t: Element) -> Vec<f32> {
    let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..n)
        .map(|_| {
            s ^= s >> 12;
            s ^= s << 25;
            s ^= s >> 27;
            let x = ((s >> 40) % 2049) as f32 / 1024.0 - 1.0;
            round_to(x, t)
        })
        .collect()
}

fn round_to(x: f32, t: Element) -> f32 {
    t.decode(t.encode(f64::from(x))) as f32
}

fn unit(t: Element) -> f64 {
    t.unit_roundoff()
}

#[test]
fn the_reference_is_the_definition() {
    let d = 64usize;
    // K = 0: every score is 0, so O is the mean of the visible V rows and LSE = ln(keys).
    let p = Problem::new(1, 5, 5, 2, 1, 64).causal(true);
    let q = random(5 * 2 * d, 1, Element::F16);
    let k = vec![0.0f32; 5 * d];
    let v = random(5 * d, 2, Element::F16);
    let ops = HostOperands {
        q: &q,
        k: &k,
        v: &v,
    };
    for row in 0..5 {
        for head in 0..2 {
            let r = reference_row(&p, &ops, unit(Element::F16), 0, head, row);
            let n = row + 1;
            assert!((r.lse - (n as f64).ln()).abs() < 1e-12);
            for dd in 0..d {
                let mean: f64 = (0..n as usize)
                    .map(|j| f64::from(v[j * d + dd]))
                    .sum::<f64>()
                    / n as f64;
                assert!((r.o[dd] - mean).abs() < 1e-12);
            }
        }
    }
    // More queries than keys (bottom-right causal): the first rows see nothing.
    let p = Problem::new(1, 6, 2, 1, 1, 64).causal(true);
    let q = random(6 * d, 3, Element::BF16);
    let k = random(2 * d, 4, Element::BF16);
    let v = random(2 * d, 5, Element::BF16);
    let ops = HostOperands {
        q: &q,
        k: &k,
        v: &v,
    };
    let empty = reference_row(&p, &ops, unit(Element::BF16), 0, 0, 3);
    assert_eq!(empty.lse, f64::NEG_INFINITY);
    assert!(empty.o.iter().all(|&x| x == 0.0));
    // Row 4 sees key 0 only: O = v_0, LSE = scale q . k_0.
    let one = reference_row(&p, &ops, unit(Element::BF16), 0, 0, 4);
    let s: f64 = (0..d)
        .map(|i| f64::from(q[4 * d + i]) * f64::from(k[i]))
        .sum::<f64>()
        * f64::from(p.scale);
    assert!((one.lse - s).abs() < 1e-12);
    for (o, &v) in one.o.iter().zip(&v[..d]) {
        assert!((o - f64::from(v)).abs() < 1e-12);
    }
    assert_eq!(visible_keys(true, 5, 6, 2), 2);
}

#[test]
fn gqa_heads_read_their_kv_head() {
    // 4 query heads over 2 KV heads: heads 0 and 1 read KV head 0, heads 2 and 3 KV head 1.
    let d = 64usize;
    let p = Problem::new(1, 3, 4, 4, 2, 64);
    let q = random(3 * 4 * d, 6, Element::F16);
    let k = random(4 * 2 * d, 7, Element::F16);
    let v = random(4 * 2 * d, 8, Element::F16);
    let ops = HostOperands {
        q: &q,
        k: &k,
        v: &v,
    };
    for head in 0..4 {
        let r = reference_row(&p, &ops, 0.0, 0, head, 1);
        let kv = (head / 2) as usize;
        let s: Vec<f64> = (0..4)
            .map(|j| {
                (0..d)
                    .map(|i| {
                        f64::from(q[(4 + head as usize) * d + i])
                            * f64::from(k[(j * 2 + kv) * d + i])
                    })
                    .sum::<f64>()
                    * f64::from(p.scale)
            })
            .collect();
        let m = s.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let l: f64 = s.iter().map(|x| (x - m).exp()).sum();
        assert!((r.lse - (m + l.ln())).abs() < 1e-12, "head {head}");
        let o0: f64 = (0..4)
            .map(|j| (s[j] - m).exp() * f64::from(v[(j * 2 + kv) * d]))
            .sum::<f64>()
            / l;
        assert!((r.o[0] - o0).abs() < 1e-12, "head {head}");
    }
}

/// The kernel's algorithm on the CPU, in fp32: blocks of `bn` keys from the last to the first,
/// the block masked where it crosses the diagonal or the end of the keys, the online softmax
/// with exp2 and `scale log2(e)` folded in, P rounded to the element type before `O += P V`,
/// the running sum of the unrounded P, O rounded at the end. Returns (O, LSE) of one row.
fn kernel_model(
    p: &Problem,
    ops: &HostOperands<'_>,
    t: Element,
    bn: i64,
    b: i64,
    head: i64,
    row: i64,
) -> (Vec<f32>, f32) {
    let d = p.head_dim as usize;
    let (sq, sk) = p.seqlens.len(b);
    let kv = head / (p.heads / p.kv_heads);
    let scale_log2 = (f64::from(p.scale) * std::f64::consts::LOG2_E) as f32;
    let block_row0 = row / 128 * 128;
    let mut blocks = (sk + bn - 1) / bn;
    if p.causal {
        let seen = (block_row0 + 128).min(sq) + sk - sq;
        blocks = blocks.min(if seen <= 0 { 0 } else { (seen + bn - 1) / bn });
    }
    let (mut mx, mut sum) = (f32::NEG_INFINITY, 0.0f32);
    let mut o = vec![0.0f32; d];
    let q0 = p.offset('q', b, row, head, 0);
    for n in (0..blocks).rev() {
        let mut s = vec![0.0f32; bn as usize];
        for (jj, sj) in s.iter_mut().enumerate() {
            let j = n * bn + jj as i64;
            let visible = j < sk && (!p.causal || j <= row + sk - sq);
            if !visible {
                *sj = f32::NEG_INFINITY;
                continue;
            }
            let k0 = p.offset('k', b, j, kv, 0);
            *sj = (0..d).map(|i| ops.q[q0 + i] * ops.k[k0 + i]).sum();
        }
        let new = s.iter().copied().fold(mx, f32::max);
        let base = if new == f32::NEG_INFINITY { 0.0 } else { new } * scale_log2;
        let rescale = (mx * scale_log2 - base).exp2();
        mx = new;
        sum *= rescale;
        for x in &mut o {
            *x *= rescale;
        }
        for (jj, sj) in s.iter().enumerate() {
            let e = (sj * scale_log2 - base).exp2();
            sum += e;
            let pr = round_to(e, t);
            let j = n * bn + jj as i64;
            if pr != 0.0 {
                let v0 = p.offset('v', b, j, kv, 0);
                for (i, x) in o.iter_mut().enumerate() {
                    *x += pr * ops.v[v0 + i];
                }
            }
        }
    }
    let empty = sum == 0.0 || sum.is_nan();
    let inv = if empty { 0.0 } else { 1.0 / sum };
    let lse = if empty {
        f32::NEG_INFINITY
    } else {
        mx * p.scale + sum.ln()
    };
    (o.iter().map(|x| round_to(x * inv, t)).collect(), lse)
}

#[test]
fn the_kernels_algorithm_stays_within_the_bound() {
    // Ragged lengths, causal with Sq != Sk, GQA, both types, and varlen.
    let mut problems = vec![
        Problem::new(2, 17, 200, 2, 1, 64).causal(true),
        Problem::new(1, 200, 130, 2, 2, 64).causal(true),
        Problem::new(1, 1, 300, 4, 1, 128),
        Problem::new(1, 130, 130, 1, 1, 256).causal(true).scale(1.0),
        Problem::varlen(vec![0, 1, 150, 170], vec![0, 40, 190, 400], 2, 1, 64).causal(true),
    ];
    problems.push(Problem::new(1, 64, 257, 1, 1, 64).scale(4.0));
    for (i, p) in problems.iter().enumerate() {
        p.check().unwrap();
        for t in INPUTS {
            let bn = AttnConfig::for_problem(p, t).unwrap().block_n;
            let q = random(p.required_len('q').unwrap(), 10 + i as u64, t);
            let k = random(p.required_len('k').unwrap(), 20 + i as u64, t);
            let v = random(p.required_len('v').unwrap(), 30 + i as u64, t);
            let ops = HostOperands {
                q: &q,
                k: &k,
                v: &v,
            };
            let mut o = vec![f32::NAN; p.required_len('o').unwrap()];
            let mut lse = vec![f32::NAN; p.lse_len()];
            let rows = checked_rows(p, 1 << 20);
            for &(b, h, r) in &rows {
                let (ro, rl) = kernel_model(p, &ops, t, bn, b, h, r);
                for (dd, x) in ro.into_iter().enumerate() {
                    o[p.offset('o', b, r, h, dd as i64)] = x;
                }
                lse[p.lse_offset(b, r, h)] = rl;
            }
            let (co, cl) = compare_rows(p, &ops, unit(t), &o, &lse, &rows);
            assert_eq!(co.bad, 0, "problem {i} {t}: {:?}", co.examples);
            assert_eq!(cl.bad, 0, "problem {i} {t}: {:?}", cl.examples);
            // The bound is not vacuous: a value moved by 1% of the output range is caught.
            let (b, h, r) = rows[rows.len() / 2];
            let RowReference { o: want, .. } = reference_row(p, &ops, unit(t), b, h, r);
            if want.iter().any(|x| *x != 0.0) {
                let at = p.offset('o', b, r, h, 0);
                o[at] += 0.01;
                let (bad, _) = compare_rows(p, &ops, unit(t), &o, &lse, &rows);
                assert_eq!(bad.bad, 1, "problem {i} {t}");
            }
        }
    }
}

#[test]
fn checked_rows_cover_every_sequence_end() {
    let p = Problem::varlen(vec![0, 3, 4000, 4001], vec![0, 3, 10, 11], 2, 2, 64);
    let rows = checked_rows(&p, 40);
    assert!(rows.len() <= 40);
    for b in 0..3 {
        let sq = p.seqlens.len(b).0;
        for h in 0..2 {
            assert!(rows.contains(&(b, h, 0)) && rows.contains(&(b, h, sq - 1)));
        }
    }
    assert_eq!(checked_rows(&p, 1 << 20).len(), 2 * 4001);
}
