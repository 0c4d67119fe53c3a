//! [`Sm90Options::trace`](super::Sm90Options::trace)'s records: one consumer's timeline of
//! one tile.

/// Tiles per consumer that [`Sm90Options::trace`](super::Sm90Options::trace) records (later tiles are not recorded).
///
/// ```
/// assert_eq!(tessel_kernels::hopper::TRACE_TILES, 16);
/// ```
pub const TRACE_TILES: i64 = 16;

/// One consumer's record of one tile under [`Sm90Options::trace`](super::Sm90Options::trace): `%globaltimer`
/// (nanoseconds, one clock for the whole GPU) at the tile's start and at its end, and the SM's
/// `clock64` cycles at the tile's start, when its first stage had arrived, when its last wgmma
/// had finished, and when its epilogue had issued its last store; `sm` is `%smid`.
///
/// ```
/// use tessel_kernels::hopper::TraceRecord;
/// let r = TraceRecord::from_words(&[1000, 48_000, 10, 250, 70_250, 74_000, 7, 0]);
/// assert_eq!((r.wait_cycles(), r.main_cycles(), r.epilogue_cycles()), (240, 70_000, 3_750));
/// assert_eq!(r.sm, 7);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TraceRecord {
    /// `%globaltimer` at the tile's start (ns).
    pub start_ns: u64,
    /// `%globaltimer` after the epilogue (ns).
    pub end_ns: u64,
    /// `clock64` at the tile's start, after its first stage's wait, after its last wgmma, and
    /// after the epilogue.
    pub cycles: [u64; 4],
    /// The SM that ran it.
    pub sm: u64,
}

impl TraceRecord {
    /// 64-bit words per record in the `TRACE` buffer.
    pub const WORDS: usize = 8;

    /// A record from its [`TraceRecord::WORDS`] words as the kernel writes them.
    ///
    /// ```
    /// let _ = tessel_kernels::hopper::TraceRecord::from_words; // see TraceRecord
    /// ```
    pub fn from_words(w: &[u64]) -> TraceRecord {
        TraceRecord {
            start_ns: w[0],
            end_ns: w[1],
            cycles: [w[2], w[3], w[4], w[5]],
            sm: w[6],
        }
    }

    /// Cycles from the tile's start until its first stage had arrived.
    ///
    /// ```
    /// let _ = tessel_kernels::hopper::TraceRecord::wait_cycles; // see TraceRecord
    /// ```
    pub fn wait_cycles(&self) -> u64 {
        self.cycles[1].wrapping_sub(self.cycles[0])
    }

    /// Cycles from the first stage's arrival to the last wgmma's completion.
    ///
    /// ```
    /// let _ = tessel_kernels::hopper::TraceRecord::main_cycles; // see TraceRecord
    /// ```
    pub fn main_cycles(&self) -> u64 {
        self.cycles[2].wrapping_sub(self.cycles[1])
    }

    /// The SM clock the record implies, in GHz: its cycles from the tile's start to the
    /// epilogue's end over the nanoseconds between the same two points.
    ///
    /// ```
    /// let r = tessel_kernels::hopper::TraceRecord::from_words(&[1000, 3000, 0, 10, 20, 3000, 0, 0]);
    /// assert_eq!(r.ghz(), 1.5);
    /// ```
    pub fn ghz(&self) -> f64 {
        (self.cycles[3] - self.cycles[0]) as f64 / (self.end_ns - self.start_ns).max(1) as f64
    }

    /// Cycles of the epilogue (last wgmma done to last store issued).
    ///
    /// ```
    /// let _ = tessel_kernels::hopper::TraceRecord::epilogue_cycles; // see TraceRecord
    /// ```
    pub fn epilogue_cycles(&self) -> u64 {
        self.cycles[3].wrapping_sub(self.cycles[2])
    }
}
