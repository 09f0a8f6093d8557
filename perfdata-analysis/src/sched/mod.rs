//! Scheduler analyses: `perf sched map`, `latency` and `timehist`.
