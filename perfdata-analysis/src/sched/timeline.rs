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
use crate::Error;
use perfdata_core::process::Machine;
use perfdata_core::PerfFile;
use std::collections::HashMap;
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
/// CPU that then ran the task.
pub type Wait = Slice;

/// Options of [`sched_timeline`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TimelineOptions {
    /// Only this window.
    pub time: Option<TimeRange>,
    /// Picture width in pixels (the lanes'; merging works at this resolution).
    pub width: u32,
    /// Title.
    pub title: String,
}

impl Default for TimelineOptions {
    fn default() -> Self {
        TimelineOptions { time: None, width: 1600, title: "Scheduler timeline".into() }
    }
}

/// The timeline, merged to the picture's resolution.
#[derive(Clone, Debug, PartialEq)]
pub struct Timeline {
    /// First and last switch time in the window, ns.
    pub start_ns: u64,
    /// Last switch time, ns.
    pub end_ns: u64,
    /// CPUs with lanes, ascending.
    pub cpus: Vec<u32>,
    /// Drawable items per CPU lane: a task's run or a merged block.
    pub items: Vec<Item>,
    /// Waits at least a pixel wide.
    pub waits: Vec<Wait>,
    /// Switches read.
    pub switches: u64,
    /// Waits too short to draw.
    pub small_waits: u64,
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
    /// Runs too short to draw alone, merged: (comm, ns) of the tasks that ran most in it.
    Mixed {
        /// CPU.
        cpu: u32,
        /// Start, ns.
        start_ns: u64,
        /// End, ns.
        end_ns: u64,
        /// Runs merged.
        runs: u64,
        /// Up to five (comm, ns on CPU), most first.
        top: Vec<(String, u64)>,
    },
}

#[derive(Clone, Debug, Default)]
struct Lane {
    pending: Option<Pending>,
    items: Vec<Item>,
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
}

#[derive(Clone, Debug, Default)]
struct Pending {
    start: u64,
    end: u64,
    runs: u64,
    by: HashMap<String, u64>,
}

struct Tl {
    range: (u64, u64),
    ns_per_px: u64,
    lanes: PerCpu<Lane>,
    runs: Runs,
    waits: Vec<Wait>,
    small_waits: u64,
    switches: u64,
    first: u64,
    last: u64,
}

impl Tl {
    fn emit(&mut self, cpu: u32, start: u64, end: u64, tid: u32, comm: String) {
        let (lo, hi) = self.range;
        let (start, end) = (start.max(lo), end.min(hi));
        if end <= start || tid == 0 {
            return;
        }
        let px = self.ns_per_px.max(1);
        let Some(lane) = self.lanes.get_mut(cpu) else { return };
        if end - start >= px {
            flush(lane, cpu, px);
            lane.items.push(Item::Run(Slice { cpu, start_ns: start, end_ns: end, tid, comm }));
        } else {
            // A gap of a pixel or more ends a merge block (idle shows).
            if lane.pending.as_ref().is_some_and(|p| start.saturating_sub(p.end) >= px) {
                flush(lane, cpu, px);
            }
            let p = lane.pending.get_or_insert_with(|| Pending { start, end, ..Default::default() });
            p.end = end;
            p.runs += 1;
            *p.by.entry(comm).or_default() += end - start;
            if p.end - p.start >= px {
                flush(lane, cpu, px);
            }
        }
    }
}

fn flush(lane: &mut Lane, cpu: u32, _px: u64) {
    let Some(p) = lane.pending.take() else { return };
    let mut top: Vec<(String, u64)> = p.by.into_iter().collect();
    top.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    top.truncate(5);
    lane.items.push(Item::Mixed { cpu, start_ns: p.start, end_ns: p.end, runs: p.runs, top });
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
                if self.lanes.get_mut(at.cpu).is_none() {
                    return;
                }
                let Some(sw) = self.runs.switch(at, prev_pid, prev_state, next_pid, states) else { return };
                self.emit(at.cpu, sw.since, t, prev_pid, m.comm(prev_pid));
                if let Some(w) = sw.waited_since {
                    let (lo, hi) = self.range;
                    if t > w && t >= lo && w <= hi {
                        if t - w >= self.ns_per_px.max(1) {
                            self.waits.push(Wait {
                                cpu: at.cpu,
                                start_ns: w.max(lo),
                                end_ns: t.min(hi),
                                tid: next_pid,
                                comm: m.comm(next_pid),
                            });
                        } else {
                            self.small_waits += 1;
                        }
                    }
                }
            }
            Ev::Wakeup { pid, kind } => self.runs.wakeup(at, pid, kind),
            _ => {}
        }
    }
}

/// The timeline of `file` at `opts.width` pixels.
///
/// Two passes: the first finds the time span (to know what a pixel is), the second builds the
/// lanes. Errors: [`Error::Missing`] without `sched:sched_switch`.
pub fn sched_timeline(file: &PerfFile, opts: &TimelineOptions) -> Result<Timeline, Error> {
    struct Span(u64, u64);
    impl Handler for Span {
        fn event(&mut self, at: &At, ev: Ev<'_>, _m: &Machine, _s: &TaskStates) {
            if let Ev::Switch { .. } = ev {
                if self.0 == 0 {
                    self.0 = at.time;
                }
                self.1 = self.1.max(at.time);
            }
        }
    }
    let mut span = Span(0, 0);
    drive(file, &mut span)?;
    let (mut lo, mut hi) = (span.0, span.1);
    if let Some(r) = opts.time {
        lo = lo.max(r.start);
        hi = hi.min(r.end);
    }
    let width = opts.width.max(100);
    let ns_per_px = hi.saturating_sub(lo) / u64::from(width);
    let mut tl = Tl {
        range: (lo, hi),
        ns_per_px,
        lanes: PerCpu::default(),
        runs: Runs::default(),
        waits: Vec::new(),
        small_waits: 0,
        switches: 0,
        first: 0,
        last: 0,
    };
    let stream = drive(file, &mut tl)?;
    let mut items = Vec::new();
    let mut cpus = Vec::new();
    for cpu in 0..tl.lanes.len() as u32 {
        let px = tl.ns_per_px.max(1);
        let Some(lane) = tl.lanes.get_mut(cpu) else { continue };
        flush(lane, cpu, px);
        if !lane.items.is_empty() || tl.runs.seen(cpu) {
            cpus.push(cpu);
        }
        items.append(&mut lane.items);
    }
    Ok(Timeline {
        start_ns: lo,
        end_ns: hi,
        cpus,
        items,
        waits: tl.waits,
        switches: tl.switches,
        small_waits: tl.small_waits,
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

const SCRIPT: &str = r#"<script type="text/ecmascript"><![CDATA[
var lanes = document.getElementById("lanes"), X0 = +lanes.getAttribute("data-x0"), W = +lanes.getAttribute("data-w");
var scale = 1, shift = 0, details = document.getElementById("details"), matched = document.getElementById("matched");
function apply() {
  lanes.setAttribute("transform", "translate(" + (X0 + shift) + ",0) scale(" + scale + ",1)");
  document.getElementById("zoomnote").textContent = scale > 1 ? "zoom " + scale.toFixed(1) + "x (double-click: reset)" : "";
}
document.getElementById("frame").addEventListener("wheel", function (e) {
  e.preventDefault();
  var r = document.getElementById("frame").getBoundingClientRect();
  var x = (e.clientX - r.left) * (W / r.width);
  var f = e.deltaY < 0 ? 1.25 : 0.8, ns = Math.max(1, scale * f);
  shift = x - (x - shift) * ns / scale; scale = ns;
  shift = Math.min(0, Math.max(shift, W - W * scale)); apply();
});
document.getElementById("frame").addEventListener("dblclick", function () { scale = 1; shift = 0; apply(); });
lanes.addEventListener("mouseover", function (e) {
  var t = e.target.querySelector ? e.target.querySelector("title") : null;
  if (t) details.textContent = t.textContent;
});
lanes.addEventListener("click", function (e) {
  var x = +e.target.getAttribute("x"), w = +e.target.getAttribute("width");
  if (!w) return;
  scale = Math.max(1, W / w / 1.2); shift = -x * scale + (W - w * scale) / 2;
  shift = Math.min(0, Math.max(shift, W - W * scale)); apply();
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
    /// The picture.
    pub fn svg(&self) -> String {
        let (x0, w) = (110u32, self.width);
        let lane_h = 28u32;
        let wait_h = 8u32;
        let top = 60u32;
        let row = lane_h + wait_h + 10;
        let height = top + row * self.cpus.len().max(1) as u32 + 80;
        let total_w = x0 + w + 20;
        let span = self.end_ns.saturating_sub(self.start_ns).max(1) as f64;
        let x = |t: u64| (t.saturating_sub(self.start_ns)) as f64 / span * f64::from(w);
        let lane_y = |cpu: u32| -> u32 { top + row * self.cpus.iter().position(|&c| c == cpu).unwrap_or(0) as u32 };
        // The tasks that ran longest get distinct colours (and the legend); others a hashed hue.
        let mut by_comm: HashMap<&str, u64> = HashMap::new();
        for it in &self.items {
            if let Item::Run(s) = it {
                *by_comm.entry(s.comm.as_str()).or_default() += s.end_ns - s.start_ns;
            }
        }
        let mut top_comms: Vec<(&str, u64)> = by_comm.into_iter().collect();
        top_comms.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
        let palette: HashMap<&str, &str> = top_comms.iter().map(|t| t.0).zip(PALETTE).collect();
        let colour = |comm: &str| palette.get(comm).map_or_else(|| colour(comm), |c| (*c).to_string());
        let mut o = String::new();
        let _ = write!(
            o,
            r#"<?xml version="1.0" standalone="no"?>
<svg version="1.1" width="{total_w}" height="{height}" viewBox="0 0 {total_w} {height}" xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink">
<style>text {{ font-family: Verdana, sans-serif; font-size: 12px; fill: rgb(0,0,0); }} rect.run:hover, rect.mix:hover {{ stroke: black; stroke-width: 1; vector-effect: non-scaling-stroke; }} #search {{ cursor: pointer; }} #frame {{ cursor: zoom-in; }}</style>
<rect x="0" y="0" width="{total_w}" height="{height}" fill="rgb(248,248,248)"/>
<text x="{}" y="24" text-anchor="middle" style="font-size:17px">{}</text>
<text id="search" x="{}" y="24" text-anchor="end">Search</text>
<text x="10" y="44">{} switches, {} … {} s; red: waiting to run (wakeup or preemption → switch-in), {} waits under a pixel not drawn</text>
<text id="zoomnote" x="{}" y="44" text-anchor="end"></text>
"#,
            total_w / 2,
            esc(&self.title),
            total_w - 10,
            self.switches,
            secs(self.start_ns),
            secs(self.end_ns),
            self.small_waits,
            total_w - 10,
        );
        for &cpu in &self.cpus {
            let y = lane_y(cpu);
            let _ = writeln!(
                o,
                r#"<text x="{}" y="{}" text-anchor="end">CPU {cpu}</text><rect x="{x0}" y="{y}" width="{w}" height="{lane_h}" fill="white" stroke="rgb(220,220,220)"/>"#,
                x0 - 8,
                y + lane_h / 2 + 4
            );
        }
        let _ = writeln!(
            o,
            r#"<svg id="frame" x="{x0}" y="0" width="{w}" height="{height}" overflow="hidden"><g id="lanes" data-x0="0" data-w="{w}">"#
        );
        for it in &self.items {
            match it {
                Item::Run(s) => {
                    let (a, b) = (x(s.start_ns), x(s.end_ns));
                    let _ = writeln!(
                        o,
                        r#"<rect class="run" x="{a:.2}" y="{}" width="{:.2}" height="{lane_h}" fill="{}" data-comm="{}" data-ns="{}"><title>{}[{}] on CPU {}: {} from {} s</title></rect>"#,
                        lane_y(s.cpu),
                        (b - a).max(0.5),
                        colour(&s.comm),
                        esc(&s.comm),
                        s.end_ns - s.start_ns,
                        esc(&s.comm),
                        s.tid,
                        s.cpu,
                        ms(s.end_ns - s.start_ns),
                        secs(s.start_ns)
                    );
                }
                Item::Mixed { cpu, start_ns, end_ns, runs, top } => {
                    let (a, b) = (x(*start_ns), x(*end_ns));
                    let names: Vec<String> = top.iter().map(|(c, ns)| format!("{} {}", esc(c), ms(*ns))).collect();
                    let busy: u64 = top.iter().map(|t| t.1).sum();
                    let _ = writeln!(
                        o,
                        r#"<rect class="mix" x="{a:.2}" y="{}" width="{:.2}" height="{lane_h}" fill="rgb(150,150,150)" data-comm="{}" data-ns="{busy}"><title>{runs} short runs on CPU {cpu} from {} s over {}: {}</title></rect>"#,
                        lane_y(*cpu),
                        (b - a).max(0.5),
                        esc(&top.iter().map(|t| t.0.as_str()).collect::<Vec<_>>().join(" ")),
                        secs(*start_ns),
                        ms(end_ns - start_ns),
                        names.join(", ")
                    );
                }
            }
        }
        for wt in &self.waits {
            let (a, b) = (x(wt.start_ns), x(wt.end_ns));
            let _ = writeln!(
                o,
                r#"<rect x="{a:.2}" y="{}" width="{:.2}" height="{wait_h}" fill="rgb(220,40,40)" fill-opacity="0.8"><title>{}[{}] waited {} to run on CPU {} (from {} s)</title></rect>"#,
                lane_y(wt.cpu) + lane_h + 2,
                (b - a).max(0.5),
                esc(&wt.comm),
                wt.tid,
                ms(wt.end_ns - wt.start_ns),
                wt.cpu,
                secs(wt.start_ns)
            );
        }
        o.push_str("</g></svg>\n");
        // Time axis: the first label starts at the lane's left edge, the last ends at its right.
        let axis_y = top + row * self.cpus.len().max(1) as u32 + 4;
        for i in 0..=4u32 {
            let t = self.start_ns + (span * f64::from(i) / 4.0) as u64;
            let anchor = match i {
                0 => "start",
                4 => "end",
                _ => "middle",
            };
            let _ = writeln!(
                o,
                r#"<text x="{}" y="{}" text-anchor="{anchor}">{} s</text>"#,
                f64::from(x0) + f64::from(w) * f64::from(i) / 4.0,
                axis_y + 14,
                secs(t)
            );
        }
        // Legend: the tasks that ran longest, with their colours.
        let mut lx = f64::from(x0);
        for (comm, ns) in top_comms.iter().take(10) {
            let label = format!("{} {}", esc(comm), ms(*ns));
            let _ = writeln!(
                o,
                r#"<rect x="{lx:.0}" y="{}" width="12" height="12" fill="{}"/><text x="{:.0}" y="{}">{label}</text>"#,
                axis_y + 26,
                colour(comm),
                lx + 16.0,
                axis_y + 37
            );
            lx += 16.0 + 7.0 * label.chars().count() as f64 + 14.0;
            if lx > f64::from(x0 + w) - 150.0 {
                break;
            }
        }
        let _ = writeln!(o, r#"<text id="details" x="10" y="{}"> </text>"#, height - 18);
        let _ =
            writeln!(o, r#"<text id="matched" x="{}" y="{}" text-anchor="end"> </text>"#, total_w - 10, height - 18);
        o.push_str(SCRIPT);
        o.push_str("</svg>\n");
        o
    }
}
