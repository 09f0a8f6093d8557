//! `--call-graph dwarf` recordings of static binaries from KDAB perfparser's tests (testdata/peer,
//! GPL-3.0, see SOURCES.md). Their binaries have `.eh_frame` but no `.eh_frame_hdr`: perf 6.1's
//! libunwind looks only there on x86_64 and stops at the leaf frame; perfparser (elfutils) unwinds
//! them whole. `--plain-unwind` unwinds as perfparser does: every sample's frames equal those of
//! perfparser's `perf.data.expected.txt` (its inlined frames left out: `--no-inline`), with the
//! binaries reduced to their symbols and CFI (code zeroed) under `--symfs`.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

fn peer(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../testdata/peer").join(name)
}

fn unzstd(name: &str) -> Vec<u8> {
    zstd::stream::decode_all(&std::fs::read(peer(name)).unwrap()[..]).unwrap()
}

fn run(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_perfdata")).args(args).output().unwrap();
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

/// perfparser's frames of each sample by (tid, time in ns): the symbol names, leaf first, kernel
/// frames (no symbol) and inlined frames left out.
fn perfparser_frames(text: &str) -> HashMap<(u64, u64), Vec<String>> {
    let mut out = HashMap::new();
    let mut cur: Option<((u64, u64), Vec<String>)> = None;
    for line in text.lines() {
        if !line.starts_with('\t') && !line.is_empty() {
            out.extend(cur.take());
            // comm	pid	tid	seconds.nanoseconds
            let f: Vec<&str> = line.split('\t').collect();
            let (s, ns) = f[3].split_once('.').unwrap();
            let time = s.parse::<u64>().unwrap() * 1_000_000_000 + ns.parse::<u64>().unwrap();
            cur = Some(((f[2].parse().unwrap(), time), Vec::new()));
            continue;
        }
        let Some((_, frames)) = cur.as_mut() else { continue };
        // …\tSTART SIZE\tNAME BINARY /PATH [(inlined)]
        let last = line.rsplit('\t').next().unwrap();
        let inlined = last.ends_with(" (inlined)");
        let last = last.trim_end_matches(" (inlined)").trim_end();
        let mut parts = last.rsplitn(3, ' ');
        let (Some(path), Some(_bin), Some(name)) = (parts.next(), parts.next(), parts.next()) else { continue };
        if path.starts_with('/') && !inlined {
            frames.push(name.to_string());
        }
    }
    out.extend(cur);
    out
}

/// Every `.symtab` name of an ELF64 little-endian file with its value: perfparser (elfutils) and
/// perf pick different names among aliases at one address (`__hypot_finite` / `__ieee754_hypot`).
fn symbol_values(elf: &[u8]) -> HashMap<String, u64> {
    let u16_at = |o: usize| u16::from_le_bytes(elf[o..o + 2].try_into().unwrap()) as usize;
    let u32_at = |o: usize| u32::from_le_bytes(elf[o..o + 4].try_into().unwrap()) as usize;
    let u64_at = |o: usize| u64::from_le_bytes(elf[o..o + 8].try_into().unwrap());
    let (shoff, shentsize, shnum) = (u64_at(0x28) as usize, u16_at(0x3a), u16_at(0x3c));
    let sec = |i: usize| {
        let h = shoff + i * shentsize;
        (u32_at(h + 4), u64_at(h + 0x18) as usize, u64_at(h + 0x20) as usize, u32_at(h + 0x28))
    };
    let mut out = HashMap::new();
    for i in 0..shnum {
        let (ty, off, size, link) = sec(i);
        if ty != 2 {
            continue; // SHT_SYMTAB
        }
        let (_, stroff, _, _) = sec(link);
        for e in (off..off + size).step_by(24) {
            let name_at = stroff + u32_at(e);
            let end = elf[name_at..].iter().position(|&b| b == 0).unwrap();
            let name = String::from_utf8_lossy(&elf[name_at..name_at + end]).into_owned();
            out.entry(name).or_insert(u64_at(e + 8));
        }
    }
    out
}

/// A C++ name as perf demangles it (no parameters, `{lambda()#1}`) and as perfparser does
/// (parameters, `<lambda()>`): the same function when the scope before the first `<` or `(` and
/// the last component (parameters cut) agree.
fn cxx_same(ours: &str, theirs: &str) -> bool {
    if !theirs.contains('(') && !theirs.contains('<') {
        return false;
    }
    let head = |s: &str| s.split(['<', '(']).next().unwrap_or("").to_string();
    let tail = |s: &str| {
        let s = s.strip_suffix(" const").unwrap_or(s);
        // Cut a trailing parameter list, then take what follows the last `::`.
        let s = match s.rfind('(').filter(|_| s.ends_with(')')) {
            Some(i) if i > 0 && !s[..i].ends_with("::") => &s[..i],
            _ => s,
        };
        s.rsplit("::").next().unwrap_or("").to_string()
    };
    head(ours) == head(theirs) && tail(ours) == tail(theirs)
}

fn check(name: &str, binary: &str) -> usize {
    let dir = std::env::temp_dir().join(format!("perfdata-perfparser-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let data = dir.join(name);
    let bytes = std::fs::read(peer(name)).unwrap_or_else(|_| unzstd(&format!("{name}.zst")));
    std::fs::write(&data, bytes).unwrap();
    let data = data.to_str().unwrap();
    // The binary goes under the symfs root at the path it was mapped from.
    let mapped = run(&["dump", "--json", data])
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .find_map(|v| v["filename"].as_str().filter(|f| f.ends_with(&format!("/{binary}"))).map(str::to_string))
        .unwrap();
    let root = dir.join("symfs");
    let target = root.join(Path::new(&mapped).strip_prefix("/").unwrap());
    std::fs::create_dir_all(target.parent().unwrap()).unwrap();
    let elf = unzstd(&format!("{name}.{binary}.zst"));
    let values = symbol_values(&elf);
    std::fs::write(&target, elf).unwrap();
    let root = root.to_str().unwrap();
    let want = perfparser_frames(&String::from_utf8(unzstd(&format!("{name}.perfparser-expected.zst"))).unwrap());
    let samples = || {
        let args = [
            "dump",
            "--json",
            "--symbolize",
            "--compat",
            "perf-script-py",
            "--kernel",
            "--no-inline",
            "--plain-unwind",
        ];
        let mut args = args.to_vec();
        args.extend(["--symfs", root, data]);
        let mut v = Vec::new();
        for line in run(&args).lines() {
            let j: serde_json::Value = serde_json::from_str(line).unwrap();
            if j["type"] != "SAMPLE" {
                continue;
            }
            let frames: Vec<String> = j["frames"]
                .as_array()
                .map(|a| {
                    a.iter().filter_map(|f| f.as_str()).filter(|f| !f.ends_with("_[k]")).map(String::from).collect()
                })
                .unwrap_or_default();
            v.push(((j["tid"].as_u64().unwrap(), j["time"].as_u64().unwrap()), frames));
        }
        v
    };
    let mut compared = 0;
    let mut deep = 0;
    let mut plt = 0;
    for (key, ours) in samples() {
        let theirs = want.get(&key).unwrap_or_else(|| panic!("{name}: sample {key:?} not in perfparser's output"));
        // perfparser prints C++ names with their parameters, ours are perf's (without); of
        // aliases at one address it may pick another.
        let alias = |o: &str, t: &str| values.get(o).is_some_and(|v| values.get(t) == Some(v));
        // perfparser names an address no symbol covers `<.plt+ADDR>`; perf (and we) give it the
        // symbol before it (`_init`, which perf extends over the PLT): counted, pinned below.
        let placeholders = theirs.iter().filter(|t| t.starts_with("<.plt+")).count();
        plt += placeholders;
        let alias = |o: &str, t: &str| alias(o, t) || (t.starts_with("<.plt+") && o == "_init");
        let same =
            ours.len() == theirs.len() && ours.iter().zip(theirs).all(|(o, t)| o == t || cxx_same(o, t) || alias(o, t));
        let same = same
            || (ours.len() == theirs.len()
                && ours.iter().zip(theirs).all(|(o, t)| {
                    o == t || (t.contains('(') && t.contains(o.as_str())) || cxx_same(o, t) || alias(o, t)
                }));
        assert!(same, "{name}: sample {key:?}\n ours:       {ours:?}\n perfparser: {theirs:?}");
        compared += 1;
        deep += usize::from(ours.len() > 1);
    }
    assert_eq!(compared, want.len(), "{name}: samples");
    assert!(deep >= 30, "{name}: only {deep} of {compared} samples unwound past the leaf");
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(plt, usize::from(name == "vector_static_clang.data"), "{name}: frames perfparser names <.plt+…>");
    compared
}

#[test]
fn static_binaries_unwind_as_perfparser() {
    let n = check("vector_static_gcc.data", "vector_static_gcc_v9.1.0")
        + check("vector_static_clang.data", "vector_static_clang_v8.0.1")
        + check("fork_static_gcc.data", "fork")
        + check("parallel_static_gcc.data", "parallel_static_gcc");
    assert!(n >= 200, "{n} samples");
}
