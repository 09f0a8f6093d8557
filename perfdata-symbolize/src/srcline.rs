//! Source lines, as perf 6.1 prints them under each callchain frame for `perf script -F +srcline`
//! (util/srcline.c, `map__fprintf_srcline` in util/map.c, `sample__fprintf_callchain` in
//! util/evsel_fprintf.c). Opt-in: nothing here runs unless a source line is asked for.
//!
//! perf (built without libbfd, as Debian's) asks `addr2line -i -f -e FILE` about the frame's
//! address, FILE being the file its symbols came from (`dso__name`: never the kernel, a JIT map
//! or a `[…]` module without such a file), and keeps the first record's `FILE:LINE`:
//!
//! * found: the file name's last component and the line, `spin.c:31`; binutils prints `?` for a
//!   line 0, and without a line-table row it names the `STT_FILE` symbol before the function's
//!   symbol (`_dl_start_user` in ld.so: an empty name, so `:0`);
//! * `??:0` (nothing known): the module's short name and the address asked about,
//!   `taskset[2b48]`, `[kernel.kallsyms][ffffffff81b9764c]`;
//! * `??:?` (a function but no file): `??:0`, which perf then does not print at all;
//! * a frame without a map: nothing.
//!
//! A frame perf replaced by its inline list (`--inline`, frames it unwinds from the stack dump)
//! prints, for each function of the list, that record's `FILE:LINE` (the call site for the
//! callers), `??:0` included ([`super::Symbolizer::inline_srclines`]).
//!
//! The records are binutils 2.40's (Debian 12's addr2line, which perf 6.1 runs there), computed
//! by [`super::inline::DebugInfo::addr2line`] with the addr2line crate plus binutils' own rules
//! (its DWARF 5 file numbering, its symbol-table fallback). Checked once against that addr2line
//! on every 61st byte of libc from `.plt` through `.rodata` (25,382 addresses, Debian's
//! libc6-dbg), every 7th of ld.so's code and every byte of spin's: the same records at every
//! code address but one, whose binutils answer depends on the address asked before it (a fresh
//! addr2line gives ours); two `.rodata` addresses differ.
//!
//! Left out: perf asks addr2line about the module's path itself when it found no symbol file
//! (even outside `--symfs`), and binutils then follows `.gnu_debuglink` on its own; we answer
//! `module[addr]`. perf stops asking addr2line about a module after 123 failures in a row before
//! any success (the printed text is the same either way).

use std::fmt;
use std::rc::Rc;

use super::inline::Record;

/// The source position of a frame, as perf prints it (`Display`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum SrcLine {
    /// From the debug info: the source file's name (its last path component; perf's default, no
    /// `--full-source-path`) and the line, 0 when the debug info has none. Printed `file:line`.
    File {
        /// File name.
        file: Rc<str>,
        /// Line number (0: unknown).
        line: u32,
    },
    /// No source position: the module's short name (`libc.so.6`, `[kernel.kallsyms]`,
    /// `[JIT] tid PID`) and the address perf looked up (the ELF virtual address for a file, the
    /// address itself for the kernel). Printed `module[addr]`, the address in hex.
    Address {
        /// perf's short name of the module.
        module: Rc<str>,
        /// The address looked up.
        addr: u64,
    },
}

impl SrcLine {
    /// perf's reading of an addr2line record (`filename_split` + `srcline_from_fileline`): the
    /// `FILE:LINE` text cut at its first `:`, the file part reduced to its last component.
    pub fn from_record(r: &Record) -> SrcLine {
        let path = r.file.as_deref().unwrap_or("??");
        let (path, line) = match path.split_once(':') {
            // strtoul() of what follows the first colon (the rest of the path, then the line).
            Some((p, rest)) => (p, leading_number(rest)),
            None => (path, r.line),
        };
        let file = path.rsplit('/').next().unwrap_or(path);
        SrcLine::File { file: Rc::from(file), line }
    }

    /// The text is `??:0`, which perf does not print under a frame of its own
    /// (`map__fprintf_srcline`; it does under the frames of an inline list).
    pub fn is_unknown(&self) -> bool {
        matches!(self, SrcLine::File { file, line: 0 } if &**file == "??")
    }
}

/// The decimal number at the start of `s` (C's `strtoul`, for the digits addr2line prints).
fn leading_number(s: &str) -> u32 {
    let s = s.trim_start();
    s.bytes().take_while(u8::is_ascii_digit).fold(0u32, |n, d| n.saturating_mul(10).saturating_add(u32::from(d - b'0')))
}

impl fmt::Display for SrcLine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SrcLine::File { file, line } => write!(f, "{file}:{line}"),
            SrcLine::Address { module, addr } => write!(f, "{module}[{addr:x}]"),
        }
    }
}

/// perf's short name of a module (`dso__set_basename`): `[JIT] tid PID` for a
/// `/tmp/perf-PID.map`, else the last component of the path (C's `basename`).
pub fn short_name(filename: &str) -> String {
    if let Some(rest) = filename.strip_prefix("/tmp/perf-") {
        let digits = rest.strip_prefix('-').unwrap_or(rest);
        let n = digits.bytes().take_while(u8::is_ascii_digit).count();
        if n > 0 {
            let end = n + rest.len() - digits.len();
            return format!("[JIT] tid {}", rest.get(..end).unwrap_or(rest));
        }
    }
    let trimmed = filename.trim_end_matches('/');
    if trimmed.is_empty() {
        return if filename.is_empty() { String::new() } else { "/".to_string() };
    }
    trimmed.rsplit('/').next().unwrap_or(trimmed).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(file: Option<&str>, line: u32) -> Record {
        Record { function: "f".into(), file: file.map(String::from), line }
    }

    #[test]
    fn like_perf() {
        let s = SrcLine::from_record(&rec(Some("./elf/../sysdeps/unix/sysv/linux/dl-sysdep.c"), 143));
        assert_eq!(s.to_string(), "dl-sysdep.c:143");
        // binutils `:?` (an empty STT_FILE name, no line) and `??:?`.
        assert_eq!(SrcLine::from_record(&rec(Some(""), 0)).to_string(), ":0");
        let unknown = SrcLine::from_record(&rec(None, 0));
        assert!(unknown.is_unknown() && unknown.to_string() == "??:0");
        assert!(!SrcLine::from_record(&rec(None, 3)).is_unknown());
        // perf cuts `FILE:LINE` at the first colon.
        assert_eq!(SrcLine::from_record(&rec(Some("/a/b:c/x.c"), 9)).to_string(), "b:0");
        assert_eq!(SrcLine::from_record(&rec(Some("/a/b:12x/x.c"), 9)).to_string(), "b:12");
        let a = SrcLine::Address { module: "taskset".into(), addr: 0x2b48 };
        assert_eq!(a.to_string(), "taskset[2b48]");
    }

    #[test]
    fn short_names() {
        assert_eq!(short_name("/usr/lib/x86_64-linux-gnu/libc.so.6"), "libc.so.6");
        assert_eq!(short_name("[vdso]"), "[vdso]");
        assert_eq!(short_name("//anon"), "anon");
        assert_eq!(short_name("/tmp/perf-17554.map"), "[JIT] tid 17554");
        assert_eq!(short_name("/tmp/perf-x.map"), "perf-x.map");
        assert_eq!(short_name("/"), "/");
    }
}
