//! Files with the legacy "PERFFILE" magic (perf's `__perf_magic1`), made here from a committed
//! recording: its magic replaced and its attrs cut to a size perf knew when that magic was current
//! (the attr sizes perf accepts with it: `V1_ATTR_SIZES`). perf 6.1 read each made file; what it
//! printed is stored in `testdata/legacy-magic/` (its README says how), and we must deliver the same
//! samples and feature bits. Set `LEGACY_MAGIC_OUT=DIR` to write the made files into DIR.

mod common;

use perfdata_core::header::{feature, FileHeader, MAGIC_V1, V1_ATTR_SIZES};
use perfdata_core::record::RecordKind;
use perfdata_core::write::write_file;
use perfdata_core::{Endian, Error, Format, Order, PerfFile};
use serde_json::Value;
use std::path::PathBuf;

/// Rewrite the perf.data file `v2` (either byte order) with the legacy magic, its attrs cut to
/// `attr_bytes` (their `size` field set to it) and `attr_size` set to `attr_bytes + 16`. The
/// entries are rewritten in place; the rest of the old attr area stays as an unused gap, so every
/// other offset stays valid.
fn to_v1(v2: &[u8], attr_bytes: usize) -> Vec<u8> {
    let h = FileHeader::parse(v2).unwrap();
    let e = h.endian;
    let (old, new) = (h.attr_size as usize, attr_bytes + 16);
    let n = h.attrs.size as usize / old;
    let at = h.attrs.offset as usize;
    let mut entries = Vec::new();
    for i in 0..n {
        let entry = &v2[at + i * old..at + (i + 1) * old];
        let mut attr = entry[..attr_bytes].to_vec();
        let mut size = Vec::new();
        e.put_u32(&mut size, attr_bytes as u32);
        attr[4..8].copy_from_slice(&size);
        entries.extend_from_slice(&attr);
        entries.extend_from_slice(&entry[old - 16..]);
    }
    let mut out = v2.to_vec();
    out[at..at + entries.len()].copy_from_slice(&entries);
    out[..8].copy_from_slice(MAGIC_V1);
    put_u64(&mut out, 16, e, new as u64);
    put_u64(&mut out, 32, e, (n * new) as u64);
    out
}

fn put_u64(out: &mut [u8], at: usize, e: Endian, v: u64) {
    let mut b = Vec::new();
    e.put_u64(&mut b, v);
    out[at..at + 8].copy_from_slice(&b);
}

fn clear_feature(out: &mut [u8], e: Endian, bit: u32) {
    let at = 72 + 8 * (bit / 64) as usize;
    let w = e.u64(&out[at..at + 8]) & !(1u64 << (bit % 64));
    put_u64(out, at, e, w);
}

/// The made files, by name: what perf 6.1 was run on.
fn made() -> Vec<(&'static str, Vec<u8>)> {
    let fp = std::fs::read(common::testdata().join("fp.data")).unwrap();
    let be = write_file(&PerfFile::from_bytes(&fp).unwrap(), Endian::Big).unwrap();
    let le72 = to_v1(&fp, 72);
    let be72 = to_v1(&be, 72);
    let mut be72_nohost = be72.clone();
    clear_feature(&mut be72_nohost, Endian::Big, feature::HOSTNAME);
    let mut le72_oldheader = le72.clone();
    put_u64(&mut le72_oldheader, 8, Endian::Little, 72);
    let mut pipe = std::fs::read(common::testdata().join("pipe.data")).unwrap();
    pipe[..8].copy_from_slice(MAGIC_V1);
    let files = vec![
        ("fp-v1-le72.data", le72),
        ("fp-v1-le104.data", to_v1(&fp, 104)),
        ("fp-v1-be72.data", be72),
        ("fp-v1-be72-nohostname.data", be72_nohost),
        ("fp-v1-le72-size72.data", le72_oldheader),
        ("pipe-v1.data", pipe),
    ];
    if let Some(dir) = std::env::var_os("LEGACY_MAGIC_OUT") {
        for (name, bytes) in &files {
            std::fs::write(PathBuf::from(&dir).join(name), bytes).unwrap();
        }
    }
    files
}

/// perf's stored output `name` (or `name.zst`) in `testdata/legacy-magic/`.
fn stored(name: &str) -> String {
    let p = common::testdata().join("legacy-magic").join(name);
    common::read_output(&p).unwrap_or_else(|| panic!("{} is missing", p.display()))
}

/// Records as JSON without their position, for comparing files whose layout differs.
fn records(file: &PerfFile<'_>) -> Vec<Value> {
    let mut recs = file.records(Order::File).unwrap();
    let mut out = Vec::new();
    while let Some(r) = recs.next_record() {
        let mut v = perfdata_core::json::record_json(&r.unwrap());
        for k in ["offset", "index", "file"] {
            v.as_object_mut().unwrap().remove(k);
        }
        out.push(v);
    }
    out
}

/// One line of `perf script -G -F pid,tid,time,period,ip`: pid, tid, time (as printed: seconds
/// with 6 decimals), period, ip.
type ScriptSample = (u32, u32, String, u64, u64);

fn parse_script(text: &str) -> Vec<ScriptSample> {
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|line| {
            // "   754/754    3094.536040:     100000  ffffffff81b9764c"
            let t: Vec<&str> = line.split_whitespace().collect();
            let (pid, tid) = t[0].split_once('/').unwrap();
            let time = t[1].trim_end_matches(':').to_string();
            (
                pid.parse().unwrap(),
                tid.parse().unwrap(),
                time,
                t[2].parse().unwrap(),
                u64::from_str_radix(t[3], 16).unwrap(),
            )
        })
        .collect()
}

/// Our samples in the shape of [`parse_script`], in time order as perf script prints them.
fn our_script(file: &PerfFile<'_>) -> Vec<ScriptSample> {
    let mut recs = file.records(Order::Time).unwrap();
    let mut out = Vec::new();
    while let Some(r) = recs.next_record() {
        let r = r.unwrap();
        if let RecordKind::Sample(s) = &r.kind {
            let t = s.time().unwrap();
            let period = s.period().unwrap_or(r.event.unwrap().attr.sample_period);
            let time = format!("{}.{:06}", t / 1_000_000_000, t % 1_000_000_000 / 1000);
            out.push((s.pid().unwrap(), s.tid().unwrap(), time, period, s.ip().unwrap()));
        }
    }
    out
}

/// perf's "# missing features:" line of `perf report --header-only`, as bits: the features perf
/// knows minus the missing ones.
fn perf_feature_bits(header: &str) -> Vec<u32> {
    let missing: Vec<&str> = header
        .lines()
        .find_map(|l| l.strip_prefix("# missing features:"))
        .map(|l| l.split_whitespace().collect())
        .unwrap_or_default();
    (feature::TRACING_DATA..=feature::PMU_CAPS).filter(|&b| !missing.contains(&feature::name(b).unwrap())).collect()
}

/// The feature bits perf names in its header dump (those below `PMU_CAPS`, the last perf 6.1 knows).
fn our_feature_bits(file: &PerfFile<'_>) -> Vec<u32> {
    file.feature_bits().into_iter().filter(|&b| b <= feature::PMU_CAPS).collect()
}

#[test]
fn legacy_files_read_as_perf_reads_them() {
    let fp_bytes = std::fs::read(common::testdata().join("fp.data")).unwrap();
    let fp = PerfFile::from_bytes(&fp_bytes).unwrap();
    let want_records = records(&fp);
    for (name, bytes) in made() {
        let f = PerfFile::from_bytes(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        let base = name.trim_end_matches(".data");
        let header = stored(&format!("{base}.header"));
        assert!(header.contains("# header version : 0"), "{name}: perf did not take it for a v1 header");
        // perf script printed the same for all five fp-v1 files (and for fp.data itself).
        let script = parse_script(&stored(if name.starts_with("pipe") { "pipe-v1.script" } else { "fp-v1.script" }));
        assert!(script.len() > 50, "{name}: {} samples in perf's output", script.len());
        assert_eq!(our_script(&f), script, "{name}: samples differ from perf script's");
        if name.starts_with("pipe") {
            assert_eq!(f.header().format, Format::Pipe, "{name}");
            assert_eq!(f.endian(), Endian::NATIVE, "{name}");
            continue;
        }
        let big = name.contains("-be");
        assert_eq!(f.endian(), if big { Endian::Big } else { Endian::Little }, "{name}");
        assert_eq!(our_feature_bits(&f), perf_feature_bits(&header), "{name}: feature bits");
        // The same events (but for the attr size) and records as the recording they were made from.
        let attr_bytes = if name.contains("104") { 104 } else { 72 };
        for (a, b) in f.events().iter().zip(fp.events()) {
            assert_eq!(a.attr.size, attr_bytes, "{name}");
            let mut attr = a.attr.clone();
            attr.size = b.attr.size;
            assert_eq!((&attr, &a.ids), (&b.attr, &b.ids), "{name}: event");
        }
        assert_eq!(f.events().len(), fp.events().len(), "{name}");
        assert_eq!(records(&f), want_records, "{name}: records");
    }
}

#[test]
fn feature_bits_follow_perf_for_a_cross_endian_legacy_file() {
    let files = made();
    let get = |n: &str| PerfFile::from_bytes(&files.iter().find(|f| f.0 == n).unwrap().1).unwrap().feature_bits();
    let fp_bytes = std::fs::read(common::testdata().join("fp.data")).unwrap();
    let fp = PerfFile::from_bytes(&fp_bytes).unwrap();
    assert_eq!(get("fp-v1-le72.data"), fp.feature_bits());
    // Without HOSTNAME in either reading of a byte-swapped bitmap, perf keeps BUILD_ID alone.
    // (On a big-endian machine the file is not byte-swapped and its bitmap is taken as it is.)
    let mut no_host = fp.feature_bits();
    no_host.retain(|&b| b != feature::HOSTNAME);
    let want = if Endian::NATIVE == Endian::Little { vec![feature::BUILD_ID] } else { no_host };
    assert_eq!(get("fp-v1-be72-nohostname.data"), want);
    // A header of the old 72-byte size has no feature bitmap.
    assert_eq!(get("fp-v1-le72-size72.data"), Vec::<u32>::new());
}

#[test]
fn legacy_attr_size_decides_the_byte_order() {
    let fp = std::fs::read(common::testdata().join("fp.data")).unwrap();
    for &size in &V1_ATTR_SIZES {
        let v1 = to_v1(&fp, size as usize - 16);
        assert_eq!(FileHeader::detect(&v1).unwrap(), (Endian::Little, 104), "attr_size {size}");
    }
    // Only the first 16 bytes (a stream's first read): the size field tells file from pipe.
    let le = to_v1(&fp, 72);
    assert_eq!(FileHeader::detect(&le[..16]).unwrap(), (Endian::Little, 104));
    let be = to_v1(&write_file(&PerfFile::from_bytes(&fp).unwrap(), Endian::Big).unwrap(), 72);
    assert_eq!(FileHeader::detect(&be[..16]).unwrap(), (Endian::Big, 104));
    assert_eq!(FileHeader::detect(&be).unwrap(), (Endian::Big, 104));
    // perf 6.1 refuses a legacy header with today's attrs ("incompatible file format"), so do we.
    let modern = to_v1(&fp, 128);
    match PerfFile::from_bytes(&modern) {
        Err(Error::Unsupported(m)) => assert_eq!(
            m,
            "a legacy 'PERFFILE' header whose attr_size (0x90 read in this machine's byte order) is not 80, 88, \
             96, 112 or 120 in either byte order, so its byte order cannot be told (perf refuses it too)"
                .replace("0x90", if Endian::NATIVE == Endian::Little { "0x90" } else { "0x9000000000000000" })
        ),
        other => panic!("attr_size 144 with the legacy magic: {:?}", other.map(|_| ())),
    };
}

#[test]
fn a_legacy_file_is_written_back_with_the_current_magic() {
    let fp = std::fs::read(common::testdata().join("fp.data")).unwrap();
    let v1 = to_v1(&fp, 72);
    let f = PerfFile::from_bytes(&v1).unwrap();
    let out = write_file(&f, Endian::Little).unwrap();
    assert_eq!(&out[..8], b"PERFILE2");
    let g = PerfFile::from_bytes(&out).unwrap();
    assert_eq!(g.header().attr_size, 88);
    assert_eq!(records(&g), records(&f));
}
