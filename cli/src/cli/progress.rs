//! Progress of long work on stderr: an indicatif spinner when stderr is a terminal, plain lines
//! otherwise (so logs and pipes get text, and a terminal is not flooded).

use std::io::{self, IsTerminal, Write};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};

/// Tiles at least this large announce a synthesis with a plain line when stderr is not a
/// terminal (smaller ones finish in well under a second).
pub const LARGE_TILE: i64 = 1 << 14;

/// A spinner showing `message` and the elapsed time, ticking on its own thread.
fn spinner(message: &str) -> ProgressBar {
    let bar = ProgressBar::new_spinner();
    if let Ok(style) = ProgressStyle::with_template("{spinner} [{elapsed}] {msg}") {
        bar.set_style(style);
    }
    bar.set_message(message.to_string());
    bar.enable_steady_tick(Duration::from_millis(120));
    bar
}

/// Runs `work`; when it is `large`, a spinner shows `message` meanwhile on a terminal, and
/// otherwise one plain line `message: done in S s` is written to stderr once the work has
/// succeeded. A failure writes nothing here, so the error contract (exactly one `error:` line on
/// stderr) holds. Small work runs quietly.
pub fn while_working<T, E>(
    message: &str,
    large: bool,
    work: impl FnOnce() -> Result<T, E>,
) -> Result<T, E> {
    if !large {
        return work();
    }
    if !io::stderr().is_terminal() {
        let start = Instant::now();
        let result = work();
        if result.is_ok() {
            let seconds = start.elapsed().as_secs_f64();
            let _ = writeln!(io::stderr().lock(), "{message}: done in {seconds:.2} s");
        }
        return result;
    }
    let bar = spinner(message);
    let result = work();
    bar.finish_and_clear();
    result
}

/// Where line-by-line progress goes: a spinner whose message is the latest line on a terminal,
/// the lines themselves on stderr otherwise.
#[cfg_attr(not(feature = "kernels"), allow(dead_code))]
pub struct Lines {
    bar: Option<ProgressBar>,
    pending: Vec<u8>,
}

#[cfg_attr(not(feature = "kernels"), allow(dead_code))]
impl Lines {
    /// Progress for `what` (the spinner's first message).
    pub fn new(what: &str) -> Lines {
        Lines {
            bar: io::stderr().is_terminal().then(|| spinner(what)),
            pending: Vec::new(),
        }
    }

    /// Removes the spinner.
    pub fn finish(self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

impl Write for Lines {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let Some(bar) = &self.bar else {
            return io::stderr().lock().write(buf);
        };
        self.pending.extend_from_slice(buf);
        while let Some(end) = self.pending.iter().position(|&b| b == b'\n') {
            let line: Vec<u8> = self.pending.drain(..=end).collect();
            bar.set_message(String::from_utf8_lossy(&line).trim_end().to_string());
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        match self.bar {
            Some(_) => Ok(()),
            None => io::stderr().lock().flush(),
        }
    }
}
