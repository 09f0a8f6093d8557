//! A scheduler timeline picture: one lane per CPU coloured by the task on it (idle left blank),
//! and under each lane the run-queue waits (wakeup or preemption → switch-in on that CPU) as red
//! bars, so delays are visible where they end. An SVG with tooltips, search and zoom like the
//! flame graph's.
//!
//! The picture is bounded in size whatever the recording: runs narrower than a pixel of the
//! chosen width are merged with their neighbours into one grey "mixed" slice (its tooltip names
//! the tasks that ran most in it), and waits narrower than a pixel are counted, not drawn, so a
//! lane has at most about `width` elements.

use super::events::{drive, At, Ev, Handler, PerCpu, WakeKind};
use super::state::TaskStates;
use crate::options::TimeRange;
use crate::ticks::nice_step;
use crate::Error;
use perfdata_core::process::Machine;
use perfdata_core::PerfFile;
use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;

/// A task's run on a CPU.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Slice {
    /// CPU.
    pub cpu: u32,
    /// Start, ns.
    pub start_ns: u64,
    /// End, ns.
    pub end_ns: u64,
    /// Thread.
    pub tid: u32,
    /// Its comm then.
    pub comm: String,
}

/// A wait on the run queue (runnable since `start_ns`, switched in at `end_ns`), drawn on the
/// CPU that then ran the task (or in the task's row).
pub type Wait = Slice;

/// What a lane of the picture shows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Rows {
    /// One lane per CPU, coloured by the task on it.
    #[default]
    Cpu,
    /// One lane per task (perf timechart's view), coloured by the CPU it ran on.
    Task,
}

impl std::str::FromStr for Rows {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "cpu" => Ok(Rows::Cpu),
            "task" => Ok(Rows::Task),
            _ => Err(format!("rows {s:?}: cpu or task")),
        }
    }
}

/// Options of [`sched_timeline`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TimelineOptions {
    /// Only this window.
    pub time: Option<TimeRange>,
    /// Picture width in pixels (the lanes'; merging works at this resolution).
    pub width: u32,
    /// Title.
    pub title: String,
    /// A lane per CPU or per task.
    pub rows: Rows,
    /// With [`Rows::Task`]: at most this many tasks, those longest on a CPU or waiting for one
    /// (0: all).
    pub tasks: usize,
}

impl Default for TimelineOptions {
    fn default() -> Self {
        TimelineOptions { time: None, width: 1600, title: "Scheduler timeline".into(), rows: Rows::Cpu, tasks: 40 }
    }
}

/// A lane of the picture.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lane {
    /// The CPU, or the thread id.
    pub key: u32,
    /// `CPU 3`, or `comm[tid]` (the comm of the task's last run in the window).
    pub label: String,
    /// Time on a CPU in the window, ns.
    pub run_ns: u64,
    /// Time waiting to run in the window, ns.
    pub wait_ns: u64,
}

/// The timeline, merged to the picture's resolution.
#[derive(Clone, Debug, PartialEq)]
pub struct Timeline {
    /// First switch time in the window, ns: the picture's time 0.
    pub start_ns: u64,
    /// Last switch time, ns.
    pub end_ns: u64,
    /// What the lanes are.
    pub rows: Rows,
    /// Lanes, top to bottom: CPUs ascending, or tasks by thread id.
    pub lanes: Vec<Lane>,
    /// Drawable items: a task's run or a merged block, in its lane ([`Item::lane`]).
    pub items: Vec<Item>,
    /// Waits at least a pixel wide, in the lane of their CPU or task.
    pub waits: Vec<Wait>,
    /// Switches read.
    pub switches: u64,
    /// Waits too short to draw.
    pub small_waits: u64,
    /// With [`Rows::Task`]: tasks left out by [`TimelineOptions::tasks`], and their time on a
    /// CPU, ns.
    pub hidden_tasks: (u64, u64),
    /// What the colours stand for, with the time on a CPU in the lanes drawn, ns: comms in CPU
    /// lanes (most first), `CPU n` in task lanes (ascending).
    pub colours: Vec<(String, u64)>,
    /// Width the merging used.
    pub width: u32,
    /// Title.
    pub title: String,
    /// Why reading stopped early, if it did.
    pub diagnostics: Vec<String>,
}

/// One drawable element of a lane.
#[derive(Clone, Debug, PartialEq)]
pub enum Item {
    /// One task's run.
    Run(Slice),
    /// Runs too short to draw alone, merged: who ran most in it (tasks in a CPU lane, CPUs as
    /// `CPU n` in a task lane).
    Mixed {
        /// The lane: CPU, or thread id.
        lane: u32,
        /// Start, ns.
        start_ns: u64,
        /// End, ns.
        end_ns: u64,
        /// Runs merged.
        runs: u64,
        /// Up to five (name, ns on CPU), most first.
        top: Vec<(String, u64)>,
    },
}

impl Item {
    /// The lane key the item belongs to: its CPU with [`Rows::Cpu`], its thread with
    /// [`Rows::Task`] (a merged block's own lane).
    pub fn lane(&self, rows: Rows) -> u32 {
        match (self, rows) {
            (Item::Run(s), Rows::Cpu) => s.cpu,
            (Item::Run(s), Rows::Task) => s.tid,
            (Item::Mixed { lane, .. }, _) => *lane,
        }
    }
}

#[derive(Clone, Debug, Default)]
struct LaneItems {
    pending: Option<Pending>,
    items: Vec<Item>,
    run_ns: u64,
    wait_ns: u64,
}

/// Who runs on each CPU since when, and who waits on a run queue since when: what each
/// `sched_switch` ends, the previous task's run and the next task's wait. The timeline picture
/// and the Chrome trace export (which writes each run as its switch ends it) share it.
#[derive(Clone, Debug, Default)]
pub(crate) struct Runs {
    /// Per CPU: since when the current task runs, and who it is.
    current: PerCpu<Option<(u64, u32)>>,
    /// Runnable tasks (woken or preempted) → since when.
    ready: HashMap<u32, u64, ahash::RandomState>,
}

/// What a `sched_switch` at `at.time` ended ([`Runs::switch`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Switched {
    /// Since when the previous task (`prev_pid`) ran on the CPU: the switch's own time on the
    /// CPU's first switch (an empty run).
    pub since: u64,
    /// Since when the next task (`next_pid`, not idle) was runnable, if it was known to wait.
    pub waited_since: Option<u64>,
}

impl Runs {
    /// Take in a `sched_switch` on `at.cpu` at `at.time`; `None` (nothing changes) for a CPU
    /// number beyond what the analyses track.
    pub(crate) fn switch(
        &mut self,
        at: &At,
        prev_pid: u32,
        prev_state: u64,
        next_pid: u32,
        states: &TaskStates,
    ) -> Option<Switched> {
        let t = at.time;
        let current = self.current.get_mut(at.cpu)?;
        let since = current.map_or(t, |(s, _)| s);
        *current = Some((t, next_pid));
        if prev_pid != 0 && states.is_runnable(prev_state) {
            self.ready.insert(prev_pid, t);
        } else {
            self.ready.remove(&prev_pid);
        }
        let waited_since = if next_pid != 0 { self.ready.remove(&next_pid) } else { None };
        Some(Switched { since, waited_since })
    }

    /// Take in a wakeup of `pid` (`sched_wakeup` is ignored when the recording has
    /// `sched_waking`, which comes first).
    pub(crate) fn wakeup(&mut self, at: &At, pid: u32, kind: WakeKind) {
        if kind == WakeKind::Wakeup && at.has_waking {
            return;
        }
        self.ready.entry(pid).or_insert(at.time);
    }

    /// Whether a switch was seen on `cpu`.
    pub(crate) fn seen(&self, cpu: u32) -> bool {
        self.current.get(cpu).is_some_and(Option::is_some)
    }

    /// The CPUs a switch was seen on, ascending.
    pub(crate) fn cpus_seen(&self) -> impl Iterator<Item = u32> + '_ {
        (0..self.current.len() as u32).filter(|&c| self.seen(c))
    }
}

#[derive(Clone, Debug, Default)]
struct Pending {
    start: u64,
    end: u64,
    runs: u64,
    by: HashMap<String, u64>,
}

/// Per task: time on a CPU, time waiting, last comm (the task rows' choice and labels).
type Totals = HashMap<u32, (u64, u64, String)>;

struct Tl {
    range: (u64, u64),
    ns_per_px: u64,
    rows: Rows,
    /// With [`Rows::Task`] on the second pass: the tasks drawn.
    keep: Option<HashSet<u32>>,
    lanes: HashMap<u32, LaneItems>,
    runs: Runs,
    waits: Vec<Wait>,
    small_waits: u64,
    switches: u64,
    first: u64,
    last: u64,
    /// On the first pass of [`Rows::Task`]: per task totals.
    totals: Option<Totals>,
    /// Tasks left out: ids seen and run time.
    hidden: (HashSet<u32>, u64),
    /// Time on a CPU per comm (CPU lanes).
    colours: HashMap<String, u64>,
    /// Time on each CPU (task lanes).
    cpu_ns: std::collections::BTreeMap<u32, u64>,
}

impl Tl {
    fn new(range: (u64, u64), ns_per_px: u64, rows: Rows) -> Tl {
        Tl {
            range,
            ns_per_px,
            rows,
            keep: None,
            lanes: HashMap::new(),
            runs: Runs::default(),
            waits: Vec::new(),
            small_waits: 0,
            switches: 0,
            first: 0,
            last: 0,
            totals: None,
            hidden: (HashSet::new(), 0),
            colours: HashMap::new(),
            cpu_ns: Default::default(),
        }
    }

    fn emit(&mut self, cpu: u32, start: u64, end: u64, tid: u32, comm: String) {
        let (lo, hi) = self.range;
        let (start, end) = (start.max(lo), end.min(hi));
        if end <= start || tid == 0 {
            return;
        }
        if let Some(totals) = &mut self.totals {
            let t = totals.entry(tid).or_default();
            t.0 += end - start;
            t.2 = comm;
            return;
        }
        if self.keep.as_ref().is_some_and(|k| !k.contains(&tid)) {
            self.hidden.0.insert(tid);
            self.hidden.1 += end - start;
            return;
        }
        let key = match self.rows {
            Rows::Cpu => cpu,
            Rows::Task => tid,
        };
        match self.rows {
            Rows::Cpu => match self.colours.get_mut(&comm) {
                Some(ns) => *ns += end - start,
                None => {
                    self.colours.insert(comm.clone(), end - start);
                }
            },
            Rows::Task => *self.cpu_ns.entry(cpu).or_default() += end - start,
        }
        let px = self.ns_per_px.max(1);
        let lane = self.lanes.entry(key).or_default();
        lane.run_ns += end - start;
        if end - start >= px {
            flush(lane, key);
            lane.items.push(Item::Run(Slice { cpu, start_ns: start, end_ns: end, tid, comm }));
        } else {
            // A gap of a pixel or more ends a merge block (idle shows).
            if lane.pending.as_ref().is_some_and(|p| start.saturating_sub(p.end) >= px) {
                flush(lane, key);
            }
            let p = lane.pending.get_or_insert_with(|| Pending { start, end, ..Default::default() });
            p.end = end;
            p.runs += 1;
            let name = match self.rows {
                Rows::Cpu => comm,
                Rows::Task => format!("CPU {cpu}"),
            };
            *p.by.entry(name).or_default() += end - start;
            if p.end - p.start >= px {
                flush(lane, key);
            }
        }
    }

    fn wait(&mut self, cpu: u32, since: u64, t: u64, tid: u32, comm: impl FnOnce() -> String) {
        let (lo, hi) = self.range;
        if t <= since || t < lo || since > hi {
            return;
        }
        let (start, end) = (since.max(lo), t.min(hi));
        if let Some(totals) = &mut self.totals {
            totals.entry(tid).or_default().1 += end.saturating_sub(start);
            return;
        }
        if self.keep.as_ref().is_some_and(|k| !k.contains(&tid)) {
            return;
        }
        let key = match self.rows {
            Rows::Cpu => cpu,
            Rows::Task => tid,
        };
        self.lanes.entry(key).or_default().wait_ns += end - start;
        if t - since >= self.ns_per_px.max(1) {
            self.waits.push(Wait { cpu, start_ns: start, end_ns: end, tid, comm: comm() });
        } else {
            self.small_waits += 1;
        }
    }
}

fn flush(lane: &mut LaneItems, key: u32) {
    let Some(p) = lane.pending.take() else { return };
    let mut top: Vec<(String, u64)> = p.by.into_iter().collect();
    top.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    top.truncate(5);
    lane.items.push(Item::Mixed { lane: key, start_ns: p.start, end_ns: p.end, runs: p.runs, top });
}

impl Handler for Tl {
    fn event(&mut self, at: &At, ev: Ev<'_>, m: &Machine, states: &TaskStates) {
        let t = at.time;
        match ev {
            Ev::Switch { prev_pid, prev_state, next_pid, .. } => {
                self.switches += 1;
                if self.first == 0 {
                    self.first = t;
                }
                self.last = self.last.max(t);
                let Some(sw) = self.runs.switch(at, prev_pid, prev_state, next_pid, states) else { return };
                self.emit(at.cpu, sw.since, t, prev_pid, m.comm(prev_pid));
                if let Some(w) = sw.waited_since {
                    self.wait(at.cpu, w, t, next_pid, || m.comm(next_pid));
                }
            }
            Ev::Wakeup { pid, kind } => self.runs.wakeup(at, pid, kind),
            _ => {}
        }
    }
}

/// The timeline of `file` at `opts.width` pixels.
///
/// Two passes: the first finds the time span (to know what a pixel is) and, with
/// [`Rows::Task`], each task's times (to choose the tasks drawn); the second builds the lanes.
/// Errors: [`Error::Missing`] without `sched:sched_switch`.
pub fn sched_timeline(file: &PerfFile, opts: &TimelineOptions) -> Result<Timeline, Error> {
    let window = opts.time.map_or((0, u64::MAX), |r| (r.start, r.end));
    let mut first = Tl::new(window, u64::MAX, opts.rows);
    if opts.rows == Rows::Task {
        first.totals = Some(Totals::new());
    }
    drive(file, &mut first)?;
    let (lo, hi) = (first.first.max(window.0), first.last.min(window.1));
    let width = opts.width.max(100);
    let ns_per_px = hi.saturating_sub(lo) / u64::from(width);
    let mut tl = Tl::new((lo, hi), ns_per_px, opts.rows);
    let mut chosen: Vec<(u32, (u64, u64, String))> = Vec::new();
    if let Some(totals) = first.totals.take() {
        chosen = totals.into_iter().filter(|(_, t)| t.0 + t.1 > 0).collect();
        chosen.sort_by(|a, b| (b.1 .0 + b.1 .1).cmp(&(a.1 .0 + a.1 .1)).then(a.0.cmp(&b.0)));
        if opts.tasks > 0 {
            chosen.truncate(opts.tasks);
        }
        chosen.sort_by_key(|c| c.0);
        tl.keep = Some(chosen.iter().map(|c| c.0).collect());
    }
    let stream = drive(file, &mut tl)?;
    let mut keys: Vec<u32> = match opts.rows {
        Rows::Cpu => tl.lanes.keys().copied().chain(tl.runs.cpus_seen()).collect(),
        Rows::Task => chosen.iter().map(|c| c.0).collect(),
    };
    keys.sort_unstable();
    keys.dedup();
    let mut lanes = Vec::with_capacity(keys.len());
    let mut items = Vec::new();
    for key in keys {
        let l = tl.lanes.entry(key).or_default();
        flush(l, key);
        items.append(&mut l.items);
        let label = match opts.rows {
            Rows::Cpu => format!("CPU {key}"),
            Rows::Task => {
                let comm = chosen.iter().find(|c| c.0 == key).map_or("", |c| c.1 .2.as_str());
                format!("{comm}[{key}]")
            }
        };
        lanes.push(Lane { key, label, run_ns: l.run_ns, wait_ns: l.wait_ns });
    }
    let mut colours: Vec<(String, u64)> = tl.colours.into_iter().collect();
    colours.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    colours.extend(tl.cpu_ns.into_iter().map(|(cpu, ns)| (format!("CPU {cpu}"), ns)));
    Ok(Timeline {
        start_ns: lo,
        end_ns: hi,
        rows: opts.rows,
        lanes,
        items,
        waits: tl.waits,
        switches: tl.switches,
        small_waits: tl.small_waits,
        hidden_tasks: (tl.hidden.0.len() as u64, tl.hidden.1),
        colours,
        width,
        title: opts.title.clone(),
        diagnostics: stream.diagnostics,
    })
}

/// A colour per comm (a warm hue hashed from the name, like flame graphs' "hot" palette but
/// spread over the wheel so neighbours differ).
fn colour(comm: &str) -> String {
    let mut h: u32 = 2166136261;
    for b in comm.bytes() {
        h = (h ^ u32::from(b)).wrapping_mul(16777619);
    }
    let hue = h % 360;
    let light = 55 + (h >> 9) % 15;
    format!("hsl({hue},70%,{light}%)")
}

/// Distinct colours for the tasks that ran longest (Tableau 10 without its grey, which marks
/// merged runs here, and its red, which marks waits; light green instead).
const PALETTE: [&str; 9] =
    ["#4e79a7", "#f28e2b", "#59a14f", "#8cd17d", "#76b7b2", "#edc948", "#b07aa1", "#ff9da7", "#9c755f"];

fn esc(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

fn ms(ns: u64) -> String {
    format!("{}.{:03} ms", ns / 1_000_000, ns % 1_000_000 / 1000)
}

fn secs(ns: u64) -> String {
    format!("{}.{:06}", ns / 1_000_000_000, ns % 1_000_000_000 / 1000)
}

/// The time axis for a span of `span` ns over `w` pixels: the tick step (1, 2 or 5 × 10^k ns,
/// about one per 120 pixels) and the unit (the largest of s, ms, µs, ns not above the span).
fn axis(span: u64, w: u32) -> (u64, u64, &'static str) {
    let n = u64::from(w / 120).max(2);
    let step = nice_step(span.div_ceil(n).max(1));
    let unit = match span {
        1_000_000_000.. => (1_000_000_000, "s"),
        1_000_000.. => (1_000_000, "ms"),
        1_000.. => (1_000, "µs"),
        _ => (1, "ns"),
    };
    (step, unit.0, unit.1)
}

/// A tick's label: `t` ns after the start in `unit`, with the decimals the step needs.
fn tick_label(t: u64, step: u64, unit: u64, name: &str) -> String {
    if t == 0 {
        return "0".into();
    }
    let mut decimals = 0;
    let mut s = step;
    while s < unit && decimals < 9 {
        s = s.saturating_mul(10);
        decimals += 1;
    }
    format!("{:.*} {name}", decimals, t as f64 / unit as f64)
}

/// The zoom, pan, search and axis script: the axis is redrawn for the window shown, with the
/// same rules as [`axis`] and [`tick_label`].
const SCRIPT: &str = r#"<script type="text/ecmascript"><![CDATA[
var NS = "http://www.w3.org/2000/svg";
var lanes = document.getElementById("lanes"), frame = document.getElementById("frame"), ax = document.getElementById("axis");
var W = +lanes.getAttribute("data-w"), SPAN = +lanes.getAttribute("data-span"), X0 = +ax.getAttribute("data-x0");
var Y0 = +ax.getAttribute("data-y0"), Y1 = +ax.getAttribute("data-y1");
var scale = 1, shift = 0, details = document.getElementById("details"), matched = document.getElementById("matched");
function niceStep(v) { for (var p = 1; ; p *= 10) { var m = [1, 2, 5]; for (var i = 0; i < 3; i++) if (p * m[i] >= v) return p * m[i]; } }
function label(t, step, unit, name) {
  if (t === 0) return "0";
  var d = 0; for (var s = step; s < unit && d < 9; s *= 10) d++;
  return (t / unit).toFixed(d) + " " + name;
}
function drawAxis() {
  var a = -shift / scale / W * SPAN, b = (W - shift) / scale / W * SPAN, span = b - a;
  var step = niceStep(Math.max(1, Math.ceil(span / Math.max(2, Math.floor(W / 120)))));
  var u = span >= 1e9 ? [1e9, "s"] : span >= 1e6 ? [1e6, "ms"] : span >= 1e3 ? [1e3, "\u00b5s"] : [1, "ns"];
  while (ax.firstChild) ax.removeChild(ax.firstChild);
  for (var t = Math.ceil(a / step) * step; t <= b; t += step) {
    var x = X0 + (t - a) / span * W;
    var l = document.createElementNS(NS, "line");
    l.setAttribute("x1", x); l.setAttribute("x2", x); l.setAttribute("y1", Y0); l.setAttribute("y2", Y1 + 4); l.setAttribute("class", "grid");
    var tx = document.createElementNS(NS, "text");
    tx.setAttribute("x", x); tx.setAttribute("y", Y1 + 18); tx.setAttribute("text-anchor", "middle");
    tx.textContent = label(t, step, u[0], u[1]);
    ax.appendChild(l); ax.appendChild(tx);
  }
}
function apply() {
  shift = Math.min(0, Math.max(shift, W - W * scale));
  lanes.setAttribute("transform", "translate(" + shift + ",0) scale(" + scale + ",1)");
  document.getElementById("zoomnote").textContent = scale > 1 ? "zoom " + scale.toFixed(1) + "x (double-click: reset, drag: pan)" : "";
  drawAxis();
}
function px(e) { var r = frame.getBoundingClientRect(); return (e.clientX - r.left) * (W / r.width); }
frame.addEventListener("wheel", function (e) {
  e.preventDefault();
  var x = px(e), f = e.deltaY < 0 ? 1.25 : 0.8, ns = Math.max(1, scale * f);
  shift = x - (x - shift) * ns / scale; scale = ns; apply();
});
var drag = null, moved = false;
frame.addEventListener("mousedown", function (e) { drag = { x: px(e), shift: shift }; moved = false; });
window.addEventListener("mousemove", function (e) {
  if (!drag) return;
  var dx = px(e) - drag.x;
  if (Math.abs(dx) > 3) moved = true;
  if (moved) { shift = drag.shift + dx; apply(); }
});
window.addEventListener("mouseup", function () { drag = null; });
frame.addEventListener("dblclick", function () { scale = 1; shift = 0; apply(); });
lanes.addEventListener("mouseover", function (e) {
  var t = e.target.querySelector ? e.target.querySelector("title") : null;
  if (t) details.textContent = t.textContent;
});
lanes.addEventListener("click", function (e) {
  if (moved) return;
  var x = +e.target.getAttribute("x"), w = +e.target.getAttribute("width");
  if (!w) return;
  var ns = Math.max(1, W / w / 1.2); shift = -x * ns + (W - w * ns) / 2; scale = ns; apply();
});
function search() {
  var term = prompt("Search for a task (regular expression):", "");
  var els = lanes.querySelectorAll("rect[data-comm]"), re, hit = 0, all = 0;
  for (var i = 0; i < els.length; i++) { els[i].style.fill = ""; }
  if (!term) { matched.textContent = ""; return; }
  try { re = new RegExp(term); } catch (err) { matched.textContent = "bad expression"; return; }
  for (var i = 0; i < els.length; i++) {
    var w = +els[i].getAttribute("data-ns"); all += w;
    if (re.test(els[i].getAttribute("data-comm"))) { els[i].style.fill = "rgb(230,0,230)"; hit += w; }
  }
  matched.textContent = "Matched: " + (all ? (100 * hit / all).toFixed(1) : 0) + "% of run time";
}
document.getElementById("search").addEventListener("click", search);
window.addEventListener("keydown", function (e) { if ((e.ctrlKey || e.metaKey) && e.key === "f") { e.preventDefault(); search(); } });
]]></script>
"#;

impl Timeline {
    /// The picture: as wide as the window it is shown in (the SVG scales), the time axis
    /// relative to the first switch in round steps (the absolute start in the subtitle);
    /// wheel zooms, drag pans, a click zooms to a run, a double click resets, Ctrl-F searches.
    pub fn svg(&self) -> String {
        let w = self.width;
        let task = self.rows == Rows::Task;
        let longest = self.lanes.iter().map(|l| l.label.chars().count()).max().unwrap_or(0).min(32) as u32;
        let x0 = if task { (16 + 7 * longest).max(80) } else { 70 };
        let (lane_h, wait_h, gap) = if task { (16u32, 6u32, 6u32) } else { (28, 8, 10) };
        let top = 64u32;
        let row = lane_h + wait_h + gap;
        let lanes_h = row * self.lanes.len().max(1) as u32;
        let axis_y = top + lanes_h;
        let height = axis_y + 90;
        let total_w = x0 + w + 20;
        let span_ns = self.end_ns.saturating_sub(self.start_ns).max(1);
        let span = span_ns as f64;
        let x = |t: u64| (t.saturating_sub(self.start_ns)) as f64 / span * f64::from(w);
        let index: HashMap<u32, u32> = self.lanes.iter().enumerate().map(|(i, l)| (l.key, i as u32)).collect();
        let lane_y = |key: u32| -> u32 { top + row * index.get(&key).copied().unwrap_or(0) };
        // CPU lanes: the tasks that ran longest get distinct colours (and the legend), others a
        // hashed hue. Task lanes: a colour per CPU.
        let legend = &self.colours;
        let palette: HashMap<&str, &str> = legend.iter().map(|t| t.0.as_str()).zip(PALETTE).collect();
        let colour = |name: &str| palette.get(name).map_or_else(|| colour(name), |c| (*c).to_string());
        let name_of = |s: &Slice| if task { format!("CPU {}", s.cpu) } else { s.comm.clone() };
        let mut o = String::new();
        let what = if task {
            let (n, ns) = self.hidden_tasks;
            let more = if n > 0 { format!(" ({n} more tasks ran {}: see --tasks)", ms(ns)) } else { String::new() };
            format!("{} tasks, those longest running or waiting{more}; colour: the CPU", self.lanes.len())
        } else {
            format!("{} CPUs", self.lanes.len())
        };
        let _ = write!(
            o,
            r#"<?xml version="1.0" standalone="no"?>
<svg version="1.1" width="100%" viewBox="0 0 {total_w} {height}" preserveAspectRatio="xMidYMin meet" style="width: 100%; height: auto" xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink">
<style>text {{ font-family: Verdana, sans-serif; font-size: 12px; fill: rgb(0,0,0); }} rect.run:hover, rect.mix:hover {{ stroke: black; stroke-width: 1; vector-effect: non-scaling-stroke; }} line.grid {{ stroke: rgb(200,200,200); stroke-width: 1; }} #search {{ cursor: pointer; }} #frame {{ cursor: zoom-in; }}</style>
<rect x="0" y="0" width="{total_w}" height="{height}" fill="rgb(248,248,248)"/>
<text x="{}" y="24" text-anchor="middle" style="font-size:17px">{}</text>
<text id="search" x="{}" y="24" text-anchor="end">Search</text>
<text x="10" y="46">t = 0 at {} s, {} long; {} switches; {what}; red: waiting to run (wakeup or preemption → switch-in), {} waits under a pixel not drawn</text>
<text id="zoomnote" x="{}" y="24" text-anchor="start"></text>
"#,
            total_w / 2,
            esc(&self.title),
            total_w - 10,
            secs(self.start_ns),
            duration(span_ns),
            self.switches,
            self.small_waits,
            10,
        );
        for l in &self.lanes {
            let y = lane_y(l.key);
            let label: String = l.label.chars().take(32).collect();
            let _ = writeln!(
                o,
                r#"<text class="lane" x="{}" y="{}" text-anchor="end">{}<title>{}: ran {}, waited {} to run</title></text><rect x="{x0}" y="{y}" width="{w}" height="{lane_h}" fill="white" stroke="rgb(220,220,220)"/>"#,
                x0 - 8,
                y + lane_h / 2 + 4,
                esc(&label),
                esc(&l.label),
                ms(l.run_ns),
                ms(l.wait_ns),
            );
        }
        // The axis: grid lines and labels at round times after the start (redrawn on zoom).
        let (step, unit, unit_name) = axis(span_ns, w);
        let _ = writeln!(o, r#"<g id="axis" data-x0="{x0}" data-y0="{top}" data-y1="{axis_y}">"#);
        let mut t = 0u64;
        while t <= span_ns {
            let gx = f64::from(x0) + x(self.start_ns + t);
            let _ = writeln!(
                o,
                r#"<line class="grid" x1="{gx:.2}" x2="{gx:.2}" y1="{top}" y2="{}"/><text x="{gx:.2}" y="{}" text-anchor="middle">{}</text>"#,
                axis_y + 4,
                axis_y + 18,
                tick_label(t, step, unit, unit_name)
            );
            t = match t.checked_add(step) {
                Some(n) => n,
                None => break,
            };
        }
        o.push_str("</g>\n");
        let _ = writeln!(
            o,
            r#"<svg id="frame" x="{x0}" y="0" width="{w}" height="{height}" overflow="hidden"><g id="lanes" data-w="{w}" data-span="{span_ns}">"#
        );
        for it in &self.items {
            let y = lane_y(it.lane(self.rows));
            match it {
                Item::Run(s) => {
                    let (a, b) = (x(s.start_ns), x(s.end_ns));
                    let _ = writeln!(
                        o,
                        r#"<rect class="run" x="{a:.2}" y="{y}" width="{:.2}" height="{lane_h}" fill="{}" data-comm="{}" data-ns="{}"><title>{}[{}] on CPU {}: {} from {} s (t = {} s)</title></rect>"#,
                        (b - a).max(0.5),
                        colour(&name_of(s)),
                        esc(&s.comm),
                        s.end_ns - s.start_ns,
                        esc(&s.comm),
                        s.tid,
                        s.cpu,
                        ms(s.end_ns - s.start_ns),
                        secs(s.start_ns),
                        secs(s.start_ns - self.start_ns.min(s.start_ns)),
                    );
                }
                Item::Mixed { lane, start_ns, end_ns, runs, top } => {
                    let (a, b) = (x(*start_ns), x(*end_ns));
                    let names: Vec<String> = top.iter().map(|(c, ns)| format!("{} {}", esc(c), ms(*ns))).collect();
                    let busy: u64 = top.iter().map(|t| t.1).sum();
                    // Paler where the block was mostly idle.
                    let opacity = 0.3 + 0.7 * (busy as f64 / (end_ns - start_ns).max(1) as f64).min(1.0);
                    let (fill, comm, whose) = if task {
                        let comm = self.lanes.iter().find(|l| l.key == *lane).map_or("", |l| l.label.as_str());
                        let fill = top.first().map_or_else(|| "rgb(150,150,150)".to_string(), |t| colour(&t.0));
                        let bare = comm.rsplit_once('[').map_or(comm, |c| c.0);
                        (fill, esc(bare), format!("{}: {runs} short runs", esc(comm)))
                    } else {
                        let comms = top.iter().map(|t| t.0.as_str()).collect::<Vec<_>>().join(" ");
                        ("rgb(150,150,150)".to_string(), esc(&comms), format!("{runs} short runs on CPU {lane}"))
                    };
                    let _ = writeln!(
                        o,
                        r#"<rect class="mix" x="{a:.2}" y="{y}" width="{:.2}" height="{lane_h}" fill="{fill}" fill-opacity="{opacity:.2}" data-comm="{comm}" data-ns="{busy}"><title>{whose} from {} s (t = {} s) over {}: {}</title></rect>"#,
                        (b - a).max(0.5),
                        secs(*start_ns),
                        secs(start_ns - self.start_ns.min(*start_ns)),
                        ms(end_ns - start_ns),
                        names.join(", ")
                    );
                }
            }
        }
        for wt in &self.waits {
            let (a, b) = (x(wt.start_ns), x(wt.end_ns));
            let key = if task { wt.tid } else { wt.cpu };
            let _ = writeln!(
                o,
                r#"<rect x="{a:.2}" y="{}" width="{:.2}" height="{wait_h}" fill="rgb(220,40,40)" fill-opacity="0.8"><title>{}[{}] waited {} to run on CPU {} (from {} s, t = {} s)</title></rect>"#,
                lane_y(key) + lane_h + 1,
                (b - a).max(0.5),
                esc(&wt.comm),
                wt.tid,
                ms(wt.end_ns - wt.start_ns),
                wt.cpu,
                secs(wt.start_ns),
                secs(wt.start_ns - self.start_ns.min(wt.start_ns)),
            );
        }
        o.push_str("</g></svg>\n");
        // Legend: the tasks that ran longest (CPU lanes) or the CPUs (task lanes).
        let mut lx = f64::from(x0);
        let mut ly = axis_y + 32;
        let shown = if task { legend.len() } else { 10 };
        for (name, ns) in legend.iter().take(shown) {
            let label = format!("{} {}", esc(name), ms(*ns));
            let lw = 16.0 + 7.0 * label.chars().count() as f64 + 14.0;
            if lx + lw > f64::from(x0 + w) {
                if !task || ly > axis_y + 32 {
                    break;
                }
                lx = f64::from(x0);
                ly += 18;
            }
            let _ = writeln!(
                o,
                r#"<rect x="{lx:.0}" y="{ly}" width="12" height="12" fill="{}"/><text x="{:.0}" y="{}">{label}</text>"#,
                colour(name),
                lx + 16.0,
                ly + 11
            );
            lx += lw;
        }
        let _ = writeln!(o, r#"<text id="details" x="10" y="{}"> </text>"#, height - 14);
        let _ =
            writeln!(o, r#"<text id="matched" x="{}" y="{}" text-anchor="end"> </text>"#, total_w - 10, height - 14);
        o.push_str(SCRIPT);
        o.push_str("</svg>\n");
        o
    }
}

/// A duration with a unit that suits it: `850 µs`, `12.3 ms`, `4.56 s`.
fn duration(ns: u64) -> String {
    match ns {
        1_000_000_000.. => format!("{:.2} s", ns as f64 / 1e9),
        1_000_000.. => format!("{:.1} ms", ns as f64 / 1e6),
        1_000.. => format!("{} µs", ns / 1000),
        _ => format!("{ns} ns"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_are_round_with_units() {
        // 2.5 s over 1600 px: 13 ticks wanted, 0.2 s apart.
        let (step, unit, name) = axis(2_500_000_000, 1600);
        assert_eq!((step, unit, name), (200_000_000, 1_000_000_000, "s"));
        assert_eq!(tick_label(0, step, unit, name), "0");
        assert_eq!(tick_label(1_400_000_000, step, unit, name), "1.4 s");
        // 37 ms: 5 ms steps in ms.
        let (step, unit, name) = axis(37_000_000, 1000);
        assert_eq!((step, unit, name), (5_000_000, 1_000_000, "ms"));
        assert_eq!(tick_label(35_000_000, step, unit, name), "35 ms");
        // 800 µs over 300 px: 2 ticks wanted, 500 µs apart.
        let (step, unit, name) = axis(800_000, 300);
        assert_eq!((step, unit, name), (500_000, 1_000, "µs"));
        assert_eq!(tick_label(500_000, step, unit, name), "500 µs");
        assert_eq!(axis(0, 1600).0, 1);
    }

    #[test]
    fn durations() {
        assert_eq!(duration(2_345_000_000), "2.35 s");
        assert_eq!(duration(12_340_000), "12.3 ms");
        assert_eq!(duration(850_000), "850 µs");
        assert_eq!(duration(12), "12 ns");
    }
}
