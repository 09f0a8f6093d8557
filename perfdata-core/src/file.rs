//! [`PerfFile`]: open a perf.data file (path, bytes, stream or directory), its header, events and
//! feature sections, and the entry to its records.

use crate::compress::DEFAULT_MAX_DECOMPRESSED;
use crate::error::{Error, Position, Result};
use crate::event::{Event, EventList};
use crate::feature;
use crate::header::{feature as feat, FileHeader, Format, Section, PIPE_HEADER_SIZE};
use crate::reader::{Endian, Reader};
use crate::record::{decode, record_type as rt, RecordKind};
use crate::records::{Order, ReadOptions, Records, Store};
use crate::stream::{Frames, Input};
use crate::tracepoint::Tracepoints;
use std::io::Read;
use std::path::Path;
use std::sync::Mutex;

enum Backing<'d> {
    Borrowed(&'d [u8]),
    Mapped(memmap2::Mmap),
    Owned(Vec<u8>),
}

impl Backing<'_> {
    fn bytes(&self) -> &[u8] {
        match self {
            Backing::Borrowed(b) => b,
            Backing::Mapped(m) => m,
            Backing::Owned(v) => v,
        }
    }
}

/// An opened perf.data file.
pub struct PerfFile<'d> {
    backing: Backing<'d>,
    /// Per-thread data files of the directory format (`data.N`), in N order.
    extra: Vec<(u32, Backing<'static>)>,
    stream: Mutex<Option<Box<dyn Read + Send + 'd>>>,
    header: FileHeader,
    events: EventList,
    features: Vec<(u32, Section)>,
    pipe_features: Vec<(u32, Vec<u8>)>,
    diagnostics: Vec<String>,
    /// Every distinct problem met so far (see [`PerfFile::problems`]).
    problems: crate::problems::Problems,
    path: Option<std::path::PathBuf>,
    /// What records from the std iterator borrow beyond the mapped bytes (see [`Records`]).
    store: Store,
    /// How far the record iterators have read (see [`PerfFile::progress`]).
    progress: std::sync::Arc<crate::records::ProgressCounter>,
}

impl std::fmt::Debug for PerfFile<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PerfFile")
            .field("path", &self.path)
            .field("header", &self.header)
            .field("events", &self.events.events.len())
            .finish()
    }
}

fn io_err(what: impl Into<String>) -> impl FnOnce(std::io::Error) -> Error {
    let what = what.into();
    move |source| Error::Io { what, source }
}

impl PerfFile<'static> {
    /// Open a file (memory-mapped) or a `perf record --threads` directory.
    pub fn open(path: impl AsRef<Path>) -> Result<PerfFile<'static>> {
        let path = path.as_ref();
        if path.is_dir() {
            return Self::open_dir(path);
        }
        let backing = map(path)?;
        let mut f = PerfFile::from_backing(backing)?;
        f.path = Some(path.to_path_buf());
        Ok(f)
    }

    fn open_dir(dir: &Path) -> Result<PerfFile<'static>> {
        let data = dir.join("data");
        if !data.is_file() {
            return Err(Error::NotPerfData(format!(
                "{} is a directory, and not one `perf record --threads` writes (it has no file named data)",
                dir.display()
            )));
        }
        let mut f = PerfFile::from_backing(map(&data)?)?;
        let mut extra = Vec::new();
        for entry in std::fs::read_dir(dir).map_err(io_err(dir.display().to_string()))? {
            let entry = entry.map_err(io_err(dir.display().to_string()))?;
            let name = entry.file_name();
            let Some(n) = name.to_str().and_then(|s| s.strip_prefix("data.")).and_then(|s| s.parse::<u32>().ok())
            else {
                continue;
            };
            extra.push((n, map(&entry.path())?));
        }
        extra.sort_by_key(|(n, _)| *n);
        f.extra = extra;
        f.header.format = Format::Directory;
        f.path = Some(dir.to_path_buf());
        Ok(f)
    }

    /// Read a pipe-format stream (e.g. stdin of `perf record -o - | …`). Its leading header records
    /// (attrs, features, tracing data: at most the first 64 MiB) are read ahead, so that the events
    /// and features are known up front as for a file, and kept to be replayed; the other records
    /// are read as they are iterated, so memory stays bounded. [`PerfFile::records`] (or another
    /// record iterator) can be called once.
    pub fn from_reader(mut reader: impl Read + Send + 'static) -> Result<PerfFile<'static>> {
        let mut first = [0u8; 16];
        let mut got = 0;
        while got < 16 {
            match reader.read(first.get_mut(got..).unwrap_or(&mut [])) {
                Ok(0) => break,
                Ok(n) => got += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(Error::Io { what: "input stream".into(), source: e }),
            }
        }
        let head = first.get(..got).unwrap_or(&[]);
        let (_, size) = FileHeader::detect(head)?;
        if size != PIPE_HEADER_SIZE {
            // A regular file arrived on a stream: it needs random access, so read it whole.
            let mut all = head.to_vec();
            reader.read_to_end(&mut all).map_err(io_err("input stream"))?;
            return PerfFile::from_backing(Backing::Owned(all));
        }
        let header = FileHeader::parse(head)?;
        let mut f = PerfFile {
            backing: Backing::Owned(head.to_vec()),
            extra: Vec::new(),
            stream: Mutex::new(Some(Box::new(reader))),
            header,
            events: EventList::default(),
            features: Vec::new(),
            pipe_features: Vec::new(),
            diagnostics: Vec::new(),
            problems: Default::default(),
            path: None,
            store: Store::default(),
            progress: Default::default(),
        };
        // The events and features from the stream's leading user records, as for a pipe file;
        // what that read is replayed to the records.
        let (endian, mut events, mut features) = (f.header.endian, EventList::default(), Vec::new());
        f.peek_stream(|f| {
            if let Some(reader) = f.stream.lock().ok().and_then(|mut s| s.take()) {
                let input = Input::Stream { reader, buf: Vec::new(), start: 0, base: PIPE_HEADER_SIZE, eof: false };
                prescan_pipe(vec![input], endian, STREAM_PRESCAN_MAX, &mut events, &mut features);
            }
        });
        (f.events, f.pipe_features) = (events, features);
        f.apply_event_desc();
        Ok(f)
    }

    /// Take ownership of bytes.
    pub fn from_vec(data: Vec<u8>) -> Result<PerfFile<'static>> {
        PerfFile::from_backing(Backing::Owned(data))
    }
}

fn map(path: &Path) -> Result<Backing<'static>> {
    let file = std::fs::File::open(path).map_err(io_err(path.display().to_string()))?;
    let len = file.metadata().map_err(io_err(path.display().to_string()))?.len();
    if len == 0 {
        return Ok(Backing::Owned(Vec::new()));
    }
    // SAFETY: the map is read-only; perf.data files are not modified while being read (a file
    // truncated underneath us would be a SIGBUS, as with every mmap-based reader including perf).
    let m = unsafe { memmap2::Mmap::map(&file) }.map_err(io_err(path.display().to_string()))?;
    Ok(Backing::Mapped(m))
}

/// What a file whose data section ends past its `len` bytes says: it was cut short, and the
/// feature sections that follow the data are lost with it.
fn cut_note(h: &FileHeader, len: usize) -> Option<String> {
    let end = h.data.end()?;
    (h.format == Format::File && end > len as u64).then(|| {
        let lost = if h.feature_bits().next().is_some() {
            "; the feature sections after it (build ids, event names, …) are lost"
        } else {
            ""
        };
        format!("data section ends at {end} but the file has only {len} bytes{lost}: reading every complete record")
    })
}

impl<'d> PerfFile<'d> {
    /// Read from bytes already in memory (file or pipe format).
    pub fn from_bytes(data: &'d [u8]) -> Result<PerfFile<'d>> {
        PerfFile::from_backing(Backing::Borrowed(data))
    }

    fn from_backing(backing: Backing<'d>) -> Result<PerfFile<'d>> {
        let data = backing.bytes();
        let header = FileHeader::parse(data)?;
        let mut diagnostics = Vec::new();
        let mut events = EventList::default();
        let mut features = Vec::new();
        let mut pipe_features = Vec::new();
        if header.format == Format::File {
            events = read_attrs(data, &header, &mut diagnostics)?;
            let (f, err) = header.feature_sections(data);
            // A file cut inside its data section has lost the table after it too: said once, with
            // the cut (and again by each reading of the records, which the problem log merges).
            match cut_note(&header, data.len()) {
                Some(note) => diagnostics.push(note),
                None => diagnostics.extend(err.map(|e| format!("feature section table cut short: {e}"))),
            }
            features = f;
            if header.data.size == 0 {
                diagnostics.push("data size is 0: the recording was not finished (perf record killed?); perf report refuses such a file, we read records up to the end of the file".into());
                if !features.is_empty() {
                    // The table would sit at data.offset + 0, i.e. on top of the records.
                    diagnostics.push(format!(
                        "{} feature sections ignored: their table would overlap the unfinished data",
                        features.len()
                    ));
                    features.clear();
                }
            }
        } else {
            // Learn events and features from the leading user records of the pipe stream.
            let input = Input::Slice { data, at: PIPE_HEADER_SIZE as usize, end: data.len(), file: 0 };
            prescan_pipe(vec![input], header.endian, u64::MAX, &mut events, &mut pipe_features);
        }
        let mut f = PerfFile {
            backing,
            extra: Vec::new(),
            stream: Mutex::new(None),
            header,
            events,
            features,
            pipe_features,
            problems: {
                let p = crate::problems::Problems::default();
                diagnostics.iter().for_each(|d| p.add(d.as_str()));
                p
            },
            diagnostics,
            path: None,
            store: Store::default(),
            progress: Default::default(),
        };
        f.apply_event_desc();
        Ok(f)
    }

    fn apply_event_desc(&mut self) {
        let Some(Ok(descs)) =
            self.feature_data(feat::EVENT_DESC).map(|(d, pos)| feature::event_desc(d, self.header.endian, pos))
        else {
            return;
        };
        for d in descs {
            let idx = d.ids.iter().find_map(|id| self.events.index_of_id(*id));
            let idx = idx.or_else(|| (self.events.events.len() == 1).then_some(0));
            if let (Some(e), false) = (idx.and_then(|i| self.events.events.get_mut(i)), d.name.is_empty()) {
                e.name = Some(d.name);
            }
        }
        // Events without ids (single-event files) match EVENT_DESC by position.
        if let (Some((d, pos)), true) =
            (self.feature_data(feat::EVENT_DESC), self.events.events.iter().any(|e| e.name.is_none()))
        {
            if let Ok(descs) = feature::event_desc(d, self.header.endian, pos) {
                for (e, d) in self.events.events.iter_mut().zip(descs) {
                    if e.name.is_none() && e.attr == d.attr && !d.name.is_empty() {
                        e.name = Some(d.name);
                    }
                }
            }
        }
    }

    /// The file header.
    pub fn header(&self) -> &FileHeader {
        &self.header
    }

    /// Byte order of the file.
    pub fn endian(&self) -> Endian {
        self.header.endian
    }

    /// The path this was opened from, if any.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// The whole input (for a stream: only its header).
    pub fn bytes(&self) -> &[u8] {
        self.backing.bytes()
    }

    /// The events (attrs with ids and names). For pipe data, the ones announced before the first
    /// kernel record; [`Records::events`] has the ones known at any later point.
    pub fn events(&self) -> &[Event] {
        &self.events.events
    }

    /// The event list with its id map.
    pub fn event_list(&self) -> &EventList {
        &self.events
    }

    /// Problems found while opening (the reader's own diagnostics are on [`Records`]).
    pub fn diagnostics(&self) -> &[String] {
        &self.diagnostics
    }

    /// Every distinct problem met in this file so far, each once: those found while opening
    /// ([`PerfFile::diagnostics`]) and those of every record iterator that has ended
    /// ([`Records::diagnostics`]: damaged records, a data section cut short, records of no known
    /// event), whatever read it. A handle: it also sees what later readings add.
    pub fn problems(&self) -> crate::problems::Problems {
        self.problems.clone()
    }

    /// Feature bits present, in order (file: from the header bitmap; pipe: HEADER_FEATURE records seen
    /// before the first kernel record).
    pub fn feature_bits(&self) -> Vec<u32> {
        match self.header.format {
            Format::Pipe => self.pipe_features.iter().map(|(b, _)| *b).collect(),
            _ => self.features.iter().map(|(b, _)| *b).collect(),
        }
    }

    /// The feature section table (file format).
    pub fn feature_sections(&self) -> &[(u32, Section)] {
        &self.features
    }

    /// The payload of feature `bit` and its position, if present and in bounds.
    pub fn feature_data(&self, bit: u32) -> Option<(&[u8], Position)> {
        if let Some((_, d)) = self.pipe_features.iter().find(|(b, _)| *b == bit) {
            return Some((d.as_slice(), Position::default()));
        }
        let (_, s) = self.features.iter().find(|(b, _)| *b == bit)?;
        let d = s.slice(self.bytes(), "feature section").ok()?;
        Some((d, Position::at(s.offset)))
    }

    /// The data section's byte range `(start, end)` and byte order when its records can be read
    /// in chunks on several threads ([`PerfFile::ordered_par`]): a file (not a pipe or a
    /// directory) whose data is not compressed. The end is where [`PerfFile::records_with`] stops.
    pub(crate) fn chunkable_data(&self) -> Option<(usize, usize, Endian)> {
        let h = &self.header;
        if h.format != Format::File || !self.extra.is_empty() || self.compression().is_some() {
            return None;
        }
        let len = self.bytes().len();
        let start = usize::try_from(h.data.offset).ok()?;
        let end = if h.data.size == 0 {
            len
        } else {
            h.data.end().and_then(|e| usize::try_from(e).ok()).unwrap_or(usize::MAX).min(len)
        };
        (start < end).then_some((start, end, h.endian))
    }

    /// What reading says of a data section that ends past the end of the file (the file was cut
    /// short; the feature sections that follow the data are lost with it).
    pub(crate) fn truncated_data_note(&self) -> Option<String> {
        cut_note(&self.header, self.bytes().len())
    }

    /// The COMPRESSED feature, if present.
    pub fn compression(&self) -> Option<feature::Compressed> {
        let (d, pos) = self.feature_data(feat::COMPRESSED)?;
        feature::compressed(d, self.header.endian, pos).ok()
    }

    /// The typed view over the feature sections (file: the section table; pipe: the HEADER_FEATURE
    /// records before the first kernel record).
    pub fn features(&self) -> feature::Features<'_> {
        let sections = self
            .feature_bits()
            .into_iter()
            .filter_map(|bit| self.feature_data(bit).map(|(data, pos)| feature::FeatureSection { bit, data, pos }))
            .collect();
        feature::Features::new(self.endian(), sections)
    }

    /// What records from the std iterator borrow beyond the input bytes.
    pub(crate) fn store(&self) -> &Store {
        &self.store
    }

    /// Iterate records in `order`.
    pub fn records(&self, order: Order) -> Result<Records<'_>> {
        self.records_with(ReadOptions { order, ..ReadOptions::default() })
    }

    /// How far reading has got: a handle on the input bytes and records the record iterators of
    /// this file have gone through and on the bytes there are to read, which another thread can
    /// poll while an analysis reads the file (for a progress bar).
    pub fn progress(&self) -> crate::Progress {
        let total = match self.header.format {
            Format::Pipe if self.is_stream() => None,
            _ => Some(self.bytes().len() as u64 + self.extra.iter().map(|(_, b)| b.bytes().len() as u64).sum::<u64>()),
        };
        crate::Progress { counter: self.progress.clone(), total_bytes: total }
    }

    /// Iterate records with options.
    pub fn records_with(&self, opts: ReadOptions) -> Result<Records<'_>> {
        self.records_from(opts, None, None)
    }

    /// [`PerfFile::records_with`], from offset `at` of a file's data section instead of its start
    /// when given (a record boundary: a chunk of [`PerfFile::ordered_par`]), and up to offset
    /// `limit` at most.
    pub(crate) fn records_from(
        &self,
        mut opts: ReadOptions,
        at: Option<usize>,
        limit: Option<usize>,
    ) -> Result<Records<'_>> {
        // Directory data has no round markers and its files each span the whole recording: perf
        // merges them with one final flush. Until a k-way merge lands, give the window room for it.
        if self.header.format == Format::Directory {
            opts.window_records = opts.window_records.max(1 << 22);
        }
        let data = self.bytes();
        let mut inputs = Vec::new();
        let mut slices = vec![data];
        let h = &self.header;
        let max_dec = self.compression().map_or(DEFAULT_MAX_DECOMPRESSED, |c| (c.mmap_len as usize).max(1 << 20));
        let mut events = &self.events;
        match h.format {
            Format::Pipe => {
                events = self.store.keep_events(EventList::default());
                let stream = self.stream.lock().map_err(|_| Error::Unsupported("stream lock poisoned".into()))?.take();
                match stream {
                    Some(reader) => inputs.push(Input::Stream {
                        reader,
                        buf: Vec::new(),
                        start: 0,
                        base: PIPE_HEADER_SIZE,
                        eof: false,
                    }),
                    None if self.path.is_none()
                        && data.len() <= PIPE_HEADER_SIZE as usize
                        && h.data.size == 0
                        && self.is_stream() =>
                    {
                        return Err(Error::Unsupported("the records of a stream can be read once".into()));
                    }
                    None => inputs.push(Input::Slice { data, at: PIPE_HEADER_SIZE as usize, end: data.len(), file: 0 }),
                }
            }
            Format::File | Format::Directory => {
                let start = at.unwrap_or_else(|| usize::try_from(h.data.offset).unwrap_or(usize::MAX));
                // data.size 0 (killed recording): read to the end of the file.
                let end = if h.data.size == 0 {
                    data.len()
                } else {
                    h.data.end().and_then(|e| usize::try_from(e).ok()).unwrap_or(usize::MAX).min(data.len())
                };
                let end = limit.map_or(end, |l| l.min(end));
                inputs.push(Input::Slice { data, at: start, end, file: 0 });
                for (_, b) in &self.extra {
                    let bytes = b.bytes();
                    slices.push(bytes);
                    let file = slices.len() as u32 - 1;
                    inputs.push(Input::Slice { data: bytes, at: 0, end: bytes.len(), file });
                }
            }
        }
        let frames = Frames::new(inputs, h.endian, max_dec);
        let mut maps = vec![match &self.backing {
            Backing::Mapped(m) => Some(m),
            _ => None,
        }];
        maps.extend(self.extra.iter().map(|(_, b)| match b {
            Backing::Mapped(m) => Some(m),
            _ => None,
        }));
        let mut recs = Records::new(frames, slices, events, &self.store, h.endian, opts)
            .with_maps(maps, at.unwrap_or(0))
            .with_progress(self.progress.clone())
            .with_problems(self.problems.clone());
        if let Some(note) = self.truncated_data_note().filter(|_| at.is_none()) {
            recs.note(note);
        }
        Ok(recs)
    }

    /// The raw record frames in file order (framing and decompression only, no decoding).
    pub fn frames(&self) -> Result<Frames<'_>> {
        self.records_with(ReadOptions { order: Order::File, ..ReadOptions::default() }).map(Records::into_frames)
    }

    fn is_stream(&self) -> bool {
        matches!(self.backing, Backing::Owned(ref v) if v.len() == PIPE_HEADER_SIZE as usize)
    }

    /// Run `f`, which reads the beginning of this pipe stream (its header records), then put what
    /// it read back in front of the rest of the stream, so that the records can still be read
    /// from the start once. Memory: the bytes `f` read (its records and the framer's read-ahead).
    /// Without an unread stream, just `f`.
    pub(crate) fn peek_stream<T>(&self, f: impl FnOnce(&Self) -> T) -> T {
        let Some(reader) = self.stream.lock().ok().and_then(|mut s| s.take()) else { return f(self) };
        let shared = Shared(std::sync::Arc::new(Mutex::new(reader)));
        let copy = std::sync::Arc::new(Mutex::new(Vec::new()));
        if let Ok(mut s) = self.stream.lock() {
            *s = Some(Box::new(Tee { inner: shared.clone(), copy: copy.clone() }));
        }
        let out = f(self);
        let read = copy.lock().map(|mut c| std::mem::take(&mut *c)).unwrap_or_default();
        if let Ok(mut s) = self.stream.lock() {
            *s = Some(Box::new(std::io::Cursor::new(read).chain(shared)));
        }
        out
    }
}

/// A stream read from two places in turn (a peek, then the reading after it).
struct Shared<'d>(std::sync::Arc<Mutex<Box<dyn Read + Send + 'd>>>);

impl Clone for Shared<'_> {
    fn clone(&self) -> Self {
        Shared(self.0.clone())
    }
}

impl Read for Shared<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.0.lock().map_err(|_| std::io::Error::other("stream lock poisoned"))?.read(buf)
    }
}

/// A reader that keeps a copy of what it reads.
struct Tee<'d> {
    inner: Shared<'d>,
    copy: std::sync::Arc<Mutex<Vec<u8>>>,
}

impl Read for Tee<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        if let (Ok(mut c), Some(got)) = (self.copy.lock(), buf.get(..n)) {
            c.extend_from_slice(got);
        }
        Ok(n)
    }
}

/// Read the attr section and each attr's ids.
fn read_attrs(data: &[u8], h: &FileHeader, diagnostics: &mut Vec<String>) -> Result<EventList> {
    let attrs = h.attrs.slice(data, "attr section")?;
    let stride = usize::try_from(h.attr_size)
        .map_err(|_| Error::malformed(Position::at(16), "perf_file_header", "attr_size too large"))?;
    if stride == 0 {
        return Ok(EventList::default());
    }
    let mut events = Vec::with_capacity(attrs.len() / stride);
    for (i, entry) in attrs.chunks_exact(stride).enumerate() {
        let pos = Position::at(h.attrs.offset + (i * stride) as u64);
        let (attr, ids_sec) =
            Reader::new(entry, h.endian, pos, "perf_file_attr").run(crate::attr::file_attr(stride))?;
        let ids = match ids_sec.slice(data, "attr ids") {
            Ok(b) => {
                Reader::new(b, h.endian, Position::at(ids_sec.offset), "attr ids").u64s((b.len() / 8) as u64)?.to_vec()
            }
            Err(e) => {
                diagnostics.push(format!("ids of attr {i}: {e}"));
                Vec::new()
            }
        };
        events.push(Event::new(i, attr, ids));
    }
    if attrs.len() % stride != 0 {
        diagnostics.push(format!("attr section size {} is not a multiple of attr_size {stride}", attrs.len()));
    }
    Ok(EventList::new(events))
}

/// How far into a stream [`PerfFile::from_reader`] reads ahead for its header records (what it
/// reads is kept to be replayed): past this, the records learn the rest as they come.
const STREAM_PRESCAN_MAX: u64 = 64 << 20;

/// Learn events, names and features from the leading user records of a pipe stream (those that
/// start before `limit`).
fn prescan_pipe(
    inputs: Vec<Input<'_>>,
    endian: Endian,
    limit: u64,
    events: &mut EventList,
    features: &mut Vec<(u32, Vec<u8>)>,
) {
    let mut frames = Frames::new(inputs, endian, DEFAULT_MAX_DECOMPRESSED);
    frames.yield_compressed = true;
    while let Some(Ok(frame)) = frames.next_frame() {
        if frame.header.type_ < rt::USER_START || frame.header.type_ == rt::FINISHED_INIT || frame.pos.offset > limit {
            break;
        }
        let empty = EventList::default();
        let Ok(rec) = decode(frame, &empty, endian) else {
            continue;
        };
        crate::records::learn(events, &rec);
        match &rec.kind {
            RecordKind::HeaderFeature(f) if !f.data.is_empty() => {
                if let Ok(bit) = u32::try_from(f.feat_id) {
                    features.push((bit, f.data.to_vec()));
                }
            }
            _ => {}
        }
    }
}

impl Tracepoints {
    /// The tracing data of a file: feature 1 (`HEADER_TRACING_DATA`) of a regular file, or the
    /// `HEADER_TRACING_DATA` record among the leading records of pipe data held in memory (or of
    /// a simpleperf file, which has no feature 1 and carries the record before its samples).
    /// `None` when the recording has none (and for pipe data read from a stream: feed its record
    /// to [`Tracepoints::from_record`] while iterating).
    pub fn from_file(f: &PerfFile<'_>) -> Result<Option<Tracepoints>> {
        if let Some((d, pos)) = f.feature_data(feat::TRACING_DATA) {
            return Tracepoints::parse(d, pos).map(Some);
        }
        let pipe = f.header().format == Format::Pipe;
        if f.header().format == Format::Directory || (pipe && f.bytes().len() <= PIPE_HEADER_SIZE as usize) {
            return Ok(None);
        }
        let mut frames = f.frames()?;
        while let Some(Ok(frame)) = frames.next_frame() {
            let t = frame.header.type_;
            if t == rt::HEADER_TRACING_DATA || t == rt::SIMPLEPERF_TRACING_DATA {
                let rec = crate::record::decode_tracing_data(&frame, f.endian())?;
                return Tracepoints::from_record(&rec, frame.pos).map(Some);
            }
            if t == rt::SAMPLE || t == rt::FINISHED_INIT || (pipe && t < rt::USER_START) {
                break;
            }
        }
        Ok(None)
    }
}
