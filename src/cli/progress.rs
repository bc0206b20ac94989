//! Progress on the terminal: a byte bar while verifying, a call bar while judging, and the
//! messages for unreadable lines. Hidden when stderr is not a terminal.

use kgrade::client::Counters;
use kgrade::inputs::generations::GenerationError;
use kgrade::stages::Observer;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::Arc;
use std::thread::JoinHandle;

/// Unreadable generation lines named one by one on stderr.
const SHOWN_UNREADABLE: u64 = 20;

/// Progress of one run: verifying (bytes of the generations file), then judging.
pub struct Progress {
    bytes: indicatif::ProgressBar,
    judge: Option<(Arc<AtomicBool>, JoinHandle<()>)>,
    /// Generation lines that could not be read.
    pub unreadable: u64,
}

impl Progress {
    /// Progress over a generations file of `total` bytes (0 if unknown).
    pub fn new(total: u64) -> Progress {
        let bytes = indicatif::ProgressBar::with_draw_target(
            Some(total),
            indicatif::ProgressDrawTarget::stderr(),
        );
        bytes.set_style(
            indicatif::ProgressStyle::with_template(
                "{spinner} verifying [{bar:30}] {binary_bytes}/{binary_total_bytes} {binary_bytes_per_sec} ETA {eta}",
            )
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
            .progress_chars("=> "),
        );
        Progress {
            bytes,
            judge: None,
            unreadable: 0,
        }
    }

    /// Clear the bars; the judge bar's thread ends even if nothing was judged.
    pub fn finish(self) {
        self.bytes.finish_and_clear();
        if let Some((stop, handle)) = self.judge {
            stop.store(true, Relaxed);
            let _ = handle.join();
        }
    }
}

impl Observer for Progress {
    fn bytes_read(&mut self, bytes: u64) {
        self.bytes.set_position(bytes);
    }

    /// The first unreadable lines are named as they come; after that one line says the rest
    /// are only counted (a million bad lines are not a million lines of stderr; all of them
    /// are counted in run.json and the first listed there).
    fn unreadable(&mut self, error: &GenerationError) {
        self.unreadable += 1;
        match self.unreadable {
            n if n <= SHOWN_UNREADABLE => self.bytes.suspend(|| say!("kgrade: {error}")),
            n if n == SHOWN_UNREADABLE + 1 => self.bytes.suspend(|| {
                say!("kgrade: more unreadable lines follow; they are counted, not shown (run.json lists the first 200)")
            }),
            _ => {}
        }
    }

    fn judging(&mut self, counters: Arc<Counters>) {
        let stop = Arc::new(AtomicBool::new(false));
        let handle = judge_bar(counters, stop.clone());
        self.judge = Some((stop, handle));
    }
}

/// How often judging is reported when stderr is not a terminal (a log file, CI).
const LOG_EVERY: std::time::Duration = std::time::Duration::from_secs(30);

/// A bar for judge calls, updated from the live counters until `stop` is set; with stderr
/// not a terminal, where the bar is hidden, a line every [`LOG_EVERY`] (walkthrough 50, F6:
/// minutes of judging printed nothing until the end).
fn judge_bar(counters: Arc<Counters>, stop: Arc<AtomicBool>) -> JoinHandle<()> {
    use std::io::IsTerminal;
    if !std::io::stderr().is_terminal() {
        return std::thread::spawn(move || judge_log(&counters, &stop));
    }
    std::thread::spawn(move || {
        let bar =
            indicatif::ProgressBar::with_draw_target(None, indicatif::ProgressDrawTarget::stderr());
        bar.set_style(
            indicatif::ProgressStyle::with_template(
                "{spinner} judging [{bar:30}] {pos}/{len} {per_sec} ETA {eta} {msg}",
            )
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
            .progress_chars("=> "),
        );
        while !stop.load(Relaxed) {
            bar.set_length(counters.total.load(Relaxed));
            bar.set_position(counters.done.load(Relaxed));
            bar.set_message(format!(
                "cache hits {}, retries {}, failed {}",
                counters.cache_hits.load(Relaxed),
                counters.retries.load(Relaxed),
                counters.failures.load(Relaxed)
            ));
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        bar.finish_and_clear();
    })
}

/// Judging said in plain lines, every [`LOG_EVERY`]: how many answers went to the judge so
/// far (they are sent as the run is read, so the count grows) and how many are judged.
fn judge_log(counters: &Counters, stop: &AtomicBool) {
    let tick = std::time::Duration::from_millis(100);
    let mut last = std::time::Instant::now();
    while !stop.load(Relaxed) {
        let total = counters.total.load(Relaxed);
        if total > 0 && last.elapsed() >= LOG_EVERY {
            say!(
                "kgrade: judged {} of the {total} answers sent to the judge so far (cache hits {}, retries {}, failed {})",
                counters.done.load(Relaxed),
                counters.cache_hits.load(Relaxed),
                counters.retries.load(Relaxed),
                counters.failures.load(Relaxed)
            );
            last = std::time::Instant::now();
        }
        std::thread::sleep(tick);
    }
}
