//! perfdata's one policy for damaged input, applied by every command (docs/damage.md):
//!
//! * every complete record is read, and the command's output is made from them;
//! * each distinct problem is said once, on stderr: `perfdata: warning: FILE: what` (the offset
//!   and what was lost are in the text);
//! * the exit status is [`DAMAGED`] (3) when the output was written from a damaged input, 1
//!   when nothing could be produced, 2 for a bad command line;
//! * `--strict` makes any damage an error (status 1).
//!
//! A file's damage is what its problem log holds ([`perfdata_core::PerfFile::problems`]): the
//! opening's diagnostics and every record iterator's. Other warnings (an analysis's notes, such as
//! events lost while recording) are said once too, and do not change the status.

use perfdata_core::Problems;
use std::collections::BTreeSet;
use std::sync::Mutex;

/// The exit status of a command that wrote its output from a damaged input.
pub const DAMAGED: u8 = 3;

struct State {
    /// The inputs opened, as named on the command line, and their problem logs.
    inputs: Vec<(String, Problems)>,
    /// What was said already (the text after `warning: `).
    said: BTreeSet<String>,
}

static STATE: Mutex<State> = Mutex::new(State { inputs: Vec::new(), said: BTreeSet::new() });

fn state() -> std::sync::MutexGuard<'static, State> {
    STATE.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Follow the problems of the input `name` (as the user typed it; `stdin` for `-`).
pub fn watch(name: &str, problems: Problems) {
    state().inputs.push((name.to_string(), problems));
}

/// Say `message` on stderr as a warning, unless it was said already.
pub fn warn(message: impl Into<String>) {
    let message = message.into();
    let mut s = state();
    if s.said.insert(message.clone()) {
        eprintln!("perfdata: warning: {message}");
    }
}

/// Say `problem` of input `file` once (`perfdata: warning: FILE: problem`).
pub fn warn_in(file: &str, problem: &str) {
    let mut s = state();
    if s.said.insert(problem.to_string()) {
        eprintln!("perfdata: warning: {file}: {problem}");
    }
}

/// Say every problem of the inputs not said yet; the number of distinct problems of all inputs.
pub fn finish() -> usize {
    let inputs: Vec<(String, Problems)> = state().inputs.clone();
    let mut total = 0;
    for (name, problems) in &inputs {
        total += problems.len();
        for p in problems.list() {
            warn_in(name, &p);
        }
    }
    total
}
