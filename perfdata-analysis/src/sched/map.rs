//! `perf sched map`: one line per context switch, one column per CPU showing the task it runs.
//!
//! Only `sched_switch` and COMM records are used. A task gets a two-character short name the
//! first time it is switched in (`A0`…`Z0`, `A1`…`Z9`, then `A0` again; the idle task is `.`);
//! the line says `A0 => comm:tid` when the name is new or a COMM record (exec) renamed the task
//! since. The columns are the CPUs `0 .. nr_cpus` of the recording (its NRCPUS header; perf
//! 6.1 takes the analysing machine's CPU count instead and then loses a column when the
//! recording had more), or with `compact` the CPUs seen so far, in order of appearance.
//! Both semantics print the same map.

use super::events::{drive, push_secs_usec, push_uint, At, Ev, Handler, PerCpu};
use super::state::TaskStates;
use crate::Error;
use perfdata_core::process::Machine;
use perfdata_core::{HeaderInfo, PerfFile};
use std::collections::HashMap;

/// Options of [`sched_map_each`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MapOptions {
    /// `--compact`: columns only for the CPUs that switched so far.
    pub compact: bool,
    /// `--cpus`: the CPUs to show (others' lines keep their columns but no time).
    pub cpus: Option<Vec<u32>>,
    /// The number of CPU columns; `None`: the recording's (NRCPUS available), at least one more
    /// than the highest CPU seen in compat mode is *not* added (perf's behaviour).
    pub nr_cpus: Option<u32>,
}

/// A task's short name: two characters (`A0`, `. ` for the idle task).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct ShortName(pub [u8; 2]);

impl std::fmt::Display for ShortName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let s: String = self.0.iter().map(|&b| char::from(b)).collect();
        f.pad(&s)
    }
}

impl ShortName {
    /// The name without the idle task's padding (`.`, `A0`).
    pub fn as_str(&self) -> String {
        self.to_string().trim_end().to_string()
    }
}

/// A new name announced on a line (`A0 => comm:tid`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewName {
    /// The short name.
    pub short: ShortName,
    /// The task's comm then.
    pub comm: String,
    /// Its thread id.
    pub tid: u32,
}

/// One line of the map.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MapRow<'a> {
    /// Time of the switch, ns.
    pub time_ns: u64,
    /// The CPU that switched.
    pub cpu: u32,
    /// The task switched in.
    pub tid: u32,
    /// The columns: (CPU, short name of its current task, `None` before its first switch).
    pub columns: &'a [(u32, Option<ShortName>)],
    /// The name announcement, if any.
    pub new_name: Option<NewName>,
    /// `compact`: this is the CPU's first line (perf appends ` (CPU n)`).
    pub new_cpu: bool,
    /// The switching CPU is not among `--cpus`: perf prints the columns only.
    pub hidden: bool,
}

impl MapRow<'_> {
    /// The line as perf prints it (with its newline).
    pub fn write_text(&self, o: &mut String) {
        o.push_str("  ");
        for (cpu, name) in self.columns {
            o.push(if *cpu == self.cpu { '*' } else { ' ' });
            match name {
                Some(n) => {
                    n.0.iter().for_each(|&b| o.push(char::from(b)));
                    o.push(' ');
                }
                None => o.push_str("   "),
            }
        }
        if !self.hidden {
            o.push_str("  ");
            push_secs_usec(o, self.time_ns, 12);
            o.push_str(" secs ");
            if let Some(n) = &self.new_name {
                n.short.0.iter().for_each(|&b| o.push(char::from(b)));
                o.push_str(" => ");
                o.push_str(&n.comm);
                o.push(':');
                push_uint(o, u64::from(n.tid), 0);
            }
            if self.new_cpu {
                o.push_str(" (CPU ");
                push_uint(o, u64::from(self.cpu), 0);
                o.push(')');
            }
        }
        o.push('\n');
    }
}

/// What [`sched_map_each`] saw besides the rows.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MapSummary {
    /// Lines.
    pub rows: u64,
    /// Tasks named.
    pub tasks: u64,
    /// Why reading stopped early, if it did.
    pub diagnostics: Vec<String>,
}

#[derive(Clone, Copy, Default)]
struct Task {
    short: Option<ShortName>,
    comm_changed: bool,
}

struct Map<F> {
    opts: MapOptions,
    max_cpu: u32,
    comp_cpus: Vec<u32>,
    comp_seen: PerCpu<bool>,
    curr: PerCpu<Option<u32>>,
    tasks: HashMap<u32, Task, ahash::RandomState>,
    next: (u8, u8),
    cols: Vec<(u32, Option<ShortName>)>,
    each: F,
    rows: u64,
}

impl<F: FnMut(&MapRow<'_>)> Handler for Map<F> {
    fn event(&mut self, at: &At, ev: Ev<'_>, machine: &Machine, _states: &TaskStates) {
        let Ev::Switch { next_pid, .. } = ev else { return };
        let cpu = at.cpu;
        if self.curr.get_mut(cpu).is_none() {
            return;
        }
        if cpu > self.max_cpu {
            self.max_cpu = cpu;
        }
        let mut new_cpu = false;
        if self.opts.compact {
            if let Some(seen) = self.comp_seen.get_mut(cpu) {
                if !*seen {
                    *seen = true;
                    self.comp_cpus.push(cpu);
                    new_cpu = true;
                }
            }
        }
        if let Some(c) = self.curr.get_mut(cpu) {
            *c = Some(next_pid);
        }
        let task = self.tasks.entry(next_pid).or_default();
        let mut new_short = false;
        if task.short.is_none() {
            let swapper = machine.thread(next_pid).is_some_and(|t| t.comm == "swapper");
            task.short = Some(if swapper {
                ShortName(*b". ")
            } else {
                let s = ShortName([self.next.0, self.next.1]);
                if self.next.0 < b'Z' {
                    self.next.0 += 1;
                } else {
                    self.next.0 = b'A';
                    self.next.1 = if self.next.1 < b'9' { self.next.1 + 1 } else { b'0' };
                }
                s
            });
            new_short = true;
        }
        let hidden = self.opts.cpus.as_ref().is_some_and(|c| !c.contains(&cpu));
        let announce = new_short || task.comm_changed;
        let short = task.short.unwrap_or_default();
        // perf clears the flag only when it prints the name (not on a hidden CPU's line).
        if announce && !hidden {
            task.comm_changed = false;
        }
        let new_name = (announce && !hidden).then(|| NewName { short, comm: machine.comm(next_pid), tid: next_pid });
        self.cols.clear();
        let n = if self.opts.compact { self.comp_cpus.len() } else { self.max_cpu as usize };
        for i in 0..n {
            let c = if self.opts.compact { self.comp_cpus.get(i).copied().unwrap_or(0) } else { i as u32 };
            if self.opts.cpus.as_ref().is_some_and(|l| !l.contains(&c)) {
                continue;
            }
            let name = self.curr.get(c).copied().flatten().and_then(|tid| self.tasks.get(&tid)).and_then(|t| t.short);
            self.cols.push((c, name));
        }
        let row = MapRow {
            time_ns: at.time,
            cpu,
            tid: next_pid,
            columns: &self.cols,
            new_name,
            new_cpu: new_cpu && !hidden,
            hidden,
        };
        self.rows += 1;
        (self.each)(&row);
    }

    fn comm(&mut self, tid: u32) {
        self.tasks.entry(tid).or_default().comm_changed = true;
    }
}

/// Stream the lines of `perf sched map` for `file` to `each`. Memory is bounded by the number
/// of tasks and CPUs.
///
/// Errors: [`Error::Missing`] without `sched:sched_switch` (or tracing data).
pub fn sched_map_each(file: &PerfFile, opts: &MapOptions, each: impl FnMut(&MapRow<'_>)) -> Result<MapSummary, Error> {
    let nr_cpus = opts.nr_cpus.unwrap_or_else(|| {
        let h = HeaderInfo::new(file);
        h.nr_cpus_available.or(h.nr_cpus_online).unwrap_or(0)
    });
    // The header is input: at most perf's MAX_CPUS columns.
    let nr_cpus = nr_cpus.min(super::events::MAX_CPUS);
    let mut m = Map {
        opts: opts.clone(),
        max_cpu: nr_cpus,
        comp_cpus: Vec::new(),
        comp_seen: PerCpu::default(),
        curr: PerCpu::default(),
        tasks: HashMap::default(),
        next: (b'A', b'0'),
        cols: Vec::new(),
        each,
        rows: 0,
    };
    let stream = drive(file, &mut m)?;
    Ok(MapSummary {
        rows: m.rows,
        tasks: m.tasks.values().filter(|t| t.short.is_some()).count() as u64,
        diagnostics: stream.diagnostics,
    })
}

/// The whole map as `perf sched map` prints it.
pub fn sched_map_text(file: &PerfFile, opts: &MapOptions) -> Result<(String, MapSummary), Error> {
    let mut out = String::new();
    let s = sched_map_each(file, opts, |r| r.write_text(&mut out))?;
    Ok((out, s))
}
