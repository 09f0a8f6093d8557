//! `perfdata info FILE|- [--json]`: the header summary, as `perf report --header-only -I` prints it or
//! as JSON.

use perfdata_core::HeaderInfo;
use std::io::Write;
use std::process::ExitCode;

/// Print the header summary of `path` (`-` = stdin).
pub fn run(path: &str, as_json: bool) -> Result<ExitCode, Box<dyn std::error::Error>> {
    let file = crate::open(path)?;
    let info = HeaderInfo::new(&file);
    let mut out = std::io::stdout().lock();
    if as_json {
        serde_json::to_writer_pretty(&mut out, &info)?;
        writeln!(out)?;
    } else {
        out.write_all(info.perf_text().as_bytes())?;
        out.write_all(info.simpleperf_text().as_bytes())?;
    }
    out.flush()?;
    for e in &info.errors {
        crate::damage::warn(format!("feature {} (bit {}): {}", e.feature, e.bit, e.error));
    }
    Ok(ExitCode::SUCCESS)
}
