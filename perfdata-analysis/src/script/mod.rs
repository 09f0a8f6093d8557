//! `perf script`'s default lines: one line per sample.
//!
//! Tracepoint samples print their rendered `print fmt` text exactly as perf does. Other samples get
//! perf's default columns (comm, tid, cpu, time, period, event) and their ip in hex, but no symbols:
//! where perf resolves a symbol and a DSO, this prints `[unknown] ([unknown])`.

use perfdata_core::attr::sample_type;
use perfdata_core::process::Machine;
use perfdata_core::tracepoint::{Format, Tracepoints, PERF_TYPE_TRACEPOINT};
use perfdata_core::{Event, Order, PerfFile, Record, RecordKind};
use std::collections::HashMap;
use std::io::Write;

/// Tracepoint formats known so far while reading records: a file's from the start, a pipe's from
/// its `HEADER_TRACING_DATA` record on.
pub struct TpState {
    tp: Option<Tracepoints>,
    warned: bool,
}

impl TpState {
    /// The file's tracing data, if it is already available; a damaged blob is reported to `warn`.
    pub fn new(f: &PerfFile<'_>, warn: &mut dyn FnMut(String)) -> TpState {
        match Tracepoints::from_file(f) {
            Ok(tp) => TpState { tp, warned: false },
            Err(e) => {
                warn(format!("warning: tracing data: {e}"));
                TpState { tp: None, warned: true }
            }
        }
    }

    /// Pick up a pipe's tracing data; the first damaged blob is reported to `warn`.
    pub fn observe(&mut self, r: &Record<'_>, warn: &mut dyn FnMut(String)) {
        if self.tp.is_some() {
            return;
        }
        match Tracepoints::carried_by(r) {
            Some(Ok(tp)) => self.tp = Some(tp),
            Some(Err(e)) if !self.warned => {
                warn(format!("warning: tracing data: {e}"));
                self.warned = true;
            }
            _ => {}
        }
    }

    /// The tracing data, if known.
    pub fn get(&self) -> Option<&Tracepoints> {
        self.tp.as_ref()
    }

    /// The format and RAW data of a tracepoint sample, when its format is known.
    pub fn format_of<'r>(&self, r: &Record<'r>) -> Option<(&Format, &'r [u8])> {
        let (RecordKind::Sample(s), Some(ev)) = (&r.kind, r.event) else { return None };
        Some((self.tp.as_ref()?.format_for(&ev.attr)?, s.raw()?))
    }
}

/// perf's output type of an event (`output_type`): the attr type, other PMUs share one slot.
fn output_type(ev: &Event) -> u32 {
    ev.attr.type_.min(6)
}

/// Which optional columns an output type shows: perf drops a default column when the *first* event
/// of that type lacks the sample field (`perf_session__check_output_opt`).
#[derive(Clone, Copy)]
struct Columns {
    tid: bool,
    time: bool,
    cpu: bool,
    ip: bool,
}

fn columns(events: &[Event]) -> HashMap<u32, Columns> {
    let mut m = HashMap::new();
    for ev in events {
        m.entry(output_type(ev)).or_insert_with(|| {
            let st = ev.attr.sample_type;
            Columns {
                tid: st & sample_type::TID != 0,
                time: st & sample_type::TIME != 0,
                cpu: st & sample_type::CPU != 0,
                ip: output_type(ev) != PERF_TYPE_TRACEPOINT && st & sample_type::IP != 0,
            }
        });
    }
    m
}

fn event_name(ev: &Event, tp: Option<&Tracepoints>) -> String {
    match (&ev.name, tp.and_then(|t| t.format_for(&ev.attr))) {
        (Some(n), _) => n.clone(),
        (None, Some(f)) => f.full_name(),
        (None, None) => ev.display_name(),
    }
}

/// Write the `perf script` lines of `f` to `out` (comms from [`Machine`], as perf's). Records that
/// cannot be read are skipped and reported to `warn` (after `out` is flushed, so the report lands
/// where the line would have been), as are the reader's diagnostics at the end; the result is
/// false when any record was skipped.
pub fn write_script(f: &PerfFile<'_>, out: &mut dyn Write, warn: &mut dyn FnMut(String)) -> crate::Result<bool> {
    let io = |source| crate::Error::Output { what: "the script output", source };
    let mut tps = TpState::new(f, warn);
    let mut machine = Machine::new();
    let mut recs = f.records(Order::Time)?;
    let mut name_width: Option<usize> = None;
    let mut cols: HashMap<u32, Columns> = HashMap::new();
    let mut failed = false;
    let use_callchain = f.events().iter().any(|e| e.attr.sample_type & sample_type::CALLCHAIN != 0);
    while let Some(rec) = recs.next_record() {
        let r = match rec {
            Ok(r) => r,
            Err(e) => {
                failed = true;
                out.flush().map_err(io)?;
                warn(e.to_string());
                continue;
            }
        };
        tps.observe(&r, warn);
        machine.update(&r);
        let (RecordKind::Sample(s), Some(ev)) = (&r.kind, r.event) else { continue };
        // perf sizes the event column once, from every event known at the first sample.
        let width = *name_width.get_or_insert_with(|| {
            cols = columns(r.events.events.as_slice());
            r.events.events.iter().map(|e| event_name(e, tps.get()).len()).max().unwrap_or(0)
        });
        let c = cols.get(&output_type(ev)).copied().unwrap_or(Columns { tid: true, time: true, cpu: true, ip: true });
        let callchain = c.ip && use_callchain && s.callchain().is_some();
        // perf prints the comm of tid -1 for samples without one.
        let comm = machine.comm(s.tid().unwrap_or(u32::MAX));
        let mut line = if callchain { format!("{comm} ") } else { format!("{comm:>16} ") };
        if c.tid {
            line.push_str(&format!("{:5} ", s.tid().map_or(-1, |t| t as i32)));
        }
        if c.cpu {
            line.push_str(&format!("[{:03}] ", s.cpu().unwrap_or(0)));
        }
        if c.time {
            let t = s.time().unwrap_or(0);
            line.push_str(&format!("{:>12}: ", format!("{}.{:06}", t / 1_000_000_000, t % 1_000_000_000 / 1000)));
        }
        let tracepoint = output_type(ev) == PERF_TYPE_TRACEPOINT;
        if !tracepoint {
            line.push_str(&format!("{:10} ", s.period_or_attr()));
        }
        line.push_str(&format!("{:>width$}: ", event_name(ev, tps.get())));
        if tracepoint {
            // The rendered text goes out as bytes: perf copies record strings unchanged.
            out.write_all(line.as_bytes()).map_err(io)?;
            line.clear();
            if let (Some(tp), Some(raw)) = (tps.get(), s.raw()) {
                if let Some(fmt) = tp.format_for(&ev.attr) {
                    out.write_all(&tp.render_bytes(fmt, raw)).map_err(io)?;
                }
            }
        } else if c.ip {
            // Symbols are out of scope: perf would print `sym+off (dso)` here.
            if let (true, Some(chain)) = (callchain, s.callchain()) {
                line.push('\n');
                for ip in chain.iter().filter(|ip| *ip < perfdata_core::sample::PERF_CONTEXT_MAX) {
                    line.push_str(&format!("\t{ip:16x} [unknown] ([unknown])\n"));
                }
            } else {
                line.push_str(&format!(" {:16x} [unknown] ([unknown])", s.ip().unwrap_or(0)));
            }
        }
        writeln!(out, "{line}").map_err(io)?;
    }
    out.flush().map_err(io)?;
    for d in f.diagnostics().iter().chain(recs.diagnostics().iter()) {
        warn(format!("warning: {d}"));
    }
    Ok(!failed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::{Path, PathBuf};

    fn testdata() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata")
    }

    /// Everything up to the ip of a non-tracepoint line (perf resolves symbols there; we do not).
    fn without_symbols(line: &str) -> String {
        let re_end = line.find(" [unknown] ([unknown])").unwrap_or(line.len());
        let head = &line[..re_end];
        // perf: "...: <ip hex> sym+off (dso)"; keep through the ip.
        match head.rfind(": ") {
            Some(i) => {
                let rest = head[i + 2..].trim_start();
                let ip = rest.split(' ').next().unwrap_or("");
                format!("{}{}", &head[..i + 2], ip)
            }
            None => head.to_string(),
        }
    }

    /// Every committed recording with tracepoints: each line equals perf script's (tracepoint lines
    /// in full: comm from COMM/FORK tracking, tid, cpu, time, event name padding, rendered text);
    /// lines of other events up to their ip.
    #[test]
    fn lines_match_perf_script() {
        let mut checked = 0;
        for name in ["sched.data", "block.data", "syscalls.data", "pipe-tp.data"] {
            let path = testdata().join(name);
            let Ok(expected) = std::fs::read(path.with_extension("data.script")) else {
                eprintln!("skip {name}: no stored perf script output");
                continue;
            };
            let f = PerfFile::open(&path).unwrap();
            let mut out = Vec::new();
            assert!(write_script(&f, &mut out, &mut |_| {}).unwrap(), "{name}: read errors");
            let ours: Vec<&[u8]> = out.split(|&c| c == b'\n').collect();
            let perf: Vec<&[u8]> = expected.split(|&c| c == b'\n').collect();
            assert_eq!(ours.len(), perf.len(), "{name}: line count");
            for (i, (o, p)) in ours.iter().zip(&perf).enumerate() {
                let (o, p) = (String::from_utf8_lossy(o), String::from_utf8_lossy(p));
                let tracepoint = p.contains(": ") && !o.contains(" [unknown] ([unknown])");
                if tracepoint {
                    assert_eq!(o, p, "{name} line {}", i + 1);
                } else {
                    assert_eq!(without_symbols(&o), without_symbols(&p), "{name} line {}", i + 1);
                }
                checked += 1;
            }
        }
        assert!(checked > 900 || checked == 0, "only {checked} lines compared");
    }
}
