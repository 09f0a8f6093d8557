//! Framing: split a data stream into records (file order), whatever the source — a mapped slice, a
//! `Read` stream, several directory files — and expand COMPRESSED records in place.

use crate::compress::Decompressor;
use crate::error::{Error, Position, Result};
use crate::reader::Endian;
use crate::record::user::TRACING_DATA_RECORD_SIZE;
pub use crate::record::Frame;
use crate::record::{record_type as rt, RecordHeader};
use std::io::Read;

/// Where the bytes of a data stream come from.
pub enum Input<'d> {
    /// A byte range of a slice (the mapped file).
    Slice {
        /// The whole input.
        data: &'d [u8],
        /// Next unread offset.
        at: usize,
        /// End of the data section.
        end: usize,
        /// File number for positions (0 = main file, n+1 = `data.n`).
        file: u32,
    },
    /// A stream (pipe); `offset` is the stream offset of `buf[start]`.
    Stream {
        /// The source.
        reader: Box<dyn Read + Send + 'd>,
        /// Buffered bytes.
        buf: Vec<u8>,
        /// First unconsumed byte of `buf`.
        start: usize,
        /// Stream offset of `buf[0]`.
        base: u64,
        /// The source reported EOF.
        eof: bool,
    },
}

impl std::fmt::Debug for Input<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Input::Slice { at, end, file, .. } => write!(f, "Slice({at}..{end}, file {file})"),
            Input::Stream { base, start, .. } => write!(f, "Stream(at {})", *base + *start as u64),
        }
    }
}

#[derive(Clone, Copy, Debug)]
enum Loc {
    /// In the current input's slice/buffer: record at `rec`, payload at `payload`.
    Input { rec: (usize, usize), payload: (usize, usize) },
    /// In the decompression buffer.
    Decompressed { rec: (usize, usize) },
}

/// A framed-record reader (file order). Lending: each frame borrows the reader until the next call.
#[derive(Debug)]
pub struct Frames<'d> {
    inputs: std::collections::VecDeque<Input<'d>>,
    endian: Endian,
    decomp: Option<Decompressor>,
    max_decompressed: usize,
    dbuf: Vec<u8>,
    /// Bumped each time `dbuf` is refilled (the std record iterator copies each block once).
    dgen: u64,
    dpos: usize,
    carrier: Position,
    dindex: u32,
    /// Yield COMPRESSED records themselves (before their contents).
    pub yield_compressed: bool,
    failed: bool,
    last: Option<Loc>,
    last_pos: Position,
    last_header: Option<RecordHeader>,
    /// Problems that ended or shortened reading (truncation, partial decompressed data).
    pub diagnostics: Vec<String>,
}

const MAX_RECORD: usize = 65535 + 8;

impl<'d> Frames<'d> {
    /// Frames over `inputs` in order, in byte order `endian`.
    pub fn new(inputs: Vec<Input<'d>>, endian: Endian, max_decompressed: usize) -> Self {
        Frames {
            inputs: inputs.into(),
            endian,
            decomp: None,
            max_decompressed,
            dbuf: Vec::new(),
            dgen: 0,
            dpos: 0,
            carrier: Position::default(),
            dindex: 0,
            yield_compressed: false,
            failed: false,
            last: None,
            last_pos: Position::default(),
            last_header: None,
            diagnostics: Vec::new(),
        }
    }

    /// Set the per-record decompression bound (from the COMPRESSED feature's mmap_len).
    pub fn set_max_decompressed(&mut self, n: usize) {
        self.max_decompressed = n;
        if let Some(d) = self.decomp.as_mut() {
            d.max_output = n;
        }
    }

    /// The next frame, `None` at the end. After an error that makes further framing impossible the
    /// reader yields that error once and then ends.
    #[inline(always)]
    pub fn next_frame(&mut self) -> Option<Result<Frame<'_>>> {
        if self.failed {
            return None;
        }
        // Hot path: the next record lies whole in a mapped slice and nothing is left to decompress.
        if self.dpos >= self.dbuf.len() {
            if let Some(Input::Slice { data, at, end, file }) = self.inputs.front_mut() {
                let data: &'d [u8] = data;
                let start = *at;
                if let Some(h) = data.get(start..*end).and_then(|a| a.first_chunk::<8>().map(|h| (h, a.len()))) {
                    let (h, avail) = h;
                    let e = self.endian;
                    let header = RecordHeader::from_bytes(h, e);
                    let size = usize::from(header.size);
                    // Simpleperf's own types (≥ 32768) have a 32-bit size: framed below.
                    let special = matches!(
                        header.type_,
                        rt::HEADER_TRACING_DATA | rt::AUXTRACE | rt::COMPRESSED | rt::COMPRESSED2
                    ) || header.type_ >= rt::SIMPLEPERF_START;
                    if size >= 8 && size <= avail && !special {
                        *at = start + size;
                        let pos = Position { offset: start as u64, index: None, file: *file };
                        let range = (start, start + size);
                        self.last = Some(Loc::Input { rec: range, payload: (range.1, range.1) });
                        self.last_pos = pos;
                        self.last_header = Some(header);
                        let bytes = data.get(range.0..range.1).unwrap_or(&[]);
                        return Some(Ok(Frame { pos, header, bytes, payload: &[] }));
                    }
                }
            }
        }
        self.next_frame_slow()
    }

    /// [`Frames::next_frame`] when the next record is not simply the next bytes of a mapped slice.
    #[inline(never)]
    fn next_frame_slow(&mut self) -> Option<Result<Frame<'_>>> {
        match self.advance() {
            Ok(true) => {}
            Ok(false) => return None,
            Err(e) => {
                self.failed = true;
                self.diagnostics.push(e.to_string());
                return Some(Err(e));
            }
        }
        self.current_frame().map(Ok)
    }

    /// The input file being read and the offset of its next unread byte.
    pub(crate) fn input_position(&self) -> (usize, usize) {
        match self.inputs.front() {
            Some(Input::Slice { at, file, .. }) => (*file as usize, *at),
            _ => (usize::MAX, 0),
        }
    }

    /// The decompression buffer and its generation (bumped on every refill).
    pub(crate) fn decompressed_block(&self) -> (&[u8], u64) {
        (&self.dbuf, self.dgen)
    }

    /// The frame the last successful [`Frames::next_frame`] returned, again.
    pub(crate) fn current_frame(&self) -> Option<Frame<'_>> {
        let (loc, pos, header) = (self.last?, self.last_pos, self.last_header?);
        let (bytes, payload): (&[u8], &[u8]) = match loc {
            Loc::Decompressed { rec } => (self.dbuf.get(rec.0..rec.1)?, &[]),
            Loc::Input { rec, payload } => {
                let buf: &[u8] = match self.inputs.front()? {
                    Input::Slice { data, .. } => data,
                    Input::Stream { buf, .. } => buf,
                };
                (buf.get(rec.0..rec.1)?, buf.get(payload.0..payload.1)?)
            }
        };
        Some(Frame { pos, header, bytes, payload })
    }

    /// Move to the next record; Ok(false) at the end of all inputs.
    fn advance(&mut self) -> Result<bool> {
        loop {
            // 1. Records left in the decompression buffer.
            if let Some(found) = self.take_decompressed()? {
                self.last = Some(found);
                return Ok(true);
            }
            // 2. The next record of the current input.
            let Some(input) = self.inputs.front_mut() else {
                self.finish_decompressed();
                return Ok(false);
            };
            let next = read_frame(input, self.endian)?;
            let Some((pos, header, rec, payload)) = next else {
                self.finish_decompressed();
                self.inputs.pop_front();
                // Each directory file has its own zstd stream.
                self.decomp = None;
                continue;
            };
            if header.type_ == rt::SIMPLEPERF_SPLIT || header.type_ == rt::SIMPLEPERF_SPLIT_END {
                self.join_split(pos, header, rec);
                continue;
            }
            if header.type_ == rt::COMPRESSED || header.type_ == rt::COMPRESSED2 {
                self.expand(pos, header, rec)?;
                if !self.yield_compressed {
                    continue;
                }
            }
            self.last = Some(Loc::Input { rec, payload });
            self.last_pos = pos;
            self.last_header = Some(header);
            return Ok(true);
        }
    }

    fn expand(&mut self, pos: Position, header: RecordHeader, rec: (usize, usize)) -> Result<()> {
        let mut dec = match self.decomp.take() {
            Some(d) => d,
            None => Decompressor::new(self.max_decompressed)?,
        };
        // Keep the unconsumed tail (a record split across payloads) and drop the rest.
        self.dbuf.drain(..self.dpos.min(self.dbuf.len()));
        self.dpos = 0;
        let bytes = input_bytes(&self.inputs, rec);
        let payload = if header.type_ == rt::COMPRESSED2 {
            let mut body = crate::reader::Reader::new(bytes, self.endian, pos, "COMPRESSED2").advanced(8);
            body.run(crate::record::user::compressed2)?.data
        } else {
            bytes.get(8..).unwrap_or(&[])
        };
        let res = dec.feed(payload, &mut self.dbuf, pos);
        self.dgen = self.dgen.wrapping_add(1);
        self.decomp = Some(dec);
        res?;
        self.carrier = pos;
        self.dindex = 0;
        Ok(())
    }

    /// simpleperf splits a record too large for its buffers into SIMPLEPERF_SPLIT records (each
    /// carrying the next part of the record's bytes) ended by SIMPLEPERF_SPLIT_END; its reader joins
    /// them into the one record (record_file_reader.cpp). The parts go into the decompression
    /// buffer, where the joined record is framed like a decompressed one.
    fn join_split(&mut self, pos: Position, header: RecordHeader, rec: (usize, usize)) {
        let left = self.dbuf.len().saturating_sub(self.dpos);
        if header.type_ == rt::SIMPLEPERF_SPLIT_END {
            // The parts must make exactly one record, which the buffer then yields.
            let whole = self
                .dbuf
                .get(self.dpos..)
                .and_then(|a| a.first_chunk::<8>())
                .map(|h| RecordHeader::from_bytes(h, self.endian).record_size() == left);
            if left > 0 && whole != Some(true) {
                self.diagnostics.push(format!(
                    "{left} bytes of SIMPLEPERF_SPLIT records (from {}) do not join into one record at the SPLIT_END at {pos}: dropped",
                    self.carrier
                ));
                self.dbuf.clear();
                self.dpos = 0;
            }
            return;
        }
        if left == 0 {
            self.dbuf.clear();
            self.dpos = 0;
            self.carrier = pos;
            self.dindex = 0;
        }
        let part = input_bytes(&self.inputs, rec).get(8..).unwrap_or(&[]);
        self.dbuf.extend_from_slice(part);
        self.dgen = self.dgen.wrapping_add(1);
    }

    fn take_decompressed(&mut self) -> Result<Option<Loc>> {
        let avail = self.dbuf.get(self.dpos..).unwrap_or(&[]);
        if avail.len() < 8 {
            return Ok(None);
        }
        let mut pos = self.carrier;
        pos.index = Some(self.dindex);
        let header = RecordHeader::parse(avail, self.endian, pos)?;
        let size = header.record_size();
        if size < 8 {
            return Err(framing_error(pos, header, "record size below the 8-byte header"));
        }
        if avail.len() < size {
            return Ok(None); // the rest arrives with the next compressed record
        }
        let rec = (self.dpos, self.dpos + size);
        self.dpos += size;
        self.dindex = self.dindex.saturating_add(1);
        self.last_pos = pos;
        self.last_header = Some(header);
        Ok(Some(Loc::Decompressed { rec }))
    }

    fn finish_decompressed(&mut self) {
        let left = self.dbuf.len().saturating_sub(self.dpos);
        if left > 0 {
            self.diagnostics.push(format!(
                "{left} bytes of decompressed data after the last complete record (from the compressed record at {}) were dropped",
                self.carrier
            ));
        }
        self.dbuf.clear();
        self.dpos = 0;
    }
}

fn input_bytes<'a>(inputs: &'a std::collections::VecDeque<Input<'_>>, range: (usize, usize)) -> &'a [u8] {
    let buf: &[u8] = match inputs.front() {
        Some(Input::Slice { data, .. }) => data,
        Some(Input::Stream { buf, .. }) => buf,
        None => &[],
    };
    buf.get(range.0..range.1).unwrap_or(&[])
}

fn framing_error(pos: Position, header: RecordHeader, detail: &str) -> Error {
    Error::Record {
        pos,
        record: rt::name(header.type_).unwrap_or("UNKNOWN"),
        source: Box::new(Error::malformed(
            pos,
            "perf_event_header",
            format!("{detail} (size {})", header.record_size()),
        )),
    }
}

type Framed = (Position, RecordHeader, (usize, usize), (usize, usize));

/// Read the next record of an input: `None` at its clean end.
fn read_frame(input: &mut Input<'_>, endian: Endian) -> Result<Option<Framed>> {
    match input {
        Input::Slice { data, at, end, file } => {
            let start = *at;
            if start >= *end {
                return Ok(None);
            }
            // Hot path: the body of parse::record_header on the mapped bytes; errors are built
            // below (frame_at) only when something is off.
            if let Some(h) = data.get(start..*end).and_then(|a| a.first_chunk::<8>().map(|h| (h, a.len()))) {
                let (h, avail) = h;
                let header = RecordHeader::from_bytes(h, endian);
                let size = usize::from(header.size);
                if size >= 8
                    && size <= avail
                    && header.type_ != rt::HEADER_TRACING_DATA
                    && header.type_ != rt::AUXTRACE
                    && header.type_ < rt::SIMPLEPERF_START
                {
                    *at = start + size;
                    let pos = Position { offset: start as u64, index: None, file: *file };
                    return Ok(Some((pos, header, (start, start + size), (start + size, start + size))));
                }
            }
            let pos = Position { offset: start as u64, index: None, file: *file };
            let avail = data.get(start..*end).unwrap_or(&[]);
            match frame_at(avail, pos, endian, true)? {
                Framing::Frame { header, size, extra } => {
                    *at = start + size + extra;
                    Ok(Some((pos, header, (start, start + size), (start + size, start + size + extra))))
                }
                // Not returned for complete input; ends the input if it ever were.
                Framing::Need(_) => Ok(None),
            }
        }
        Input::Stream { reader, buf, start, base, eof } => {
            // Drop consumed bytes once they dominate the buffer.
            if *start > 0 && *start >= buf.len() / 2 {
                buf.drain(..*start);
                *base += *start as u64;
                *start = 0;
            }
            let pos = Position::at(*base + *start as u64);
            let mut want = 8;
            loop {
                fill(reader, buf, start.saturating_add(want), eof)?;
                let avail = buf.get(*start..).unwrap_or(&[]);
                if avail.is_empty() {
                    return Ok(None); // fill stopped short of 8 bytes: the stream's clean end
                }
                // fill stops short of `want` only at the end of the stream, so this progresses.
                match frame_at(avail, pos, endian, *eof)? {
                    Framing::Need(n) => want = n,
                    Framing::Frame { header, size, extra } => {
                        let s = *start;
                        *start = s + size + extra;
                        return Ok(Some((pos, header, (s, s + size), (s + size, s + size + extra))));
                    }
                }
            }
        }
    }
}

/// What [`frame_at`] found at the start of the available bytes.
enum Framing {
    /// A record of `size` bytes followed by `extra` out-of-band payload bytes, all available.
    Frame { header: RecordHeader, size: usize, extra: usize },
    /// More bytes are needed to decide (this many from the record's start).
    Need(usize),
}

/// Frame the record at the start of `avail`, which holds all the bytes there will be when
/// `complete` (mapped input, or a stream at its end): the same checks and errors for both inputs.
fn frame_at(avail: &[u8], pos: Position, endian: Endian, complete: bool) -> Result<Framing> {
    let record_truncated = |header: RecordHeader, what, needed, available| Error::Record {
        pos,
        record: rt::name(header.type_).unwrap_or("UNKNOWN"),
        source: Box::new(Error::Truncated { pos, what, needed, available }),
    };
    if avail.len() < 8 {
        if !complete {
            return Ok(Framing::Need(8));
        }
        return Err(Error::Truncated { pos, what: "perf_event_header", needed: 8, available: avail.len() as u64 });
    }
    let header = RecordHeader::parse(avail, endian, pos)?;
    let size = header.record_size();
    if size < 8 {
        return Err(framing_error(pos, header, "record size below the 8-byte header"));
    }
    let Some(rec) = avail.get(..size) else {
        if !complete {
            return Ok(Framing::Need(size));
        }
        return Err(record_truncated(header, "record", size as u64, avail.len() as u64));
    };
    let extra = payload_len(header, rec, endian)?;
    let rest = (avail.len() - size) as u64;
    if extra > rest {
        if !complete {
            return Ok(Framing::Need(usize::try_from(extra).unwrap_or(usize::MAX).saturating_add(size)));
        }
        return Err(record_truncated(header, "out-of-band payload", extra, rest));
    }
    Ok(Framing::Frame { header, size, extra: extra as usize })
}

/// Read from `reader` until `buf` holds `want` bytes or the stream ends. Growth follows the bytes
/// actually read, so a huge length field cannot make us allocate ahead of the data.
fn fill(reader: &mut Box<dyn Read + Send + '_>, buf: &mut Vec<u8>, want: usize, eof: &mut bool) -> Result<()> {
    while buf.len() < want && !*eof {
        let chunk = (want - buf.len()).clamp(4096, 1 << 20);
        let old = buf.len();
        buf.resize(old + chunk, 0);
        match reader.read(buf.get_mut(old..).unwrap_or(&mut [])) {
            Ok(0) => {
                buf.truncate(old);
                *eof = true;
            }
            Ok(n) => buf.truncate(old + n),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => buf.truncate(old),
            Err(e) => {
                buf.truncate(old);
                return Err(Error::Io { what: "input stream".into(), source: e });
            }
        }
    }
    Ok(())
}

/// Length of the out-of-band payload after a record (HEADER_TRACING_DATA: u32 at 8; AUXTRACE: u64 at 8).
///
/// perf's HEADER_TRACING_DATA record is 16 bytes (12 from older perf versions) and the tracing
/// data follow it; simpleperf writes the same type with the data inside the record (`size` = 12 +
/// the data padded to 64 bytes, see [`crate::record::TracingDataRecord`]), so a larger size means
/// there is no payload.
fn payload_len(header: RecordHeader, rec: &[u8], endian: Endian) -> Result<u64> {
    match header.type_ {
        rt::HEADER_TRACING_DATA if header.size > TRACING_DATA_RECORD_SIZE => Ok(0),
        rt::HEADER_TRACING_DATA => match rec.get(8..12) {
            Some(b) => Ok(u64::from(endian.u32(b))),
            None => Err(Error::Truncated {
                pos: Position::default(),
                what: "HEADER_TRACING_DATA size",
                needed: 12,
                available: rec.len() as u64,
            }),
        },
        rt::AUXTRACE => match rec.get(8..16) {
            Some(b) => Ok(endian.u64(b)),
            None => Err(Error::Truncated {
                pos: Position::default(),
                what: "AUXTRACE size",
                needed: 16,
                available: rec.len() as u64,
            }),
        },
        _ => Ok(0),
    }
}

/// Largest possible perf record (`u16` size; simpleperf's own types can be larger).
pub const MAX_RECORD_SIZE: usize = MAX_RECORD;
