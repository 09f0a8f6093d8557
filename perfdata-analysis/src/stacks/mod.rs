//! The stack engine: samples → frames → interned labels → stack ids, as perf script and the
//! collapsers name the frames. Every analysis that folds stacks goes through it; nothing outside
//! this module sees its caches, threads or batches.
//!
//! # Contract
//!
//! What the rest of the crate uses, and all of it:
//!
//! - [`StackFolder`] (with [`StackId`] and [`ChainEntry`]): one sample at a time, for callers that
//!   weigh stacks later or walk callchains themselves — `latency::offcpu`, `report`, the Chrome
//!   export, the Arrow tables, the CLI's `dump --symbolize`.
//! - [`fold_all`]: every sample of a file into [`FoldedStacks`] — `folded::folded` and the
//!   dataset export.
//! - [`fold_sites`]: the same fold, handing each resolved frame to [`Sites`] ([`FrameSite`]) and
//!   each sample to a [`SampleSink`] ([`SiteSample`]) — the pprof export; its
//!   [`Leftovers`](pipeline::Leftovers) are what it leaves its caller to free.
//! - [`ScriptFrames`] (with [`FramePrint`]): a sample's ip or callchain as `perf script` prints
//!   it, one sample at a time — `script`.
//! - [`time_ranges`]: the `--time` option resolved against the file — `report`, `script`.
//! - [`feature_build_ids`]: the BUILD_ID feature as a map.
//!
//! All of them take [`FoldedOptions`](crate::options::FoldedOptions): frame formatting, root
//! frame and filters mean the same in every analysis. [`StackFolder`] leaves the weights and the
//! event, pid, tid and time filters to its caller; the others apply them. Their errors are the
//! crate's [`Error`](crate::Error): `Read` (the file), `Options` (a `--time` that does not resolve),
//! `TooManySamples` (the pprof export's tables).
//!
//! # Inside
//!
//! - `names`: perf-compatible name handling (inferno's and stackcollapse.py's tidying, `_[k]`-style
//!   annotations, `--srcline`).
//! - `folder`: the folding thread's state — threads and maps, symbolizer, the label table, the
//!   cache of resolved frames — and how a callchain becomes labels.
//! - `unwind`: a recording's symbolizer, and the DWARF unwinding of `--call-graph dwarf` stacks.
//! - `batch`, `keys`, `pipeline`: the reading thread (records → filtered batches, optionally
//!   numbered by raw key in an arena) and the folding thread that consumes them.
//! - `table`: distinct stacks and weights, [`FoldedStacks`], [`StackFolder`].
//! - `text`: [`ScriptFrames`], the frames' text cached per address.

mod batch;
mod folder;
mod keys;
mod names;
mod pipeline;
mod table;
mod text;
mod unwind;

pub use folder::ChainEntry;
#[cfg(feature = "pprof")]
pub(crate) use folder::{FrameSite, Sites};
pub(crate) use pipeline::{fold_all, time_ranges, SampleFilter};
#[cfg(feature = "pprof")]
pub(crate) use pipeline::{fold_sites, SampleSink, SiteSample};
pub use table::{FoldedStacks, StackFolder, StackId};
pub(crate) use text::{Batch, BranchEnd, Columns, FramePrint, ScriptFrames, Texts};
pub use unwind::feature_build_ids;
