//! Scheduler analyses of `perf sched record` files: [`map`] (`perf sched map`), [`latency`]
//! (`perf sched latency`) and [`timehist`] (`perf sched timehist`).
//!
//! Each streams the records in time order once, reads the sched tracepoints by field name from
//! the recording's own formats (any kernel, either byte order; `prev_state`'s bits from the
//! `sched_switch` print fmt, see [`state::TaskStates`]) and keeps per-thread and per-CPU state
//! only: memory grows with the number of threads, not of events. Files in pipe format work too
//! (perf 6.1's `perf sched` reads none).
//!
//! Two semantics ([`Compat`]):
//!
//! * [`Compat::Perf61`] reproduces perf 6.1's output byte for byte, quirks included: its latency
//!   and map ignore `sched_waking` (the wakeup event `perf sched record` stores), so only
//!   `sched_wakeup_new` wakes tasks there; only `prev_state == 0` counts as runnable, so a
//!   preempted task (`R+`) is sleeping to latency and its wait is sleep to timehist; timehist's
//!   state letters are 6.1's table (`W` for preempted on current kernels).
//! * [`Compat::Modern`] (the default) is right on current kernels, as perf computes since 6.5:
//!   `sched_waking` is the wakeup (`sched_wakeup` when it was not recorded), a preempted task is
//!   runnable (its delay runs from its switch-out, its wait is preempt time, its letter `R`),
//!   and latency's count column is called `Count`.
//!
//! ```no_run
//! use perfdata_analysis::sched::latency::{sched_latency, LatencyOptions};
//! let file = perfdata_core::PerfFile::open("perf.data")?;
//! let lat = sched_latency(&file, &LatencyOptions::default())?;
//! for row in &lat.rows {
//!     println!("{} {} delays, max {} ns", row.task, row.switches, row.max_delay_ns);
//! }
//! print!("{}", lat.text());
//! # Ok::<(), perfdata_analysis::latency::Error>(())
//! ```

pub(crate) mod events;
pub mod latency;
pub mod map;
pub mod state;
pub mod timehist;
pub mod timeline;

pub use crate::Error;

/// Which perf's semantics an analysis follows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Compat {
    /// Correct on current kernels (perf ≥ 6.5's rules).
    #[default]
    Modern,
    /// perf 6.1 exactly, quirks included.
    Perf61,
}

impl std::str::FromStr for Compat {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "perf-6.1" | "perf61" | "6.1" => Ok(Compat::Perf61),
            "modern" | "default" | "" => Ok(Compat::Modern),
            o => Err(format!("unknown compat {o:?} (perf-6.1 or modern)")),
        }
    }
}
