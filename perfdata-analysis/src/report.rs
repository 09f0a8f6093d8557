//! `perf report --stdio --no-children -g none --sort comm,dso,sym`: the share of the event count
//! per (command, shared object, symbol) of the samples' ips, most first.

use crate::folded::{FoldedOptions, StackFolder};
use perfdata_core::record::CpuMode;
use perfdata_core::{Order, PerfFile, RecordKind, Result};
use std::collections::HashMap;
use std::fmt::Write;

/// One row of the table.
#[derive(Clone, Debug, PartialEq)]
pub struct ReportRow {
    /// Share of the event count, %.
    pub overhead: f64,
    /// Samples.
    pub samples: u64,
    /// Event count (sum of periods).
    pub period: u64,
    /// The thread's comm at the sample.
    pub comm: String,
    /// The shared object's short name (`[kernel.kallsyms]`, `libc.so.6`, `[unknown]`).
    pub dso: String,
    /// A kernel address (`[k]`), else user (`[.]`).
    pub kernel: bool,
    /// The symbol, or the address perf prints for an unresolved one (`0x0000000000009fa2`).
    pub symbol: String,
}

/// The report of `file`'s samples (all events together), rows by overhead, most first.
pub fn report(file: &PerfFile, fold: &FoldedOptions) -> Result<(Vec<ReportRow>, u64)> {
    let mut folder = StackFolder::new(file, fold);
    let mut by: HashMap<(String, String, bool, String), (u64, u64)> = HashMap::new();
    let mut total = 0u64;
    for r in file.records(Order::Time)? {
        let Ok(r) = r else { continue };
        folder.record(&r);
        let RecordKind::Sample(s) = &r.kind else { continue };
        if r.event.is_none() {
            continue;
        }
        let period = s.period_or_attr();
        let (pid, tid) = (s.pid().unwrap_or(u32::MAX), s.tid().unwrap_or(u32::MAX));
        let kernel = r.header.cpumode() == CpuMode::Kernel;
        let ip = s.ip().unwrap_or(0);
        let (dso, sym) = folder.locate(pid, kernel, ip);
        let short =
            if dso.starts_with('[') { dso.to_string() } else { dso.rsplit('/').next().unwrap_or(&dso).to_string() };
        let symbol = match sym.as_deref() {
            Some(n) => n.split('\0').next().unwrap_or(n).to_string(),
            None => format!("{:#018x}", folder.map_ip(pid, kernel, ip)),
        };
        let e = by.entry((folder.comm(tid), short, kernel, symbol)).or_default();
        e.0 += 1;
        e.1 = e.1.saturating_add(period);
        total = total.saturating_add(period);
    }
    let mut rows: Vec<ReportRow> = by
        .into_iter()
        .map(|((comm, dso, kernel, symbol), (samples, period))| ReportRow {
            overhead: if total > 0 { 100.0 * period as f64 / total as f64 } else { 0.0 },
            samples,
            period,
            comm,
            dso,
            kernel,
            symbol,
        })
        .collect();
    rows.sort_by(|a, b| {
        b.period
            .cmp(&a.period)
            .then_with(|| a.comm.cmp(&b.comm))
            .then_with(|| a.dso.cmp(&b.dso))
            .then_with(|| a.symbol.cmp(&b.symbol))
    });
    Ok((rows, total))
}

/// The rows as `perf report --stdio` lays them out (columns as wide as their widest value).
pub fn report_text(rows: &[ReportRow]) -> String {
    let wc = rows.iter().map(|r| r.comm.len()).max().unwrap_or(0).max("Command".len());
    let wd = rows.iter().map(|r| r.dso.len()).max().unwrap_or(0).max("Shared Object".len());
    let mut o = String::new();
    let _ = writeln!(o, "# Overhead  {:<wc$}  {:<wd$}  Symbol", "Command", "Shared Object");
    let _ = writeln!(o, "# ........  {}  {}  ......", ".".repeat(wc), ".".repeat(wd));
    o.push_str("#\n");
    for r in rows {
        let mark = if r.kernel { "[k]" } else { "[.]" };
        let _ = writeln!(o, "{:>9.2}%  {:<wc$}  {:<wd$}  {mark} {}", r.overhead, r.comm, r.dso, r.symbol);
    }
    o
}
