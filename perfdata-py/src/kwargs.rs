//! Keyword values that several analyses take (`time=`, `cpu=`/`pid=`/`tid=` lists), converted to
//! the analysis crate's option types, and the errors of keyword arguments: each names the call, the
//! argument and what is accepted ([`unexpected_keyword`], [`unknown_value`], [`in_call`]).

use perfdata_analysis::options::TimeRange;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};

/// A CPU, pid or tid list: an int or a sequence of ints.
pub fn int_list(v: Option<&Bound<'_, PyAny>>, what: &str) -> PyResult<Option<Vec<u32>>> {
    let Some(v) = v.filter(|v| !v.is_none()) else { return Ok(None) };
    if let Ok(n) = v.extract::<u32>() {
        return Ok(Some(vec![n]));
    }
    if v.is_instance_of::<PyString>() {
        let s: String = v.extract()?;
        return perfdata_core::feature::topology::parse_cpu_list(&s)
            .filter(|l| l.iter().all(|&c| c >= 0))
            .map(|l| Some(l.into_iter().map(|c| c as u32).collect()))
            .ok_or_else(|| PyValueError::new_err(format!("bad {what} list {s:?} (like '0-3,7')")));
    }
    v.extract::<Vec<u32>>()
        .map(Some)
        .map_err(|_| PyTypeError::new_err(format!("{what} must be an int, a list of ints or a '0-3,7' string")))
}

/// `time=`: perf's "START,END" in seconds or a (start_ns, end_ns) tuple (None: open end).
pub fn time_value(v: Option<&Bound<'_, PyAny>>) -> PyResult<Option<TimeRange>> {
    let Some(v) = v.filter(|v| !v.is_none()) else { return Ok(None) };
    if v.is_instance_of::<PyString>() {
        let t: TimeRange = v.extract::<String>()?.parse().map_err(PyValueError::new_err)?;
        return Ok(Some(t));
    }
    if let Ok((a, b)) = v.extract::<(Option<u64>, Option<u64>)>() {
        return Ok(Some(TimeRange { start: a.unwrap_or(0), end: b.unwrap_or(u64::MAX) }));
    }
    Err(PyTypeError::new_err("time must be perf's 'START,END' in seconds or a (start_ns, end_ns) tuple"))
}

/// A str as Python's `repr` shows it: `'text'`.
pub fn py_repr(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('\'');
    for c in s.chars() {
        match c {
            '\'' => out.push_str("\\'"),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
    out.push('\'');
    out
}

/// `words` quoted and joined: `'a', 'b' or 'c'`.
pub fn one_of(words: &[&str]) -> String {
    let quoted: Vec<String> = words.iter().map(|w| py_repr(w)).collect();
    match quoted.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        _ => quoted.concat(),
    }
}

/// The start of the message of a keyword the call does not take (a TypeError), as Python words it
/// (`f() got an unexpected keyword argument 'x'`), without the call: [`in_call`] puts it in front.
const UNEXPECTED: &str = "got an unexpected keyword argument";

/// The TypeError of keyword `key`, which `call` does not take: `PerfData.folded() got an unexpected
/// keyword argument 'bogus'; accepted: addrs, all_events, …` (the accepted keywords sorted).
/// `call` may be empty: [`in_call`] adds it later.
pub fn unexpected_keyword(call: &str, key: &str, accepted: &[&str]) -> PyErr {
    let mut names: Vec<&str> = accepted.to_vec();
    names.sort_unstable();
    names.dedup();
    let message = format!("{UNEXPECTED} {}; accepted: {}", py_repr(key), names.join(", "));
    PyTypeError::new_err(if call.is_empty() { message } else { format!("{call} {message}") })
}

/// Reject the keywords of `kw` that are in none of the `accepted` lists ([`unexpected_keyword`]).
pub fn check_keywords(call: &str, kw: Option<&Bound<'_, PyDict>>, accepted: &[&[&str]]) -> PyResult<()> {
    for k in kw.iter().flat_map(|d| d.keys()) {
        let k: String = k.extract()?;
        if !accepted.iter().any(|list| list.contains(&k.as_str())) {
            return Err(unexpected_keyword(call, &k, &accepted.concat()));
        }
    }
    Ok(())
}

/// The ValueError of a value `arg` does not take: `{call}: unknown {arg} 'value'; accepted:
/// {accepted}` and, when not empty, what the argument means for this call. `call` may be empty:
/// [`in_call`] adds it later.
pub fn unknown_value(call: &str, arg: &str, value: &str, accepted: &str, meaning: &str) -> PyErr {
    let mut m = format!("unknown {arg} {}; accepted: {accepted}", py_repr(value));
    if !call.is_empty() {
        m = format!("{call}: {m}");
    }
    if !meaning.is_empty() {
        m.push_str(". ");
        m.push_str(meaning);
    }
    PyValueError::new_err(m)
}

/// What `compat=` means for the folded-stack calls (folded, flamegraph, report, …).
pub const FOLD_COMPAT_MEANING: &str = "For this call compat names the tool whose folded output is reproduced: \
     'stackcollapse-pl' (perf script | stackcollapse-perf.pl, the default) or 'perf-script-py' (perf script \
     report stackcollapse); the sched_* calls' compat names a perf version ('perf-6.1') instead";

/// What `compat=` means for the `sched_*` calls.
pub const SCHED_COMPAT_MEANING: &str = "For this call compat names the perf version whose output is \
     reproduced: None or 'modern' (the current perf) or 'perf-6.1'; folded()'s compat names an output tool \
     ('stackcollapse-pl', 'perf-script-py') instead";

/// An argument's TypeError or ValueError (exactly those types: a `PerfDataError` is a ValueError
/// about the file, not an argument) with `call` in front of its message, unless it is there:
/// `PerfData.folded(): root must be …`, `PerfData.folded() got an unexpected keyword argument …`.
pub fn in_call(py: Python<'_>, call: &str, err: PyErr) -> PyErr {
    let ty = err.get_type(py);
    let type_error = ty.is(py.get_type::<PyTypeError>());
    if !(type_error || ty.is(py.get_type::<PyValueError>())) {
        return err;
    }
    let message = err.value(py).to_string();
    if message.starts_with(call) {
        return err;
    }
    let message =
        if message.starts_with(UNEXPECTED) { format!("{call} {message}") } else { format!("{call}: {message}") };
    if type_error {
        PyTypeError::new_err(message)
    } else {
        PyValueError::new_err(message)
    }
}
