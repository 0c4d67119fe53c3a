//! The shared-memory bank model of `docs/bank-model.md`, for one or more warp-wide instructions.
//!
//! Shared memory has 32 banks of 4 bytes; lanes that touch the same 32-bit word share one
//! broadcast.
//! - `lds`/`sts` of 8, 16, 32, 64 or 128 bits (measured with Nsight Compute on an H100): the warp
//!   splits into requests of 256 bytes (half-warps for 128-bit vectors, the warp otherwise), each
//!   of two 128-byte phases (quarter-warps for 128-bit, half-warps for 64-bit; 32- and 16-bit
//!   accesses are one phase). A request takes 1 wavefront when it fits one — no bank holds two
//!   of its distinct words, and the distinct vectors of its aligned 4-lane groups add up to at
//!   most 128 bytes — and otherwise the sum over its phases of `max(1, max over banks of the
//!   distinct words in the phase)`. The ideal counts 1 per request whose 4-lane groups fit 128
//!   bytes, else its phases (1, 1, 1, 2, 4 without broadcasts). Accesses narrower than a word
//!   (8 and 16 bits: PTX `ld.shared.u8`/`u16`, `st.shared.b8`/`b16`) that fall in one 32-bit
//!   word share it, for loads and stores alike: one phase of the warp, `max(1, max over banks of
//!   the distinct words)` wavefronts.
//! - `ldsm`/`stsm` `.x1/.x2/.x4` (`.trans` behaves the same): every 8x8 b16 matrix (the 16-byte
//!   rows addressed by lanes `8k..8k+7`) is its own phase; `wavefronts = sum over matrices of the
//!   max over banks of the distinct words among its rows`; ideal 1 per matrix.
//!
//! An access is a TV layout mapping `(lane, value, instruction...)` to an index of the
//! shared-memory layout's domain; the layout maps that index to an element offset. Mode 0 is the
//! lane (32 lanes for lds/sts; 8 per matrix, or 32, for ldsm/stsm: lane `l` is row `l % 8` of
//! matrix `l / 8`), mode 1 the values of one vector (a lane's vector for lds/sts, a row's 16
//! bytes for ldsm/stsm), and any further modes enumerate separate instructions (warps, repeats),
//! whose wavefronts add up.
//!
//! A tiled copy ([`crate::tiled::TiledCopy`]) names its instruction through its atom:
//! [`analyze_copy`] evaluates every warp-wide instruction of a copy whose source or destination is
//! a shared-memory layout, with the [`SmemOp`] its atom's access maps to ([`smem_op`]).
//!
//! ```
//! use tessel_layout::{bank::analyze, Layout};
//! // docs/bank-model.md: a warp reading a column of a 32x32 fp32 row-major tile: 32 wavefronts.
//! let tile: Layout = "(32,32):(32,1)".parse().unwrap();
//! let report = analyze(&tile, 4, "lds.32".parse().unwrap(), &"32:1".parse().unwrap()).unwrap();
//! assert_eq!((report.wavefronts, report.ideal, report.excess), (32, 1, 31));
//! ```

mod copy;

use std::fmt;
use std::str::FromStr;

use crate::composed::OffsetMap;
use crate::error::{Error, Result};
use crate::f2::exact_log2;
use crate::layout::Layout;

pub use copy::{analyze_copy, smem_op};

/// Number of shared-memory banks.
///
/// ```
/// use tessel_layout::bank::{BANKS, BANK_BYTES, WAVEFRONT_BYTES};
/// // One wavefront serves one word from every bank.
/// assert_eq!(BANKS * BANK_BYTES, WAVEFRONT_BYTES);
/// ```
pub const BANKS: i64 = 32;
/// Width of a bank in bytes.
///
/// ```
/// use tessel_layout::bank::{BANKS, BANK_BYTES};
/// // fp32 element 33 lies in bank 1: byte 132 / 4 = word 33, 33 mod 32 = 1.
/// assert_eq!((33 * 4 / BANK_BYTES) % BANKS, 1);
/// assert_eq!(tessel_layout::svg::bank_of(33, 4), 1);
/// ```
pub const BANK_BYTES: i64 = 4;
/// Bytes one wavefront serves for lds/sts.
///
/// ```
/// use tessel_layout::{bank::{analyze, WAVEFRONT_BYTES, WARP}, Layout};
/// // A warp's lds.128 moves 32 * 16 bytes: at least 512 / 128 = 4 wavefronts.
/// let ideal = (WARP as i64 * 16) / WAVEFRONT_BYTES;
/// let r = analyze(&"1024:1".parse::<Layout>().unwrap(), 4, "lds.128".parse().unwrap(),
///     &"(32,4):(4,1)".parse().unwrap()).unwrap();
/// assert_eq!((r.ideal, r.wavefronts), (ideal, 4));
/// ```
pub const WAVEFRONT_BYTES: i64 = 128;
/// Lanes in a warp.
///
/// ```
/// use tessel_layout::{bank::{analyze, WARP}, Layout};
/// // An lds access needs a lane mode of exactly WARP lanes.
/// let tile: Layout = "1024:1".parse().unwrap();
/// assert!(analyze(&tile, 4, "lds.32".parse().unwrap(), &format!("{WARP}:1").parse().unwrap()).is_ok());
/// assert!(analyze(&tile, 4, "lds.32".parse().unwrap(), &"16:1".parse().unwrap()).is_err());
/// ```
pub const WARP: usize = 32;
/// The most element addresses (instructions x lanes x values) one analysis resolves.
///
/// It bounds the time and memory of [`analyze`] (and, summed over the accesses, of
/// [`crate::synth::synthesize`]) whatever the TV layout asks for: 2^18 addresses are 256 KiB of
/// 1-byte elements, more than the shared memory of any GPU, so a real access never reaches it.
///
/// ```
/// use tessel_layout::{bank::{analyze, MAX_ELEMENTS}, Layout};
/// let tile: Layout = "1024:1".parse().unwrap();
/// let op = "lds.32".parse().unwrap();
/// // 32 lanes x 1 value x (MAX_ELEMENTS / 32 + 1) instructions: one instruction too many.
/// let too_many: Layout = format!("(32,1,{}):(1,0,0)", MAX_ELEMENTS / 32 + 1).parse().unwrap();
/// let err = analyze(&tile, 4, op, &too_many).unwrap_err();
/// assert!(err.to_string().contains(&format!("more than the limit MAX_ELEMENTS = {MAX_ELEMENTS}")), "{err}");
/// let most: Layout = format!("(32,1,{}):(1,0,0)", MAX_ELEMENTS / 32).parse().unwrap();
/// assert_eq!(analyze(&tile, 4, op, &most).unwrap().wavefronts, MAX_ELEMENTS / 32);
/// ```
pub const MAX_ELEMENTS: i64 = 1 << 18;

/// The kind of shared-memory instruction.
///
/// ```
/// use tessel_layout::bank::{OpKind, SmemOp};
/// let op: SmemOp = "ldsm.x2".parse().unwrap();
/// assert_eq!(op.kind(), OpKind::Ldsm);
/// assert!(op.is_matrix() && !"sts.64".parse::<SmemOp>().unwrap().is_matrix());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OpKind {
    /// `LDS`: a scalar or vector load per lane.
    Lds,
    /// `STS`: a scalar or vector store per lane.
    Sts,
    /// `ldmatrix`: 8x8 b16 matrices, 16-byte rows addressed by lanes.
    Ldsm,
    /// `stmatrix`: the store counterpart of `ldmatrix`.
    Stsm,
}

/// A shared-memory instruction: `lds.8`, `lds.16`, `lds.32`, `sts.128`, `ldsm.x4`,
/// `stsm.x2.trans`, ... (`lds.8`/`sts.8` are PTX's `ld.shared.u8`/`st.shared.b8`, `lds.16`/
/// `sts.16` its `ld.shared.u16`/`st.shared.b16`, and so on for the wider widths).
///
/// ```
/// use tessel_layout::bank::SmemOp;
/// let op: SmemOp = "ldsm.x4.trans".parse().unwrap();
/// assert_eq!(op.ideal(), 4);
/// assert_eq!(op.to_string(), "ldsm.x4.trans");
/// assert!("lds.48".parse::<SmemOp>().is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SmemOp {
    kind: OpKind,
    /// Vector bits for lds/sts; number of matrices for ldsm/stsm.
    width: u32,
    trans: bool,
}

impl SmemOp {
    /// An `lds`/`sts` of `bits` (8, 16, 32, 64, 128) or an `ldsm`/`stsm` of `width` (1, 2, 4)
    /// matrices.
    ///
    /// ```
    /// use tessel_layout::bank::{OpKind, SmemOp};
    /// assert_eq!(SmemOp::new(OpKind::Sts, 64, false).unwrap().to_string(), "sts.64");
    /// assert_eq!(SmemOp::new(OpKind::Lds, 16, false).unwrap().vector_bytes(), 2);
    /// assert_eq!(SmemOp::new(OpKind::Sts, 8, false).unwrap().vector_bytes(), 1);
    /// assert!(SmemOp::new(OpKind::Lds, 32, true).is_err());
    /// assert!(SmemOp::new(OpKind::Lds, 4, false).is_err());
    /// ```
    pub fn new(kind: OpKind, width: u32, trans: bool) -> Result<SmemOp> {
        let matrix = matches!(kind, OpKind::Ldsm | OpKind::Stsm);
        let ok = if matrix {
            matches!(width, 1 | 2 | 4)
        } else {
            matches!(width, 8 | 16 | 32 | 64 | 128) && !trans
        };
        let op = SmemOp { kind, width, trans };
        if ok {
            Ok(op)
        } else {
            Err(Error::invalid(format!(
                "{op} is not an instruction: lds/sts take 8, 16, 32, 64 or 128 bits, ldsm/stsm take \
                 x1, x2 or x4 (optionally .trans)"
            )))
        }
    }

    /// The instruction kind.
    ///
    /// ```
    /// use tessel_layout::bank::{OpKind, SmemOp};
    /// assert_eq!("sts.32".parse::<SmemOp>().unwrap().kind(), OpKind::Sts);
    /// ```
    pub fn kind(&self) -> OpKind {
        self.kind
    }

    /// Whether this is an `ldmatrix`/`stmatrix`.
    ///
    /// ```
    /// assert!("stsm.x1".parse::<tessel_layout::bank::SmemOp>().unwrap().is_matrix());
    /// ```
    pub fn is_matrix(&self) -> bool {
        matches!(self.kind, OpKind::Ldsm | OpKind::Stsm)
    }

    /// Bytes of one vector: a lane's vector for lds/sts, one 16-byte row for ldsm/stsm.
    ///
    /// ```
    /// assert_eq!("lds.64".parse::<tessel_layout::bank::SmemOp>().unwrap().vector_bytes(), 8);
    /// assert_eq!("ldsm.x2".parse::<tessel_layout::bank::SmemOp>().unwrap().vector_bytes(), 16);
    /// ```
    pub fn vector_bytes(&self) -> i64 {
        if self.is_matrix() {
            16
        } else {
            i64::from(self.width) / 8
        }
    }

    /// Lanes whose addresses the instruction uses: 32, or 8 per matrix.
    ///
    /// ```
    /// assert_eq!("ldsm.x2".parse::<tessel_layout::bank::SmemOp>().unwrap().lanes_used(), 16);
    /// ```
    pub fn lanes_used(&self) -> usize {
        if self.is_matrix() {
            8 * self.width as usize
        } else {
            WARP
        }
    }

    /// The ideal number of wavefronts of one instruction whose lanes move distinct vectors:
    /// 1/1/1/2/4 for 8/16/32/64/128-bit lds/sts, one per matrix for ldsm/stsm. Lanes that share
    /// vectors can need fewer ([`BankReport::ideal`] counts the access's own ideal).
    ///
    /// ```
    /// use tessel_layout::{bank::{analyze, SmemOp}, Layout};
    /// let op: SmemOp = "lds.128".parse().unwrap();
    /// assert_eq!(op.ideal(), 4);
    /// // Every lane reading the same 16 bytes: one wavefront per half-warp (docs/bank-model.md).
    /// let buffer: Layout = "1024:1".parse().unwrap();
    /// let r = analyze(&buffer, 4, op, &"(32,4):(0,1)".parse().unwrap()).unwrap();
    /// assert_eq!((r.wavefronts, r.ideal), (2, 2));
    /// ```
    pub fn ideal(&self) -> i64 {
        if self.is_matrix() {
            i64::from(self.width)
        } else {
            bandwidth_wavefronts(self.vector_bytes())
        }
    }

    /// Lanes that form one phase, a wavefront's worth of requested bytes: 8 rows for
    /// ldsm/stsm; `128 / vector bytes` lanes for lds/sts (8 for 128-bit, 16 for 64-bit, the
    /// whole warp for 32-, 16- and 8-bit accesses).
    fn phase_lanes(&self) -> usize {
        if self.is_matrix() {
            8
        } else {
            ((WAVEFRONT_BYTES / self.vector_bytes()) as usize).min(WARP)
        }
    }

    /// Lanes that form one request of lds/sts: two phases (a half-warp for 128-bit, the warp for
    /// 64-bit), at most the warp.
    fn request_lanes(&self) -> usize {
        (2 * self.phase_lanes()).min(WARP)
    }
}

impl fmt::Display for SmemOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = match self.kind {
            OpKind::Lds => "lds",
            OpKind::Sts => "sts",
            OpKind::Ldsm => "ldsm",
            OpKind::Stsm => "stsm",
        };
        if self.is_matrix() {
            write!(f, "{name}.x{}", self.width)?;
        } else {
            write!(f, "{name}.{}", self.width)?;
        }
        if self.trans {
            write!(f, ".trans")?;
        }
        Ok(())
    }
}

impl FromStr for SmemOp {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self> {
        let unknown = || {
            Error::invalid(format!(
                "unknown shared-memory op '{s}': expected lds.8 lds.16 lds.32 lds.64 lds.128 \
                 sts.8 sts.16 sts.32 sts.64 sts.128 ldsm.x1 ldsm.x2 ldsm.x4 stsm.x1 stsm.x2 \
                 stsm.x4 (optionally .trans)"
            ))
        };
        let mut parts = s.trim().split('.');
        let kind = match parts.next() {
            Some("lds") => OpKind::Lds,
            Some("sts") => OpKind::Sts,
            Some("ldsm") => OpKind::Ldsm,
            Some("stsm") => OpKind::Stsm,
            _ => return Err(unknown()),
        };
        let width = parts.next().ok_or_else(unknown)?;
        let width = width.strip_prefix('x').unwrap_or(width);
        let width: u32 = width.parse().map_err(|_| unknown())?;
        let trans = match parts.next() {
            None => false,
            Some("trans") => true,
            Some(_) => return Err(unknown()),
        };
        if parts.next().is_some() {
            return Err(unknown());
        }
        SmemOp::new(kind, width, trans).map_err(|_| unknown())
    }
}

/// The outcome of the bank model: wavefronts, the ideal (the wavefronts the same access would
/// take without bank conflicts), and the excess (conflicts).
///
/// ```
/// let r = tessel_layout::bank::BankReport { wavefronts: 8, ideal: 1, excess: 7 };
/// assert_eq!(r.to_string(), "wavefronts 8, ideal 1, excess 7");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct BankReport {
    /// Wavefronts the instructions take.
    pub wavefronts: i64,
    /// Wavefronts they would take without conflicts.
    pub ideal: i64,
    /// `wavefronts - ideal`.
    pub excess: i64,
}

impl BankReport {
    fn add(&mut self, wavefronts: i64, ideal: i64) {
        self.wavefronts += wavefronts;
        self.ideal += ideal;
        self.excess = self.wavefronts - self.ideal;
    }

    /// Every count multiplied by `k`.
    ///
    /// ```
    /// let r = tessel_layout::bank::BankReport { wavefronts: 8, ideal: 1, excess: 7 };
    /// assert_eq!(r.scaled(2).to_string(), "wavefronts 16, ideal 2, excess 14");
    /// ```
    pub fn scaled(self, k: i64) -> BankReport {
        BankReport {
            wavefronts: self.wavefronts * k,
            ideal: self.ideal * k,
            excess: self.excess * k,
        }
    }
}

/// Adds the counts of two reports (instructions executed one after the other).
///
/// ```
/// use tessel_layout::bank::BankReport;
/// let mut r = BankReport { wavefronts: 8, ideal: 1, excess: 7 };
/// r += BankReport { wavefronts: 1, ideal: 1, excess: 0 };
/// assert_eq!(r, BankReport { wavefronts: 9, ideal: 2, excess: 7 });
/// ```
impl std::ops::AddAssign for BankReport {
    fn add_assign(&mut self, other: BankReport) {
        self.add(other.wavefronts, other.ideal);
    }
}

/// The sum of reports.
///
/// ```
/// use tessel_layout::bank::BankReport;
/// let one = BankReport { wavefronts: 2, ideal: 1, excess: 1 };
/// assert_eq!([one, one].into_iter().sum::<BankReport>(), one.scaled(2));
/// ```
impl std::iter::Sum for BankReport {
    fn sum<I: Iterator<Item = BankReport>>(iter: I) -> BankReport {
        let mut total = BankReport::default();
        for r in iter {
            total += r;
        }
        total
    }
}

impl fmt::Display for BankReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "wavefronts {}, ideal {}, excess {}",
            self.wavefronts, self.ideal, self.excess
        )
    }
}

/// A kernel's shared-memory traffic under the bank model: the summed reports of its loads and of
/// its stores (e.g. every warp-wide instruction of one launch), kept apart because Nsight Compute
/// counts them apart (`smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld` and `_op_st`,
/// see `docs/bank-model.md`).
///
/// ```
/// use tessel_layout::{Layout, bank::{analyze, BankReport, SmemTraffic}};
/// // A warp stores one row of a 32x32 fp32 row-major tile, then reads one column back.
/// let tile: Layout = "(32,32):(32,1)".parse().unwrap();
/// let mut t = SmemTraffic::default();
/// t.stores += analyze(&tile, 4, "sts.32".parse().unwrap(), &"32:32".parse().unwrap()).unwrap();
/// t.loads += analyze(&tile, 4, "lds.32".parse().unwrap(), &"32:1".parse().unwrap()).unwrap();
/// assert_eq!(t.loads, BankReport { wavefronts: 32, ideal: 1, excess: 31 });
/// assert_eq!(t.stores.excess, 0);
/// assert_eq!(t.excess(), 31);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct SmemTraffic {
    /// The loads (LDS, ldmatrix).
    pub loads: BankReport,
    /// The stores (STS, stmatrix, and the shared-memory side of cp.async).
    pub stores: BankReport,
}

impl SmemTraffic {
    /// Excess wavefronts of loads and stores together.
    ///
    /// ```
    /// use tessel_layout::bank::{BankReport, SmemTraffic};
    /// let r = BankReport { wavefronts: 3, ideal: 1, excess: 2 };
    /// assert_eq!(SmemTraffic { loads: r, stores: r }.excess(), 4);
    /// ```
    pub fn excess(&self) -> i64 {
        self.loads.excess + self.stores.excess
    }

    /// Every count multiplied by `k` (e.g. blocks per launch).
    ///
    /// ```
    /// use tessel_layout::bank::{BankReport, SmemTraffic};
    /// let r = BankReport { wavefronts: 3, ideal: 1, excess: 2 };
    /// let t = SmemTraffic { loads: r, stores: BankReport::default() }.scaled(4);
    /// assert_eq!((t.loads.wavefronts, t.loads.excess, t.stores.wavefronts), (12, 8, 0));
    /// ```
    pub fn scaled(self, k: i64) -> SmemTraffic {
        SmemTraffic {
            loads: self.loads.scaled(k),
            stores: self.stores.scaled(k),
        }
    }
}

/// Adds the traffic of two kernels' phases (one after the other).
///
/// ```
/// use tessel_layout::bank::{BankReport, SmemTraffic};
/// let r = BankReport { wavefronts: 2, ideal: 1, excess: 1 };
/// let mut t = SmemTraffic { loads: r, stores: r };
/// t += SmemTraffic { loads: r, stores: BankReport::default() };
/// assert_eq!((t.loads, t.stores), (r.scaled(2), r));
/// ```
impl std::ops::AddAssign for SmemTraffic {
    fn add_assign(&mut self, other: SmemTraffic) {
        self.loads += other.loads;
        self.stores += other.stores;
    }
}

/// Runs the bank model: `smem` maps a domain index to an element offset of `elem_bytes` bytes;
/// `tv` maps `(lane, value, instruction...)` to a domain index (see the module docs).
///
/// ```
/// use tessel_layout::{ComposedLayout, Layout, bank::analyze};
/// // 32x32 fp32 tile, row-major; a warp reads column 0 (lane = row).
/// let tile: Layout = "(32,32):(32,1)".parse().unwrap();
/// let column: Layout = "32:1".parse().unwrap();
/// let op = "lds.32".parse().unwrap();
/// assert_eq!(analyze(&tile, 4, op, &column).unwrap().wavefronts, 32);
/// let padded: Layout = "(32,32):(33,1)".parse().unwrap();
/// assert_eq!(analyze(&padded, 4, op, &column).unwrap().wavefronts, 1);
/// let swizzled: ComposedLayout = "Sw<5,0,5> o (32,32):(32,1)".parse().unwrap();
/// assert_eq!(analyze(&swizzled, 4, op, &column).unwrap().excess, 0);
/// ```
pub fn analyze(
    smem: &impl OffsetMap,
    elem_bytes: i64,
    op: SmemOp,
    tv: &Layout,
) -> Result<BankReport> {
    let smem = smem.to_composed();
    let plan = AccessPlan::new(smem.layout(), elem_bytes, op, tv)
        .map_err(|e| e.context(format!("{op} through {tv} on {smem}")))?;
    plan.evaluate(&|x| smem.apply_outer(x), true, i64::MAX, &mut 0)
        .map_err(|e| e.context(format!("{op} through {tv} on {smem}")))
}

/// The bank model of every instruction of an access separately: one report per instruction
/// (the modes of `tv` after lane and value), in colexicographic order. Their sum is
/// [`analyze`]'s report.
///
/// ```
/// use tessel_layout::{Layout, bank::{analyze, analyze_each, BankReport}};
/// // A row-major 32x32 fp32 tile (domain index r + 32 c); instruction k reads row k.
/// let tile: Layout = "(32,32):(32,1)".parse().unwrap();
/// let op = "lds.32".parse().unwrap();
/// let rows: Layout = "(32,1,2):(32,0,1)".parse().unwrap();
/// let per = analyze_each(&tile, 4, op, &rows).unwrap();
/// assert_eq!(per.iter().map(|r| r.wavefronts).collect::<Vec<_>>(), [1, 1]);
/// // Instruction k reads column k: 32 wavefronts each.
/// let columns: Layout = "(32,1,2):(1,0,32)".parse().unwrap();
/// let per = analyze_each(&tile, 4, op, &columns).unwrap();
/// assert_eq!(per.iter().map(|r| r.wavefronts).collect::<Vec<_>>(), [32, 32]);
/// assert_eq!(per.into_iter().sum::<BankReport>(), analyze(&tile, 4, op, &columns).unwrap());
/// ```
pub fn analyze_each(
    smem: &impl OffsetMap,
    elem_bytes: i64,
    op: SmemOp,
    tv: &Layout,
) -> Result<Vec<BankReport>> {
    let smem = smem.to_composed();
    let plan = AccessPlan::new(smem.layout(), elem_bytes, op, tv)
        .map_err(|e| e.context(format!("{op} through {tv} on {smem}")))?;
    plan.evaluate_each(&|x| smem.apply_outer(x))
        .map_err(|e| e.context(format!("{op} through {tv} on {smem}")))
}

/// The bank model of instructions whose lanes' elements are listed one by one, for accesses that
/// are not a single layout (a kernel's warps enumerated through its own partition): `indices`
/// holds domain indices of `smem` ordered `[instruction][lane][value]`, with the lanes the
/// instruction uses ([`SmemOp::lanes_used`]) and the elements of one vector per lane. Returns one
/// report per instruction.
///
/// ```
/// use tessel_layout::{Layout, bank::analyze_indices};
/// // A warp of 16-bit loads down column 0 of a 32x32 fp16 row-major tile (64-byte rows):
/// // the 32 words fall into banks 0 and 16, 16 distinct words each.
/// let tile: Layout = "(32,32):(32,1)".parse().unwrap();
/// let column: Vec<i64> = (0..32).collect();
/// let r = analyze_indices(&tile, 2, "lds.16".parse().unwrap(), &column).unwrap();
/// assert_eq!((r[0].wavefronts, r[0].ideal), (16, 1));
/// // Lanes 2k and 2k+1 store the two halves of one word: 16 words in 16 banks, no conflict.
/// let row: Vec<i64> = (0..32).map(|c| 32 * c).collect();
/// let r = analyze_indices(&tile, 2, "sts.16".parse().unwrap(), &row).unwrap();
/// assert_eq!(r[0].excess, 0);
/// assert!(analyze_indices(&tile, 2, "sts.16".parse().unwrap(), &row[..31]).is_err());
/// ```
pub fn analyze_indices(
    smem: &impl OffsetMap,
    elem_bytes: i64,
    op: SmemOp,
    indices: &[i64],
) -> Result<Vec<BankReport>> {
    let smem = smem.to_composed();
    let plan = AccessPlan::from_indices(smem.layout(), elem_bytes, op, indices)
        .map_err(|e| e.context(format!("{op} on {smem}")))?;
    plan.evaluate_each(&|x| smem.apply_outer(x))
        .map_err(|e| e.context(format!("{op} on {smem}")))
}

/// An access with the inner-layout offsets of every element resolved, ready to be evaluated
/// under any chain of offset and swizzles (used by the synthesis search).
#[derive(Clone, Debug)]
pub(crate) struct AccessPlan {
    op: SmemOp,
    elem_bytes: i64,
    /// Elements per vector.
    vec_elems: usize,
    /// Inner offsets, ordered `[instruction][lane][value]`.
    elements: Vec<i64>,
    instructions: usize,
}

impl AccessPlan {
    /// Resolves `tv` against the inner layout `inner` (before offset and swizzles).
    pub(crate) fn new(
        inner: &Layout,
        elem_bytes: i64,
        op: SmemOp,
        tv: &Layout,
    ) -> Result<AccessPlan> {
        let vec_elems = elements_per_vector(elem_bytes, op)?;
        let (lanes, values, repeats) = split_tv(tv)?;
        let lane_count = lanes.size() as usize;
        let used = op.lanes_used();
        if lane_count != used && lane_count != WARP {
            return Err(Error::invalid(format!(
                "the lane mode of the access has {lane_count} lanes; {op} needs {used}{}",
                if used == WARP { "" } else { " (or 32)" }
            )));
        }
        let value_count = values.as_ref().map_or(1, Layout::size) as usize;
        if value_count != vec_elems {
            return Err(Error::invalid(format!(
                "each lane has {value_count} values of {elem_bytes} bytes, but {op} moves \
                 {vec_elems} elements per {}",
                if op.is_matrix() { "row" } else { "lane" }
            )));
        }
        let instructions = repeats.as_ref().map_or(1, Layout::size);
        let addresses = instructions.checked_mul((used * vec_elems) as i64);
        check_address_count(addresses, instructions, used, vec_elems)?;
        let lane_offsets = lanes.offsets();
        let value_offsets = values.map_or_else(|| vec![0], |v| v.offsets());
        let repeat_offsets = repeats.map_or_else(|| vec![0], |r| r.offsets());
        let mut indices = Vec::with_capacity(addresses.unwrap_or(0) as usize);
        for &r in &repeat_offsets {
            for &l in lane_offsets.iter().take(used) {
                indices.extend(value_offsets.iter().map(|&v| r + l + v));
            }
        }
        AccessPlan::resolve(inner, elem_bytes, op, vec_elems, indices)
    }

    /// An access given as domain indices ordered `[instruction][lane][value]`, with the lanes
    /// the instruction uses and the elements of one vector per lane.
    pub(crate) fn from_indices(
        inner: &Layout,
        elem_bytes: i64,
        op: SmemOp,
        indices: &[i64],
    ) -> Result<AccessPlan> {
        let vec_elems = elements_per_vector(elem_bytes, op)?;
        let per_instruction = op.lanes_used() * vec_elems;
        if indices.is_empty() || !indices.len().is_multiple_of(per_instruction) {
            return Err(Error::invalid(format!(
                "{} indices do not make whole instructions: {op} of {elem_bytes}-byte elements \
                 takes {} lanes x {vec_elems} values = {per_instruction} indices each",
                indices.len(),
                op.lanes_used()
            )));
        }
        let instructions = (indices.len() / per_instruction) as i64;
        check_address_count(
            Some(indices.len() as i64),
            instructions,
            op.lanes_used(),
            vec_elems,
        )?;
        AccessPlan::resolve(inner, elem_bytes, op, vec_elems, indices.to_vec())
    }

    /// Checks that every domain index is in `inner`'s domain and maps it to its inner offset.
    fn resolve(
        inner: &Layout,
        elem_bytes: i64,
        op: SmemOp,
        vec_elems: usize,
        mut elements: Vec<i64>,
    ) -> Result<AccessPlan> {
        let per_instruction = op.lanes_used() * vec_elems;
        let instructions = elements.len() / per_instruction;
        let domain = inner.size();
        // The same function with the fewest modes: each offset costs one step per mode.
        let inner = crate::coalesce(inner)?;
        for (at, element) in elements.iter_mut().enumerate() {
            let index = *element;
            if !(0..domain).contains(&index) {
                return Err(Error::invalid(format!(
                    "lane {}{}: index {index} is outside the domain 0..{domain} of the \
                     shared-memory layout",
                    at % per_instruction / vec_elems,
                    instruction_name(at / per_instruction, instructions)
                )));
            }
            *element = inner.offset_unchecked(index);
        }
        Ok(AccessPlan {
            op,
            elem_bytes,
            vec_elems,
            elements,
            instructions,
        })
    }

    /// Lane addresses one evaluation maps: instructions x lanes used (the first element of each
    /// vector).
    pub(crate) fn lane_addresses(&self) -> i64 {
        (self.instructions * self.op.lanes_used()) as i64
    }

    /// Elements per vector.
    pub(crate) fn vec_elems(&self) -> usize {
        self.vec_elems
    }

    /// Evaluates the model with `outer` mapping inner offsets to element offsets. With
    /// `check_vectors == false` only the first element of each vector is mapped and the vector is
    /// assumed contiguous and aligned (the caller has proven it). Stops early (with a partial
    /// report) once the wavefronts exceed `budget`. Adds the elements it maps to `work`.
    pub(crate) fn evaluate(
        &self,
        outer: &impl Fn(i64) -> i64,
        check_vectors: bool,
        budget: i64,
        work: &mut i64,
    ) -> Result<BankReport> {
        let mut report = BankReport::default();
        let mut scratch = Vec::with_capacity(WARP);
        for k in 0..self.instructions {
            let (wavefronts, ideal) =
                self.instruction(k, outer, check_vectors, &mut scratch, work)?;
            report.add(wavefronts, ideal);
            if report.wavefronts > budget {
                break;
            }
        }
        Ok(report)
    }

    /// One report per instruction, in order.
    pub(crate) fn evaluate_each(&self, outer: &impl Fn(i64) -> i64) -> Result<Vec<BankReport>> {
        let mut scratch = Vec::with_capacity(WARP);
        (0..self.instructions)
            .map(|k| {
                let (wavefronts, ideal) = self.instruction(k, outer, true, &mut scratch, &mut 0)?;
                let mut report = BankReport::default();
                report.add(wavefronts, ideal);
                Ok(report)
            })
            .collect()
    }

    /// The wavefronts of instruction `k` and its ideal (the wavefronts the same access would
    /// take without bank conflicts: [`request_wavefronts`] with every conflict count 1).
    fn instruction(
        &self,
        k: usize,
        outer: &impl Fn(i64) -> i64,
        check_vectors: bool,
        units: &mut Vec<i64>,
        work: &mut i64,
    ) -> Result<(i64, i64)> {
        let op = self.op;
        let used = op.lanes_used();
        let vector_bytes = op.vector_bytes();
        // A vector is aligned (checked here, or proven by the caller), so its words fill the
        // banks of one group of `vector_bytes / 4` banks, and two vectors share words exactly
        // when they are the same vector: the distinct words in a bank are the distinct vectors
        // in its group (one word per bank when vectors are 32 bits). A vector narrower than a
        // word lies inside one word, and lanes in the same word share it: the unit counted is
        // the word.
        let unit = vector_bytes.max(BANK_BYTES);
        *work += (used * if check_vectors { self.vec_elems } else { 1 }) as i64;
        units.clear();
        for lane in 0..used {
            let at = (k * used + lane) * self.vec_elems;
            let first = outer(self.elements[at]);
            if check_vectors {
                self.check_vector(
                    k,
                    lane,
                    first,
                    &self.elements[at..at + self.vec_elems],
                    outer,
                )?;
            }
            units.push(first.wrapping_mul(self.elem_bytes).div_euclid(unit));
        }
        let groups = WAVEFRONT_BYTES / unit;
        let (mut wavefronts, mut ideal) = (0, 0);
        if op.is_matrix() {
            for phase in units.chunks_mut(op.phase_lanes()) {
                wavefronts += max_distinct_per_group(phase, groups);
                ideal += 1;
            }
        } else {
            for request in units.chunks(op.request_lanes()) {
                let (w, i) = request_wavefronts(request, op.phase_lanes(), vector_bytes, groups);
                wavefronts += w;
                ideal += i;
            }
        }
        Ok((wavefronts, ideal))
    }

    fn check_vector(
        &self,
        instruction: usize,
        lane: usize,
        first: i64,
        inner: &[i64],
        outer: &impl Fn(i64) -> i64,
    ) -> Result<()> {
        let who = || {
            format!(
                "lane {lane}{}",
                instruction_name(instruction, self.instructions)
            )
        };
        let offsets: Vec<i64> = inner.iter().map(|&x| outer(x)).collect();
        let contiguous = offsets
            .iter()
            .enumerate()
            .all(|(v, &o)| o.checked_sub(first) == Some(v as i64));
        if !contiguous {
            return Err(Error::invalid(format!(
                "{}: its {} values sit at element offsets {:?}, not one contiguous {}-byte vector",
                who(),
                offsets.len(),
                offsets,
                self.op.vector_bytes()
            )));
        }
        let address = first.checked_mul(self.elem_bytes);
        match address {
            Some(a) if a >= 0 && a % self.op.vector_bytes() == 0 => Ok(()),
            _ => Err(Error::invalid(format!(
                "{}: its vector starts at element offset {first} (byte {}), not aligned to {} bytes",
                who(),
                address.map_or_else(|| "overflow".to_string(), |a| a.to_string()),
                self.op.vector_bytes()
            ))),
        }
    }
}

/// Elements of `elem_bytes` bytes in one vector of `op`, or the error that names why the element
/// size does not fit the instruction.
fn elements_per_vector(elem_bytes: i64, op: SmemOp) -> Result<usize> {
    if exact_log2(elem_bytes).is_none() || elem_bytes > op.vector_bytes() {
        return Err(Error::invalid(format!(
            "element size {elem_bytes} bytes: must be a power of two no wider than the \
             {}-byte vector of {op}",
            op.vector_bytes()
        )));
    }
    Ok((op.vector_bytes() / elem_bytes) as usize)
}

/// Refuses an access of more than [`MAX_ELEMENTS`] element addresses (`None`: overflowed).
fn check_address_count(
    addresses: Option<i64>,
    instructions: i64,
    lanes: usize,
    vec_elems: usize,
) -> Result<()> {
    match addresses {
        Some(n) if n <= MAX_ELEMENTS => Ok(()),
        _ => Err(Error::invalid(format!(
            "the access enumerates {instructions} instructions of {lanes} lanes x {vec_elems} \
             values: {} element addresses, more than the limit MAX_ELEMENTS = {MAX_ELEMENTS}",
            i128::from(instructions) * (lanes * vec_elems) as i128
        ))),
    }
}

/// `ceil(bytes requested by the warp / 128)` for lds/sts of `vector_bytes` per lane.
fn bandwidth_wavefronts(vector_bytes: i64) -> i64 {
    (WARP as i64 * vector_bytes + WAVEFRONT_BYTES - 1) / WAVEFRONT_BYTES
}

/// Splits a TV layout into its lane mode, value mode and the instructions (all further modes).
fn split_tv(tv: &Layout) -> Result<(Layout, Option<Layout>, Option<Layout>)> {
    if tv.shape().is_int() {
        return Ok((tv.clone(), None, None));
    }
    let mut modes = tv.modes().into_iter();
    let lanes = modes
        .next()
        .ok_or_else(|| Error::invalid(format!("the access {tv} has no lane mode")))?;
    let values = modes.next();
    let rest: Vec<Layout> = modes.collect();
    let repeats = if rest.is_empty() {
        None
    } else {
        Some(Layout::from_modes(rest)?)
    };
    Ok((lanes, values, repeats))
}

fn instruction_name(k: usize, count: usize) -> String {
    if count > 1 {
        format!(" of instruction {k}")
    } else {
        String::new()
    }
}

/// Lanes whose distinct vectors are counted together when a request is packed
/// ([`request_wavefronts`]).
const LANE_GROUP: usize = 4;

/// Wavefronts and ideal of one lds/sts request (`docs/bank-model.md`, "LDS / STS"): `units` are
/// the vectors of the request's lanes (numbered in units of `max(vector bytes, 4)`, `groups` of
/// them to a wavefront), `phase_lanes` the lanes of one phase.
///
/// The request is one wavefront when it fits one: each aligned group of [`LANE_GROUP`] lanes
/// contributes its distinct vectors, they add up to at most 128 bytes, and no bank group holds
/// two distinct vectors. Otherwise every phase is served on its own, at least one wavefront,
/// as many as the most distinct vectors one bank group holds within that phase. The ideal is 1
/// when the lane groups' vectors fit 128 bytes, else the number of phases.
fn request_wavefronts(
    units: &[i64],
    phase_lanes: usize,
    vector_bytes: i64,
    groups: i64,
) -> (i64, i64) {
    let mut scratch = [0i64; WARP];
    let mut distinct = |lanes: &[i64]| {
        let part = &mut scratch[..lanes.len()];
        part.copy_from_slice(lanes);
        part.sort_unstable();
        let mut n = 0;
        for i in 0..part.len() {
            if i == 0 || part[i] != part[i - 1] {
                part[n] = part[i];
                n += 1;
            }
        }
        n
    };
    let slots: usize = units.chunks(LANE_GROUP).map(&mut distinct).sum();
    let busiest = |lanes: &[i64]| {
        let mut sorted = [0i64; WARP];
        let part = &mut sorted[..lanes.len()];
        part.copy_from_slice(lanes);
        max_distinct_per_group(part, groups).max(1)
    };
    let fits = slots as i64 * vector_bytes <= WAVEFRONT_BYTES;
    if fits && busiest(units) == 1 {
        return (1, 1);
    }
    let mut wavefronts = 0;
    let mut phases = 0;
    for phase in units.chunks(phase_lanes) {
        wavefronts += busiest(phase);
        phases += 1;
    }
    (wavefronts, if fits { 1 } else { phases })
}

/// Max over banks of the number of distinct words (sorts and dedups `words`): the wavefronts one
/// phase of a warp's accesses to these 32-bit words needs, bandwidth aside.
///
/// ```
/// use tessel_layout::bank::max_words_per_bank;
/// // Words 0, 32 and 64 share bank 0; the repeated word 32 is a broadcast.
/// let mut words = vec![64, 0, 32, 1, 32];
/// assert_eq!(max_words_per_bank(&mut words), 3);
/// assert_eq!(words, [0, 1, 32, 64]);
/// ```
pub fn max_words_per_bank(words: &mut Vec<i64>) -> i64 {
    words.sort_unstable();
    words.dedup();
    max_distinct_per_group(words, BANKS)
}

/// Max over the `groups` (1 to 32) residue classes `x mod groups` of the number of distinct
/// values (sorts `values`): with 32 groups and words, the busiest bank of
/// [`max_words_per_bank`]; with `128 / V` groups and aligned `V`-byte vectors (numbered in units
/// of `V` bytes), the same count, since each vector fills one group of `V / 4` banks.
fn max_distinct_per_group(values: &mut [i64], groups: i64) -> i64 {
    values.sort_unstable();
    let mut per_group = [0i64; BANKS as usize];
    for (i, &v) in values.iter().enumerate() {
        if i == 0 || values[i - 1] != v {
            per_group[v.rem_euclid(groups) as usize] += 1;
        }
    }
    per_group.iter().copied().max().unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The vector count equals the word count of the same aligned vectors, for every vector
    /// width and random vector sets (a deterministic linear congruential sequence).
    #[test]
    fn counting_vectors_is_counting_their_words() {
        let mut rng = crate::test_draw::Draw::new(12345);
        let mut next = |n: u64| rng.below(n);
        for vector_bytes in [4i64, 8, 16] {
            let words_per_vector = vector_bytes / BANK_BYTES;
            for _ in 0..2000 {
                let count = 1 + next(32) as usize;
                let span = 1 + next(4096);
                let mut vectors: Vec<i64> = (0..count).map(|_| next(span) as i64).collect();
                let mut words: Vec<i64> = vectors
                    .iter()
                    .flat_map(|&v| (0..words_per_vector).map(move |w| v * words_per_vector + w))
                    .collect();
                let by_words = max_words_per_bank(&mut words);
                let groups = WAVEFRONT_BYTES / vector_bytes;
                assert_eq!(max_distinct_per_group(&mut vectors, groups), by_words);
            }
        }
    }
}
