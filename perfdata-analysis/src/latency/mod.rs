//! Latency analyses: block I/O latency, wakeup (run-queue) latency and off-CPU time.
