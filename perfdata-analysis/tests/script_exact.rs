//! The last exactness items of `perfdata script` and folded (issue 35), each against perf 6.1's
//! (or stackcollapse-perf.pl's) output stored in testdata/script-rec (its README.md, record.sh):
//! * a page fault's `addr` named as a data symbol (`sym+off (dso)`, perf's `print_sample_addr`);
//! * `-F` fields perf refuses on a recording that lacks their data, refused with perf's message,
//!   and those perf prints nothing (or `ilen: 0`) for, printed as perf prints them;
//! * a callchain without frames: perf script's sample line and a blank line, folded by
//!   stackcollapse-perf.pl to a bare `comm COUNT` line.

use std::path::PathBuf;

use perfdata_analysis::folded::{folded, Compat, FoldedOptions};
use perfdata_analysis::script::{write_script_with, ScriptOptions};
use perfdata_core::PerfFile;
use perfdata_symbolize::SymbolizeOptions;

fn rec_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../testdata/script-rec")
}

fn symbolize() -> SymbolizeOptions {
    let td = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../testdata");
    SymbolizeOptions {
        symfs: Some(rec_dir().join("root")),
        buildid_dir: Some(td.join("folded/no-buildid-cache")),
        kallsyms: Some(rec_dir().join("kallsyms-48dc540c8b76393804ca8088dbfa7d42911a9444")),
        ignore_jitdump: true,
        ..SymbolizeOptions::default()
    }
}

/// `perfdata script -F fields` on testdata/script-rec/`name`: its output, or the refusal.
fn script(name: &str, fields: &[&str]) -> Result<Vec<u8>, String> {
    let opts = ScriptOptions {
        fields: fields.iter().map(|f| f.to_string()).collect(),
        symbolize: symbolize(),
        ..ScriptOptions::default()
    };
    let f = PerfFile::open(rec_dir().join(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
    let mut out = Vec::new();
    write_script_with(&f, &opts, &mut out, &mut |_| {}).map_err(|e| e.to_string())?;
    Ok(out)
}

fn assert_same(ours: &[u8], want: &[u8], what: &str) {
    if ours == want {
        return;
    }
    let (o, w) = (String::from_utf8_lossy(ours), String::from_utf8_lossy(want));
    for (i, (a, b)) in o.lines().zip(w.lines()).enumerate().filter(|(_, (a, b))| a != b).take(5) {
        eprintln!("line {}:\n  perf: {b}\n  ours: {a}", i + 1);
    }
    panic!("{what}: {} lines, perf printed {}", o.lines().count(), w.lines().count());
}

/// pf-mem.data (`perf record -d … -e page-faults`): perf names `addr` after the symbol and the
/// map that hold it — a data object (`_rtld_global`, `_DYNAMIC`), a mapping without symbols
/// (`[unknown] (//anon)`, `([stack])`, `(/etc/ld.so.cache)`), a kernel sample's fault on a user
/// address in the user map — with `+0x…` when `symoff` is printed and its ` (dso)` when `dso` is.
#[test]
fn page_fault_addr_is_a_data_symbol() {
    for (suffix, fields) in [
        ("script-mem", "comm,tid,time,event,ip,sym,dso,addr,phys_addr,data_page_size,weight"),
        ("script-addr", "+addr"),
        ("script-ip-sym-addr", "ip,sym,addr"),
        ("script-ip-addr-dso", "ip,addr,dso"),
    ] {
        let want = std::fs::read(rec_dir().join(format!("pf-mem.data.{suffix}"))).unwrap();
        let ours = script("pf-mem.data", &[fields]).unwrap();
        assert_same(&ours, &want, suffix);
    }
    // The old behaviour printed the bare address: the stored output names data symbols.
    let want = std::fs::read_to_string(rec_dir().join("pf-mem.data.script-ip-sym-addr")).unwrap();
    assert!(want.contains(" _DYNAMIC") && want.contains(" [unknown]"));
}

/// Fields a page-fault recording cannot fill: perf 6.1 refuses some (exit 255, these messages)
/// and prints nothing for others (`insnlen`: the instruction length of a sample that has none).
#[test]
fn fields_without_data_are_refused_or_printed_as_perf_does() {
    for (field, msg) in [
        (
            "brstackinsn",
            "Display of branch stack assembler requested, but non all-branch filter set\nHint: run 'perf record -b ...'",
        ),
        ("brstackinsnlen", "Display of branch stack assembler requested, but non all-branch filter set"),
        ("tod", "Can't provide 'tod' time, missing clock data. Please record with -k/--clockid option."),
        ("iregs", "Samples for 'page-faults' event do not have IREGS attribute set. Cannot print 'iregs' field."),
        ("uregs", "Samples for 'page-faults' event do not have UREGS attribute set. Cannot print 'uregs' field."),
    ] {
        let err = script("pf-mem.data", &[&format!("ip,{field}")]).expect_err(field);
        assert!(err.starts_with(msg), "{field}: {err}");
    }
    // `perf script -F ip,X -i pf-mem.data` printed the ip alone for these (no branch stack, no
    // decoded instruction, no guest), and `ip ilen: 0` for insnlen.
    let ips: Vec<String> =
        String::from_utf8(script("pf-mem.data", &["ip"]).unwrap()).unwrap().lines().map(str::to_string).collect();
    assert_eq!(ips.len(), 20);
    for field in ["brstack", "brstacksym", "brstackoff", "insn", "ipc", "synth", "machine_pid", "vcpu"] {
        let text = String::from_utf8(script("pf-mem.data", &[&format!("ip,{field}")]).unwrap()).unwrap();
        assert_eq!(text.lines().collect::<Vec<_>>(), ips, "{field}");
    }
    let text = String::from_utf8(script("pf-mem.data", &["ip,insnlen"]).unwrap()).unwrap();
    let want: Vec<String> = ips.iter().map(|l| format!("{l} ilen: 0")).collect();
    assert_eq!(text.lines().collect::<Vec<_>>(), want);
    // A field perf prints but perfdata does not: refused, saying so (never an empty column).
    for field in ["misc", "flags", "srccode", "callindent", "metric"] {
        let err = script("pf-mem.data", &[&format!("ip,{field}")]).expect_err(field);
        assert!(err.contains(&format!("the '{field}' field is not supported")), "{field}: {err}");
    }
}

/// emptychain.data (`-e cpu-clock:u -g --kernel-callchains`): every callchain is empty. perf
/// script prints a sample line and a blank line each; stackcollapse-perf.pl keeps them as
/// `comm COUNT` (period-weighted), stackcollapse.py as `comm COUNT` (samples).
#[test]
fn empty_callchains_fold_to_bare_comm_lines() {
    let want = std::fs::read(rec_dir().join("emptychain.data.script")).unwrap();
    assert_same(&script("emptychain.data", &[]).unwrap(), &want, "emptychain.data.script");
    let file = PerfFile::open(rec_dir().join("emptychain.data")).unwrap();
    for (compat, suffix) in
        [(Compat::StackcollapsePl, "folded-stackcollapse-pl"), (Compat::PerfScriptPy, "folded-perf-script-py")]
    {
        let opts = FoldedOptions { symbolize: symbolize(), ..FoldedOptions::compat(compat) };
        let ours = folded(&file, &opts).unwrap().to_folded_string();
        let want = std::fs::read_to_string(rec_dir().join(format!("emptychain.data.{suffix}"))).unwrap();
        assert_eq!(ours, want, "{suffix}");
        assert!(!want.is_empty() && want.lines().all(|l| !l.contains(';')), "{suffix}: bare comm lines");
    }
}

/// `-F ip,brstack`, `-F brstack,dso` and the same with `brstacksym` and `brstackoff` on the
/// corpus's branch-stack recordings (../shared/corpus, used when present) equal perf's stored
/// output (testdata/corpus-perf/generate.sh): entries `0xFROM/0xTO/P|M|-/X|-/A|-/CYCLES/TYPE`,
/// each address followed by `(dso)` with `dso`, found in the sample's space first (an old
/// recording's kernel map covers user addresses); `brstacksym` names the ends (`[unknown]`: the
/// recordings' binaries and kernels are not here), `brstackoff` makes them relative to their
/// maps (the kernel's too, which starts where its MMAP record put it).
#[test]
fn brstack_equals_perf_on_the_corpus() {
    let td = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../testdata");
    let corpus = td.join("../../shared/corpus/quipper");
    if !corpus.is_dir() {
        eprintln!("NOTE: {} absent: brstack not compared", corpus.display());
        return;
    }
    let names = [
        "perf.data.branch-4.14",
        "perf.data.branch_stack_hw_index",
        "perf.data.branch_stack_spec",
        "perf.data.callgraph_and_branch-3.8",
        "perf.data.raw_callgraph_branch-3.4",
    ];
    for name in names {
        let f = PerfFile::open(corpus.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
        for (suffix, fields) in [
            ("script-brstack", "ip,brstack"),
            ("script-brstack-dso", "brstack,dso"),
            ("script-brstacksym", "ip,brstacksym"),
            ("script-brstacksym-dso", "brstacksym,dso"),
            ("script-brstackoff", "ip,brstackoff"),
            ("script-brstackoff-dso", "brstackoff,dso"),
        ] {
            let stored = std::fs::read(td.join(format!("corpus-perf/quipper/{name}.{suffix}.zst"))).unwrap();
            let want = zstd::decode_all(&stored[..]).unwrap();
            // perf's symbols: none of these recordings' binaries or kernels are on this machine
            // (the brstacksym/brstackoff outputs were made with an empty --symfs).
            let opts = ScriptOptions { fields: vec![fields.into()], ..ScriptOptions::default() };
            let mut out = Vec::new();
            write_script_with(&f, &opts, &mut out, &mut |_| {}).unwrap();
            assert!(String::from_utf8_lossy(&want).contains("/P/-/-/"), "{name} -F {fields}: entries");
            assert_same(&out, &want, &format!("{name} -F {fields}"));
        }
    }
}

/// testdata/script-rec/brstack.data (fp.data with branch stacks made from each sample's callchain,
/// make-brstack.py): `-F ip,brstacksym`, `-F brstacksym,dso`, `-F ip,brstackoff` and
/// `-F brstackoff,dso` equal perf 6.1's output (gen-brstack.sh, with ../lib.sh's fixture build-id
/// cache), where the ends have names: spin's (`outer+0x37`), libc's, the kernel's
/// (`clear_page_erms+0x7`), `[unknown]` outside every map. brstackoff prints a user file's
/// addresses relative to its map until perf has loaded its symbols (spin's, from the first sample's
/// ip, and libc's, once `ip` prints callchains through it), as recorded after.
#[test]
fn brstacksym_and_brstackoff_equal_perf_on_a_recording_with_names() {
    let td = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../testdata");
    // perf's build-id cache held bin/spin; folded/root holds the other files it held.
    let cache = std::env::temp_dir().join(format!("perfdata-brstack-{}", std::process::id()));
    let spin = cache.join(".build-id/40/19a4393ac48b472730234207e7f39e5272adc9");
    std::fs::create_dir_all(&spin).unwrap();
    std::fs::copy(td.join("bin/spin"), spin.join("elf")).unwrap();
    let symbolize = SymbolizeOptions {
        symfs: Some(td.join("folded/root")),
        buildid_dir: Some(cache.clone()),
        kallsyms: Some(td.join("kmod/kallsyms")),
        ignore_jitdump: true,
        ..SymbolizeOptions::default()
    };
    let f = PerfFile::open(rec_dir().join("brstack.data")).unwrap();
    let mut result = Ok(());
    for (suffix, fields) in [
        ("script-brstacksym", "ip,brstacksym"),
        ("script-brstacksym-dso", "brstacksym,dso"),
        ("script-brstackoff", "ip,brstackoff"),
        ("script-brstackoff-dso", "brstackoff,dso"),
    ] {
        let stored = std::fs::read(rec_dir().join(format!("brstack.data.{suffix}.zst"))).unwrap();
        let want = zstd::decode_all(&stored[..]).unwrap();
        let opts =
            ScriptOptions { fields: vec![fields.into()], symbolize: symbolize.clone(), ..ScriptOptions::default() };
        let mut out = Vec::new();
        write_script_with(&f, &opts, &mut out, &mut |_| {}).unwrap();
        let text = String::from_utf8_lossy(&want);
        if fields.starts_with("brstacksym") {
            assert!(text.contains("outer+0x37") && text.contains("leaf+0x20"), "{suffix}: names");
            assert!(text.contains("clear_page_erms+0x7"), "{suffix}: kernel names");
        }
        if fields == "brstackoff,dso" {
            // Both forms of a user address: relative to its map, and as recorded once loaded.
            assert!(text.contains(" 0x2724a(/usr/lib/x86_64-linux-gnu/libc.so.6)/"), "{suffix}: map-relative");
            assert!(text.contains(" 0x5645c8c342d7(/work/main/testdata/bin/spin)/"), "{suffix}: as recorded");
        }
        if result.is_ok() {
            result = std::panic::catch_unwind(|| assert_same(&out, &want, &format!("brstack.data -F {fields}")));
        }
    }
    let _ = std::fs::remove_dir_all(&cache);
    if let Err(e) = result {
        std::panic::resume_unwind(e);
    }
}
