//! `perfdata sched timeline`: the scheduler timeline SVG.

use perfdata_analysis::sched::timeline::{sched_timeline, TimelineOptions};
use std::path::PathBuf;
use std::process::ExitCode;

/// Draw the timeline of `file` to `output` (stdout when `None`); `opts.title` is set here.
pub fn run(
    file: &str,
    output: Option<&PathBuf>,
    mut opts: TimelineOptions,
) -> Result<ExitCode, Box<dyn std::error::Error>> {
    opts.title = format!("Scheduler timeline: {}", crate::shown(file));
    // The timeline reads the recording twice (its time span, then the lanes).
    let (path, _spool) = crate::spooled(file)?;
    let f = crate::open(&path)?;
    let tl = sched_timeline(&f, &opts)?;
    crate::folded::output(output, &tl.svg())?;
    for d in &tl.diagnostics {
        crate::damage::warn(d.as_str());
    }
    Ok(ExitCode::SUCCESS)
}
