//! The pprof export decoded back (prost, the crate's own `proto` messages): a value column per
//! event with its unit, each column summing what `perfdata folded` weighs that event's samples,
//! the profile's period type and period from the recording, and the profiled program's mapping
//! first (id 1: what `go tool pprof` names in `File:`). perf's recordings say what to expect
//! (`perf evlist -v`: fp.data cpu-clock `-c 100000`; multi-g.data cpu-clock `-c 200000` and
//! page-faults `-c 20`; sysw.data cpu-clock:ppp at 999 Hz), as do the files the recordings
//! mapped (testdata/bin/spin, recorded as /work/main/testdata/bin/spin).
#![cfg(feature = "pprof")]

use std::io::Read;
use std::path::PathBuf;

use perfdata_analysis::export::pprof::{pprof, proto};
use perfdata_analysis::folded::{folded, Compat, EventFilter, FoldedOptions, Weight};
use perfdata_core::PerfFile;
use perfdata_symbolize::SymbolizeOptions;
use prost::Message;

fn testdata() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../testdata")
}

/// The folding options of the folded tests (symbols from testdata/folded).
fn options(compat: Compat) -> FoldedOptions {
    let dir = testdata().join("folded");
    FoldedOptions {
        symbolize: SymbolizeOptions {
            symfs: Some(dir.join("root")),
            buildid_dir: Some(dir.join("no-buildid-cache")),
            kallsyms: Some(dir.join("kallsyms-4a5a9b0affb66c437abcd455d2738af879985fa9")),
            ..Default::default()
        },
        ..FoldedOptions::compat(compat)
    }
}

/// The profile of `name` under `opts`, decoded.
fn profile(name: &str, opts: &FoldedOptions) -> proto::Profile {
    let file = PerfFile::open(testdata().join(name)).unwrap();
    let out = pprof(&file, opts).unwrap();
    let mut bytes = Vec::new();
    flate2::read::MultiGzDecoder::new(&out.gzipped[..]).read_to_end(&mut bytes).unwrap();
    proto::Profile::decode(&bytes[..]).unwrap()
}

/// The sum of `perfdata folded`'s weights under `opts`.
fn folded_total(name: &str, opts: &FoldedOptions) -> i64 {
    let file = PerfFile::open(testdata().join(name)).unwrap();
    let text = folded(&file, opts).unwrap().to_folded_string();
    text.lines().map(|l| l.rsplit_once(' ').unwrap().1.parse::<i64>().unwrap()).sum()
}

fn s(p: &proto::Profile, i: i64) -> &str {
    &p.string_table[i as usize]
}

/// `type/unit` of each sample type.
fn types(p: &proto::Profile) -> Vec<String> {
    p.sample_type.iter().map(|t| format!("{}/{}", s(p, t.r#type), s(p, t.unit))).collect()
}

fn column_sum(p: &proto::Profile, column: usize) -> i64 {
    p.sample.iter().map(|x| x.value[column]).sum()
}

/// The first mapping: id 1, the program's file.
fn main_file(p: &proto::Profile) -> &str {
    assert_eq!(p.mapping[0].id, 1);
    let mut ids: Vec<u64> = p.mapping.iter().map(|m| m.id).collect();
    ids.sort_unstable();
    assert_eq!(ids, (1..=p.mapping.len() as u64).collect::<Vec<_>>(), "ids 1..=n");
    s(p, p.mapping[0].filename)
}

/// Every location's mapping is one of the profile's.
fn locations_have_mappings(p: &proto::Profile) {
    let n = p.mapping.len() as u64;
    assert!(p.location.iter().all(|l| l.mapping_id <= n));
    // The program's mapping holds locations (the renumbering moved them along).
    assert!(p.location.iter().any(|l| l.mapping_id == 1));
    for l in p.location.iter().filter(|l| l.mapping_id != 0) {
        let m = &p.mapping[p.mapping.iter().position(|m| m.id == l.mapping_id).unwrap()];
        let kernel = s(p, m.filename).starts_with('[');
        assert!(kernel || (m.memory_start..m.memory_limit).contains(&l.address), "{l:?} in {m:?}");
    }
}

#[test]
fn every_event_by_default_with_units_and_folded_sums() {
    let name = "multi-g.data";
    for compat in [Compat::StackcollapsePl, Compat::PerfScriptPy] {
        let p = profile(name, &options(compat));
        assert_eq!(types(&p), ["samples/count", "cpu-clock/nanoseconds", "page-faults/period=20//count"]);
        for (column, event) in [(1, "cpu-clock"), (2, "page-faults/period=20/")] {
            let o = FoldedOptions {
                event_filter: EventFilter::Name(event.into()),
                weight: Weight::Period,
                ..options(compat)
            };
            assert_eq!(column_sum(&p, column), folded_total(name, &o), "{event} periods");
        }
        let all = FoldedOptions { event_filter: EventFilter::All, weight: Weight::Samples, ..options(compat) };
        assert_eq!(column_sum(&p, 0), folded_total(name, &all), "sample counts");
        // Fixed periods (-c): the first event's.
        let pt = p.period_type.unwrap();
        assert_eq!((s(&p, pt.r#type), s(&p, pt.unit), p.period), ("cpu-clock", "nanoseconds", 200_000));
        assert_eq!(s(&p, p.default_sample_type), "cpu-clock");
        assert_eq!(main_file(&p), "/work/main/testdata/bin/spin");
        locations_have_mappings(&p);
    }
    // --all-events says the same.
    let all = FoldedOptions { event_filter: EventFilter::All, ..options(Compat::StackcollapsePl) };
    assert_eq!(types(&profile(name, &all)).len(), 3);
}

#[test]
fn one_event_when_named() {
    let o = FoldedOptions {
        event_filter: EventFilter::Name("page-faults/period=20/".into()),
        ..options(Compat::StackcollapsePl)
    };
    let p = profile("multi-g.data", &o);
    assert_eq!(types(&p), ["samples/count", "page-faults/period=20//count"]);
    let pt = p.period_type.unwrap();
    assert_eq!((s(&p, pt.r#type), s(&p, pt.unit), p.period), ("page-faults/period=20/", "count", 20));
    let folded = FoldedOptions { weight: Weight::Period, ..o };
    assert_eq!(column_sum(&p, 1), folded_total("multi-g.data", &folded));
}

#[test]
fn fixed_period_and_the_program_first() {
    let p = profile("fp.data", &options(Compat::StackcollapsePl));
    assert_eq!(types(&p), ["samples/count", "cpu-clock/nanoseconds"]);
    let pt = p.period_type.unwrap();
    assert_eq!((s(&p, pt.r#type), s(&p, pt.unit), p.period), ("cpu-clock", "nanoseconds", 100_000));
    assert_eq!(main_file(&p), "/work/main/testdata/bin/spin");
    locations_have_mappings(&p);
}

/// Frequency mode (`-F 999`): the period is the mean of the first event's sample periods.
#[test]
fn frequency_mode_period_is_the_mean() {
    let o = options(Compat::StackcollapsePl);
    let p = profile("sysw.data", &o);
    let pt = p.period_type.unwrap();
    assert_eq!((s(&p, pt.r#type), s(&p, pt.unit)), ("cpu-clock:ppp", "nanoseconds"));
    let (samples, periods) = (column_sum(&p, 0), column_sum(&p, 1));
    assert_eq!(p.period, (periods + samples / 2) / samples);
    // About 1 s / 999.
    assert!((900_000..1_100_000).contains(&p.period), "{}", p.period);
    // A system-wide recording: the program is a file, not the kernel nor a library.
    let main = main_file(&p);
    assert!(main.starts_with('/') && !main.contains(".so"), "{main}");
    locations_have_mappings(&p);
}
