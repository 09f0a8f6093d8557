//! Symbol names as perf 6.1 demangles them (`symbol-elf.c`'s `demangle_sym`, without `-v`).
//!
//! perf (built without libbfd, as Debian's is) calls libiberty's `cplus_demangle(name,
//! DMGL_NO_OPTS)`. When that gives a name, perf strips a trailing legacy Rust hash it left
//! (`rust_is_mangled`/`rust_demangle_sym`); when it gives none, perf tries its OCaml demangler,
//! then its Java one. `cplus_demangle` in its default AUTO style tries libiberty's Rust
//! demangler (`rust-demangle.c`: v0 `_R…` names, legacy `_ZN…17h<hash>E` ones) and then its C++
//! one (`cp-demangle.c`, the g++ v3 ABI). Where the build found the system's libiberty (Debian's
//! `libiberty-dev`, the library perf links; see build.rs), those two are called as
//! `cplus_demangle` calls them, so the names are perf's by construction, including what they
//! refuse (a C++ name over 1024 bytes is past cp-demangle.c's recursion limit and stays
//! mangled). Without it, the pure-Rust `rustc-demangle` and `cpp_demangle` stand in, with
//! libiberty's choices where they have options for them; they differ from perf on a few names
//! (docs/demangling.md has the measured difference). perf's own three steps are written here
//! from what they do, and checked against perf itself (`perf probe -F` lists a binary's
//! functions as perf names them: tests/demangle.rs).

/// Which demangler this build uses: `libiberty (PATH)` (perf's names) or the pure-Rust fallback.
/// `perfdata --version` prints it.
pub const DEMANGLER: &str = env!("PERFDATA_DEMANGLER");

/// Whether this build demangles with libiberty, so its names are perf's exactly.
pub const DEMANGLES_LIKE_PERF: bool = cfg!(libiberty);

/// Demangle like perf's default (`DMGL_NO_OPTS`: C++ names without parameter lists, and so
/// without the return types of template functions; Rust names without the hash; OCaml and Java
/// names as perf spells them). Names that are not mangled come back unchanged.
pub fn demangle(name: &str) -> String {
    match cplus_demangle(name) {
        Some(d) => match rust_hash_left(&d) {
            Some(fixed) => fixed,
            None => d,
        },
        None => ocaml(name).or_else(|| java(name)).unwrap_or_else(|| name.to_string()),
    }
}

/// libiberty's `cplus_demangle(name, DMGL_NO_OPTS)` in its AUTO style: `rust_demangle`, then
/// `cplus_demangle_v3` (cplus-dem.c), through their callback forms (the same code without
/// the malloc'd result). `None` when neither demangles `name`, or when it holds a NUL (a C
/// string cannot; names read from ELF string tables never do).
#[cfg(libiberty)]
fn cplus_demangle(name: &str) -> Option<String> {
    use std::ffi::{c_char, c_int, c_void, CString};
    /// `demangle.h`'s `DMGL_AUTO`: the style bits `cplus_demangle` adds to perf's
    /// `DMGL_NO_OPTS` before calling the two (neither tests them; passed to be the same call).
    const DMGL_AUTO: c_int = 1 << 8;
    type Callback = extern "C" fn(*const c_char, usize, *mut c_void);
    extern "C" {
        fn rust_demangle_callback(mangled: *const c_char, options: c_int, cb: Callback, opaque: *mut c_void) -> c_int;
        fn cplus_demangle_v3_callback(
            mangled: *const c_char,
            options: c_int,
            cb: Callback,
            opaque: *mut c_void,
        ) -> c_int;
    }
    /// Appends each piece of output to the `Vec<u8>` behind `opaque`.
    extern "C" fn append(piece: *const c_char, len: usize, opaque: *mut c_void) {
        if piece.is_null() || opaque.is_null() {
            return;
        }
        // SAFETY: the demanglers pass `len` readable bytes at `piece` (their print buffer)
        // and our `opaque`, the `Vec<u8>` below, which nothing else touches meanwhile.
        let (out, piece) =
            unsafe { (&mut *opaque.cast::<Vec<u8>>(), std::slice::from_raw_parts(piece.cast::<u8>(), len)) };
        out.extend_from_slice(piece);
    }
    // Neither demangles anything else (rust_demangle_callback wants `_R` or `_ZN`,
    // d_demangle_callback `_Z` or `_GLOBAL_`, without DMGL_TYPES): no C string for the rest.
    if !(name.starts_with("_Z") || name.starts_with("_R") || name.starts_with("_GLOBAL_")) {
        return None;
    }
    let c = CString::new(name).ok()?;
    let mut out: Vec<u8> = Vec::with_capacity(name.len() * 2);
    for demangler in [rust_demangle_callback, cplus_demangle_v3_callback] {
        out.clear();
        // SAFETY: `c` is a NUL-terminated string alive across the call; the callback gets
        // `out` back as `opaque`. Both demanglers are reentrant (no state between calls),
        // read only `c`, and bound their stack use by their recursion limits.
        if unsafe { demangler(c.as_ptr(), DMGL_AUTO, append, (&raw mut out).cast()) } != 0 {
            return Some(utf8(out));
        }
    }
    None
}

/// What `cplus_demangle(name, DMGL_NO_OPTS)` gives, from the pure-Rust demanglers (a build
/// without libiberty): a Rust name (v0 `_R…`, or legacy `_ZN…E` ending in a `17h` hash, which
/// libiberty's Rust demangler requires) without its hash, else a C++ name without parameters
/// and return types. `None` when neither demangles `name`.
#[cfg(not(libiberty))]
fn cplus_demangle(name: &str) -> Option<String> {
    // libiberty's demanglers look at nothing else (without DMGL_TYPES).
    if !(name.starts_with("_Z") || name.starts_with("_R") || name.starts_with("_GLOBAL_")) {
        return None;
    }
    if name.starts_with("_R") || is_legacy_rust(name) {
        if let Ok(d) = rustc_demangle::try_demangle(name) {
            // `{:#}` leaves out the hash (legacy) and the crate disambiguators (v0), as
            // libiberty does without DMGL_VERBOSE.
            return Some(format!("{d:#}"));
        }
    }
    // A C++ name ends where libiberty stops reading without DMGL_PARAMS: at a `@` version.
    let cxx = name.split('@').next().unwrap_or(name);
    let symbol = cpp_demangle::Symbol::new(cxx).ok()?;
    let options = cpp_demangle::DemangleOptions::new().no_params().no_return_type();
    let name = symbol.demangle_with_options(&options).ok()?;
    // cpp_demangle prints an empty trailing pack as `, >` (`Run<Phase, >`), libiberty prints
    // nothing (`Run<Phase>`); no template argument is ever empty, so the text cannot mean more.
    Some(if name.contains(", >") { name.replace(", >", ">") } else { name })
}

/// A legacy Rust name as libiberty's Rust demangler takes it: `_ZN…E` whose last component is
/// `17h` and 16 hex digits.
#[cfg(not(libiberty))]
fn is_legacy_rust(name: &str) -> bool {
    let Some(body) = name.strip_prefix("_ZN").and_then(|b| b.strip_suffix('E')) else {
        return false;
    };
    body.len() >= 19
        && body
            .get(body.len() - 19..)
            .is_some_and(|h| h.starts_with("17h") && h.bytes().skip(3).all(|c| c.is_ascii_hexdigit()))
}

/// The bytes as a `String`: a demangler copies input bytes, and a length prefix or an escape
/// can cut or make a UTF-8 sequence that is not one (perf prints the bytes; we replace them).
fn utf8(bytes: Vec<u8>) -> String {
    String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// The escapes of legacy Rust names that perf decodes (`demangle-rust.c`), by what they stand for.
const RUST_ESCAPES: [(&[u8], u8); 13] = [
    (b"$C$", b','),
    (b"$SP$", b'@'),
    (b"$BP$", b'*'),
    (b"$RF$", b'&'),
    (b"$LT$", b'<'),
    (b"$GT$", b'>'),
    (b"$LP$", b'('),
    (b"$RP$", b')'),
    (b"$u20$", b' '),
    (b"$u27$", b'\''),
    (b"$u5b$", b'['),
    (b"$u5d$", b']'),
    (b"$u7e$", b'~'),
];

/// perf's `rust_is_mangled` + `rust_demangle_sym` on what `cplus_demangle` gave: a name that
/// still ends in `::h` + 16 lowercase hex digits using 5 to 15 distinct digits (a legacy Rust
/// hash libiberty's Rust demangler left, e.g. after the C++ one took the name), before which
/// only `[A-Za-z0-9_:.]`, no `...` and the escapes above occur, loses the hash and has its
/// escapes decoded, `..` read as `::`, `.` as `-`, and a `_` that starts a path component
/// before an escape dropped. `None` when the rule does not apply.
fn rust_hash_left(d: &str) -> Option<String> {
    let b = d.as_bytes();
    let split = b.len().checked_sub(19).filter(|&s| s > 0)?;
    let (head, tail) = b.split_at(split);
    let hash = tail.strip_prefix(b"::h")?;
    let mut seen = 0u16;
    for &c in hash {
        let digit = match c {
            b'0'..=b'9' => c - b'0',
            b'a'..=b'f' => c - b'a' + 10,
            _ => return None,
        };
        seen |= 1 << digit;
    }
    if !(5..=15).contains(&seen.count_ones()) {
        return None;
    }
    // The escape starting at `i`, looked for in the whole name as perf's strncmp does (one
    // cannot run into the hash: that holds no `$`).
    let escape = |i: usize| RUST_ESCAPES.iter().find(|(seq, _)| b.get(i..).is_some_and(|r| r.starts_with(seq)));
    let mut i = 0;
    while let Some(&c) = head.get(i) {
        match c {
            b'$' => i += escape(i)?.0.len(),
            b'.' if b.get(i..).is_some_and(|r| r.starts_with(b"...")) => return None,
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'_' | b':' | b'.' => i += 1,
            _ => return None,
        }
    }
    let mut out = Vec::with_capacity(split);
    let mut i = 0;
    while let Some(&c) = head.get(i) {
        match c {
            b'$' => match escape(i) {
                Some((seq, ch)) => {
                    out.push(*ch);
                    i += seq.len();
                }
                None => break,
            },
            b'_' if (i == 0 || head.get(i - 1) == Some(&b':')) && b.get(i + 1) == Some(&b'$') => i += 1,
            b'.' if b.get(i + 1) == Some(&b'.') => {
                out.extend_from_slice(b"::");
                i += 2;
            }
            b'.' => {
                out.push(b'-');
                i += 1;
            }
            _ => {
                out.push(c);
                i += 1;
            }
        }
    }
    Some(utf8(out))
}

/// Linux's `isupper` (tools/lib/ctype.c: ASCII and Latin-1 capitals).
fn linux_isupper(c: u8) -> bool {
    c.is_ascii_uppercase() || matches!(c, 0xc0..=0xd6 | 0xd8..=0xde)
}

/// Linux's `isalpha` (ASCII and Latin-1 letters).
fn linux_isalpha(c: u8) -> bool {
    c.is_ascii_alphabetic() || (c >= 0xc0 && c != 0xd7 && c != 0xf7)
}

/// perf's `ocaml_demangle_sym`: `caml` + a capital, then `__` is `.` and `$` + two hex digits
/// the byte they spell (`camlStdlib__array__map_154` is `Stdlib.array.map_154`).
fn ocaml(name: &str) -> Option<String> {
    let rest = name.strip_prefix("caml")?.as_bytes();
    if !rest.first().is_some_and(|&c| linux_isupper(c)) {
        return None;
    }
    let hex = |c: Option<&u8>| c.and_then(|&c| char::from(c).to_digit(16)).and_then(|d| u8::try_from(d).ok());
    let mut out = Vec::with_capacity(rest.len());
    let mut i = 0;
    while let Some(&c) = rest.get(i) {
        if c == b'_' && rest.get(i + 1) == Some(&b'_') {
            out.push(b'.');
            i += 2;
        } else if let (b'$', Some(hi), Some(lo)) = (c, hex(rest.get(i + 1)), hex(rest.get(i + 2))) {
            out.push(hi << 4 | lo);
            i += 3;
        } else {
            out.push(c);
            i += 1;
        }
    }
    Some(utf8(out))
}

/// Where perf's Java demangler is in a signature.
#[derive(Clone, Copy, PartialEq)]
enum JavaMode {
    /// Before the class (`L` starts it).
    Prefix,
    /// In the class name (`/` is `.`, `;` ends it).
    Class,
    /// In the method name (`(` starts the arguments).
    Func,
    /// Between argument types.
    Type,
    /// In an argument's class name.
    ClassType,
}

/// perf's `java_demangle_sym(name, JAVA_DEMANGLE_NORET)` (openJDK signatures, as perf's JVMTI
/// agent names JIT code): `Ljava/lang/String;hashCode()I` is `java.lang.String.hashCode()`,
/// argument types spelled out (`[B` is `byte[]`), the return type left out. `None` without a
/// `)`, or when a `(`, `)`, `[`, `;` or `/` is out of place. Like perf, the output stops at
/// three times the name's length.
fn java(name: &str) -> Option<String> {
    use JavaMode::*;
    let b = name.as_bytes();
    let end = b.iter().rposition(|&c| c == b')')? + 1;
    // perf's buffer holds 3 × strlen + 1 bytes, one of them the NUL.
    let cap = b.len().saturating_mul(3);
    let mut out: Vec<u8> = Vec::with_capacity(cap.min(4096));
    let push = |out: &mut Vec<u8>, s: &[u8]| {
        let room = cap.saturating_sub(out.len());
        out.extend_from_slice(s.get(..room.min(s.len())).unwrap_or(s));
    };
    let (mut mode, mut array, mut nargs) = (Prefix, 0usize, 0usize);
    for (i, &c) in b.iter().enumerate().take(end) {
        if out.len() >= cap {
            break;
        }
        match c {
            b'L' if mode == Prefix || mode == Type => {
                if mode == Type {
                    if nargs > 0 {
                        push(&mut out, b", ");
                    }
                    nargs += 1;
                }
                mode = if mode == Prefix { Class } else { ClassType };
            }
            b'B' | b'C' | b'D' | b'F' | b'I' | b'J' | b'S' | b'Z' | b'V' if mode == Type => {
                let base: &[u8] = match c {
                    b'B' => b"byte",
                    b'C' => b"char",
                    b'D' => b"double",
                    b'F' => b"float",
                    b'I' => b"int",
                    b'J' => b"long",
                    b'S' => b"short",
                    b'Z' => b"boolean",
                    _ => b"void",
                };
                if c != b'V' {
                    if nargs > 0 {
                        push(&mut out, b", ");
                    }
                    nargs += 1;
                }
                push(&mut out, base);
                for _ in 0..array {
                    push(&mut out, b"[]");
                }
                array = 0;
            }
            b'[' if mode == Type => array += 1,
            b'(' if mode == Func => {
                push(&mut out, b"(");
                mode = Type;
            }
            b')' if mode == Type => {
                push(&mut out, b")");
                nargs = 0;
            }
            b';' if mode == Class || mode == ClassType => {
                if mode == Class && b.get(i + 1).is_some_and(|&n| linux_isalpha(n)) {
                    push(&mut out, b".");
                }
                mode = if mode == Class { Func } else { Type };
            }
            b'/' if mode == Class || mode == ClassType => push(&mut out, b"."),
            b'[' | b'(' | b')' | b';' | b'/' => return None,
            _ => push(&mut out, &[c]),
        }
    }
    Some(utf8(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn perf_post_steps() {
        // What `perf probe -F` printed for these names (testdata/demangle/perf-names.tsv has
        // more, compared by tests/demangle.rs).
        for (mangled, want) in [
            ("camlStdlib__array__map_154", "Stdlib.array.map_154"),
            ("camlStdlib__bytes__$2b$2b_2205", "Stdlib.bytes.++_2205"),
            ("camlfoo__bar_1", "camlfoo__bar_1"),
            ("Ljava/lang/StringLatin1;equals([B[B)Z", "java.lang.StringLatin1.equals(byte[], byte[])"),
            ("Ljava/lang/Object;<init>()V", "java.lang.Object<init>()"),
            ("foo(bar)", "foo(bar)"),
            ("_ZN6a..b.c17h0123456789aaaaaaEv", "a::b-c"),
            ("_ZN3foo4$LT$17h0123456789aaaaaaEv", "foo::<"),
            ("_ZN3foo17h0123456789abcdefEv", "foo::h0123456789abcdef"),
        ] {
            assert_eq!(demangle(mangled), want, "{mangled}");
        }
    }
}
