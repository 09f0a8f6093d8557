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

use std::str::FromStr;

/// perf's `--time START,END`: seconds with up to nine decimals, either end may be empty (open);
/// held as inclusive nanosecond bounds.
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

impl FromStr for TimeRange {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        let secs = |v: &str, open: u64| -> Result<u64, String> {
            let v = v.trim();
            if v.is_empty() {
                return Ok(open);
            }
            let bad = || format!("time: {v:?} is not a time in seconds");
            let (whole, frac) = v.split_once('.').unwrap_or((v, ""));
            if frac.len() > 9 || !frac.bytes().all(|b| b.is_ascii_digit()) {
                return Err(bad());
            }
            let whole: u64 = whole.parse().map_err(|_| bad())?;
            let frac: u64 = format!("{frac:0<9}").parse().map_err(|_| bad())?;
            whole.checked_mul(1_000_000_000).and_then(|n| n.checked_add(frac)).ok_or_else(bad)
        };
        let (a, b) = s.split_once(',').unwrap_or((s, ""));
        Ok(TimeRange { start: secs(a, 0)?, end: secs(b, u64::MAX)? })
    }
}

/// A keyword's value among `choices` (`-` and `_` alike), or an error listing them.
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
pub use fold::FoldRequest;

#[cfg(feature = "symbolize")]
mod fold {
    use super::{choose, TimeRange};
    use crate::folded::{Compat, EventFilter, FoldedOptions, Root, Unknown, Weight};
    use crate::symbolize::SymbolizeOptions;
    use std::str::FromStr;

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
        /// Only samples in this time range.
        pub time: Option<TimeRange>,
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
            o.time = self.time.map(|t| t.bounds());
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
    }

    #[cfg(feature = "symbolize")]
    #[test]
    fn keywords_parse_and_errors_list_the_choices() {
        use crate::folded::{Compat, Root, Weight};
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
