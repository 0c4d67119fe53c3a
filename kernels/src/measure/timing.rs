//! CUDA-event timing: warm-up, then the median of many timed repeats.
//!
//! ```
//! use tessel_kernels::timing::median;
//! assert_eq!(median(&mut [5.0, 1.0, 9.0, 3.0, 7.0]), 5.0);
//! assert_eq!(median(&mut []), 0.0);
//! ```

use cudarc::driver::sys::CUevent_flags;

use crate::device::Gpu;
use crate::error::{GpuResult, cuda};

/// Summary of repeated timings, in milliseconds.
///
/// ```
/// let Ok(gpu) = tessel_kernels::Gpu::open(0) else { return }; // no GPU: nothing to run
/// use tessel_kernels::{exec::{alloc, poison}, timing::time_events};
/// let mut buf = alloc::<u32>(&gpu, 1 << 20).unwrap();
/// let t = time_events(&gpu, 1, 5, || poison(&gpu, &mut buf)).unwrap();
/// assert_eq!(t.repeats, 5);
/// assert!(t.min_ms <= t.median_ms && t.median_ms <= t.max_ms);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Timing {
    /// Median over the repeats.
    pub median_ms: f64,
    /// Fastest repeat.
    pub min_ms: f64,
    /// Slowest repeat.
    pub max_ms: f64,
    /// Number of timed repeats.
    pub repeats: usize,
}

impl Timing {
    /// Two timings of the same thing taken apart, as one: the mean of the two medians, the
    /// extremes of both, and all their repeats (a balanced order, `a b b a`, pools each side's
    /// two timings so that neither is always the one timed second).
    ///
    /// ```
    /// use tessel_kernels::timing::Timing;
    /// let a = Timing { median_ms: 1.0, min_ms: 0.9, max_ms: 1.2, repeats: 10 };
    /// let b = Timing { median_ms: 1.2, min_ms: 1.1, max_ms: 1.5, repeats: 10 };
    /// let p = a.pooled(&b);
    /// assert!((p.median_ms - 1.1).abs() < 1e-12);
    /// assert_eq!((p.min_ms, p.max_ms, p.repeats), (0.9, 1.5, 20));
    /// ```
    pub fn pooled(&self, other: &Timing) -> Timing {
        Timing {
            median_ms: (self.median_ms + other.median_ms) / 2.0,
            min_ms: self.min_ms.min(other.min_ms),
            max_ms: self.max_ms.max(other.max_ms),
            repeats: self.repeats + other.repeats,
        }
    }
}

/// Which side of a comparison [`time_pair`] runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// The implementation measured.
    Ours,
    /// The reference it is measured against (cuBLAS, memcpy).
    Theirs,
}

/// Times two implementations against each other in the balanced order ours, theirs, theirs,
/// ours and pools each side's two timings ([`Timing::pooled`]): the card's clock under its
/// power cap depends on what ran just before, so neither side is always the one timed
/// second. `time` takes one timing of the side it is given (usually [`time_events`] or
/// `Loaded::time`, with the arguments built once per timing, outside the timed launches).
/// Returns (ours, theirs).
///
/// ```
/// use tessel_kernels::timing::{Side, Timing, time_pair};
/// let mut order = Vec::new();
/// let (ours, theirs) = time_pair(|side| {
///     order.push(side);
///     let ms = if side == Side::Ours { 1.0 } else { 2.0 } + order.len() as f64;
///     Ok::<_, tessel_kernels::GpuError>(Timing { median_ms: ms, min_ms: ms, max_ms: ms, repeats: 5 })
/// })
/// .unwrap();
/// assert_eq!(order, [Side::Ours, Side::Theirs, Side::Theirs, Side::Ours]);
/// assert_eq!((ours.median_ms, theirs.median_ms), ((2.0 + 5.0) / 2.0, (4.0 + 5.0) / 2.0));
/// assert_eq!((ours.repeats, theirs.repeats), (10, 10));
/// ```
pub fn time_pair(mut time: impl FnMut(Side) -> GpuResult<Timing>) -> GpuResult<(Timing, Timing)> {
    let ours = time(Side::Ours)?;
    let theirs = time(Side::Theirs)?;
    let theirs = theirs.pooled(&time(Side::Theirs)?);
    let ours = ours.pooled(&time(Side::Ours)?);
    Ok((ours, theirs))
}

/// Median of `samples` (which must be non-empty; an empty slice gives 0).
///
/// ```
/// assert_eq!(tessel_kernels::timing::median(&mut [3.0, 1.0, 2.0]), 2.0);
/// assert_eq!(tessel_kernels::timing::median(&mut [4.0, 1.0, 2.0, 3.0]), 2.5);
/// ```
pub fn median(samples: &mut [f64]) -> f64 {
    if samples.is_empty() {
        return 0.0;
    }
    samples.sort_by(|a, b| a.total_cmp(b));
    let n = samples.len();
    if n % 2 == 1 {
        samples[n / 2]
    } else {
        (samples[n / 2 - 1] + samples[n / 2]) / 2.0
    }
}

/// Runs `work` `warmup` times, then times each of `repeats` runs with a pair of CUDA events on
/// the GPU's stream, and returns the median (events are read after one final synchronize).
///
/// ```
/// let Ok(gpu) = tessel_kernels::Gpu::open(0) else { return }; // no GPU: nothing to run
/// use tessel_kernels::{exec::{alloc, poison}, timing::time_events};
/// let mut buf = alloc::<half::f16>(&gpu, 1 << 20).unwrap();
/// let mut runs = 0;
/// let t = time_events(&gpu, 2, 3, || { runs += 1; poison(&gpu, &mut buf) }).unwrap();
/// assert_eq!((runs, t.repeats), (2 + 3, 3));
/// assert!(t.min_ms <= t.max_ms);
/// ```
pub fn time_events(
    gpu: &Gpu,
    warmup: usize,
    repeats: usize,
    mut work: impl FnMut() -> GpuResult<()>,
) -> GpuResult<Timing> {
    for _ in 0..warmup {
        work()?;
    }
    gpu.synchronize()?;
    let event = || {
        cuda(
            "cuEventCreate",
            gpu.context()
                .new_event(Some(CUevent_flags::CU_EVENT_DEFAULT)),
        )
    };
    let mut events = Vec::with_capacity(repeats);
    for _ in 0..repeats.max(1) {
        let (start, stop) = (event()?, event()?);
        cuda("cuEventRecord", start.record(gpu.stream()))?;
        work()?;
        cuda("cuEventRecord", stop.record(gpu.stream()))?;
        events.push((start, stop));
    }
    gpu.synchronize()?;
    let mut samples = Vec::with_capacity(events.len());
    for (start, stop) in &events {
        samples.push(f64::from(cuda(
            "cuEventElapsedTime",
            start.elapsed_ms(stop),
        )?));
    }
    let min_ms = samples.iter().copied().fold(f64::INFINITY, f64::min);
    let max_ms = samples.iter().copied().fold(0.0, f64::max);
    Ok(Timing {
        median_ms: median(&mut samples),
        min_ms,
        max_ms,
        repeats: events.len(),
    })
}
