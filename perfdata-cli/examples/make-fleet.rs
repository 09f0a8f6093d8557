//! A generated fleet for the dataset tests and bench/fleet.sh: `make-fleet TESTDATA OUT N` writes
//! N recordings made from committed recordings by perfdata's writer (`write_file_edited`) with the
//! HOSTNAME feature rewritten (`host00`…`host09`) and the file's modification time (what perf
//! prints as "captured on", the dataset's `date=` partition) set to a day of 2026-11-01…07, plus
//! three damaged files (`damaged-truncated.data`: fp.data cut in the middle of its data section,
//! `damaged-corrupt.data`: quickstart.data with 64 bytes of 0xff in the middle of its records,
//! `damaged-notperf.data`: text). Prints one line per file: `PATH SOURCE HOST DATE` (`-` for
//! the damaged ones).

use perfdata_core::header::feature as bit;
use perfdata_core::write::{header_string, write_file_edited, Edit};
use perfdata_core::{Endian, PerfFile};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// The committed recordings the fleet is made of (file format, with samples; their perf
/// `perf report --stats` output is `testdata/NAME.stats`).
pub const SOURCES: &[&str] = &[
    "fp.data",
    "multi.data",
    "multi-g.data",
    "cgroup.data",
    "python.data",
    "group.data",
    "clock-mono.data",
    "syscalls.data",
    "mem.data",
    "switch-ns.data",
];

/// One generated recording.
#[derive(Clone, Debug)]
pub struct Member {
    /// Its path.
    pub path: PathBuf,
    /// The committed recording it was made from (`fp.data`).
    pub source: &'static str,
    /// Its HOSTNAME.
    pub host: String,
    /// Its modification time, Unix seconds.
    pub mtime: u64,
}

/// The generated fleet.
#[derive(Clone, Debug)]
pub struct Fleet {
    /// The good recordings.
    pub members: Vec<Member>,
    /// The damaged files: (path, source or "").
    pub damaged: Vec<(PathBuf, &'static str)>,
}

/// Rewrites HOSTNAME, and appends an argument to CMDLINE (`--fleet-member=I`) so that no two
/// members have the same bytes (the dataset skips a recording whose content it has).
struct Edits {
    host: String,
    index: usize,
    cmdline_seen: bool,
}

impl Edit for Edits {
    fn feature(&mut self, b: u32, payload: &mut Vec<u8>) {
        if b == bit::HOSTNAME {
            payload.clear();
            header_string(&self.host, Endian::Little, payload);
        } else if b == bit::CMDLINE {
            // u32 nr, then nr strings.
            if let Some(nr) = payload.get_mut(..4) {
                let n = u32::from_le_bytes([nr[0], nr[1], nr[2], nr[3]]) + 1;
                nr.copy_from_slice(&n.to_le_bytes());
                header_string(&format!("--fleet-member={}", self.index), Endian::Little, payload);
                self.cmdline_seen = true;
            }
        }
    }
}

/// 2026-11-01 00:00 UTC.
const BASE: u64 = 1_793_491_200;

/// Write recordings `start..start + n` and the damaged files into `out` (created).
pub fn generate(testdata: &Path, out: &Path, start: usize, n: usize) -> Result<Fleet, Box<dyn std::error::Error>> {
    std::fs::create_dir_all(out)?;
    let mut sources = Vec::new();
    for s in SOURCES {
        sources.push((*s, PerfFile::open(testdata.join(s))?));
    }
    let mut members = Vec::with_capacity(n);
    for i in start..start + n {
        // Sources rotate more slowly than hosts: each host gets every source.
        let (source, file) = &sources[(i / 10 + i) % sources.len()];
        let host = format!("host{:02}", i % 10);
        let mut edit = Edits { host: host.clone(), index: i, cmdline_seen: false };
        let bytes = write_file_edited(file, Endian::Little, &mut edit)?;
        if !edit.cmdline_seen {
            return Err(format!("{source} has no CMDLINE feature").into());
        }
        let path = out.join(format!("{host}-{i:05}.data"));
        std::fs::write(&path, &bytes)?;
        // A day per 10 files, 7 days, and a minute per file inside it.
        let mtime = BASE + ((i / 10) % 7) as u64 * 86_400 + (i % 1440) as u64 * 60;
        std::fs::File::options().write(true).open(&path)?.set_modified(UNIX_EPOCH + Duration::from_secs(mtime))?;
        members.push(Member { path, source, host, mtime });
    }
    let mut damaged = Vec::new();
    let fp = std::fs::read(testdata.join("fp.data"))?;
    let f = PerfFile::open(testdata.join("fp.data"))?;
    let data = f.header().data;
    let cut = usize::try_from(data.offset + data.size / 2)?;
    let p = out.join("damaged-truncated.data");
    std::fs::write(&p, fp.get(..cut).ok_or("fp.data is shorter than its header says")?)?;
    damaged.push((p, "fp.data"));
    let mut q = std::fs::read(testdata.join("quickstart.data"))?;
    let f = PerfFile::open(testdata.join("quickstart.data"))?;
    let mid = usize::try_from(f.header().data.offset + f.header().data.size / 2)?;
    q.get_mut(mid..mid + 64).ok_or("quickstart.data is short")?.fill(0xff);
    let p = out.join("damaged-corrupt.data");
    std::fs::write(&p, &q)?;
    damaged.push((p, "quickstart.data"));
    let p = out.join("damaged-notperf.data");
    std::fs::write(&p, "this is not a perf.data file\n".repeat(100))?;
    damaged.push((p, ""));
    for (p, _) in &damaged {
        std::fs::File::options()
            .write(true)
            .open(p)?
            .set_modified(SystemTime::UNIX_EPOCH + Duration::from_secs(BASE))?;
    }
    Ok(Fleet { members, damaged })
}

#[allow(dead_code)]
fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let [_, testdata, out, n] = args.as_slice() else {
        return Err("usage: make-fleet TESTDATA OUT N".into());
    };
    let fleet = generate(Path::new(testdata), Path::new(out), 0, n.parse()?)?;
    for m in &fleet.members {
        let date = perfdata_analysis::export::dataset::utc_date(m.mtime as i64);
        println!("{} {} {} {date}", m.path.display(), m.source, m.host);
    }
    for (p, s) in &fleet.damaged {
        println!("{} {} - -", p.display(), if s.is_empty() { "-" } else { s });
    }
    Ok(())
}
