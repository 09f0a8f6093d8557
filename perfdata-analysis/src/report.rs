//! `perf report --stdio -g none`: the share of the event count per group of samples — by
//! command, thread, CPU, shared object and symbol of the samples' ips (`--sort`), most first; with
//! `--children`, also the share of every function on the samples' callchains (its callees'
//! samples included), as perf's cumulative entries count it.

use crate::folded::{ChainEntry, FoldedOptions, StackFolder};
use crate::options::in_ranges;
use perfdata_core::record::CpuMode;
use perfdata_core::{Order, PerfFile, RecordKind, Result};
use std::collections::HashMap;
use std::fmt::Write;
use std::rc::Rc;

/// A column perf report groups by (`--sort` keys).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SortKey {
    /// The command (comm) of the thread at the sample.
    Comm,
    /// The thread (perf's `pid` key is the thread id), shown with its last comm.
    Pid,
    /// The shared object of the address.
    Dso,
    /// The symbol of the address (`sym` or `symbol`).
    Sym,
    /// The CPU of the sample.
    Cpu,
}

impl SortKey {
    /// The key perf's `--sort` names `name` (`comm`, `pid`, `dso`, `sym`/`symbol`, `cpu`).
    pub fn parse(name: &str) -> Option<SortKey> {
        Some(match name {
            "comm" => SortKey::Comm,
            "pid" => SortKey::Pid,
            "dso" => SortKey::Dso,
            "sym" | "symbol" => SortKey::Sym,
            "cpu" => SortKey::Cpu,
            _ => return None,
        })
    }

    /// The keys of a comma-separated list, or the message naming an unknown one.
    pub fn parse_list(list: &str) -> std::result::Result<Vec<SortKey>, String> {
        list.split(',')
            .map(|k| {
                SortKey::parse(k.trim())
                    .ok_or_else(|| format!("unknown --sort key `{k}' (known: comm, pid, dso, sym, cpu)"))
            })
            .collect()
    }

    /// The column's header as perf prints it.
    pub fn header(self) -> &'static str {
        match self {
            SortKey::Comm => "Command",
            SortKey::Pid => "Pid:Command",
            SortKey::Dso => "Shared Object",
            SortKey::Sym => "Symbol",
            SortKey::Cpu => "CPU",
        }
    }
}

/// What [`report`] computes.
#[derive(Clone, Debug)]
pub struct ReportOptions {
    /// The columns to group by, in order (perf's default: comm, dso, sym).
    pub sort: Vec<SortKey>,
    /// Also count each function on the samples' callchains (`--children`): the share of the
    /// samples in it or its callees.
    pub children: bool,
    /// How symbols are found and named (the symbolization and frame options of `folded`).
    pub fold: FoldedOptions,
}

impl Default for ReportOptions {
    fn default() -> Self {
        ReportOptions {
            sort: vec![SortKey::Comm, SortKey::Dso, SortKey::Sym],
            children: false,
            fold: FoldedOptions::default(),
        }
    }
}

/// One row of the table: the fields of the sort keys, the others `None`.
#[derive(Clone, Debug, PartialEq)]
pub struct ReportRow {
    /// Share of the event count in this row's own samples (perf's `Self` with `--children`), %.
    pub overhead: f64,
    /// With `--children`: share of the event count of the samples with this row's function on
    /// their callchain (its own and its callees'), %.
    pub children: Option<f64>,
    /// The row's own samples.
    pub samples: u64,
    /// The row's own event count (sum of periods).
    pub period: u64,
    /// With `--children`: the event count of [`ReportRow::children`].
    pub children_period: Option<u64>,
    /// `comm`: the thread's comm at the sample; `pid`: the thread's last comm.
    pub comm: Option<String>,
    /// `pid`: the thread id.
    pub pid: Option<u32>,
    /// `cpu`: the sample's CPU (-1 when not recorded).
    pub cpu: Option<i32>,
    /// `dso`: the shared object's short name (`[kernel.kallsyms]`, `libc.so.6`, `[unknown]`).
    pub dso: Option<String>,
    /// `sym`: a kernel address (`[k]`), else user (`[.]`).
    pub kernel: Option<bool>,
    /// `sym`: the symbol (`name (inlined)` for an inlined function), or the address perf prints
    /// for an unresolved one (the sample's ip map-relative, a callchain entry's as it is).
    pub symbol: Option<String>,
}

/// A symbol of the table: named, with its first address and whether it is an inlined function
/// (perf's `_sort__sym_cmp` tells symbols of one name apart by their addresses; an inlined
/// function's are those of the symbol it is inlined in), or an unresolved address.
#[derive(Clone, PartialEq, Eq, Hash)]
enum Sym {
    Named(Rc<str>, Option<u64>, bool),
    Addr(u64),
}

/// The group of a sample or callchain entry: the values of the sort keys (`None`: not a key).
/// The symbol carries its shared object, as perf's symbol comparison does.
#[derive(Clone, PartialEq, Eq, Hash)]
struct Key {
    comm: Option<Rc<str>>,
    tid: Option<u32>,
    cpu: Option<i32>,
    dso: Option<Option<Rc<str>>>,
    sym: Option<(Option<Rc<str>>, Sym)>,
}

impl Key {
    /// This key with the shared object and symbol of an address, where they are sort keys.
    fn with(&self, sort: &[SortKey], dso: Option<Rc<str>>, sym: Sym) -> Key {
        Key {
            dso: sort.contains(&SortKey::Dso).then(|| dso.clone()),
            sym: sort.contains(&SortKey::Sym).then_some((dso, sym)),
            ..self.clone()
        }
    }
}

#[derive(Default)]
struct Acc {
    samples: u64,
    period: u64,
    children: u64,
    /// The `[k]`/`[.]` level of the first entry of the group.
    kernel: bool,
}

/// perf's short name of a shared object; `None` for `[unknown]` (no map).
fn short_dso(dso: &str) -> Option<Rc<str>> {
    match dso {
        "[unknown]" => None,
        d if d.starts_with('[') => Some(d.into()),
        d => Some(d.rsplit('/').next().unwrap_or(d).into()),
    }
}

/// A symbol as perf names it: the C string of a kallsyms module symbol.
fn named(sym: &str, start: Option<u64>, inlined: bool) -> Sym {
    Sym::Named(sym.split('\0').next().unwrap_or(sym).into(), start, inlined)
}

/// The report of `file`'s samples (all events together), rows most first as perf orders them, and
/// the total event count. The fold options' time ranges drop samples before anything counts them;
/// its pid, tid and comm filters keep only those threads' samples in the rows while the total (the
/// percentages' base) counts every sample, as perf report's default `--percentage absolute`. (perf
/// 6.1 itself merges the samples of every thread into an entry and shows the entry when its first
/// sample's thread passes the filter; that differs from this where two threads of one command
/// share a function, e.g. `--pid` of a multi-threaded process.)
pub fn report(file: &PerfFile, opts: &ReportOptions) -> Result<(Vec<ReportRow>, u64)> {
    let mut folder = StackFolder::new(file, &opts.fold);
    let has = |k: SortKey| opts.sort.contains(&k);
    let mut groups: HashMap<Key, Acc> = HashMap::new();
    let mut total = 0u64;
    let mut chain: Vec<ChainEntry> = Vec::new();
    // The groups a sample has added to (perf's `he_cache`: a function counts once per sample).
    let mut seen: Vec<Key> = Vec::new();
    // perf report's --time drops the other samples before anything counts them; --pid, --tid
    // and --comms hide the other threads' samples after they are resolved and counted in the
    // total (perf's default `--percentage absolute`).
    let ranges = crate::folded::time_ranges(file, &opts.fold)?;
    let filter = &opts.fold;
    for r in file.records(Order::Time)? {
        let Ok(r) = r else { continue };
        folder.record(&r);
        let RecordKind::Sample(s) = &r.kind else { continue };
        if r.event.is_none() || !in_ranges(&ranges, s.time().unwrap_or(0)) {
            continue;
        }
        let period = s.period_or_attr();
        let (pid, tid) = (s.pid().unwrap_or(u32::MAX), s.tid().unwrap_or(u32::MAX));
        let kernel = r.header.cpumode() == CpuMode::Kernel;
        let ip = s.ip().unwrap_or(0);
        let f = folder.locate(pid, kernel, ip);
        total = total.saturating_add(period);
        if filter.pid.is_some_and(|p| p != pid)
            || filter.tid.is_some_and(|t| t != tid)
            || filter.comm.as_ref().is_some_and(|c| *c != folder.comm(tid))
        {
            continue;
        }
        let base = Key {
            comm: has(SortKey::Comm).then(|| folder.comm(tid).into()),
            tid: has(SortKey::Pid).then_some(tid),
            cpu: has(SortKey::Cpu).then(|| s.cpu().map_or(-1, |c| c as i32)),
            dso: None,
            sym: None,
        };
        let dso = short_dso(&f.dso);
        let sym = match f.symbol.as_deref() {
            Some(n) => named(n, f.start, false),
            None => Sym::Addr(folder.map_ip(pid, kernel, ip)),
        };
        let key = base.with(&opts.sort, dso, sym);
        let e = groups.entry(key.clone()).or_insert_with(|| Acc { kernel, ..Acc::default() });
        e.samples += 1;
        e.period = e.period.saturating_add(period);
        if !opts.children {
            continue;
        }
        e.children = e.children.saturating_add(period);
        seen.clear();
        seen.push(key);
        folder.chain(&r, s, &mut chain);
        // perf walks the chain from the root; an entry it finds no map for keeps the level of
        // the one walked before (`fill_callchain_info` leaves the reused addr_location's level
        // as it was), the sample's for the first.
        let mut level = kernel;
        for c in chain.iter().rev() {
            let dso = short_dso(&c.dso);
            let sym = c.symbol.as_deref().map_or(Sym::Addr(c.addr), |n| named(n, c.start, c.inlined));
            if c.symbol.is_some() || dso.is_some() {
                level = c.kernel;
            }
            let key = base.with(&opts.sort, dso, sym);
            if seen.contains(&key) {
                continue;
            }
            let e = groups.entry(key.clone()).or_insert_with(|| Acc { kernel: level, ..Acc::default() });
            e.children = e.children.saturating_add(period);
            seen.push(key);
        }
    }
    let pct = |p: u64| if total > 0 { 100.0 * p as f64 / total as f64 } else { 0.0 };
    let mut keyed: Vec<(Key, Acc)> = groups.into_iter().collect();
    keyed.sort_by(|(ka, a), (kb, b)| {
        let mut o = if opts.children { b.children.cmp(&a.children) } else { std::cmp::Ordering::Equal };
        o = o.then(b.period.cmp(&a.period));
        for k in &opts.sort {
            o = o.then_with(|| match k {
                SortKey::Comm => ka.comm.cmp(&kb.comm),
                SortKey::Pid => ka.tid.cmp(&kb.tid),
                SortKey::Cpu => ka.cpu.cmp(&kb.cpu),
                // Entries without a map after the others.
                SortKey::Dso => {
                    cmp_known(&ka.dso.as_ref().and_then(Option::as_ref), &kb.dso.as_ref().and_then(Option::as_ref))
                }
                SortKey::Sym => cmp_sym(ka.sym.as_ref().map(|s| &s.1), kb.sym.as_ref().map(|s| &s.1)),
            });
        }
        o
    });
    let rows = keyed
        .into_iter()
        .map(|(k, a)| ReportRow {
            overhead: pct(a.period),
            children: opts.children.then(|| pct(a.children)),
            samples: a.samples,
            period: a.period,
            children_period: opts.children.then_some(a.children),
            comm: match (&k.comm, k.tid) {
                (Some(c), _) => Some(c.to_string()),
                (None, Some(tid)) => Some(folder.comm(tid)),
                (None, None) => None,
            },
            pid: k.tid,
            cpu: k.cpu,
            dso: k.dso.map(|d| d.map_or_else(|| "[unknown]".to_string(), |d| d.to_string())),
            kernel: k.sym.is_some().then_some(a.kernel),
            symbol: k.sym.map(|(_, s)| match s {
                Sym::Named(n, _, false) => n.to_string(),
                Sym::Named(n, _, true) => format!("{n} (inlined)"),
                // perf's "%-#.*llx": no 0x for zero.
                Sym::Addr(0) => format!("{:016x}", 0),
                Sym::Addr(a) => format!("{a:#018x}"),
            }),
        })
        .collect();
    Ok((rows, total))
}

/// Known values first, in order; unknown ones (no map, no symbol) after them.
fn cmp_known<T: Ord>(a: &Option<T>, b: &Option<T>) -> std::cmp::Ordering {
    match (a, b) {
        (Some(a), Some(b)) => a.cmp(b),
        (Some(_), None) => std::cmp::Ordering::Less,
        (None, Some(_)) => std::cmp::Ordering::Greater,
        (None, None) => std::cmp::Ordering::Equal,
    }
}

/// perf's `sort__sym_sort`: named symbols by name, unresolved addresses after them, in the order
/// of perf's input tree (`_sort__addr_cmp`: the addresses' difference as a signed number).
fn cmp_sym(a: Option<&Sym>, b: Option<&Sym>) -> std::cmp::Ordering {
    fn name(s: Option<&Sym>) -> Option<&str> {
        match s {
            Some(Sym::Named(n, ..)) => Some(n),
            _ => None,
        }
    }
    let addr = |s: Option<&Sym>| match s {
        Some(Sym::Addr(a)) => *a as i64,
        _ => 0,
    };
    cmp_known(&name(a), &name(b)).then_with(|| addr(a).cmp(&addr(b)))
}

/// The rows as `perf report --stdio` lays them out for `sort` (columns as wide as their widest
/// value); `samples`: the `Samples` column (`-n`).
pub fn report_text(rows: &[ReportRow], sort: &[SortKey], samples: bool) -> String {
    let children = rows.first().is_some_and(|r| r.children.is_some());
    let cells: Vec<Vec<String>> = rows.iter().map(|r| sort.iter().map(|k| cell(r, *k)).collect()).collect();
    let widths: Vec<usize> = sort
        .iter()
        .enumerate()
        .map(|(i, k)| cells.iter().filter_map(|c| c.get(i)).map(|c| c.len()).max().unwrap_or(0).max(k.header().len()))
        .collect();
    let mut o = String::new();
    let mut head = String::from(if children { "# Children      Self" } else { "# Overhead" });
    let mut dots = String::from(if children { "# ........  ........" } else { "# ........" });
    if samples {
        head.push_str("       Samples");
        dots.push_str("  ............");
    }
    for (k, w) in sort.iter().zip(&widths) {
        let _ = write!(head, "  {:<w$}", k.header());
        let _ = write!(dots, "  {}", ".".repeat(*w));
    }
    let _ = writeln!(o, "{}\n{}\n#", head.trim_end(), dots);
    for (r, c) in rows.iter().zip(&cells) {
        let mut line = String::new();
        if let Some(ch) = r.children {
            let _ = write!(line, "{ch:>9.2}%  {:>7.2}%", r.overhead);
        } else {
            let _ = write!(line, "{:>9.2}%", r.overhead);
        }
        if samples {
            let _ = write!(line, "  {:>12}", r.samples);
        }
        for (v, w) in c.iter().zip(&widths) {
            let _ = write!(line, "  {v:<w$}");
        }
        let _ = writeln!(o, "{}", line.trim_end());
    }
    o
}

/// The text of one column of a row.
fn cell(r: &ReportRow, k: SortKey) -> String {
    match k {
        SortKey::Comm => r.comm.clone().unwrap_or_default(),
        SortKey::Pid => format!("{:>7}:{}", r.pid.unwrap_or(0), r.comm.as_deref().unwrap_or("")),
        // perf's "%*.*d": -1 is -001.
        SortKey::Cpu => match r.cpu.unwrap_or(-1) {
            c if c < 0 => format!("-{:03}", c.unsigned_abs()),
            c => format!("{c:03}"),
        },
        SortKey::Dso => r.dso.clone().unwrap_or_default(),
        SortKey::Sym => {
            let mark = if r.kernel == Some(true) { "[k]" } else { "[.]" };
            format!("{mark} {}", r.symbol.as_deref().unwrap_or(""))
        }
    }
}
