//! Every input the fuzzers ever broke (`fuzz/regressions/<target>/`) replayed through the code of
//! every fuzz target — the target that found it first. The targets' bodies are `fuzz/src/lib.rs`,
//! included here as a module, so this runs exactly what the fuzzer ran (whole-file reading in both
//! orders, tracepoint rendering, header summary, folded stacks, feature parsers, the writer, the
//! symbol parsers).

#[path = "../../perfdata-core/tests/common/mod.rs"]
mod common;

#[path = "../../fuzz/src/lib.rs"]
#[allow(dead_code)]
mod fuzz;

#[test]
fn fuzz_regressions_read_cleanly() {
    let dir = common::repo().join("fuzz/regressions");
    let mut n = 0;
    let mut dirs: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
    dirs.sort();
    for d in dirs {
        let target = d.file_name().unwrap().to_string_lossy().into_owned();
        assert!(d.is_dir() && fuzz::TARGETS.contains(&target.as_str()), "{}: not a target's directory", d.display());
        let mut files: Vec<_> = std::fs::read_dir(&d).unwrap().map(|e| e.unwrap().path()).collect();
        files.sort();
        for f in files {
            let data = std::fs::read(&f).unwrap();
            n += 1;
            assert!(fuzz::run(&target, &data));
            for other in fuzz::TARGETS.iter().filter(|t| **t != target) {
                fuzz::run(other, &data);
            }
        }
    }
    assert!(n >= 4, "only {n} regression inputs");
}
