//! The options of the analyses as a user states them — the CLI's flags and the Python keywords
//! parse into these types, so both front ends accept the same words and build the same options.
//!
//! ```
//! use perfdata_analysis::options::TimeRange;
//! let t: TimeRange = "5123.25,5124".parse()?;
//! assert_eq!((t.start, t.end), (5_123_250_000_000, 5_124_000_000_000));
//! assert!(t.contains(5_123_500_000_000));
//! # Ok::<(), String>(())
//! ```

use nom::bytes::complete::{take_while, take_while_m_n};
use nom::character::complete::{char, digit0, digit1, multispace0, multispace1};
use nom::combinator::{all_consuming, map, map_res, opt, recognize, verify};
use nom::multi::separated_list1;
use nom::sequence::{pair, preceded, separated_pair, terminated};
use nom::{IResult, Parser};
use std::str::FromStr;

/// perf's `--time START,END` (`perf sched timehist`'s; `perf script` and `perf report` take
/// [`TimeRanges`]): seconds with up to nine decimals, either end may be empty (open), a lone
/// START is open-ended; held as inclusive nanosecond bounds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeRange {
    /// First nanosecond included (0 when open).
    pub start: u64,
    /// Last nanosecond included (`u64::MAX` when open).
    pub end: u64,
}

impl TimeRange {
    /// Whether `t` (ns) is in the range.
    pub fn contains(&self, t: u64) -> bool {
        (self.start..=self.end).contains(&t)
    }

    /// The range as `(start, end)` ns.
    pub fn bounds(&self) -> (u64, u64) {
        (self.start, self.end)
    }
}

/// perf's `parse_nsec_time`: whole seconds, then optionally `.` and at most nine decimals
/// (`5123`, `5123.25`, `.5`), as nanoseconds.
fn seconds(i: &str) -> IResult<&str, u64> {
    let fraction = preceded(char('.'), take_while_m_n(0, 9, |c: char| c.is_ascii_digit()));
    let text = verify(pair(digit0, opt(fraction)), |(w, f): &(&str, Option<&str>)| !w.is_empty() || f.is_some());
    map_res(text, |(whole, frac): (&str, Option<&str>)| {
        let whole: u64 = if whole.is_empty() { 0 } else { whole.parse().map_err(|_| ())? };
        let frac = frac.unwrap_or("");
        let nanos: u64 = format!("{frac:0<9}").parse().map_err(|_| ())?;
        whole.checked_mul(1_000_000_000).and_then(|n| n.checked_add(nanos)).ok_or(())
    })
    .parse(i)
}

/// `START,END` with either side empty (`None`), or a lone `START` when `lone` (perf_time__parse_str).
fn start_end(lone: bool) -> impl Fn(&str) -> IResult<&str, (Option<u64>, Option<u64>)> {
    move |i| {
        let (i, start) = preceded(multispace0, opt(seconds)).parse(i)?;
        match opt(char(',')).parse(i)? {
            (i, Some(_)) => map(opt(seconds), move |end| (start, end)).parse(i),
            (i, None) if lone => Ok((i, (start, None))),
            (i, None) => Err(nom::Err::Error(nom::error::Error::new(i, nom::error::ErrorKind::Char))),
        }
    }
}

/// perf's check: an END before START is invalid (0 is open).
fn range(start: Option<u64>, end: Option<u64>) -> Result<TimeRange, String> {
    let r = TimeRange { start: start.unwrap_or(0), end: end.unwrap_or(u64::MAX) };
    if end.is_some_and(|e| e != 0 && e < r.start) {
        return Err(format!("time: the range ends before it starts ({} > {})", r.start, r.end));
    }
    Ok(r)
}

/// What a time string that does not parse is told.
fn bad_time(s: &str) -> String {
    format!(
        "time: {s:?} is not perf's --time: START,END in seconds with up to nine decimals (either side \
         may be empty), several such ranges separated by spaces, or percentages of the recording \
         (10%/2, 0%-10%,30%-40%, 25%)"
    )
}

impl FromStr for TimeRange {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        let (_, (a, b)) = all_consuming(terminated(start_end(true), multispace0)).parse(s).map_err(|_| bad_time(s))?;
        range(a, b)
    }
}

/// perf script's and perf report's `--time` (perf_time__parse_for_ranges): time ranges
/// (`START,END`, several separated by spaces: `"1.5,2 3.25,"`, in order, not overlapping), or
/// slices of the recording from its first to its last sample: `10%/2` (the second 10% slice),
/// `0%-10%,30%-40%`, `25%` (the first quarter). Percentages need the recording's first and last
/// sample times (the SAMPLE_TIME feature perf record writes), so they are resolved against a file
/// ([`TimeRanges::resolve`]).
///
/// ```
/// use perfdata_analysis::options::{TimeRange, TimeRanges};
/// let t: TimeRanges = "1.5,2 3,".parse()?;
/// let r = t.resolve(None)?;
/// assert_eq!(r, vec![TimeRange { start: 1_500_000_000, end: 2_000_000_000 }, TimeRange { start: 3_000_000_000, end: u64::MAX }]);
/// let t: TimeRanges = "10%/2".parse()?;
/// assert_eq!(t.resolve(Some((1_000, 2_000)))?, vec![TimeRange { start: 1_100, end: 1_199 }]);
/// # Ok::<(), String>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub enum TimeRanges {
    /// Ranges in nanoseconds.
    Absolute(Vec<TimeRange>),
    /// (start, end) fractions of the span from the first to the last sample, each in 0..=1.
    Percent(Vec<(f64, f64)>),
}

impl From<TimeRange> for TimeRanges {
    fn from(r: TimeRange) -> Self {
        TimeRanges::Absolute(vec![r])
    }
}

/// A percentage as perf's `parse_percent` reads it (a decimal number then `%`), as a fraction.
fn percent(i: &str) -> IResult<&str, f64> {
    let number = recognize(pair(take_while(|c: char| c.is_ascii_digit()), opt(pair(char('.'), digit0))));
    map_res(terminated(number, char('%')), |n: &str| n.parse::<f64>().map(|d| d / 100.0)).parse(i)
}

/// `P%/N`: the N-th slice of P% (perf's `percent_slash_split`).
fn slash(i: &str) -> IResult<&str, (f64, f64)> {
    let n = map_res(recognize(pair(opt(char('-')), digit1)), |n: &str| n.parse::<i32>());
    map(verify(separated_pair(percent, char('/'), n), |(p, _)| *p > 0.0), |(p, n)| {
        (p * (f64::from(n) - 1.0), p * f64::from(n))
    })
    .parse(i)
}

impl FromStr for TimeRanges {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        let bad = || bad_time(s);
        if s.contains('%') {
            // perf picks the form by the first of `/`, `-`, `%` the string holds; every piece has it.
            let pieces = if s.contains('/') {
                all_consuming(separated_list1(char(','), slash)).parse(s)
            } else if s.contains('-') {
                all_consuming(separated_list1(char(','), separated_pair(percent, char('-'), percent))).parse(s)
            } else {
                all_consuming(map(percent, |p| vec![(0.0, p)])).parse(s)
            };
            let (_, pieces) = pieces.map_err(|_| bad())?;
            if let Some((a, b)) = pieces.iter().find(|(a, b)| !(0.0..=1.0).contains(a) || !(0.0..=1.0).contains(b)) {
                return Err(format!("time: {s:?}: a slice from {a} to {b} is not within 0%-100%"));
            }
            return Ok(TimeRanges::Percent(pieces));
        }
        // perf_time__parse_strs: as many ranges as commas, separated by white space.
        let list = separated_list1(multispace1, start_end(false));
        let (_, pairs) = all_consuming(terminated(list, multispace0)).parse(s).map_err(|_| bad())?;
        let mut ranges = Vec::with_capacity(pairs.len());
        for (a, b) in pairs {
            ranges.push(range(a, b)?);
        }
        // perf's overlap check compares raw values: an open end is 0 there.
        let raw_end = |r: &TimeRange| if r.end == u64::MAX { 0 } else { r.end };
        if ranges.windows(2).any(|w| matches!(w, [a, b] if raw_end(a) >= b.start)) {
            return Err(format!("time: {s:?}: the ranges overlap or are out of order"));
        }
        Ok(TimeRanges::Absolute(ranges))
    }
}

impl TimeRanges {
    /// The ranges in nanoseconds; `span` is the recording's (first, last) sample time (the
    /// SAMPLE_TIME feature), which percentages need (perf's `set_percent_time`: rounded, and an end
    /// before the last sample is one nanosecond earlier, so slices do not share a nanosecond).
    pub fn resolve(&self, span: Option<(u64, u64)>) -> Result<Vec<TimeRange>, String> {
        match self {
            TimeRanges::Absolute(r) => Ok(r.clone()),
            TimeRanges::Percent(p) => {
                let Some((first, last)) = span.filter(|&(f, l)| (f, l) != (0, 0)) else {
                    return Err("time: percentages need the recording's first and last sample times (the \
                                SAMPLE_TIME feature, which perf record writes unless --buildid-all or \
                                --no-buildid leave it out; perf record --timestamp-boundary adds it)"
                        .into());
                };
                let total = last.wrapping_sub(first) as f64;
                Ok(p.iter()
                    .map(|&(a, b)| {
                        let start = first.wrapping_add((a * total).round() as u64);
                        let mut end = first.wrapping_add((b * total).round() as u64);
                        if end > start && end != last {
                            end -= 1;
                        }
                        TimeRange { start, end }
                    })
                    .collect())
            }
        }
    }
}

/// Whether perf keeps a sample at time `t` (ns) under `ranges` (perf_time__ranges_skip_sample): a
/// sample without a time (0) is always kept.
pub fn in_ranges(ranges: &[TimeRange], t: u64) -> bool {
    t == 0 || ranges.is_empty() || ranges.iter().any(|r| r.contains(t))
}

/// A keyword's value among `choices` (`-` and `_` alike), or an error listing them.
#[cfg(feature = "symbolize")]
fn choose<T: Copy>(what: &str, s: &str, choices: &[(&str, T)]) -> Result<T, String> {
    let s = s.replace('_', "-");
    choices.iter().find(|(name, _)| *name == s).map(|(_, v)| *v).ok_or_else(|| {
        let names: Vec<String> = choices.iter().map(|(n, _)| format!("'{n}'")).collect();
        let listed = match names.split_last() {
            Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
            _ => names.concat(),
        };
        format!("{what} must be {listed}, not {s:?}")
    })
}

#[cfg(feature = "symbolize")]
pub use fold::{Compat, EventFilter, FoldRequest, FoldedOptions, Root, Unknown, Weight};

/// The folding options: which tool's output, the weights, the root frame, frame names and the
/// sample filters ([`FoldedOptions`]), and the request the front ends state them by
/// ([`FoldRequest`]).
#[cfg(feature = "symbolize")]
mod fold {
    use super::{choose, TimeRanges};
    use crate::symbolize::SymbolizeOptions;
    use std::str::FromStr;

    /// Which tool's output to reproduce; [`FoldedOptions::compat`] gives its default options.
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
    pub enum Compat {
        /// `perf script | stackcollapse-perf.pl` (and `inferno-collapse-perf`, except for the quirks
        /// listed in analysis-semantics.md §1.2): period weights, `[module]` for unresolved frames,
        /// generic name tidying, the first event only, frames starting with `(` skipped, samples
        /// without a callchain dropped, tracepoint samples weighted 1 and never filtered.
        #[default]
        StackcollapsePl,
        /// `perf script report stackcollapse`: sample counts, `[unknown]`, every event, no tidying.
        PerfScriptPy,
    }

    /// What a stack adds to its line.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub enum Weight {
        /// 1 per sample.
        Samples,
        /// The sample's period (the attr's period when the sample has none).
        Period,
    }

    /// The first frame of every stack.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub enum Root {
        /// No process frame (stackcollapse.py `--no-comm`).
        None,
        /// `comm`.
        Comm,
        /// `comm-PID`.
        CommPid,
        /// `comm-PID/TID`.
        CommPidTid,
    }

    /// How a frame without a symbol is written.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub enum Unknown {
        /// `[basename of the module]`, `[unknown]` without one.
        Module,
        /// `[unknown]`.
        Unknown,
        /// `[module <ADDR>]` / `[unknown <ADDR>]` (stackcollapse-perf.pl `--addrs`).
        Address,
    }

    /// Which events' samples are folded.
    #[derive(Clone, Debug, PartialEq, Eq)]
    pub enum EventFilter {
        /// The event of the first sample (stackcollapse-perf.pl's default).
        FirstSeen,
        /// The event with this name (as perf names it, e.g. `cpu-clock` or `cycles:u`).
        Name(String),
        /// Every event.
        All,
    }

    /// Options of [`folded`](crate::folded::folded) and of every analysis that folds stacks; `Default` is [`Compat::StackcollapsePl`]'s.
    #[derive(Clone, Debug)]
    pub struct FoldedOptions {
        /// The tool whose quirks are reproduced where no option below says otherwise.
        pub compat: Compat,
        /// Weight per sample.
        pub weight: Weight,
        /// The process frame.
        pub root: Root,
        /// Frames without a symbol.
        pub unknown: Unknown,
        /// Which events.
        pub event_filter: EventFilter,
        /// Cut argument lists and turn `;` into `:` like inferno's `tidy_generic`.
        pub tidy_generic: bool,
        /// Java names tidied (stackcollapse-perf.pl for comms starting with `java`; stackcollapse.py
        /// `--tidy-java` for every frame).
        pub tidy_java: bool,
        /// Append `_[k]` to kernel frames.
        pub annotate_kernel: bool,
        /// Append `_[j]` to frames in JIT maps (`/tmp/perf-PID.map`, `jitted-*.so`).
        pub annotate_jit: bool,
        /// Inline frames from the binaries' DWARF, as perf script adds them by default (on in both
        /// presets, as perf's `--inline`; off: `--no-inline`): a user frame unwound from the stack dump (`--call-graph dwarf`; perf
        /// 6.1 adds none to `-g` callchains) whose address lies in inlined code becomes the chain of
        /// functions `addr2line -i -f` reports there, and a function's DWARF name replaces its
        /// symbol-table name when the two differ (see [`crate::symbolize::inline`]).
        pub inline: bool,
        /// Append `_[i]` to the frames perf marks `(inlined)` (with [`FoldedOptions::inline`];
        /// neither collapser does: perf script prints no module for them).
        pub annotate_inline: bool,
        /// Source lines: `perf script -F +srcline | stackcollapse-perf.pl --srcline`. Each frame for
        /// which perf prints a source line ([`Symbolizer::srcline`](crate::symbolize::Symbolizer::srcline), and for the frames of an inline
        /// list [`Symbolizer::inline_srclines`](crate::symbolize::Symbolizer::inline_srclines)) becomes `name:file:line`: the line with
        /// its `[…]` parts removed (`taskset[2b48]` → `taskset`, `[kernel.kallsyms][…]` → nothing
        /// appended), as the script reads it. Where the script misreads perf's text we give what it
        /// means: an inlined frame (`file:line (inlined)` under a frame line without module, which
        /// the script takes for a frame) is `name:file:line` like the others; a frame perf prints no
        /// line for (`??:0`) keeps its name (the script would take the next frame's line for it);
        /// a Java `a->b` name gets the line on its first part only.
        pub srcline: bool,
        /// Unwind `--call-graph dwarf` stacks with each binary's own CFI wherever it is (`.eh_frame`
        /// without an `.eh_frame_hdr`, `.debug_frame`, the binary's own load bias) instead of
        /// following perf 6.1's libunwind lookup rules: as perfparser (elfutils) unwinds. A static
        /// binary without `.eh_frame_hdr` then unwinds past its leaf frame, where perf stops.
        pub plain_unwind: bool,
        /// Callchain entries kept per sample, as perf script's `--max-stack` (perf's default 127:
        /// deeper stacks are cut below the 127th frame; context markers do not count), and as
        /// many frames unwound from a stack dump.
        pub max_stack: usize,
        /// Where to find symbols.
        pub symbolize: SymbolizeOptions,
        /// Only samples of this process.
        pub pid: Option<u32>,
        /// Only samples of this thread.
        pub tid: Option<u32>,
        /// Only samples whose comm is this.
        pub comm: Option<String>,
        /// Only samples in these time ranges (perf script's `--time`; percentages are resolved against
        /// the recording's SAMPLE_TIME feature).
        pub time: Option<TimeRanges>,
    }

    impl Default for FoldedOptions {
        fn default() -> Self {
            Self::compat(Compat::StackcollapsePl)
        }
    }

    impl FoldedOptions {
        /// The default options of `compat`'s tool.
        pub fn compat(compat: Compat) -> Self {
            let pl = compat == Compat::StackcollapsePl;
            FoldedOptions {
                compat,
                weight: if pl { Weight::Period } else { Weight::Samples },
                root: Root::Comm,
                unknown: if pl { Unknown::Module } else { Unknown::Unknown },
                event_filter: if pl { EventFilter::FirstSeen } else { EventFilter::All },
                tidy_generic: pl,
                tidy_java: pl,
                annotate_kernel: false,
                annotate_jit: false,
                inline: true,
                annotate_inline: false,
                srcline: false,
                plain_unwind: false,
                max_stack: 127,
                symbolize: SymbolizeOptions::default(),
                pid: None,
                tid: None,
                comm: None,
                time: None,
            }
        }
    }

    impl FromStr for Compat {
        type Err = String;
        fn from_str(s: &str) -> Result<Self, String> {
            choose(
                "compat",
                s,
                &[("stackcollapse-pl", Compat::StackcollapsePl), ("perf-script-py", Compat::PerfScriptPy)],
            )
        }
    }

    impl FromStr for Weight {
        type Err = String;
        fn from_str(s: &str) -> Result<Self, String> {
            choose("weight", s, &[("samples", Weight::Samples), ("period", Weight::Period)])
        }
    }

    impl FromStr for Root {
        type Err = String;
        fn from_str(s: &str) -> Result<Self, String> {
            choose(
                "root",
                s,
                &[("comm", Root::Comm), ("pid", Root::CommPid), ("tid", Root::CommPidTid), ("none", Root::None)],
            )
        }
    }

    /// How to fold, as `perfdata folded`'s flags and `PerfData.folded(...)`'s keywords say it; unset
    /// fields keep the [`Compat`] preset's value ([`FoldRequest::options`]).
    #[derive(Clone, Debug, Default)]
    pub struct FoldRequest {
        /// The tool whose output and defaults to follow (default: stackcollapse-pl).
        pub compat: Option<Compat>,
        /// Weight per sample.
        pub weight: Option<Weight>,
        /// The root frame.
        pub root: Option<Root>,
        /// `_[k]` on kernel frames.
        pub kernel: bool,
        /// `_[j]` on JIT frames.
        pub jit: bool,
        /// Inline frames from DWARF (`None`: the preset's, on, as perf script's default).
        pub inline: Option<bool>,
        /// `_[i]` on inline frames (implies `inline`).
        pub annotate_inline: bool,
        /// `func:file:line` frames.
        pub srcline: bool,
        /// DWARF unwinding with the binaries' own CFI, as perfparser ([`FoldedOptions::plain_unwind`]).
        pub plain_unwind: bool,
        /// Callchain entries per sample (`None`: perf's 127, [`FoldedOptions::max_stack`]).
        pub max_stack: Option<usize>,
        /// Unresolved frames as `[module <ADDR>]`.
        pub addrs: bool,
        /// Only this event's samples.
        pub event: Option<String>,
        /// Samples of every event.
        pub all_events: bool,
        /// Cut argument lists from names (stackcollapse-perf.pl's tidy).
        pub tidy: Option<bool>,
        /// Tidy Java names.
        pub tidy_java: Option<bool>,
        /// Only samples of this process.
        pub pid: Option<u32>,
        /// Only samples of this thread.
        pub tid: Option<u32>,
        /// Only samples of threads with this comm.
        pub comm: Option<String>,
        /// Only samples in these time ranges (perf script's `--time`).
        pub time: Option<TimeRanges>,
        /// Where binaries, build ids and kernel symbols are found.
        pub symbolize: SymbolizeOptions,
    }

    impl FoldRequest {
        /// The folding options: the compat preset with every stated knob applied.
        pub fn options(&self) -> Result<FoldedOptions, String> {
            let mut o = FoldedOptions::compat(self.compat.unwrap_or(Compat::StackcollapsePl));
            if let Some(w) = self.weight {
                o.weight = w;
            }
            o.root = self.root.unwrap_or(Root::Comm);
            o.annotate_kernel = self.kernel;
            o.annotate_jit = self.jit;
            o.inline = self.inline.unwrap_or(o.inline) || self.annotate_inline;
            o.annotate_inline = self.annotate_inline;
            o.srcline = self.srcline;
            o.plain_unwind = self.plain_unwind;
            o.max_stack = self.max_stack.unwrap_or(o.max_stack);
            if self.addrs {
                o.unknown = Unknown::Address;
            }
            match (&self.event, self.all_events) {
                (Some(_), true) => return Err("an event filter and all events exclude each other".into()),
                (Some(e), false) => o.event_filter = EventFilter::Name(e.clone()),
                (None, true) => o.event_filter = EventFilter::All,
                (None, false) => {}
            }
            if let Some(t) = self.tidy {
                o.tidy_generic = t;
            }
            if let Some(t) = self.tidy_java {
                o.tidy_java = t;
            }
            o.pid = self.pid;
            o.tid = self.tid;
            o.comm = self.comm.clone();
            o.time = self.time.clone();
            o.symbolize = self.symbolize.clone();
            Ok(o)
        }

        /// What a unit of weight is called (`samples` or `period`), for graph tooltips.
        pub fn count_name(&self) -> &'static str {
            let preset = FoldedOptions::compat(self.compat.unwrap_or(Compat::StackcollapsePl)).weight;
            match self.weight.unwrap_or(preset) {
                Weight::Samples => "samples",
                Weight::Period => "period",
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_ranges_parse_like_perf() {
        let t = |s: &str| s.parse::<TimeRange>().map(|t| t.bounds());
        assert_eq!(t("1.5,2"), Ok((1_500_000_000, 2_000_000_000)));
        assert_eq!(t(",2.000000001"), Ok((0, 2_000_000_001)));
        assert_eq!(t("3,"), Ok((3_000_000_000, u64::MAX)));
        assert_eq!(t("3"), Ok((3_000_000_000, u64::MAX)));
        assert!(t("1.0000000001,").is_err(), "ten decimals");
        assert!(t("x,").is_err());
        assert!(t("18446744074,").is_err(), "overflow");
        assert!(t("2,1").is_err(), "end before start");
    }

    /// perf_time__parse_for_ranges (perf script, perf report): what it accepts and rejects, and
    /// its percentage arithmetic (fp.data's outputs in perfdata-cli/tests/cli.rs check the rest
    /// against perf itself).
    #[test]
    fn perf_script_time_ranges() {
        let r = |s: &str, span| s.parse::<TimeRanges>().and_then(|t| t.resolve(span));
        let tr = |start, end| TimeRange { start, end };
        assert!(r("1,2 ,  3,4", None).is_err(), "perf: a comma in the value after a comma");
        assert_eq!(r("1,2   3,", None), Ok(vec![tr(1_000_000_000, 2_000_000_000), tr(3_000_000_000, u64::MAX)]));
        assert_eq!(r(",1 2,3", None), Ok(vec![tr(0, 1_000_000_000), tr(2_000_000_000, 3_000_000_000)]));
        // perf compares an open end as 0, so an open first range passes its order check.
        assert_eq!(r("1, 2,3", None), Ok(vec![tr(1_000_000_000, u64::MAX), tr(2_000_000_000, 3_000_000_000)]));
        assert!(r("1,3 2,4", None).is_err(), "overlap");
        assert!(r("1", None).is_err(), "perf script wants a comma");
        // Percentages of (1000, 2000): rounded; an end before the last sample one ns earlier.
        let span = Some((1_000, 2_000));
        assert_eq!(r("10%/2", span), Ok(vec![tr(1_100, 1_199)]));
        assert_eq!(r("10%/10", span), Ok(vec![tr(1_900, 2_000)]));
        assert_eq!(r("0%-10%,30%-40%", span), Ok(vec![tr(1_000, 1_099), tr(1_300, 1_399)]));
        assert_eq!(r("25%", span), Ok(vec![tr(1_000, 1_249)]));
        assert_eq!(r("0%-0%", span), Ok(vec![tr(1_000, 1_000)]));
        assert_eq!(r("33.3%/3", Some((0, 10))), Ok(vec![tr(7, 10)]), "9.99 rounds to the last sample");
        for bad in ["0%/1", "10%/0", "10%/11", "5%-200%", "10%/2,0%-5%", "10", "25%x", "%", "10%/-2147483648"] {
            assert!(r(bad, span).is_err(), "{bad}");
        }
        assert!(r("10%/2", None).is_err() && r("10%/2", Some((0, 0))).is_err(), "no sample times");
        assert!(in_ranges(&[tr(5, 6)], 0), "a sample without time is kept");
        assert!(!in_ranges(&[tr(5, 6)], 7) && in_ranges(&[tr(1, 2), tr(5, 6)], 6) && in_ranges(&[], 9));
    }

    #[cfg(feature = "symbolize")]
    #[test]
    fn keywords_parse_and_errors_list_the_choices() {
        assert_eq!("perf_script_py".parse::<Compat>(), Ok(Compat::PerfScriptPy));
        assert_eq!("tid".parse::<Root>(), Ok(Root::CommPidTid));
        assert_eq!("period".parse::<Weight>(), Ok(Weight::Period));
        assert_eq!("x".parse::<Weight>(), Err("weight must be 'samples' or 'period', not \"x\"".to_string()));
        let r = FoldRequest { compat: Some(Compat::PerfScriptPy), ..Default::default() };
        assert_eq!(r.count_name(), "samples");
        assert_eq!(FoldRequest::default().count_name(), "period");
        let both = FoldRequest { event: Some("cycles".into()), all_events: true, ..Default::default() };
        assert!(both.options().is_err());
    }
}
