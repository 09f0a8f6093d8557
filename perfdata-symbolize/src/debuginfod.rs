//! Binaries by build id from debuginfod servers, as elfutils' client fetches them.
//!
//! Only when `DEBUGINFOD_URLS` is set (space-separated server URLs) and only for a build id no
//! local place had a file for; without the variable nothing here touches the network. A file is
//! asked for as `URL/buildid/HEX/executable` (or `debuginfo`), the servers in order, the first
//! `200` winning, and kept in elfutils' cache layout, `CACHE/HEX/executable` and
//! `CACHE/HEX/debuginfo`, where `CACHE` is `$DEBUGINFOD_CACHE_PATH`, else
//! `$XDG_CACHE_HOME/debuginfod_client`, else `~/.cache/debuginfod_client`. A file in the cache
//! is used without asking any server (so a second run needs none).
//!
//! Limits (docs/archive.md): connecting and the answer's headers within `$DEBUGINFOD_TIMEOUT`
//! seconds (default 10, not elfutils' 90), the whole transfer within `$DEBUGINFOD_MAXTIME`
//! seconds (default 300), at most `$DEBUGINFOD_MAXSIZE` bytes (default 1 GiB). An answer is
//! written to a temporary file in the build id's cache directory and renamed into place only when
//! it is an ELF file with the asked build id; nothing is written outside the cache directory.
//!
//! Within a process each server is asked once per build id and file: the outcome is remembered.
//! A server that cannot be reached is said once on stderr (`perfdata: debuginfod URL: connection
//! refused`) and not asked again.

use std::collections::{HashMap, HashSet};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

use perfdata_core::names::hex;

/// Which file of a build id is asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Kind {
    /// The binary with its code (`/buildid/HEX/executable`).
    Executable,
    /// Its separate debug file (`/buildid/HEX/debuginfo`).
    Debuginfo,
}

impl Kind {
    /// The URL's last segment, and the file's name in the cache.
    fn name(self) -> &'static str {
        match self {
            Kind::Executable => "executable",
            Kind::Debuginfo => "debuginfo",
        }
    }
}

/// Connecting and the first answer, without `$DEBUGINFOD_TIMEOUT`.
const DEFAULT_TIMEOUT: u64 = 10;

/// The whole transfer of one file, without `$DEBUGINFOD_MAXTIME`.
const DEFAULT_MAXTIME: u64 = 300;

/// The largest file taken, without `$DEBUGINFOD_MAXSIZE`.
const DEFAULT_MAXSIZE: u64 = 1 << 30;

/// The most bytes of a build id (GNU's are 20; 64 covers any hash a linker writes).
const MAX_BUILD_ID: usize = 64;

/// What the environment says, read once per process.
struct Config {
    servers: Vec<String>,
    cache: Option<PathBuf>,
    timeout: Duration,
    maxtime: Duration,
    maxsize: u64,
}

fn env(key: &str) -> Option<String> {
    std::env::var(key).ok().map(|v| v.trim().to_string()).filter(|v| !v.is_empty())
}

/// A positive number of seconds or bytes from `key`, else `default`.
fn env_number(key: &str, default: u64) -> u64 {
    env(key).and_then(|v| v.parse::<u64>().ok()).filter(|&n| n > 0).unwrap_or(default)
}

/// elfutils' cache directory.
fn cache_dir() -> Option<PathBuf> {
    env("DEBUGINFOD_CACHE_PATH")
        .map(PathBuf::from)
        .or_else(|| env("XDG_CACHE_HOME").map(|c| Path::new(&c).join("debuginfod_client")))
        .or_else(|| env("HOME").map(|h| Path::new(&h).join(".cache").join("debuginfod_client")))
}

impl Config {
    fn from_env() -> Config {
        let mut servers = Vec::new();
        for url in env("DEBUGINFOD_URLS").unwrap_or_default().split_whitespace() {
            let url = url.trim_end_matches('/');
            if url.starts_with("http://") || url.starts_with("https://") {
                if !servers.iter().any(|s| s == url) {
                    servers.push(url.to_string());
                }
            } else {
                eprintln!("perfdata: debuginfod {url}: only http:// and https:// servers are asked: skipped");
            }
        }
        Config {
            servers,
            cache: cache_dir(),
            timeout: Duration::from_secs(env_number("DEBUGINFOD_TIMEOUT", DEFAULT_TIMEOUT)),
            maxtime: Duration::from_secs(env_number("DEBUGINFOD_MAXTIME", DEFAULT_MAXTIME)),
            maxsize: env_number("DEBUGINFOD_MAXSIZE", DEFAULT_MAXSIZE),
        }
    }
}

/// The process's client: its configuration, the servers found unreachable, and every outcome.
struct Client {
    config: Config,
    agent: Option<ureq::Agent>,
    dead: HashSet<String>,
    outcomes: HashMap<(String, Kind), Result<PathBuf, String>>,
}

fn client() -> &'static Mutex<Client> {
    static CLIENT: OnceLock<Mutex<Client>> = OnceLock::new();
    CLIENT.get_or_init(|| {
        let config = Config::from_env();
        Mutex::new(Client { config, agent: None, dead: HashSet::new(), outcomes: HashMap::new() })
    })
}

/// The cached file of `build_id`, fetched from the servers if the cache has none; else why not
/// (`debuginfod: 404`, one reason per server asked, in order). `None` when no server is
/// configured.
pub(crate) fn fetch(build_id: &[u8], kind: Kind) -> Option<Result<PathBuf, String>> {
    let mut c = client().lock().ok()?;
    if c.config.servers.is_empty() {
        return None;
    }
    if build_id.is_empty() || build_id.len() > MAX_BUILD_ID {
        return Some(Err("debuginfod: not a build id".into()));
    }
    let id = hex(build_id);
    // Hex digits only: the id is a single, safe path component of the cache and the URL.
    if !id.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Some(Err("debuginfod: not a build id".into()));
    }
    if let Some(o) = c.outcomes.get(&(id.clone(), kind)) {
        return Some(o.clone());
    }
    let outcome = c.fetch_uncached(build_id, &id, kind);
    c.outcomes.insert((id, kind), outcome.clone());
    Some(outcome)
}

impl Client {
    fn fetch_uncached(&mut self, build_id: &[u8], id: &str, kind: Kind) -> Result<PathBuf, String> {
        let Some(cache) = self.config.cache.clone() else {
            return Err("debuginfod: no cache directory ($DEBUGINFOD_CACHE_PATH, $XDG_CACHE_HOME, $HOME)".into());
        };
        let dir = cache.join(id);
        let target = dir.join(kind.name());
        // elfutils leaves an empty file as its negative cache: not a file to use.
        if std::fs::metadata(&target).is_ok_and(|m| m.is_file() && m.len() > 0) {
            return Ok(target);
        }
        let mut reasons = Vec::new();
        for server in self.config.servers.clone() {
            if self.dead.contains(&server) {
                continue;
            }
            match self.ask(&server, build_id, id, kind, &dir, &target) {
                Ok(()) => return Ok(target),
                Err(Failure::Status(s)) => reasons.push(s.to_string()),
                Err(Failure::Unreachable(why)) => {
                    eprintln!("perfdata: debuginfod {server}: {why}");
                    self.dead.insert(server);
                    reasons.push(why);
                }
                Err(Failure::Refused(why)) => {
                    eprintln!("perfdata: debuginfod {server}: {id}/{}: {why}", kind.name());
                    reasons.push(why);
                }
            }
        }
        if reasons.is_empty() {
            reasons.push("no server reachable".into());
        }
        Err(format!("debuginfod: {}", reasons.join(", ")))
    }

    fn agent(&mut self) -> ureq::Agent {
        let (timeout, maxtime) = (self.config.timeout, self.config.maxtime);
        self.agent
            .get_or_insert_with(|| {
                ureq::Agent::config_builder()
                    .timeout_connect(Some(timeout))
                    .timeout_resolve(Some(timeout))
                    .timeout_recv_response(Some(timeout))
                    .timeout_global(Some(maxtime))
                    .http_status_as_error(false)
                    .user_agent(concat!("perfdata/", env!("CARGO_PKG_VERSION")))
                    .build()
                    .into()
            })
            .clone()
    }

    /// Ask `server` for the file and, on a good answer, put it at `target`.
    fn ask(
        &mut self,
        server: &str,
        build_id: &[u8],
        id: &str,
        kind: Kind,
        dir: &Path,
        target: &Path,
    ) -> Result<(), Failure> {
        let url = format!("{server}/buildid/{id}/{}", kind.name());
        let maxsize = self.config.maxsize;
        let response = self.agent().get(&url).call().map_err(|e| Failure::Unreachable(transport(&e)))?;
        let status = response.status().as_u16();
        if status != 200 {
            return Err(Failure::Status(status));
        }
        let declared = response
            .headers()
            .get("content-length")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<u64>().ok());
        if declared.is_some_and(|n| n > maxsize) {
            return Err(Failure::Refused(format!("larger than {maxsize} bytes ($DEBUGINFOD_MAXSIZE): refused")));
        }
        let mut body = response.into_body().into_reader();
        std::fs::create_dir_all(dir).map_err(|e| Failure::Refused(format!("cannot create {}: {e}", dir.display())))?;
        let tmp = temp_name(dir, kind);
        let written = write_checked(&mut body, &tmp, maxsize, build_id);
        let renamed = written.and_then(|()| {
            std::fs::rename(&tmp, target).map_err(|e| format!("cannot write {}: {e}", target.display()))
        });
        if let Err(why) = renamed {
            let _ = std::fs::remove_file(&tmp);
            return Err(Failure::Refused(why));
        }
        Ok(())
    }
}

/// Why one server gave no file.
enum Failure {
    /// It answered with this HTTP status (404: it has none).
    Status(u16),
    /// It could not be reached or did not answer in time.
    Unreachable(String),
    /// Its answer was not taken (too large, not the ELF file asked for, a broken transfer).
    Refused(String),
}

/// A short reason for a failed request.
fn transport(e: &ureq::Error) -> String {
    match e {
        ureq::Error::Io(io) => match io.kind() {
            std::io::ErrorKind::ConnectionRefused => "connection refused".into(),
            std::io::ErrorKind::TimedOut => "timed out".into(),
            _ => io.to_string(),
        },
        ureq::Error::Timeout(_) => "timed out".into(),
        ureq::Error::ConnectionFailed => "connection failed".into(),
        other => other.to_string(),
    }
}

/// A fresh temporary file name in `dir` (the cache's build-id directory, so the rename stays on
/// one file system).
fn temp_name(dir: &Path, kind: Kind) -> PathBuf {
    static N: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    dir.join(format!(".{}.tmp-{}-{n}", kind.name(), std::process::id()))
}

/// Copy `body` to a new file `tmp`: at most `maxsize` bytes, and an ELF file whose build id is
/// `build_id`, else why not.
fn write_checked(body: &mut dyn Read, tmp: &Path, maxsize: u64, build_id: &[u8]) -> Result<(), String> {
    let mut out = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(tmp)
        .map_err(|e| format!("cannot write {}: {e}", tmp.display()))?;
    let copied = std::io::copy(&mut body.take(maxsize.saturating_add(1)), &mut out)
        .map_err(|e| format!("transfer broken off: {e}"))?;
    if copied > maxsize {
        return Err(format!("larger than {maxsize} bytes ($DEBUGINFOD_MAXSIZE): refused"));
    }
    out.flush().map_err(|e| format!("cannot write {}: {e}", tmp.display()))?;
    drop(out);
    let data = crate::binary::try_file_bytes(tmp).map_err(|e| format!("cannot read {}: {e}", tmp.display()))?;
    let file =
        object::File::parse(data.as_slice()).map_err(|_| "the answer is not an ELF file: refused".to_string())?;
    match object::Object::build_id(&file) {
        Ok(Some(got)) if got == build_id => Ok(()),
        Ok(Some(got)) => Err(format!("the answer has build id {}: refused", hex(got))),
        _ => Err("the answer has no build id: refused".into()),
    }
}
