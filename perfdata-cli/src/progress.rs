//! The progress bar on stderr while a command reads a recording: it appears after about a second
//! (`PERFDATA_PROGRESS_DELAY_MS` sets the delay), only when stderr is a terminal and `--quiet` is
//! not given, and not for commands that stream their rows to a terminal's stdout (it would break
//! their lines). It shows the bytes read of the file (records read for a stream) and is cleared
//! when the command ends.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

static QUIET: AtomicBool = AtomicBool::new(false);
static STREAMS_STDOUT: AtomicBool = AtomicBool::new(false);
static ACTIVE: Mutex<Vec<Watch>> = Mutex::new(Vec::new());

struct Watch {
    stop: Arc<AtomicBool>,
    thread: std::thread::JoinHandle<()>,
}

/// `--quiet`: no progress bar.
pub fn set_quiet(quiet: bool) {
    QUIET.store(quiet, Ordering::Relaxed);
}

/// The command writes its rows to stdout as it reads (dump, script, timehist): no bar when
/// stdout is a terminal.
pub fn set_streams_stdout(streams: bool) {
    STREAMS_STDOUT.store(streams, Ordering::Relaxed);
}

fn delay() -> Duration {
    let ms = std::env::var("PERFDATA_PROGRESS_DELAY_MS").ok().and_then(|v| v.parse().ok()).unwrap_or(1000);
    Duration::from_millis(ms)
}

/// Show the progress of reading a file (`name`) until [`finish`], where a bar is wanted.
pub fn watch(progress: perfdata_core::Progress, name: &str) {
    let stderr_tty = std::io::stderr().is_terminal();
    if QUIET.load(Ordering::Relaxed)
        || !stderr_tty
        || (STREAMS_STDOUT.load(Ordering::Relaxed) && std::io::stdout().is_terminal())
    {
        return;
    }
    let stop = Arc::new(AtomicBool::new(false));
    let stopped = stop.clone();
    let name = name.to_string();
    let thread = std::thread::spawn(move || {
        let start = Instant::now();
        let wait = delay();
        while start.elapsed() < wait {
            if stopped.load(Ordering::Relaxed) {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let target = ProgressDrawTarget::stderr_with_hz(10);
        let bar = match progress.total_bytes() {
            Some(total) => ProgressBar::with_draw_target(Some(total), target).with_style(
                ProgressStyle::with_template("{prefix} [{bar:30}] {bytes}/{total_bytes} {elapsed} (eta {eta})")
                    .unwrap_or_else(|_| ProgressStyle::default_bar())
                    .progress_chars("=> "),
            ),
            None => ProgressBar::with_draw_target(None, target).with_style(
                ProgressStyle::with_template("{prefix} {spinner} {msg} records {elapsed}")
                    .unwrap_or_else(|_| ProgressStyle::default_spinner()),
            ),
        };
        bar.set_prefix(name);
        while !stopped.load(Ordering::Relaxed) {
            if progress.total_bytes().is_some() {
                bar.set_position(progress.bytes());
            } else {
                bar.set_message(progress.records().to_string());
                bar.tick();
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        bar.finish_and_clear();
    });
    if let Ok(mut active) = ACTIVE.lock() {
        active.push(Watch { stop, thread });
    }
}

/// Stop and clear the bars (before the command's last words on stderr).
pub fn finish() {
    let watches: Vec<Watch> = ACTIVE.lock().map(|mut a| a.drain(..).collect()).unwrap_or_default();
    for w in watches {
        w.stop.store(true, Ordering::Relaxed);
        let _ = w.thread.join();
    }
}
