//! Swizzle synthesis: find the swizzle chain that makes a shared-memory tile conflict-free for a
//! set of accesses, or the one with the fewest wavefronts.
//!
//! The search space: the identity, every single `Sw<B,M,S>` (`B <= 5`, both signs of `S`)
//! that permutes the offsets `0..2^n` of the tile (`2^n` = the tile's cosize rounded up to a
//! power of two), leaves the bits inside the narrowest vector alone (else it would split
//! vectors) and flips at least one bank-selecting bit (a swizzle that only flips higher bits
//! keeps every word in its bank and cannot change the wavefronts); then chains of two such
//! swizzles, each of which keeps every vector whole on its own (all ordered pairs when there are
//! at most [`EXHAUSTIVE_PAIRS`] singles, else the best [`BEAM`] singles combined with all
//! others). Candidates are ranked by total wavefronts, then fewer layers, then fewer swizzle
//! bits. The winner is re-checked by [`verify`] (still injective/bijective) and by
//! the bank analyzer [`analyze`]. When the unswizzled tile already takes the ideal number of
//! wavefronts nothing can beat it and no candidate is tried.
//!
//! Every request is bounded before the work is done: the accesses resolve at most
//! [`MAX_ELEMENTS`] element addresses in all, and the search evaluates at most
//! [`MAX_SEARCH_WORK`] lane addresses (candidate chains x lane addresses of the accesses);
//! beyond either, [`synthesize`] fails with an error that names the limit and the value.
//!
//! ```
//! use tessel_layout::{Layout, synth::{Access, Options, synthesize}};
//! // The column read of a 32x32 fp32 row-major tile: 31 excess wavefronts, none after the search.
//! let tile: Layout = "(32,32):(32,1)".parse().unwrap();
//! let read = Access::new("lds.32".parse().unwrap(), "32:1".parse().unwrap());
//! let s = synthesize(&tile, 4, &[read], Options::default()).unwrap();
//! assert_eq!((s.baseline_total().excess, s.total().excess), (31, 0));
//! ```

use std::cell::Cell;
use std::fmt;

use crate::bank::{AccessPlan, BankReport, MAX_ELEMENTS, SmemOp, analyze};
use crate::composed::ComposedLayout;
use crate::error::{Error, Result};
use crate::f2::exact_log2;
use crate::layout::Layout;
use crate::swizzle::Swizzle;
use crate::verify;

/// Up to this many single swizzles, every ordered pair is tried as a two-layer chain.
///
/// ```
/// use tessel_layout::{Layout, synth::{Access, Options, synthesize, EXHAUSTIVE_PAIRS}};
/// // Few singles fit a 32x32 tile, so every ordered pair of them is tried.
/// let tile: Layout = "(32,32):(32,1)".parse().unwrap();
/// let read = Access::new("lds.32".parse().unwrap(), "32:1".parse().unwrap());
/// let s = synthesize(&tile, 4, &[read], Options::default()).unwrap();
/// assert!(s.candidates > 1 && s.candidates <= 1 + EXHAUSTIVE_PAIRS * EXHAUSTIVE_PAIRS);
/// ```
pub const EXHAUSTIVE_PAIRS: usize = 200;
/// Above [`EXHAUSTIVE_PAIRS`], the best this many singles are paired with all singles.
///
/// ```
/// use tessel_layout::synth::{BEAM, EXHAUSTIVE_PAIRS};
/// // The beam only kicks in past the exhaustive bound, so it must be smaller.
/// assert!(BEAM < EXHAUSTIVE_PAIRS);
/// ```
pub const BEAM: usize = 32;
/// The most lane addresses a search evaluates: each candidate chain maps the lane addresses
/// (instructions x lanes, x values where vectors are re-checked) of all accesses. It keeps every
/// search well under a second; the problems of real tiles (a 128x128 fp16 tile read whole with
/// ldmatrix and written with 128-bit stores) need a small fraction of it. The one-layer search
/// is checked before it starts (it scores every single swizzle fully); the two-layer search,
/// whose evaluations stop early once they cannot win, is checked as it goes.
///
/// ```
/// use tessel_layout::{Layout, synth::{Access, Options, synthesize, MAX_SEARCH_WORK}};
/// // A 1024x1024 fp32 tile read down its columns, 2048 instructions: too many lane addresses
/// // for the hundreds of candidate swizzles of a 20-bit tile.
/// let tile: Layout = "(1024,1024):(1024,1)".parse().unwrap();
/// let columns = Access::new("lds.32".parse().unwrap(), "(32,1,2048):(1,0,32)".parse().unwrap());
/// let err = synthesize(&tile, 4, &[columns.clone()], Options::default()).unwrap_err();
/// assert!(err.to_string().contains(&format!("more than the limit MAX_SEARCH_WORK = {MAX_SEARCH_WORK}")), "{err}");
/// // The same tile with a representative 8 of those instructions is searched.
/// let few = Access::new(columns.op, "(32,1,8):(1,0,32)".parse().unwrap());
/// assert_eq!(synthesize(&tile, 4, &[few], Options::default()).unwrap().total().excess, 0);
/// ```
pub const MAX_SEARCH_WORK: i64 = 1 << 24;

/// One access pattern: an instruction and its TV layout (see [`crate::bank`]; modes beyond
/// the first two enumerate instructions or warps).
///
/// ```
/// use tessel_layout::synth::Access;
/// let a = Access::new("lds.32".parse().unwrap(), "32:1".parse().unwrap());
/// assert_eq!(a.to_string(), "lds.32 32:1");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Access {
    /// The instruction.
    pub op: SmemOp,
    /// `(lane, value, instruction...)` -> index into the tile's domain.
    pub tv: Layout,
}

impl Access {
    /// An access of `op` through `tv`.
    ///
    /// ```
    /// let a = tessel_layout::synth::Access::new("sts.32".parse().unwrap(), "32:32".parse().unwrap());
    /// assert_eq!(a.tv.size(), 32);
    /// ```
    pub fn new(op: SmemOp, tv: Layout) -> Access {
        Access { op, tv }
    }
}

impl fmt::Display for Access {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.op, self.tv)
    }
}

/// Limits of the search.
///
/// ```
/// let o = tessel_layout::synth::Options::default();
/// assert_eq!(o.max_layers, 2);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options {
    /// Longest chain tried (0, 1 or 2).
    pub max_layers: usize,
}

impl Default for Options {
    fn default() -> Self {
        Options { max_layers: 2 }
    }
}

/// The result of a search.
///
/// ```
/// use tessel_layout::{Layout, synth::{Access, Options, synthesize}};
/// // docs/bank-model.md: the column read of a 32x32 fp32 row-major tile takes 32 wavefronts.
/// let tile: Layout = "(32,32):(32,1)".parse().unwrap();
/// let read = Access::new("lds.32".parse().unwrap(), "32:1".parse().unwrap());
/// let s = synthesize(&tile, 4, &[read], Options::default()).unwrap();
/// assert_eq!(s.baseline[0].wavefronts, 32);
/// assert_eq!(s.reports[0].wavefronts, 1);
/// assert_eq!(s.layout.layout(), &tile);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Synthesis {
    /// The tile with the chosen swizzle chain (outermost first).
    pub layout: ComposedLayout,
    /// The analyzer's verdict per access, in the order given.
    pub reports: Vec<BankReport>,
    /// The verdict per access without any swizzle.
    pub baseline: Vec<BankReport>,
    /// How many candidate chains were evaluated.
    pub candidates: usize,
}

impl Synthesis {
    /// The sum of the per-access reports.
    ///
    /// ```
    /// use tessel_layout::{Layout, synth::{Access, Options, synthesize}};
    /// let tile: Layout = "(32,32):(32,1)".parse().unwrap();
    /// let read = Access::new("lds.32".parse().unwrap(), "32:1".parse().unwrap());
    /// let s = synthesize(&tile, 4, &[read], Options::default()).unwrap();
    /// assert_eq!(s.total().excess, 0);
    /// assert_eq!(s.layout.swizzles().len(), 1);
    /// ```
    pub fn total(&self) -> BankReport {
        sum(&self.reports)
    }

    /// The sum of the baseline reports.
    ///
    /// ```
    /// use tessel_layout::{Layout, synth::{Access, Options, synthesize}};
    /// let tile: Layout = "(32,32):(32,1)".parse().unwrap();
    /// let read = Access::new("lds.32".parse().unwrap(), "32:1".parse().unwrap());
    /// let s = synthesize(&tile, 4, &[read], Options::default()).unwrap();
    /// assert_eq!(s.baseline_total().excess, 31);
    /// ```
    pub fn baseline_total(&self) -> BankReport {
        sum(&self.baseline)
    }
}

impl fmt::Display for Synthesis {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} ({}; without swizzle {}; {} candidates)",
            self.layout,
            self.total(),
            self.baseline_total(),
            self.candidates
        )
    }
}

fn sum(reports: &[BankReport]) -> BankReport {
    let wavefronts = reports.iter().map(|r| r.wavefronts).sum();
    let ideal = reports.iter().map(|r| r.ideal).sum();
    BankReport {
        wavefronts,
        ideal,
        excess: wavefronts - ideal,
    }
}

/// Searches the swizzle chain for `tile` (element offsets of `elem_bytes` bytes) that minimises
/// the total wavefronts of `accesses` (see the module docs).
///
/// ```
/// use tessel_layout::{Layout, synth::{Access, Options, synthesize}};
/// // 32x32 fp32 transpose tile: row writes, column reads.
/// let tile: Layout = "(32,32):(32,1)".parse().unwrap();
/// let write = Access::new("sts.32".parse().unwrap(), "32:32".parse().unwrap());
/// let read = Access::new("lds.32".parse().unwrap(), "32:1".parse().unwrap());
/// let s = synthesize(&tile, 4, &[write, read], Options::default()).unwrap();
/// assert_eq!(s.total().excess, 0);
/// ```
pub fn synthesize(
    tile: &Layout,
    elem_bytes: i64,
    accesses: &[Access],
    options: Options,
) -> Result<Synthesis> {
    synthesize_within(tile, elem_bytes, accesses, options, MAX_SEARCH_WORK)
}

/// [`synthesize`] with another bound than [`MAX_SEARCH_WORK`] on the lane addresses the search
/// evaluates: for callers that can afford a longer search, or want a shorter one.
///
/// ```
/// use tessel_layout::{Layout, synth::{Access, Options, synthesize_within}};
/// let tile: Layout = "(32,32):(32,1)".parse().unwrap();
/// let read = Access::new("lds.32".parse().unwrap(), "32:1".parse().unwrap());
/// // The baseline (32 lane addresses) fits a limit of 100; scoring the single swizzles does not.
/// let err = synthesize_within(&tile, 4, &[read.clone()], Options::default(), 100).unwrap_err();
/// assert!(err.to_string().contains("x 32 lane addresses"), "{err}");
/// assert!(err.to_string().contains("more than the given limit of 100"), "{err}");
/// let s = synthesize_within(&tile, 4, &[read], Options::default(), 1 << 30).unwrap();
/// assert_eq!(s.total().excess, 0);
/// ```
pub fn synthesize_within(
    tile: &Layout,
    elem_bytes: i64,
    accesses: &[Access],
    options: Options,
    max_work: i64,
) -> Result<Synthesis> {
    let ctx = |e: Error| e.context(format!("swizzle synthesis for {tile}"));
    if accesses.is_empty() {
        return Err(ctx(Error::invalid("no access pattern given")));
    }
    let elements = accesses
        .iter()
        .fold(0i64, |n, a| n.saturating_add(a.tv.size()));
    if elements > MAX_ELEMENTS {
        return Err(ctx(Error::invalid(format!(
            "the {} accesses' TV layouts have {elements} elements in all, more than the limit \
             MAX_ELEMENTS = {MAX_ELEMENTS}",
            accesses.len()
        ))));
    }
    let (lo, hi) = tile.offset_range()?;
    if lo < 0 || !verify::is_injective(tile).map_err(ctx)? {
        return Err(ctx(Error::inadmissible(
            "the tile must be injective with non-negative offsets",
        )));
    }
    let bijective = verify::is_bijective(tile).map_err(ctx)?;
    let offset_bits = 64 - hi.leading_zeros();
    let plans = accesses
        .iter()
        .map(|a| AccessPlan::new(tile, elem_bytes, a.op, &a.tv))
        .collect::<Result<Vec<_>>>()
        .map_err(ctx)?;
    let search = Search {
        plans: &plans,
        vec_bits: plans
            .iter()
            .map(|p| exact_log2(p.vec_elems() as i64).unwrap_or(0))
            .collect(),
        work: Cell::new(0),
        max_work,
    };
    let baseline = search.evaluate(&[], true, i64::MAX).map_err(ctx)?;
    let ideal = sum(&baseline).ideal;
    let mut best = Candidate::new(Vec::new(), sum(&baseline).wavefronts);
    let mut candidates = 1;
    // No chain takes fewer wavefronts than the ideal, and the identity wins ties.
    let layers = if best.wavefronts == ideal {
        0
    } else {
        options.max_layers
    };
    if layers >= 1 && tile.size() > verify::EXHAUSTIVE_LIMIT {
        let plain = ComposedLayout::from_layout(tile.clone());
        if verify::affine_map(&plain).map_err(ctx)?.is_none() {
            return Err(ctx(Error::invalid(format!(
                "no swizzle of this tile can be verified: its map is not GF(2)-affine \
                 (extents and strides not powers of two on disjoint bits), so a swizzled tile \
                 is checked by enumeration, and its size {} exceeds the enumeration limit \
                 EXHAUSTIVE_LIMIT = {}",
                tile.size(),
                verify::EXHAUSTIVE_LIMIT
            ))));
        }
    }
    let addresses: i64 = plans.iter().map(AccessPlan::lane_addresses).sum();
    let singles = if layers >= 1 {
        single_swizzles(offset_bits, &search.vec_bits, elem_bytes)
    } else {
        Vec::new()
    };
    check_work("the one-layer search", singles.len(), addresses, max_work).map_err(ctx)?;
    let mut scored = Vec::new();
    for (k, &sw) in singles.iter().enumerate() {
        candidates += 1;
        // Singles are scored fully: their scores order the pair search.
        if let Some(total) = search.total(&[sw], i64::MAX) {
            scored.push((total, sw));
            best = best.better(Candidate::new(vec![sw], total));
        }
        search
            .within_budget("the one-layer search", k + 1, singles.len())
            .map_err(ctx)?;
    }
    if layers >= 2 && best.wavefronts > ideal {
        scored.sort_by_key(|&(w, sw)| (w, sw.bits(), sw.base(), sw.shift()));
        let keep = if scored.len() <= EXHAUSTIVE_PAIRS {
            scored.len()
        } else {
            BEAM
        };
        let firsts: Vec<Swizzle> = scored.iter().take(keep).map(|&(_, sw)| sw).collect();
        let feasible: Vec<Swizzle> = scored.iter().map(|&(_, sw)| sw).collect();
        let chains = pairs(&firsts, &feasible);
        for (k, chain) in chains.iter().enumerate() {
            let bits: u32 = chain.iter().map(Swizzle::bits).sum();
            if best.wavefronts == ideal && best.chain.len() == 2 && best.key().2 <= bits {
                break; // sorted by bits: nothing later can beat the ideal with fewer bits
            }
            candidates += 1;
            if let Some(total) = search.total(chain, best.wavefronts) {
                best = best.better(Candidate::new(chain.to_vec(), total));
            }
            search
                .within_budget("the two-layer search", k + 1, chains.len())
                .map_err(ctx)?;
        }
    }
    // Prove the winner with the public checks.
    let layout = ComposedLayout::new(best.chain, 0, tile.clone());
    let still_ok = if bijective {
        verify::is_bijective(&layout)
    } else {
        verify::is_injective(&layout)
    }
    .map_err(ctx)?;
    if !still_ok {
        return Err(ctx(Error::invalid(format!(
            "internal: the chosen {layout} lost injectivity"
        ))));
    }
    let reports = accesses
        .iter()
        .map(|a| analyze(&layout, elem_bytes, a.op, &a.tv))
        .collect::<Result<Vec<_>>>()
        .map_err(ctx)?;
    Ok(Synthesis {
        layout,
        reports,
        baseline,
        candidates,
    })
}

/// Fails before a search when evaluating `chains` candidate chains over `addresses` lane
/// addresses each exceeds `max_work`.
fn check_work(search: &str, chains: usize, addresses: i64, max_work: i64) -> Result<()> {
    let work = i128::from(addresses) * chains as i128;
    if work <= i128::from(max_work) {
        return Ok(());
    }
    Err(Error::invalid(format!(
        "{search} would evaluate {chains} swizzle chains x {addresses} lane addresses = {work} \
         lane addresses, more than {} ({SMALLER})",
        work_limit(max_work)
    )))
}

/// How to make a search smaller, for the errors of the work limit.
const SMALLER: &str = "fewer instructions per access or fewer layers make the search smaller";

/// The work limit named in errors: `MAX_SEARCH_WORK` when it is the default.
fn work_limit(max_work: i64) -> String {
    if max_work == MAX_SEARCH_WORK {
        format!("the limit MAX_SEARCH_WORK = {MAX_SEARCH_WORK}")
    } else {
        format!("the given limit of {max_work}")
    }
}

/// The resolved accesses and the vector width (in bits of element offset) of each.
struct Search<'a> {
    plans: &'a [AccessPlan],
    vec_bits: Vec<u32>,
    /// Elements mapped so far, by every evaluation (early exits make the pair search cheaper
    /// than its chains x lane addresses, so it is bounded as it goes).
    work: Cell<i64>,
    /// The bound on `work`.
    max_work: i64,
}

impl Search<'_> {
    /// Fails once the evaluations so far (`done` of the `chains` chains of `search`) mapped
    /// more than `max_work` elements.
    fn within_budget(&self, search: &str, done: usize, chains: usize) -> Result<()> {
        let work = self.work.get();
        if work <= self.max_work {
            return Ok(());
        }
        Err(Error::invalid(format!(
            "{search} stopped after {done} of its {chains} swizzle chains: they evaluated {work} \
             lane addresses, more than {} ({SMALLER})",
            work_limit(self.max_work)
        )))
    }

    /// Reports per access under `chain` (outermost first). Vectors are only re-checked for the
    /// accesses whose vector bits the chain touches (otherwise they provably stay whole).
    fn evaluate(&self, chain: &[Swizzle], check_all: bool, budget: i64) -> Result<Vec<BankReport>> {
        let apply = |x: i64| chain.iter().rev().fold(x, |v, sw| sw.apply(v));
        let mut spent = 0;
        let mut reports = Vec::with_capacity(self.plans.len());
        for (plan, &bits) in self.plans.iter().zip(&self.vec_bits) {
            let touches = chain
                .iter()
                .any(|sw| sw.lowest_bit().is_some_and(|m| m < bits));
            let mut work = self.work.get();
            let report = plan.evaluate(
                &apply,
                check_all || touches,
                budget.saturating_sub(spent),
                &mut work,
            );
            self.work.set(work);
            let report = report?;
            spent += report.wavefronts;
            reports.push(report);
            if spent > budget {
                break;
            }
        }
        Ok(reports)
    }

    /// Total wavefronts under `chain`, or `None` when they exceed `budget` or a vector breaks.
    fn total(&self, chain: &[Swizzle], budget: i64) -> Option<i64> {
        let reports = self.evaluate(chain, false, budget).ok()?;
        let total = sum(&reports).wavefronts;
        (total <= budget).then_some(total)
    }
}

/// Every ordered two-layer chain of one swizzle of `firsts` and another of `all`, each once,
/// sorted (stably) by total bits.
fn pairs(firsts: &[Swizzle], all: &[Swizzle]) -> Vec<[Swizzle; 2]> {
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::new();
    for &a in firsts {
        for &b in all {
            if a != b {
                for chain in [[a, b], [b, a]] {
                    if seen.insert(chain) {
                        out.push(chain);
                    }
                }
            }
        }
    }
    out.sort_by_key(|c| c[0].bits() + c[1].bits());
    out
}

/// A scored chain.
struct Candidate {
    chain: Vec<Swizzle>,
    wavefronts: i64,
}

impl Candidate {
    fn new(chain: Vec<Swizzle>, wavefronts: i64) -> Candidate {
        Candidate { chain, wavefronts }
    }

    fn key(&self) -> (i64, usize, u32) {
        (
            self.wavefronts,
            self.chain.len(),
            self.chain.iter().map(Swizzle::bits).sum(),
        )
    }

    /// The better of the two; on a full tie the earlier one stays (deterministic).
    fn better(self, other: Candidate) -> Candidate {
        if other.key() < self.key() {
            other
        } else {
            self
        }
    }
}

/// Every `Sw<B,M,S>` on `0..2^offset_bits` that leaves the bits of the narrowest vector alone
/// and flips at least one bank-selecting bit.
fn single_swizzles(offset_bits: u32, vec_bits: &[u32], elem_bytes: i64) -> Vec<Swizzle> {
    let low = vec_bits.iter().copied().min().unwrap_or(0);
    let elem_log = exact_log2(elem_bytes).unwrap_or(0) as i64;
    // Byte-address bits 2..7 select the bank; in element offsets that is bits 2-log..7-log.
    let bank_lo = (2 - elem_log).max(0) as u32;
    let bank_hi = (7 - elem_log).max(0) as u32;
    let mut out = Vec::new();
    // At most 5 bank-selecting bits exist; wider masks only add bits that cannot matter.
    for b in 1..=offset_bits.min(5) {
        for z in low..=offset_bits.saturating_sub(b) {
            let flips_bank = z < bank_hi && z + b > bank_lo;
            if !flips_bank || z + b > offset_bits {
                continue;
            }
            for y in low..=offset_bits - b {
                if y.abs_diff(z) < b {
                    continue;
                }
                let (m, s) = if y > z {
                    (z, i64::from(y - z))
                } else {
                    (y, -i64::from(z - y))
                };
                if let Ok(sw) = Swizzle::new(i64::from(b), i64::from(m), s) {
                    out.push(sw);
                }
            }
        }
    }
    out
}
