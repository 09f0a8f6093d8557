//! debuginfod: with `DEBUGINFOD_URLS` naming a real server (elfutils' `debuginfod`, serving a
//! directory of fp.data's binaries on 127.0.0.1), fp.data is named on a "machine" without those
//! binaries exactly as perf's stored outputs name it; the files land in elfutils' cache layout and
//! a second run needs no server. A dead server, a server without the file and a server answering
//! garbage or too much leave the frames unnamed with a message, quickly.
//!
//! The `debuginfod` binary (Debian's package of that name) is required: without it these tests
//! fail, unless `PERFDATA_SKIP_DEBUGINFOD=1` says to skip them.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

mod common;
use common::{report_rows as rows, stored, testdata};

const SPIN: &str = "4019a4393ac48b472730234207e7f39e5272adc9";
const LD: &str = "7ebc65e52f2bbea498b4040fa92f7238377aaba9";
const KALLSYMS: &str = "folded/kallsyms-4a5a9b0affb66c437abcd455d2738af879985fa9";

/// The files of testdata/folded/root that fp.data names by build id (spin, ld.so, their debug
/// files, the vDSO): served by debuginfod, missing from the other machine.
const SERVED: [&str; 5] = [
    "work/main/testdata/bin/spin",
    "usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2",
    "usr/lib/debug/.build-id/40/19a4393ac48b472730234207e7f39e5272adc9.debug",
    "usr/lib/debug/.build-id/7e/bc65e52f2bbea498b4040fa92f7238377aaba9.debug",
    "[vdso]",
];

/// Whether the tests can run: the `debuginfod` binary, else a failure unless skipping is asked.
fn have_debuginfod() -> bool {
    if Command::new("debuginfod").arg("--version").output().is_ok_and(|o| o.status.success()) {
        return true;
    }
    if std::env::var_os("PERFDATA_SKIP_DEBUGINFOD").is_some_and(|v| v == "1") {
        eprintln!("debuginfod not installed: skipped (PERFDATA_SKIP_DEBUGINFOD=1)");
        return false;
    }
    panic!(
        "these tests need elfutils' `debuginfod` (apt-get install debuginfod); PERFDATA_SKIP_DEBUGINFOD=1 skips them"
    );
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_tree(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), &target).unwrap();
        }
    }
}

/// A fresh directory for one test: `symfs` (testdata/folded/root without [`SERVED`]), `served`
/// (those files), `home`, `empty`.
fn scratch(name: &str) -> PathBuf {
    let d = common::scratch("debuginfod", name, &["home", "empty", "served"]);
    copy_tree(&testdata("folded/root"), &d.join("symfs"));
    for (i, f) in SERVED.iter().enumerate() {
        std::fs::rename(d.join("symfs").join(f), d.join("served").join(format!("{i}-{}", f.replace('/', "_"))))
            .unwrap();
    }
    d
}

/// A free TCP port on 127.0.0.1.
fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// A minimal HTTP/1.0 GET: the status, or `None` when nothing answers.
fn status(port: u16, path: &str) -> Option<u16> {
    let mut s = TcpStream::connect(("127.0.0.1", port)).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    write!(s, "GET {path} HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n").ok()?;
    let mut head = [0u8; 12];
    s.read_exact(&mut head).ok()?;
    std::str::from_utf8(&head[9..12]).ok()?.parse().ok()
}

/// `debuginfod` serving `dir` on 127.0.0.1, once it has scanned `ready` (a build id it serves).
struct Server {
    child: Child,
    port: u16,
}

impl Server {
    fn start(dir: &Path, db: &Path, ready: Option<&str>) -> Server {
        let port = free_port();
        let child = Command::new("debuginfod")
            .args(["-F", "-p", &port.to_string(), "-d"])
            .arg(db)
            .args(["-t", "0", "-g", "0", "-c", "1"])
            .arg(dir)
            .env("HOME", dir.parent().unwrap().join("home"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let server = Server { child, port };
        let deadline = Instant::now() + Duration::from_secs(60);
        let path = match ready {
            Some(bid) => format!("/buildid/{bid}/executable"),
            None => "/metrics".to_string(),
        };
        while status(port, &path) != Some(200) {
            assert!(Instant::now() < deadline, "debuginfod on port {port} did not serve {path} within 60 s");
            std::thread::sleep(Duration::from_millis(200));
        }
        server
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `perfdata CMD fp.data ARGS` on the other machine, asking `urls` with the cache `cache`.
fn perfdata(cmd: &str, args: &[&str], dir: &Path, urls: &str, cache: &Path, extra: &[(&str, &str)]) -> Output {
    let data = testdata("fp.data");
    let kallsyms = testdata(KALLSYMS);
    let symfs = dir.join("symfs");
    let empty = dir.join("empty");
    let mut c = Command::new(env!("CARGO_BIN_EXE_perfdata"));
    c.arg(cmd).arg(&data).arg("--symfs").arg(&symfs).arg("--buildid-dir").arg(&empty);
    c.arg("--kallsyms").arg(&kallsyms).args(args);
    c.env("HOME", dir.join("home"))
        .env("XDG_CACHE_HOME", dir.join("xdg"))
        .env_remove("PERF_BUILDID_DIR")
        .env_remove("DEBUGINFOD_TIMEOUT")
        .env_remove("DEBUGINFOD_MAXSIZE")
        .env("DEBUGINFOD_URLS", urls)
        .env("DEBUGINFOD_CACHE_PATH", cache);
    for (k, v) in extra {
        c.env(k, v);
    }
    c.output().unwrap()
}

fn ok(o: &Output) -> String {
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout.clone()).unwrap()
}

/// Every file under `dir`, relative.
fn files_under(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(p) = stack.pop() {
        for e in std::fs::read_dir(&p).into_iter().flatten() {
            let e = e.unwrap();
            if e.file_type().unwrap().is_dir() {
                stack.push(e.path());
            } else {
                out.push(e.path().strip_prefix(dir).unwrap().display().to_string());
            }
        }
    }
    out.sort();
    out
}

#[test]
fn a_debuginfod_server_names_frames_on_another_machine() {
    if !have_debuginfod() {
        return;
    }
    let dir = scratch("served");
    let cache = dir.join("cache");
    // Without the server the frames of spin and ld.so have no names.
    let plain = perfdata("folded", &[], &dir, "", &cache, &[]);
    assert_ne!(ok(&plain), stored("fp.data.folded-stackcollapse-pl"));
    assert!(!cache.exists(), "no DEBUGINFOD_URLS, yet the cache was made");

    let server = Server::start(&dir.join("served"), &dir.join("db.sqlite"), Some(SPIN));
    let url = server.url();
    let folded = perfdata("folded", &[], &dir, &url, &cache, &[]);
    assert_eq!(ok(&folded), stored("fp.data.folded-stackcollapse-pl"));
    let err = String::from_utf8_lossy(&folded.stderr);
    assert!(!err.contains("debuginfod:") && !err.contains("perfdata: debuginfod "), "{err}");
    let script = perfdata("script", &[], &dir, &url, &cache, &[]);
    assert_eq!(ok(&script), stored("fp.data.script"));
    let report = perfdata("report", &["--no-children", "-g", "none"], &dir, &url, &cache, &[]);
    let want = rows(&stored("fp.data.report"));
    assert!(want.len() > 10);
    assert_eq!(rows(&ok(&report)), want);
    // elfutils' layout, nothing else (no temporary files left).
    let cached = files_under(&cache);
    for f in [format!("{SPIN}/executable"), format!("{LD}/executable")] {
        assert!(cached.contains(&f), "{cached:?}");
    }
    assert!(cached.iter().all(|f| f.ends_with("/executable") || f.ends_with("/debuginfo")), "{cached:?}");
    assert_eq!(std::fs::read_dir(dir.join("home")).unwrap().count(), 0);
    drop(server);

    // The cache is enough: the server is gone.
    let again = perfdata("folded", &[], &dir, &url, &cache, &[]);
    assert_eq!(ok(&again), stored("fp.data.folded-stackcollapse-pl"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_dead_server_is_said_once_and_frames_stay_unnamed() {
    if !have_debuginfod() {
        return;
    }
    let dir = scratch("dead");
    let cache = dir.join("cache");
    let start = Instant::now();
    let o = perfdata("folded", &[], &dir, "http://127.0.0.1:1", &cache, &[]);
    assert!(start.elapsed() < Duration::from_secs(10), "{:?}", start.elapsed());
    let out = ok(&o);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(err.matches("perfdata: debuginfod http://127.0.0.1:1: connection refused").count(), 1, "{err}");
    assert!(out.contains("[unknown]"));
    assert_ne!(out, stored("fp.data.folded-stackcollapse-pl"));
    assert!(files_under(&cache).is_empty());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_server_without_the_file_says_404() {
    if !have_debuginfod() {
        return;
    }
    let dir = scratch("404");
    std::fs::create_dir_all(dir.join("nothing")).unwrap();
    let server = Server::start(&dir.join("nothing"), &dir.join("db.sqlite"), None);
    let o = perfdata("folded", &[], &dir, &server.url(), &dir.join("cache"), &[]);
    ok(&o);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("/work/main/testdata/bin/spin") && err.contains("debuginfod: 404"), "{err}");
    assert!(files_under(&dir.join("cache")).is_empty());
    let _ = std::fs::remove_dir_all(&dir);
}

/// A server answering every request with `200` and `body`; returns its URL.
fn fake_server(body: &'static [u8]) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for s in listener.incoming() {
            let Ok(mut s) = s else { continue };
            let mut buf = [0u8; 4096];
            let _ = s.read(&mut buf);
            let _ = write!(s, "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n", body.len());
            let _ = s.write_all(body);
        }
    });
    format!("http://127.0.0.1:{port}")
}

#[test]
fn garbage_and_oversized_answers_are_refused() {
    if !have_debuginfod() {
        return;
    }
    let dir = scratch("garbage");
    let cache = dir.join("cache");
    let url = fake_server(b"<html>not an ELF file</html>");
    let o = perfdata("folded", &[], &dir, &url, &cache, &[]);
    ok(&o);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains(&format!("perfdata: debuginfod {url}: {SPIN}/executable: the answer is not an ELF file: refused")),
        "{err}"
    );
    assert!(files_under(&cache).is_empty(), "{:?}", files_under(&cache));

    let server = Server::start(&dir.join("served"), &dir.join("db.sqlite"), Some(SPIN));
    let o = perfdata("folded", &[], &dir, &server.url(), &cache, &[("DEBUGINFOD_MAXSIZE", "1000")]);
    ok(&o);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("larger than 1000 bytes ($DEBUGINFOD_MAXSIZE): refused"), "{err}");
    assert!(files_under(&cache).is_empty(), "{:?}", files_under(&cache));
    let _ = std::fs::remove_dir_all(&dir);
}
