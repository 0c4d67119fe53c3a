//! One attention call as the host checks it before anything reaches the GPU: the sequence
//! lengths (one per batch, or cumulative offsets), the heads, the head dimension, the strides
//! of Q, K, V and O, the softmax scale and the mask; and the buffers' lengths and addresses.
//! Every violated condition is an error that names it.
//!
//! ```
//! use tessel_kernels::attention::{Problem, Strides};
//! // (batch 2, 1000 queries, 16 heads, 128) against 1000 keys of 4 KV heads (GQA), causal.
//! let p = Problem::new(2, 1000, 1000, 16, 4, 128).causal(true);
//! p.check().unwrap();
//! assert_eq!(p.q.seq, 16 * 128);
//! assert_eq!(p.flops(), 4.0 * 2.0 * 16.0 * 1000.0 * 1000.0 * 128.0 / 2.0);
//! // 16 query heads cannot share 5 KV heads.
//! let err = Problem::new(2, 1000, 1000, 16, 5, 128).check().unwrap_err();
//! assert!(err.to_string().contains("multiple of the 5 KV heads"), "{err}");
//! ```

use tessel_layout::{IntTuple, Layout, is_injective};

use super::{BM, HEAD_DIMS};
use crate::element::Element;
use crate::error::{GpuError, GpuResult};
use crate::tma::TmaTensor;

/// Element strides of a `(batch, seq, heads, dim)` operand; the head dimension is contiguous
/// (stride 1). For variable lengths the rows of all sequences are stacked (`(total, heads,
/// dim)`) and `batch` is not used.
///
/// ```
/// use tessel_kernels::attention::Strides;
/// let s = Strides::contiguous(512, 8, 64);
/// assert_eq!((s.batch, s.seq, s.head), (512 * 8 * 64, 8 * 64, 64));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Strides {
    /// Elements from one sequence to the next.
    pub batch: i64,
    /// Elements from one row (query or key) to the next.
    pub seq: i64,
    /// Elements from one head to the next.
    pub head: i64,
}

impl Strides {
    /// The contiguous `(batch, seq, heads, dim)` strides of sequences of `seq` rows.
    ///
    /// ```
    /// use tessel_kernels::attention::Strides;
    /// assert_eq!(Strides::contiguous(4, 2, 64).seq, 128);
    /// ```
    pub fn contiguous(seq: i64, heads: i64, dim: i64) -> Strides {
        Strides {
            batch: seq.saturating_mul(heads).saturating_mul(dim),
            seq: heads.saturating_mul(dim),
            head: dim,
        }
    }
}

/// The sequence lengths of a call.
///
/// ```
/// use tessel_kernels::attention::SeqLens;
/// let v = SeqLens::Varlen { cu_q: vec![0, 17, 1017], cu_k: vec![0, 30, 1030] };
/// assert_eq!((v.batch(), v.total_q(), v.max_q()), (2, 1017, 1000));
/// assert_eq!(v.len(1), (1000, 1000));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum SeqLens {
    /// Every sequence of the batch has `seqlen_q` queries and `seqlen_k` keys.
    Fixed {
        /// Sequences.
        batch: i64,
        /// Queries per sequence.
        seqlen_q: i64,
        /// Keys per sequence.
        seqlen_k: i64,
    },
    /// Sequence `b` is query rows `cu_q[b] .. cu_q[b + 1]` and key rows `cu_k[b] .. cu_k[b +
    /// 1]` of the stacked rows (FlashAttention's `cu_seqlens`): non-decreasing, from 0.
    Varlen {
        /// Cumulative query offsets, one more than the sequences.
        cu_q: Vec<i32>,
        /// Cumulative key offsets.
        cu_k: Vec<i32>,
    },
}

impl SeqLens {
    /// Sequences.
    pub fn batch(&self) -> i64 {
        match self {
            SeqLens::Fixed { batch, .. } => *batch,
            SeqLens::Varlen { cu_q, .. } => cu_q.len().saturating_sub(1) as i64,
        }
    }

    /// `(queries, keys)` of sequence `b`.
    pub fn len(&self, b: i64) -> (i64, i64) {
        match self {
            SeqLens::Fixed {
                seqlen_q, seqlen_k, ..
            } => (*seqlen_q, *seqlen_k),
            SeqLens::Varlen { cu_q, cu_k } => {
                let at = |cu: &[i32], i: i64| cu.get(i as usize).map_or(0, |&x| i64::from(x));
                (at(cu_q, b + 1) - at(cu_q, b), at(cu_k, b + 1) - at(cu_k, b))
            }
        }
    }

    /// The first query and key row of sequence `b` among the stacked rows (0 for fixed
    /// lengths, whose sequences are apart by the batch stride).
    pub fn start(&self, b: i64) -> (i64, i64) {
        match self {
            SeqLens::Fixed { .. } => (0, 0),
            SeqLens::Varlen { cu_q, cu_k } => {
                let at = |cu: &[i32]| cu.get(b as usize).map_or(0, |&x| i64::from(x));
                (at(cu_q), at(cu_k))
            }
        }
    }

    /// Query rows of one sequence (fixed) or of all (varlen): the rows of Q's tensor map.
    pub fn total_q(&self) -> i64 {
        match self {
            SeqLens::Fixed { seqlen_q, .. } => *seqlen_q,
            SeqLens::Varlen { cu_q, .. } => cu_q.last().map_or(0, |&x| i64::from(x)),
        }
    }

    /// Key rows of one sequence (fixed) or of all (varlen).
    pub fn total_k(&self) -> i64 {
        match self {
            SeqLens::Fixed { seqlen_k, .. } => *seqlen_k,
            SeqLens::Varlen { cu_k, .. } => cu_k.last().map_or(0, |&x| i64::from(x)),
        }
    }

    /// The longest query sequence (the grid covers it in blocks of [`BM`] rows).
    pub fn max_q(&self) -> i64 {
        (0..self.batch()).map(|b| self.len(b).0).max().unwrap_or(0)
    }

    /// The longest key sequence.
    pub fn max_k(&self) -> i64 {
        (0..self.batch()).map(|b| self.len(b).1).max().unwrap_or(0)
    }

    /// True for cumulative offsets.
    pub fn is_varlen(&self) -> bool {
        matches!(self, SeqLens::Varlen { .. })
    }
}

/// One attention call: `O = softmax(scale Q K^T) V` per sequence and head, with the LSE of
/// every query row. Operands are `(batch, seq, heads, dim)` (stacked `(total, heads, dim)` for
/// varlen) with [`Strides`]; the LSE is `(batch, heads, seqlen_q)` contiguous, or `(heads,
/// total_q)` for varlen (FlashAttention's layouts).
#[derive(Clone, Debug, PartialEq)]
pub struct Problem {
    /// Sequence lengths.
    pub seqlens: SeqLens,
    /// Query heads.
    pub heads: i64,
    /// Key/value heads: `heads` (multi-head), a divisor of it (grouped-query), or 1
    /// (multi-query).
    pub kv_heads: i64,
    /// Head dimension of Q, K, V and O.
    pub head_dim: i64,
    /// Q's strides.
    pub q: Strides,
    /// K's strides.
    pub k: Strides,
    /// V's strides.
    pub v: Strides,
    /// O's strides.
    pub o: Strides,
    /// The softmax scale (finite, positive; `1 / sqrt(head_dim)` by default).
    pub scale: f32,
    /// Bottom-right aligned causal mask.
    pub causal: bool,
}

/// The largest extent the kernel indexes with 32-bit integers (rows, heads).
const MAX_I32: i64 = i32::MAX as i64;
/// The grid's `y` and `z` dimensions (heads, sequences) hold at most 65535 blocks.
const MAX_GRID_YZ: i64 = 65535;

impl Problem {
    /// A call on contiguous operands with one length per batch, scale `1 / sqrt(head_dim)`,
    /// not causal.
    ///
    /// ```
    /// use tessel_kernels::attention::Problem;
    /// let p = Problem::new(1, 17, 4097, 2, 1, 64);
    /// assert_eq!((p.k.seq, p.scale), (64, 0.125));
    /// ```
    pub fn new(
        batch: i64,
        seqlen_q: i64,
        seqlen_k: i64,
        heads: i64,
        kv_heads: i64,
        head_dim: i64,
    ) -> Problem {
        Problem {
            seqlens: SeqLens::Fixed {
                batch,
                seqlen_q,
                seqlen_k,
            },
            heads,
            kv_heads,
            head_dim,
            q: Strides::contiguous(seqlen_q, heads, head_dim),
            k: Strides::contiguous(seqlen_k, kv_heads, head_dim),
            v: Strides::contiguous(seqlen_k, kv_heads, head_dim),
            o: Strides::contiguous(seqlen_q, heads, head_dim),
            scale: default_scale(head_dim),
            causal: false,
        }
    }

    /// A call on stacked sequences of variable lengths (`cu_q`, `cu_k`: cumulative offsets)
    /// with contiguous `(total, heads, dim)` operands.
    ///
    /// ```
    /// use tessel_kernels::attention::Problem;
    /// let p = Problem::varlen(vec![0, 1, 18], vec![0, 5, 1005], 4, 4, 128);
    /// p.check().unwrap();
    /// assert_eq!(p.seqlens.batch(), 2);
    /// ```
    pub fn varlen(
        cu_q: Vec<i32>,
        cu_k: Vec<i32>,
        heads: i64,
        kv_heads: i64,
        head_dim: i64,
    ) -> Problem {
        let q = Strides {
            batch: 0,
            ..Strides::contiguous(1, heads, head_dim)
        };
        let k = Strides {
            batch: 0,
            ..Strides::contiguous(1, kv_heads, head_dim)
        };
        Problem {
            seqlens: SeqLens::Varlen { cu_q, cu_k },
            heads,
            kv_heads,
            head_dim,
            q,
            k,
            v: k,
            o: q,
            scale: default_scale(head_dim),
            causal: false,
        }
    }

    /// The same call with the causal mask on or off.
    pub fn causal(self, causal: bool) -> Problem {
        Problem { causal, ..self }
    }

    /// The same call with another softmax scale.
    pub fn scale(self, scale: f32) -> Problem {
        Problem { scale, ..self }
    }

    /// Floating-point operations: `4 D H sum_b Sq_b Sk_b` (the two products), halved when
    /// causal (the convention of FlashAttention's and PyTorch's benchmarks, `4 B H S^2 D / 2`).
    pub fn flops(&self) -> f64 {
        let pairs: f64 = (0..self.seqlens.batch())
            .map(|b| {
                let (sq, sk) = self.seqlens.len(b);
                sq as f64 * sk as f64
            })
            .sum();
        let full = 4.0 * self.head_dim as f64 * self.heads as f64 * pairs;
        if self.causal { full / 2.0 } else { full }
    }

    /// Checks the shapes, the strides and the options (the buffers are checked by
    /// [`Problem::check_buffers`]): a supported head dimension; at least one head, `heads` a
    /// multiple of `kv_heads`; at least one query and one key per sequence (fixed) or
    /// non-decreasing offsets from 0 with rows in total (varlen); extents the kernel's 32-bit
    /// indices and the grid hold; strides that TMA can address (positive, 16-byte multiples);
    /// an O whose elements do not overlap; a finite positive scale.
    ///
    /// ```
    /// use tessel_kernels::attention::{Problem, Strides};
    /// let mut p = Problem::new(1, 64, 64, 1, 1, 64);
    /// p.q = Strides { batch: 4096, seq: 68, head: 64 }; // 136-byte rows
    /// let err = p.check().unwrap_err();
    /// assert!(err.to_string().contains("Q: the sequence stride is 68 elements"), "{err}");
    /// let err = Problem::new(1, 64, 64, 1, 1, 64).scale(-1.0).check().unwrap_err();
    /// assert!(err.to_string().contains("scale"), "{err}");
    /// ```
    pub fn check(&self) -> GpuResult<()> {
        let bad = |what: String| Err(GpuError::InvalidArgument(format!("attention: {what}")));
        if !HEAD_DIMS.contains(&self.head_dim) {
            return bad(format!(
                "head dimension {} is not supported (64, 128 or 256)",
                self.head_dim
            ));
        }
        if !(1..=MAX_GRID_YZ).contains(&self.heads) || self.kv_heads < 1 {
            return bad(format!(
                "{} query heads and {} KV heads (1 to {MAX_GRID_YZ} query heads, at least one \
                 KV head)",
                self.heads, self.kv_heads
            ));
        }
        if self.heads % self.kv_heads != 0 {
            return bad(format!(
                "{} query heads are not a multiple of the {} KV heads",
                self.heads, self.kv_heads
            ));
        }
        if !self.scale.is_finite() || self.scale <= 0.0 {
            return bad(format!(
                "the softmax scale {} is not finite and positive",
                self.scale
            ));
        }
        match &self.seqlens {
            SeqLens::Fixed {
                batch,
                seqlen_q,
                seqlen_k,
            } => {
                if !(1..=MAX_GRID_YZ).contains(batch) {
                    return bad(format!("batch {batch} is outside 1..={MAX_GRID_YZ}"));
                }
                for (name, n) in [("queries", seqlen_q), ("keys", seqlen_k)] {
                    if !(1..=MAX_I32 - BM).contains(n) {
                        return bad(format!(
                            "{n} {name} per sequence, outside 1..={}",
                            MAX_I32 - BM
                        ));
                    }
                }
            }
            SeqLens::Varlen { cu_q, cu_k } => {
                if cu_q.len() != cu_k.len() || cu_q.len() < 2 {
                    return bad(format!(
                        "{} query offsets and {} key offsets: both one more than the sequences, \
                         at least 2",
                        cu_q.len(),
                        cu_k.len()
                    ));
                }
                if cu_q.len() - 1 > MAX_GRID_YZ as usize {
                    return bad(format!(
                        "{} sequences, more than {MAX_GRID_YZ}",
                        cu_q.len() - 1
                    ));
                }
                for (name, cu) in [("query", cu_q), ("key", cu_k)] {
                    if cu[0] != 0 {
                        return bad(format!("the {name} offsets start at {}, not 0", cu[0]));
                    }
                    if let Some(i) = (1..cu.len()).find(|&i| cu[i] < cu[i - 1]) {
                        return bad(format!(
                            "the {name} offsets decrease at sequence {}: {} after {}",
                            i - 1,
                            cu[i],
                            cu[i - 1]
                        ));
                    }
                    let total = i64::from(cu[cu.len() - 1]);
                    if !(1..=MAX_I32 - BM).contains(&total) {
                        return bad(format!(
                            "{total} {name} rows in all sequences, outside 1..={}",
                            MAX_I32 - BM
                        ));
                    }
                }
            }
        }
        let varlen = self.seqlens.is_varlen();
        for (name, s, rows, heads) in [
            ("Q", &self.q, self.seqlens.total_q(), self.heads),
            ("K", &self.k, self.seqlens.total_k(), self.kv_heads),
            ("V", &self.v, self.seqlens.total_k(), self.kv_heads),
            ("O", &self.o, self.seqlens.total_q(), self.heads),
        ] {
            let mut strides = vec![("sequence", s.seq), ("head", s.head)];
            if !varlen {
                strides.push(("batch", s.batch));
            }
            for (what, x) in strides {
                if x <= 0 || (x * 2) % 16 != 0 {
                    return bad(format!(
                        "{name}: the {what} stride is {x} elements; TMA and 16-byte vectors \
                         need a positive multiple of 8 (16 bytes of 16-bit elements)"
                    ));
                }
            }
            if name == "O" {
                let layout = self.operand_layout(s, rows, heads)?;
                if !is_injective(&layout)? {
                    return bad(format!(
                        "O: the strides {s:?} make elements of (seq, heads, dim) {layout} \
                         overlap"
                    ));
                }
            }
        }
        Ok(())
    }

    /// `(dim, rows, heads[, batch])` of an operand with strides `s` as a layout (its offsets).
    fn operand_layout(&self, s: &Strides, rows: i64, heads: i64) -> GpuResult<Layout> {
        let (mut shape, mut stride) = (vec![self.head_dim, rows, heads], vec![1, s.seq, s.head]);
        if !self.seqlens.is_varlen() {
            shape.push(self.seqlens.batch());
            stride.push(s.batch);
        }
        Ok(Layout::new(
            IntTuple::from_ints(shape),
            IntTuple::from_ints(stride),
        )?)
    }

    /// Elements a buffer of operand `which` (`'q'`, `'k'`, `'v'`, `'o'`) must hold: its
    /// largest offset plus one.
    ///
    /// ```
    /// use tessel_kernels::attention::Problem;
    /// let p = Problem::new(2, 10, 20, 4, 2, 64);
    /// assert_eq!(p.required_len('k').unwrap(), 2 * 20 * 2 * 64);
    /// ```
    pub fn required_len(&self, which: char) -> GpuResult<usize> {
        let (s, rows, heads) = match which {
            'q' => (&self.q, self.seqlens.total_q(), self.heads),
            'k' => (&self.k, self.seqlens.total_k(), self.kv_heads),
            'v' => (&self.v, self.seqlens.total_k(), self.kv_heads),
            'o' => (&self.o, self.seqlens.total_q(), self.heads),
            other => {
                return Err(GpuError::InvalidArgument(format!(
                    "attention: no operand {other:?} (q, k, v or o)"
                )));
            }
        };
        let (_, max) = self.operand_layout(s, rows, heads)?.offset_range()?;
        usize::try_from(max + 1)
            .map_err(|_| GpuError::InvalidArgument(format!("attention: operand {which} too large")))
    }

    /// Elements of the LSE: `batch x heads x seqlen_q`, or `heads x total_q` for varlen.
    ///
    /// ```
    /// use tessel_kernels::attention::Problem;
    /// assert_eq!(Problem::new(2, 10, 20, 4, 2, 64).lse_len(), 80);
    /// ```
    pub fn lse_len(&self) -> usize {
        let n = match &self.seqlens {
            SeqLens::Fixed {
                batch, seqlen_q, ..
            } => batch * self.heads * seqlen_q,
            SeqLens::Varlen { .. } => self.heads * self.seqlens.total_q(),
        };
        usize::try_from(n).unwrap_or(usize::MAX)
    }

    /// `(head, batch)` strides of the LSE in elements (`(seqlen_q, heads seqlen_q)`, or
    /// `(total_q, 0)` for varlen, whose rows are offset by `cu_q`).
    pub fn lse_strides(&self) -> (i64, i64) {
        match &self.seqlens {
            SeqLens::Fixed { seqlen_q, .. } => (*seqlen_q, self.heads * seqlen_q),
            SeqLens::Varlen { .. } => (self.seqlens.total_q(), 0),
        }
    }

    /// Checks the buffers of a call against the problem: `lens` (elements of Q, K, V, O, the
    /// LSE) at least what the strides reach ([`Problem::required_len`], [`Problem::lse_len`]),
    /// and `addresses` (device addresses of Q, K, V, O) 16-byte aligned, as TMA and the
    /// 16-byte stores need.
    ///
    /// ```
    /// use tessel_kernels::attention::Problem;
    /// let p = Problem::new(1, 128, 128, 1, 1, 64);
    /// let n = 128 * 64;
    /// p.check_buffers([n, n, n, n, 128], [0x1000, 0x8000, 0x10000, 0x18000]).unwrap();
    /// let err = p.check_buffers([n, n - 1, n, n, 128], [0x1000, 0x8000, 0x10000, 0x18000]).unwrap_err();
    /// assert!(err.to_string().contains("K holds 8191 elements"), "{err}");
    /// let err = p.check_buffers([n, n, n, n, 128], [0x1008, 0x8000, 0x10000, 0x18000]).unwrap_err();
    /// assert!(err.to_string().contains("16-byte aligned"), "{err}");
    /// ```
    pub fn check_buffers(&self, lens: [usize; 5], addresses: [u64; 4]) -> GpuResult<()> {
        let names = ['q', 'k', 'v', 'o'];
        for (i, which) in names.iter().enumerate() {
            let need = self.required_len(*which)?;
            let name = which.to_ascii_uppercase();
            if lens[i] < need {
                return Err(GpuError::InvalidArgument(format!(
                    "attention: {name} holds {} elements, the shapes and strides reach {need}",
                    lens[i]
                )));
            }
            if !addresses[i].is_multiple_of(16) {
                return Err(GpuError::InvalidArgument(format!(
                    "attention: {name} at device address {:#x} is not 16-byte aligned (TMA \
                     needs it)",
                    addresses[i]
                )));
            }
        }
        if lens[4] < self.lse_len() {
            return Err(GpuError::InvalidArgument(format!(
                "attention: the LSE holds {} elements, the call writes {}",
                lens[4],
                self.lse_len()
            )));
        }
        Ok(())
    }

    /// The tensor of operand `which` (`'q'`, `'k'`, `'v'`, `'o'`) as its tensor map sees it:
    /// `[dim, seq, heads, batch]` (varlen: `[dim, total, heads]`).
    pub(crate) fn tma_tensor(&self, which: char, elem: Element) -> GpuResult<TmaTensor> {
        let (s, rows, heads) = match which {
            'q' => (&self.q, self.seqlens.total_q(), self.heads),
            'k' => (&self.k, self.seqlens.total_k(), self.kv_heads),
            'v' => (&self.v, self.seqlens.total_k(), self.kv_heads),
            _ => (&self.o, self.seqlens.total_q(), self.heads),
        };
        if self.seqlens.is_varlen() {
            TmaTensor::new(&[self.head_dim, rows, heads], &[s.seq, s.head], elem)
        } else {
            TmaTensor::new(
                &[self.head_dim, rows, heads, self.seqlens.batch()],
                &[s.seq, s.head, s.batch],
                elem,
            )
        }
    }

    /// The element offset of `(sequence b, row, head, d)` of operand `which` (rows counted
    /// within the sequence).
    ///
    /// ```
    /// use tessel_kernels::attention::Problem;
    /// let p = Problem::varlen(vec![0, 3, 10], vec![0, 4, 8], 2, 1, 64);
    /// assert_eq!(p.offset('q', 1, 2, 1, 5), (3 + 2) * 128 + 64 + 5);
    /// ```
    pub fn offset(&self, which: char, b: i64, row: i64, head: i64, d: i64) -> usize {
        let (s, start) = match which {
            'q' => (&self.q, self.seqlens.start(b).0),
            'k' => (&self.k, self.seqlens.start(b).1),
            'v' => (&self.v, self.seqlens.start(b).1),
            _ => (&self.o, self.seqlens.start(b).0),
        };
        let batch = if self.seqlens.is_varlen() {
            0
        } else {
            b * s.batch
        };
        (batch + (start + row) * s.seq + head * s.head + d) as usize
    }

    /// The LSE offset of `(sequence b, query row, head)`.
    pub fn lse_offset(&self, b: i64, row: i64, head: i64) -> usize {
        let (sh, sb) = self.lse_strides();
        (b * sb + head * sh + self.seqlens.start(b).0 + row) as usize
    }
}

/// `1 / sqrt(head_dim)`, the usual softmax scale.
fn default_scale(head_dim: i64) -> f32 {
    (1.0 / (head_dim.max(1) as f64).sqrt()) as f32
}
