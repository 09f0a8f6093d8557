//! perf-compatible frame names: the tidying and annotations stackcollapse-perf.pl (inferno) and
//! stackcollapse.py apply to the names perf script prints, and `--srcline`'s source lines.

use perfdata_symbolize::SrcLine;

use crate::options::FoldedOptions;

/// inferno's `tidy_generic` of `name`, into `out` (emptied first): `;` → `:`, and the argument
/// list cut at the first `(` at bracket depth 0 that does not open a Go method (`pkg.(*T).m`) or
/// `(anonymous namespace)`.
pub(super) fn tidy_generic_into(name: &str, out: &mut String) {
    // `;` becomes `:`, which changes no position the scan looks at.
    let mut depth = 0i64;
    let mut after_dot = None;
    let mut end = name.len();
    // Bytes, not chars: every byte looked at is ASCII, which no byte of a longer UTF-8 sequence is.
    for (i, &c) in name.as_bytes().iter().enumerate() {
        match c {
            b'<' | b'{' | b'[' => depth += 1,
            b'>' | b'}' | b']' | b')' => depth -= 1,
            b'(' => {
                let anonymous = name.as_bytes().get(i..).is_some_and(|r| r.starts_with(b"(anonymous namespace)"));
                if depth == 0 && after_dot != Some(i) && !anonymous {
                    end = i;
                    break;
                }
                depth += 1;
            }
            b'.' => after_dot = Some(i + 1),
            _ => {}
        }
    }
    semicolons_to_colons(name.get(..end).unwrap_or(name), out);
}

/// `name` with each `;` (the folded format's separator) written as `:`, into `out` (emptied first).
pub(super) fn semicolons_to_colons(name: &str, out: &mut String) {
    out.clear();
    // Rare: a name with a `;` pays for a copy.
    if name.as_bytes().contains(&b';') {
        out.push_str(&name.replace(';', ":"));
    } else {
        out.push_str(name);
    }
}

/// inferno's `fix_partially_demangled_rust_symbol`: a name still ending in a legacy Rust hash
/// (`…17h0123456789abcdefE` demangled only halfway, e.g. `_$LT$T$u20$as$u20$Tr$GT$::f::h0123…`).
pub(super) fn fix_partially_demangled_rust(name: &str) -> Option<String> {
    let cut = name.len().checked_sub(17)?;
    let digits = name.get(cut..)?.strip_prefix('h')?;
    if !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    let mut rest = name.get(..cut)?;
    rest = rest.strip_suffix("::").unwrap_or(rest);
    if rest.starts_with("_$") {
        rest = rest.get(1..)?;
    }
    const CODES: &[(&str, &str)] = &[
        ("$SP$", "@"),
        ("$BP$", "*"),
        ("$RF$", "&"),
        ("$LT$", "<"),
        ("$GT$", ">"),
        ("$LP$", "("),
        ("$RP$", ")"),
        ("$C$", ","),
        ("$u7e$", "~"),
        ("$u20$", " "),
        ("$u27$", "'"),
        ("$u3d$", "="),
        ("$u5b$", "["),
        ("$u5d$", "]"),
        ("$u7b$", "{"),
        ("$u7d$", "}"),
        ("$u3b$", ";"),
        ("$u2b$", "+"),
        ("$u21$", "!"),
        ("$u22$", "\""),
    ];
    let mut out = String::with_capacity(rest.len());
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix("..") {
            out.push_str("::");
            rest = r;
        } else if let Some(r) = rest.strip_prefix('.') {
            out.push('.');
            rest = r;
        } else if rest.starts_with('$') {
            match CODES.iter().find_map(|(code, s)| Some((rest.strip_prefix(code)?, s))) {
                Some((r, s)) => {
                    out.push_str(s);
                    rest = r;
                }
                None => {
                    out.push_str(rest);
                    break;
                }
            }
        } else {
            let (word, r) = rest.split_at(rest.find(['$', '.']).unwrap_or(rest.len()));
            out.push_str(word);
            rest = r;
        }
    }
    Some(out)
}

/// inferno's `is_kernel` on perf script's module column.
fn is_kernel_module(dso: &str) -> bool {
    let base = dso.rsplit('/').next().unwrap_or(dso);
    (dso.starts_with('[') || dso.ends_with(".ko") || base.starts_with("vmlinux")) && dso != "[unknown]"
}

fn is_jit_module(dso: &str) -> bool {
    (dso.starts_with("/tmp/perf-") && dso.ends_with(".map")) || (dso.contains("/jitted-") && dso.ends_with(".so"))
}

/// stackcollapse-perf.pl `--srcline`: the source line perf printed under a frame, without its
/// `[…]` parts (each `[` to the next `]`) and surrounding blanks, appended after a `:` unless
/// nothing is left of it.
pub(super) fn append_srcline(s: &mut String, line: Option<&SrcLine>) {
    let Some(line) = line else { return };
    let text = line.to_string();
    let mut kept = String::with_capacity(text.len());
    let mut rest = text.as_str();
    while let Some((before, after)) = rest.split_once('[') {
        let Some((_, next)) = after.split_once(']') else { break };
        kept.push_str(before);
        rest = next;
    }
    kept.push_str(rest);
    let kept = kept.trim();
    if !kept.is_empty() {
        s.push(':');
        s.push_str(kept);
    }
}

/// `_[k]` / `_[j]` as the compat tool decides them.
pub(super) fn annotate(o: &FoldedOptions, pl: bool, dso: &str, s: &mut String) {
    if o.annotate_kernel && (if pl { is_kernel_module(dso) } else { dso == "[kernel.kallsyms]" }) {
        s.push_str("_[k]");
    } else if o.annotate_jit && is_jit_module(dso) && !s.contains("_[j]") {
        s.push_str("_[j]");
    }
}

/// stackcollapse-perf.pl / inferno `tidy_java` (only for comms starting with `java`).
pub(super) fn tidy_java_pl(mut s: String, comm_is_java: bool) -> String {
    if comm_is_java && s.starts_with('L') && s.contains('/') {
        s.remove(0);
    }
    s
}

/// stackcollapse.py `--tidy-java`: `<>` removed, a leading `L` stripped, cut at `(`.
pub(super) fn tidy_java_py(s: &str) -> String {
    let s: String = s.chars().filter(|c| *c != '<' && *c != '>').collect();
    let s = s.strip_prefix('L').unwrap_or(&s);
    s.split('(').next().unwrap_or(s).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tidy_generic(name: &str) -> String {
        let mut s = String::new();
        tidy_generic_into(name, &mut s);
        s
    }

    #[test]
    fn tidy_like_inferno() {
        assert_eq!(tidy_generic("foo(int, char)"), "foo");
        assert_eq!(tidy_generic("a;b"), "a:b");
        assert_eq!(tidy_generic("std::vector<int (*)(int)>::push_back(int)"), "std::vector<int (*)(int)>::push_back");
        assert_eq!(tidy_generic("net/http.(*Client).Do"), "net/http.(*Client).Do");
        assert_eq!(tidy_generic("(anonymous namespace)::f(int)"), "(anonymous namespace)::f");
        assert_eq!(
            tidy_generic("arrow::(anonymous namespace)::DefaultBackend"),
            "arrow::(anonymous namespace)::DefaultBackend"
        );
        assert_eq!(tidy_generic("{lambda(int)#1}::operator()"), "{lambda(int)#1}::operator");
    }

    #[test]
    fn partially_demangled_rust() {
        assert_eq!(
            fix_partially_demangled_rust("_$LT$foo..Bar$u20$as$u20$baz..Qux$GT$::f::h0123456789abcdef").as_deref(),
            Some("<foo::Bar as baz::Qux>::f")
        );
        assert_eq!(fix_partially_demangled_rust("main"), None);
    }

    #[test]
    fn srclines_like_stackcollapse_pl() {
        let with = |line: SrcLine| {
            let mut s = "f".to_string();
            append_srcline(&mut s, Some(&line));
            s
        };
        assert_eq!(with(SrcLine::File { file: "spin.c".into(), line: 31 }), "f:spin.c:31");
        assert_eq!(with(SrcLine::File { file: "".into(), line: 0 }), "f::0");
        assert_eq!(with(SrcLine::Address { module: "taskset".into(), addr: 0x2b48 }), "f:taskset");
        assert_eq!(with(SrcLine::Address { module: "[kernel.kallsyms]".into(), addr: 1 }), "f");
        assert_eq!(with(SrcLine::Address { module: "[JIT] tid 7".into(), addr: 1 }), "f:tid 7");
        assert_eq!(with(SrcLine::File { file: "a[1].c".into(), line: 2 }), "f:a.c:2");
        assert_eq!(with(SrcLine::File { file: "a[1.c".into(), line: 2 }), "f:a[1.c:2");
    }

    #[test]
    fn modules() {
        assert!(is_kernel_module("[kernel.kallsyms]") && is_kernel_module("[vdso]") && is_kernel_module("x.ko"));
        assert!(is_kernel_module("/boot/vmlinux-6.1") && !is_kernel_module("[unknown]"));
        assert!(!is_kernel_module("/usr/lib/libc.so.6"));
        assert!(is_jit_module("/tmp/perf-12.map") && is_jit_module("/x/jitted-12-3.so"));
    }
}
