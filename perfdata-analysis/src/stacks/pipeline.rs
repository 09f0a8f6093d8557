//! The two threads: [`read_items`] reads and filters the records into batches, [`drive_with`]
//! applies the thread and map changes and folds the samples, handing each stack to a [`Sink`]
//! (in WebAssembly, which has no threads, both on one).

use perfdata_core::attr::EventType;
use perfdata_core::file::PerfFile;
use perfdata_core::process::MachineEvent;
use perfdata_core::record::{CpuMode, RecordKind};
use perfdata_core::records::Order;
use perfdata_symbolize::jit::JitInjector;

use super::batch::{
    chain_of, Batch, Item, SampleItem, BATCH_IPS, BATCH_ITEMS, BATCH_ITEMS_UNWOUND, HAS_CHAIN, HAS_CPU, HAS_IP, KERNEL,
    MACHINE,
};
use super::folder::Folder;
use super::keys::RawKeys;
use super::table::{FoldedStacks, StackTable};
use super::unwind::DwarfUnwind;
use crate::options::{Compat, EventFilter, FoldedOptions, Weight};
// What the pprof export's fold (`fold_sites`) uses besides.
#[cfg(feature = "pprof")]
use super::folder::{FrameKey, FrameLabels, Labels, SiteStack, Sites};
use crate::{Error, Result};
#[cfg(feature = "pprof")]
use perfdata_core::process::Machine;
#[cfg(feature = "pprof")]
use perfdata_symbolize::{FastMap, Symbolizer};

/// `opts.time` in nanoseconds (empty: every sample), percentages against the recording's span.
pub(crate) fn time_ranges(file: &PerfFile, opts: &FoldedOptions) -> Result<Vec<crate::options::TimeRange>> {
    let Some(t) = &opts.time else { return Ok(Vec::new()) };
    let span = file.features().sample_time().and_then(Result::ok).map(|s| (s.first, s.last));
    t.resolve(span).map_err(Error::Options)
}

/// Which samples `perfdata folded` takes, and their weights: the time ranges, pid and tid, the
/// compat rules for tracepoints and the event filter. The folding pipeline and the speedscope
/// writer both ask it.
pub(crate) struct SampleFilter<'o> {
    opts: &'o FoldedOptions,
    ranges: Vec<crate::options::TimeRange>,
    event_filter: EventFilter,
    /// [`EventFilter::FirstSeen`]'s event, once a sample named it.
    first_event: Option<usize>,
}

impl<'o> SampleFilter<'o> {
    /// The filter of `opts` for `file` (whose span resolves percentages of `opts.time`).
    pub(crate) fn new(file: &PerfFile, opts: &'o FoldedOptions) -> Result<Self> {
        let ranges = time_ranges(file, opts)?;
        Ok(SampleFilter { opts, ranges, event_filter: opts.event_filter.clone(), first_event: None })
    }

    /// Every event unless `opts.event_filter` names one ([`EventFilter::FirstSeen`] taken as
    /// [`EventFilter::All`]): for views that keep the events apart.
    pub(crate) fn every_event_unless_named(mut self) -> Self {
        if self.event_filter == EventFilter::FirstSeen {
            self.event_filter = EventFilter::All;
        }
        self
    }

    /// The sample's weight, or `None` when the options leave it out.
    pub(crate) fn weight(&mut self, r: &perfdata_core::Record<'_>, s: &perfdata_core::Sample<'_>) -> Option<u64> {
        let opts = self.opts;
        if !crate::options::in_ranges(&self.ranges, s.time().unwrap_or(0)) {
            return None;
        }
        let (pid, tid) = (s.pid().unwrap_or(u32::MAX), s.tid().unwrap_or(u32::MAX));
        if opts.pid.is_some_and(|p| p != pid) || opts.tid.is_some_and(|t| t != tid) {
            return None;
        }
        // perf script prints trace text after a tracepoint's event name, which stackcollapse-perf.pl's
        // period/event pattern never matches: weight 1, no event filtering.
        let tracepoint = r.event.is_some_and(|e| EventType::from_raw(e.attr.type_) == EventType::Tracepoint);
        // perf's Python scripting hands a tracepoint sample to the script's handler of that
        // tracepoint, not to `process_event`: stackcollapse.py, which has no such handler, folds none.
        if opts.compat == Compat::PerfScriptPy && tracepoint {
            return None;
        }
        let tracepoint_pl = opts.compat == Compat::StackcollapsePl && tracepoint;
        let idx = r.event.map_or(0, |e| e.index);
        let keep = match &self.event_filter {
            EventFilter::All => true,
            _ if tracepoint_pl => true,
            EventFilter::FirstSeen => *self.first_event.get_or_insert(idx) == idx,
            EventFilter::Name(n) => r.event.is_some_and(|e| e.name.as_deref() == Some(n.as_str())),
        };
        keep.then(|| if opts.weight == Weight::Period && !tracepoint_pl { s.period_or_attr() } else { 1 })
    }
}

/// The reading half of [`folded`]: records in time order → batches of [`Item`]s, applying the
/// pid, tid, time and event filters and the weights, and adding the JIT code maps of jitdump
/// files ([`JitInjector`]); returns the injector's diagnostics.
/// `spent`: batches the folding thread is done with, emptied, to fill again (their buffers are
/// already grown and paged in).
fn read_items(file: &PerfFile, opts: &FoldedOptions, tx: &mut dyn Handoff, raw_keys: bool) -> Vec<String> {
    // A sample's raw key has fewer words than its record: the distinct ones fit in the file's size.
    let mut raw = raw_keys.then(|| RawKeys::new(file.bytes().len() / 4));
    // `--call-graph dwarf`: the user stack is unwound here, where the record's stack dump is at
    // hand, against this thread's own copy of the maps and binaries.
    let mut dwarf = DwarfUnwind::for_file(file, opts);
    let max_items = if dwarf.is_some() { BATCH_ITEMS_UNWOUND } else { BATCH_ITEMS };
    // With raw keys, `batch` stays on this thread and `out` is what is handed over.
    let mut batch = Batch::with_capacity(max_items, raw_keys);
    let mut out = if raw_keys { Batch::with_capacity(max_items, true) } else { Batch::default() };
    // With raw keys and no stack dump to unwind, a sample's key is made from the record's
    // callchain and its frames are copied only when the key is new to the batch (a third of the
    // samples of the bench file).
    let later = raw_keys && dwarf.is_none();
    let mut jit = JitInjector::new(file.events(), &opts.symbolize);
    let mut filter = match SampleFilter::new(file, opts) {
        Ok(f) => f,
        Err(e) => {
            let _ = tx.send(Err(e));
            return Vec::new();
        }
    };
    let mut recs = match file.records(Order::Time) {
        Ok(r) => r,
        Err(e) => {
            let _ = tx.send(Err(e.into()));
            return Vec::new();
        }
    };
    while let Some(r) = recs.next_record() {
        // A damaged record is skipped (the file's problem log has it: `PerfFile::problems`); the
        // stacks come from every complete record, as `perf script | stackcollapse` gives them.
        let Ok(r) = r else { continue };
        jit.record(&r, &mut |e: MachineEvent| {
            if let Some(d) = &mut dwarf {
                d.machine.apply(e.clone());
            }
            if let Some(k) = &mut raw {
                k.machine(&e);
                batch.numbered.seq.push(u32::try_from(batch.items.len()).unwrap_or(u32::MAX));
            }
            batch.items.push(Item::Machine(Box::new(e)));
        });
        let RecordKind::Sample(s) = &r.kind else { continue };
        let Some(weight) = filter.weight(&r, s) else { continue };
        let kernel = r.header.cpumode() == CpuMode::Kernel;
        let (pid, tid) = (s.pid().unwrap_or(u32::MAX), s.tid().unwrap_or(u32::MAX));
        let idx = r.event.map_or(0, |e| e.index);
        let mut unwound = 0;
        let callchain = s.callchain();
        let chain = callchain.map(|c| {
            let start = batch.ips.len();
            if !later {
                batch.ips.extend(c.iter());
                if let Some(d) = &mut dwarf {
                    d.user_frames(s, pid, &mut batch.ips);
                    unwound = u32::try_from(batch.ips.len().saturating_sub(start + c.len())).unwrap_or(0);
                }
            }
            (u32::try_from(start).unwrap_or(u32::MAX), u32::try_from(c.len()).unwrap_or(0))
        });
        let cpu = s.cpu();
        let flags = if kernel { KERNEL } else { 0 }
            | if s.ip().is_some() { HAS_IP } else { 0 }
            | if chain.is_some() { HAS_CHAIN } else { 0 }
            | if cpu.is_some() { HAS_CPU } else { 0 };
        let (chain_at, chain_len) = chain.unwrap_or((0, 0));
        let item = SampleItem {
            pid,
            tid,
            ip: s.ip().unwrap_or(0),
            weight,
            chain_at,
            chain_len,
            unwound,
            cpu: cpu.unwrap_or(0),
            event: u32::try_from(idx).unwrap_or(u32::MAX),
            key: u32::MAX,
            flags,
        };
        if let Some(k) = &mut raw {
            // A repeat in the batch is its first sample's item with its own weight (equal keys,
            // equal frames): no item, no frames of its own.
            let callchain = callchain.unwrap_or(perfdata_core::reader::U64s::EMPTY);
            let found = if later {
                k.sample(&item, callchain.iter(), &[])
            } else {
                let (chain, more) = chain_of(&batch.ips, &item).unwrap_or((&[], &[]));
                k.sample(&item, chain.iter().copied(), more)
            };
            let at = match found {
                Some(first) => {
                    if let (Some((start, _)), false) = (chain, later) {
                        batch.ips.truncate(start as usize);
                    }
                    first
                }
                None => {
                    if later {
                        batch.ips.extend(callchain.iter());
                    }
                    batch.items.push(Item::Sample(item));
                    batch.items.len() - 1
                }
            };
            batch.numbered.seq.push(u32::try_from(at).unwrap_or(u32::MAX));
            batch.numbered.weights.push(weight);
        } else {
            batch.items.push(Item::Sample(item));
        }
        let full = batch.items.len().max(batch.numbered.seq.len()) >= max_items || batch.ips.len() >= BATCH_IPS;
        if full && hand_over(&mut raw, &mut batch, &mut out, tx, max_items).is_err() {
            return jit.diagnostics().to_vec();
        }
    }
    let _ = hand_over(&mut raw, &mut batch, &mut out, tx, max_items);
    jit.diagnostics().to_vec()
}

/// [`read_items`]' step at the end of a batch: send it (with raw keys, number it and send what
/// the folding thread needs of it, `out`) and start the next one, in a spent batch if the
/// folding thread sent one back. `Err`: the folding thread is gone, or the keys outgrew their table
/// (the error sent).
fn hand_over(
    raw: &mut Option<RawKeys>,
    batch: &mut Batch,
    out: &mut Batch,
    tx: &mut dyn Handoff,
    max_items: usize,
) -> std::result::Result<(), ()> {
    let raw_keys = raw.is_some();
    let mut next = || tx.spent().unwrap_or_else(|| Batch::with_capacity(max_items, raw_keys));
    let full = match raw {
        Some(k) => {
            if k.take(batch, out).is_none() {
                let _ = tx.send(Err(Error::TooManySamples));
                return Err(());
            }
            std::mem::replace(out, next())
        }
        None => std::mem::replace(batch, next()),
    };
    tx.send(Ok(full)).map_err(|_| ())
}

/// Fold the samples of `file` into weighed stacks (what [`crate::folded::folded`] returns).
/// Records are read and decoded on a second thread while this one resolves and counts the stacks.
pub(crate) fn fold_all(file: &PerfFile, opts: &FoldedOptions) -> Result<FoldedStacks> {
    fold_all_with(file, opts, READER_THREAD)
}

/// [`fold_all`], reading on a second thread or not.
fn fold_all_with(file: &PerfFile, opts: &FoldedOptions, reader_thread: bool) -> Result<FoldedStacks> {
    /// [`fold_all`]'s [`Sink`]: the stacks' weights.
    struct Stacks(StackTable);
    impl Sink<'_> for Stacks {
        fn each(&mut self, _: &mut Folder<'_>, _: &SampleItem, weight: u64, stack: &[u32]) {
            let i = self.0.id(stack);
            self.0.add(i, weight);
        }
    }
    let mut f = Folder::new(file, opts);
    let mut table = Stacks(StackTable::default());
    let diagnostics = drive_with(file, opts, &mut f, &mut table, reader_thread)?;
    Ok(table.0.into_folded(&f.labels, diagnostics, f.sym.unnamed_summary(), true))
}

/// What [`fold_sites`] tells about each sample it keeps.
#[cfg(feature = "pprof")]
pub(crate) struct SiteSample<'a> {
    pub pid: u32,
    pub tid: u32,
    pub cpu: Option<u32>,
    /// Index of the sample's event in `PerfFile::events`.
    pub event: usize,
    /// Its weight under [`FoldedOptions::weight`].
    pub weight: u64,
    /// The comm of its thread.
    pub comm: &'a std::rc::Rc<str>,
    /// Its locations ([`Sites::site`] ids), leaf first.
    pub locations: &'a [u32],
}

/// Where [`fold_sites`] hands the samples (the pprof export's sample table). Per sample,
/// [`SampleSink::known`], then, if the sink did not know it, it is folded and handed to
/// [`SampleSink::add`] or, if the fold drops it, [`SampleSink::dropped`].
#[cfg(feature = "pprof")]
pub(crate) trait SampleSink {
    /// The raw key number of a sample some items ahead (to bring in what [`SampleSink::known`]
    /// will read for it).
    fn ahead(&mut self, key: u32);
    /// Whether the sink counted the sample (weight `weight`) already: samples of equal raw keys
    /// (number `key`, [`RawKeys`]) fold alike while the kernel's generation (`kernel_gen`: its
    /// maps and symbols) stays the same, so the sink counts it as the first and it is not folded.
    fn known(&mut self, key: u32, weight: u64, kernel_gen: u32) -> bool;
    /// The sample [`SampleSink::known`] did not know, folded.
    fn add(&mut self, s: &SiteSample<'_>);
    /// The sample [`SampleSink::known`] did not know was dropped by the fold.
    fn dropped(&mut self);
}

/// What a fold leaves to free once it is done: its symbols, threads, frame caches and key
/// numbers, a few milliseconds of freeing (a hundred thousand symbol names, tables of tens of
/// MB) that [`fold_sites`] leaves to its caller, to do when it would otherwise wait.
#[cfg(feature = "pprof")]
pub(crate) struct Leftovers {
    _sym: Symbolizer,
    _machine: Machine,
    _labels: Labels,
    _frames: FastMap<FrameKey, FrameLabels>,
}

/// Fold the samples of `file` as [`folded`] does, but hand each kept sample to `sink` with the
/// locations `sites` made of its frames (the pprof export). Returns the diagnostics, and what
/// is left to free.
#[cfg(feature = "pprof")]
pub(crate) fn fold_sites(
    file: &PerfFile,
    opts: &FoldedOptions,
    sites: &mut dyn Sites,
    sink: &mut dyn SampleSink,
) -> Result<(Vec<String>, Leftovers)> {
    /// [`fold_sites`]'s [`Sink`].
    struct Known<'s>(&'s mut dyn SampleSink);
    impl Sink<'_> for Known<'_> {
        fn raw_keys(&self) -> bool {
            true
        }

        fn ahead(&mut self, key: u32) {
            self.0.ahead(key);
        }

        fn known(&mut self, f: &mut Folder<'_>, item: &SampleItem, weight: u64) -> bool {
            item.key().is_some_and(|key| self.0.known(key, weight, f.kernel_gen))
        }

        fn dropped(&mut self) {
            self.0.dropped();
        }

        fn each(&mut self, f: &mut Folder<'_>, item: &SampleItem, weight: u64, _: &[u32]) {
            let Some(s) = f.sites.as_ref() else { return };
            self.0.add(&SiteSample {
                pid: item.pid,
                tid: item.tid,
                cpu: item.cpu(),
                event: item.event as usize,
                weight,
                comm: &s.comm,
                locations: &s.stack,
            });
        }
    }
    let mut f = Folder::new(file, opts);
    f.sites = Some(SiteStack { sites, stack: Vec::new(), comm: std::rc::Rc::from("") });
    let mut diagnostics = drive_with(file, opts, &mut f, &mut Known(sink), READER_THREAD)?;
    diagnostics.extend(f.sym.unnamed_summary());
    let Folder { sym, machine, labels, frames, .. } = f;
    Ok((diagnostics, Leftovers { _sym: sym, _machine: machine, _labels: labels, _frames: frames }))
}

/// How many items ahead [`drive_with`] shows its sink the samples ([`Sink::ahead`]).
const SINK_AHEAD: usize = 16;

/// What [`drive_with`] does with the samples.
trait Sink<'o> {
    /// Whether the reader makes raw keys ([`RawKeys`]).
    fn raw_keys(&self) -> bool {
        false
    }
    /// The raw key number of a sample [`SINK_AHEAD`] samples ahead of the one about to be
    /// folded (to bring in what it will read).
    fn ahead(&mut self, _key: u32) {}
    /// Whether the sample (`item`, or with raw keys the first of its number) of weight `weight`
    /// needs no folding (the sink counted it).
    fn known(&mut self, _f: &mut Folder<'o>, _item: &SampleItem, _weight: u64) -> bool {
        false
    }
    /// The fold dropped the sample [`Sink::known`] did not know.
    fn dropped(&mut self) {}
    /// A folded sample kept (`item`, or the first of its number, of weight `weight`), with its stack
    /// ([`Folder`] labels, root first).
    fn each(&mut self, f: &mut Folder<'o>, item: &SampleItem, weight: u64, stack: &[u32]);
}

/// How [`read_items`] hands its batches on: to the folding thread, or straight to the folding
/// on its own thread ([`Inline`]).
trait Handoff {
    /// A batch (or the error that ends the reading); `Err` when the folding has stopped.
    fn send(&mut self, batch: Result<Batch>) -> std::result::Result<(), ()>;
    /// A folded batch to fill again, if one came back.
    fn spent(&mut self) -> Option<Batch>;
}

/// [`Handoff`] to the folding thread, through bounded channels.
struct Channels {
    tx: std::sync::mpsc::SyncSender<Result<Batch>>,
    spent: std::sync::mpsc::Receiver<Batch>,
}

impl Handoff for Channels {
    fn send(&mut self, batch: Result<Batch>) -> std::result::Result<(), ()> {
        self.tx.send(batch).map_err(|_| ())
    }
    fn spent(&mut self) -> Option<Batch> {
        self.spent.try_recv().ok()
    }
}

/// [`Handoff`] on one thread (WebAssembly in a browser has no threads): each batch is folded as
/// it is handed over.
struct Inline<'c, 'o> {
    fold: &'c mut Consumer<'c, 'o>,
    spare: Option<Batch>,
    error: Option<Error>,
}

impl Handoff for Inline<'_, '_> {
    fn send(&mut self, batch: Result<Batch>) -> std::result::Result<(), ()> {
        match batch {
            Ok(mut b) => {
                self.fold.batch(&mut b);
                b.clear();
                self.spare = Some(b);
                Ok(())
            }
            Err(e) => {
                self.error = Some(e);
                Err(())
            }
        }
    }
    fn spent(&mut self) -> Option<Batch> {
        self.spare.take()
    }
}

/// The folding of batches: applies the thread and map changes to `f` and folds each sample
/// `sink` does not know, handing it the stack of each it keeps.
struct Consumer<'c, 'o> {
    f: &'c mut Folder<'o>,
    sink: &'c mut dyn Sink<'o>,
    raw_keys: bool,
    /// perf script has printed a sample.
    printed: bool,
    stack: Vec<u32>,
    /// With raw keys: the first sample of each number so far, their frames in `ips`.
    firsts: Vec<SampleItem>,
    ips: Vec<u64>,
}

impl Consumer<'_, '_> {
    fn batch(&mut self, batch: &mut Batch) {
        let Consumer { f, sink, printed, stack, firsts, ips, .. } = self;
        if self.raw_keys {
            for s in &batch.fresh {
                debug_assert_eq!(s.key as usize, firsts.len(), "numbers come in order");
                firsts.push(s.moved(&batch.ips, ips));
            }
            let n = &mut batch.numbered;
            let (mut weights, mut machine) = (n.weights.iter(), n.machine.iter_mut());
            let numbers = &n.numbers;
            let number = |i: Option<&u32>| i.and_then(|&i| numbers.get(i as usize)).copied();
            for (i, at) in n.seq.iter().enumerate() {
                if let Some(k) = number(n.seq.get(i + SINK_AHEAD)).filter(|&k| k != MACHINE) {
                    sink.ahead(k);
                }
                let Some(key) = number(Some(at)) else { continue };
                if key == MACHINE {
                    if let Some(e) = machine.next() {
                        f.machine_event(std::mem::replace(e, MachineEvent::Exit { tid: 0 }));
                    }
                } else if let (Some(s), Some(&weight)) = (firsts.get(key as usize), weights.next()) {
                    fold(*sink, f, ips, s, weight, printed, stack);
                }
            }
        } else {
            for item in &mut batch.items {
                match item {
                    Item::Machine(e) => f.machine_event(std::mem::replace(e, MachineEvent::Exit { tid: 0 })),
                    Item::Sample(s) => fold(*sink, f, &batch.ips, s, s.weight, printed, stack),
                }
            }
        }
    }
}

/// Whether [`drive_with`] reads on a second thread: everywhere but in WebAssembly.
const READER_THREAD: bool = !cfg!(target_arch = "wasm32");

/// The folding half of [`folded`] and [`fold_sites`]: reads the records on a second thread
/// ([`read_items`]; with `reader_thread` false, and in WebAssembly, on this one), applies the
/// thread and map changes to `f` and folds each sample `sink` does not know, handing it the stack
/// of each it keeps.
fn drive_with<'o>(
    file: &PerfFile,
    opts: &'o FoldedOptions,
    f: &mut Folder<'o>,
    sink: &mut dyn Sink<'o>,
    reader_thread: bool,
) -> Result<Vec<String>> {
    let raw_keys = sink.raw_keys();
    if !reader_thread {
        f.preload_kernel(file);
        let mut fold =
            Consumer { f, sink, raw_keys, printed: false, stack: Vec::new(), firsts: Vec::new(), ips: Vec::new() };
        let mut inline = Inline { fold: &mut fold, spare: None, error: None };
        let diagnostics = read_items(file, opts, &mut inline, raw_keys);
        return match inline.error {
            Some(e) => Err(e),
            None => Ok(diagnostics),
        };
    }
    // A reader that makes raw keys has about as much to do as this thread: it reads on while the
    // kernel's symbols load here rather than wait with two batches ready. The kernel's symbols
    // take 12-15 ms, about 8 batches of reading on the pprof bench file: with room for 8 the
    // reader still waited ~10 ms for this thread, and it is the thread the export waits for.
    let (tx, rx) = std::sync::mpsc::sync_channel::<Result<Batch>>(if raw_keys { 16 } else { 2 });
    let (spent_tx, spent_rx) = std::sync::mpsc::sync_channel::<Batch>(2);
    let diagnostics = std::thread::scope(|scope| -> Result<Vec<String>> {
        let reader = scope.spawn(move || read_items(file, opts, &mut Channels { tx, spent: spent_rx }, raw_keys));
        // While the reader fills its first batch: the kernel's symbols.
        f.preload_kernel(file);
        let mut fold =
            Consumer { f, sink, raw_keys, printed: false, stack: Vec::new(), firsts: Vec::new(), ips: Vec::new() };
        // `rx` goes with the closure, also on an error: the reader then stops at its next batch.
        let folded = (|| -> Result<()> {
            for batch in rx {
                let mut batch = batch?;
                fold.batch(&mut batch);
                batch.clear();
                // Back to the reader, unless it has enough (or has finished).
                let _ = spent_tx.try_send(batch);
            }
            Ok(())
        })();
        // Joined on every path, not left to the scope: the scope waits for the reader's closure,
        // a join for its thread to be gone, thread-local data and all (LeakSanitizer's check
        // after each fuzz input saw a thread's thread-local destructor list still allocated).
        let diagnostics = reader.join().unwrap_or_default();
        folded.map(|()| diagnostics)
    })?;
    Ok(diagnostics)
}

/// [`drive_with`]'s step for one sample (`s`, or with raw keys the first of its number; its frames
/// in `ips`) of weight `weight`: fold it unless `sink` knows it.
fn fold<'o>(
    sink: &mut dyn Sink<'o>,
    f: &mut Folder<'o>,
    ips: &[u64],
    s: &SampleItem,
    weight: u64,
    printed: &mut bool,
    stack: &mut Vec<u32>,
) {
    if sink.known(f, s, weight) {
        return;
    }
    if f.fold_sample(s.pid, s.tid, s.kernel(), s.ip(), chain_of(ips, s), printed, stack) {
        sink.each(f, s, weight, stack);
    } else {
        sink.dropped();
    }
}

#[cfg(test)]
mod one_thread {
    use super::*;
    use crate::options::Compat;

    /// The single-threaded folding (WebAssembly's) gives the two-thread folding's stacks, with
    /// raw keys and without, frame-pointer and DWARF callchains alike.
    #[test]
    fn folding_on_one_thread_equals_folding_on_two() {
        let td = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata");
        /// Stacks by weight, the reader making raw keys (as pprof's and report's sinks have it).
        struct RawStacks(StackTable);
        impl Sink<'_> for RawStacks {
            fn raw_keys(&self) -> bool {
                true
            }
            fn each(&mut self, _: &mut Folder<'_>, _: &SampleItem, weight: u64, stack: &[u32]) {
                let i = self.0.id(stack);
                self.0.add(i, weight);
            }
        }
        // Every committed recording (the callchain kinds, kernel and JIT frames, pipes, several
        // events, tracepoints), not only three: the browser page folds on one thread.
        let mut names: Vec<String> = std::fs::read_dir(&td)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".data") && td.join(n).is_file())
            .collect();
        names.sort();
        assert!(names.len() > 30, "{names:?}");
        for name in &names {
            let file = PerfFile::open(td.join(name)).unwrap();
            for compat in [Compat::StackcollapsePl, Compat::PerfScriptPy] {
                let mut opts = FoldedOptions::compat(compat);
                opts.symbolize.symfs = Some(td.join("folded/root"));
                let two = fold_all_with(&file, &opts, true).unwrap().to_folded_string();
                let one = fold_all_with(&file, &opts, false).unwrap().to_folded_string();
                if ["fp.data", "dwarf.data", "cxx-dwarf.data"].contains(&name.as_str()) {
                    assert!(two.lines().count() > 5, "{name}");
                }
                assert_eq!(one, two, "{name} {compat:?}");
                for reader_thread in [true, false] {
                    let mut f = Folder::new(&file, &opts);
                    let mut raw = RawStacks(StackTable::default());
                    let d = drive_with(&file, &opts, &mut f, &mut raw, reader_thread).unwrap();
                    let folded = raw.0.into_folded(&f.labels, d, f.sym.unnamed_summary(), true);
                    assert_eq!(
                        folded.to_folded_string(),
                        two,
                        "{name} {compat:?} raw keys, reader thread {reader_thread}"
                    );
                }
            }
        }
    }
}
