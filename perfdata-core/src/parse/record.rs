//! nom parsers of the record bodies (the bytes after the 8-byte `perf_event_header`), one per
//! record type: the kernel's (perf_event.h), perf's own user records (tools/lib/perf/include/perf/
//! event.h), simpleperf's (record.h), the `sample_id` trailer and the `read_format` block.
//!
//! A kernel record's body is given without its `sample_id` trailer ([`sample_id`] reads that).
//! Errors name the structure the input is named for: [`crate::record::decode`] names it by the
//! record type (`MMAP`, `FORK`, …), so that one parser serves the types sharing a layout. Values
//! borrow from the input; a string that runs to the end of the record is cut at its first NUL.
//! They are defined next to the records they build (`record/kernel.rs`, `record/user.rs`,
//! `record/simpleperf.rs`, `record/mod.rs` for `sample_id`, `sample.rs` for the sample body and
//! `read_format`); this module re-exports them.
//!
//! ```
//! use perfdata_core::parse::{record, Reader};
//! use perfdata_core::{Endian, Position};
//! // A COMM body: pid, tid, "sh" padded to 8 bytes.
//! let body = [7, 0, 0, 0, 7, 0, 0, 0, b's', b'h', 0, 0, 0, 0, 0, 0];
//! let input = Reader::new(&body, Endian::Little, Position::at(0x208), "COMM");
//! let (_, comm) = record::comm(0)(input).unwrap();
//! assert_eq!((comm.pid, comm.comm), (7, &b"sh"[..]));
//! let short = Reader::new(&body[..6], Endian::Little, Position::at(0x208), "COMM");
//! let err = perfdata_core::parse::to_error(record::comm(0)(short).unwrap_err());
//! assert_eq!(err.to_string(), "truncated input at 0x20c: reading COMM, needed 4 bytes, 2 available");
//! ```

pub use crate::record::kernel::{aux, aux_output_hw_id, bpf_event, callchain_deferred, cgroup, comm, itrace_start};
pub use crate::record::kernel::{ksymbol, lost, lost_samples, mmap, mmap2, namespaces, read, switch_cpu_wide, task};
pub use crate::record::kernel::{text_poke, throttle};
pub use crate::record::sample_id;
pub use crate::record::simpleperf::{simpleperf_callchain, simpleperf_debug, simpleperf_dso, simpleperf_event_id};
pub use crate::record::simpleperf::{simpleperf_kernel_symbol, simpleperf_symbol, simpleperf_unwinding_result};
pub use crate::record::user::{
    auxtrace, auxtrace_error, auxtrace_info, bpf_metadata, build_id, compressed, compressed2,
};
pub use crate::record::user::{cpu_map, cpu_map_data, event_update, header_attr, header_event_type, header_feature};
pub use crate::record::user::{
    id_index, schedstat, stat, stat_config, stat_round, thread_map, time_conv, tracing_data,
};
pub use crate::sample::{read_values, sample};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::abi::misc;
    use crate::attr::read_format as rf;
    use crate::parse::Reader;

    use crate::error::Error;
    use crate::parse::tests::{shown, Parsed};
    use crate::parse::to_error;
    use crate::record::*;
    use crate::sample::Sample;
    use crate::{Endian, Position};
    use std::fmt::Debug;

    const AT: u64 = 0x2008;

    /// A record body built field by field in one byte order.
    struct W(Endian, Vec<u8>);

    impl W {
        fn u16(mut self, v: u16) -> W {
            self.0.put_u16(&mut self.1, v);
            self
        }
        fn u32(mut self, v: u32) -> W {
            self.0.put_u32(&mut self.1, v);
            self
        }
        fn u64(mut self, v: u64) -> W {
            self.0.put_u64(&mut self.1, v);
            self
        }
        fn bytes(mut self, b: &[u8]) -> W {
            self.1.extend_from_slice(b);
            self
        }
    }

    /// How a record body is checked: its type and misc, the parser (its value shown without the
    /// byte order it carries), the body built in a byte order, the value, the first cut from which
    /// a shorter body is still a body (a string or optional tail running to the end; `usize::MAX`:
    /// none), and whether the writer converts it.
    struct Case<'c> {
        type_: u32,
        misc: u16,
        parse: &'c dyn Fn(Reader<'_>) -> Parsed,
        build: &'c dyn Fn(Endian) -> W,
        expect: &'c dyn Debug,
        whole_from: usize,
        /// Single cuts that are whole bodies too (an optional block's start).
        whole_at: &'c [usize],
        converted: bool,
    }

    fn case<'c>(
        type_: u32,
        parse: &'c dyn Fn(Reader<'_>) -> Parsed,
        build: &'c dyn Fn(Endian) -> W,
        expect: &'c dyn Debug,
        whole_from: usize,
    ) -> Case<'c> {
        Case { type_, misc: 0, parse, build, expect, whole_from, whole_at: &[], converted: true }
    }

    /// In both byte orders: the body parses to the value and is read to its end; every cut before
    /// `whole_from` is an error naming the record type at an offset inside the cut, every cut from
    /// it parses; the writer's conversion of the record to the other byte order parses to the same
    /// value and converts back to the same bytes.
    fn check(c: Case<'_>) {
        let name = record_type::name(c.type_).unwrap_or("UNKNOWN");
        let want = format!("{:?}", c.expect);
        for e in [Endian::Little, Endian::Big] {
            let body = (c.build)(e).1;
            let input = |b| Reader::new(b, e, Position::at(AT), name);
            assert_eq!((c.parse)(input(&body)).unwrap(), (0, want.clone()), "{name} {e:?}");
            for cut in 0..body.len() {
                let r = (c.parse)(input(&body[..cut]));
                if cut >= c.whole_from || c.whole_at.contains(&cut) {
                    assert!(r.is_ok(), "{name} {e:?} cut {cut}");
                    continue;
                }
                match to_error(r.unwrap_err()) {
                    Error::Truncated { what, pos, .. } | Error::Malformed { what, pos, .. } => {
                        assert_eq!(what, name, "{name} {e:?} cut {cut}");
                        assert!((AT..=AT + cut as u64).contains(&pos.offset), "{name} cut {cut}");
                    }
                    err => panic!("{name} {e:?} cut {cut}: {err}"),
                }
            }
            #[cfg(feature = "write")]
            if c.converted {
                let mut rec = Vec::new();
                RecordHeader { type_: c.type_, misc: c.misc, size: 8 + body.len() as u16 }.write(e, &mut rec);
                rec.extend_from_slice(&body);
                let (o, pos) = (e.swapped(), Position::at(AT - 8));
                let mut other = Vec::new();
                crate::write::conv_record(&rec, pos, e, o, None, None, 2, &mut other).unwrap();
                let converted = Reader::new(other.get(8..).unwrap(), o, Position::at(AT), name);
                assert_eq!((c.parse)(converted).unwrap(), (0, want.clone()), "{name} to {o:?}");
                let mut back = Vec::new();
                crate::write::conv_record(&other, pos, o, e, None, None, 2, &mut back).unwrap();
                assert_eq!(back, rec, "{name} back to {e:?}");
            }
        }
    }

    use record_type as t;

    #[test]
    fn kernel_records() {
        let mmap_body = |e| W(e, vec![]).u32(7).u32(8).u64(0x400000).u64(0x1000).u64(0).bytes(b"/bin/sh\0");
        let expect = MmapRecord { pid: 7, tid: 8, addr: 0x400000, len: 0x1000, pgoff: 0, filename: b"/bin/sh" };
        check(case(t::MMAP, &|i| shown(mmap(i)), &mmap_body, &expect, 32));

        let build = |e| {
            W(e, vec![]).u32(7).u32(8).u64(0x400000).u64(0x1000).u64(0x2000).u32(8).u32(1).u64(42).u64(0).u32(5).u32(2)
        };
        let expect = Mmap2Record {
            pid: 7,
            tid: 8,
            addr: 0x400000,
            len: 0x1000,
            pgoff: 0x2000,
            id: Mmap2Id::Inode { maj: 8, min: 1, ino: 42, ino_generation: 0 },
            prot: 5,
            flags: 2,
            filename: b"/lib/x.so",
        };
        let with_name = |e| build(e).bytes(b"/lib/x.so\0\0\0\0\0\0\0");
        check(case(t::MMAP2, &|i| shown(mmap2(0)(i)), &with_name, &expect, 64));
        let raw: Vec<u8> = [&[4u8, 0, 0, 0][..], &[0xab; 4], &[0; 16]].concat();
        let build_id = |e| {
            W(e, vec![])
                .u32(7)
                .u32(8)
                .u64(0x400000)
                .u64(0x1000)
                .u64(0x2000)
                .bytes(&raw)
                .u32(5)
                .u32(2)
                .bytes(b"x\0\0\0\0\0\0\0")
        };
        let expect = Mmap2Record {
            id: Mmap2Id::BuildId { build_id_size: 4, build_id: &[0xab; 4], raw: &raw },
            filename: b"x",
            ..expect
        };
        let parse = |i: Reader<'_>| shown(mmap2(misc::MMAP_BUILD_ID)(i));
        check(Case { misc: misc::MMAP_BUILD_ID, ..case(t::MMAP2, &parse, &build_id, &expect, 64) });

        check(case(
            t::LOST,
            &|i| shown(lost(i)),
            &|e| W(e, vec![]).u64(3).u64(99),
            &LostRecord { id: 3, lost: 99 },
            16,
        ));
        let build = |e| W(e, vec![]).u32(7).u32(7).bytes(b"sh\0\0\0\0\0\0");
        let expect = CommRecord { pid: 7, tid: 7, comm: b"sh", exec: true };
        check(Case {
            misc: misc::COMM_EXEC,
            ..case(t::COMM, &|i| shown(comm(misc::COMM_EXEC)(i)), &build, &expect, 8)
        });
        let build = |e| W(e, vec![]).u32(7).u32(1).u32(8).u32(1).u64(123456789);
        let expect = TaskRecord { pid: 7, ppid: 1, tid: 8, ptid: 1, time: 123456789 };
        check(case(t::FORK, &|i| shown(task(i)), &build, &expect, 24));
        check(case(t::EXIT, &|i| shown(task(i)), &build, &expect, 24));
        let build = |e| W(e, vec![]).u64(5).u64(6).u64(7);
        check(case(t::THROTTLE, &|i| shown(throttle(i)), &build, &ThrottleRecord { time: 5, id: 6, stream_id: 7 }, 24));
        check(case(t::AUX, &|i| shown(aux(i)), &build, &AuxRecord { aux_offset: 5, aux_size: 6, flags: 7 }, 24));
        let build = |e| W(e, vec![]).u32(7).u32(8);
        check(case(t::ITRACE_START, &|i| shown(itrace_start(i)), &build, &ItraceStartRecord { pid: 7, tid: 8 }, 8));
        let expect = SwitchCpuWideRecord { next_prev_pid: 7, next_prev_tid: 8 };
        check(case(t::SWITCH_CPU_WIDE, &|i| shown(switch_cpu_wide(i)), &build, &expect, 8));
        let build = |e| W(e, vec![]).u64(12);
        check(case(t::LOST_SAMPLES, &|i| shown(lost_samples(i)), &build, &LostSamplesRecord { lost: 12 }, 8));
        check(case(
            t::AUX_OUTPUT_HW_ID,
            &|i| shown(aux_output_hw_id(i)),
            &build,
            &AuxOutputHwIdRecord { hw_id: 12 },
            8,
        ));

        // READ with read_format 0: the value alone (the writer converts it with the event's format).
        let build = |e| W(e, vec![]).u32(7).u32(8).u64(1000);
        let parse = |i: Reader<'_>| {
            shown(read(0)(i).map(|(r, v)| (r, (v.pid, v.tid, v.values.values().next().map(|v| v.value)))))
        };
        check(case(t::READ, &parse, &build, &(7u32, 8u32, Some(1000u64)), usize::MAX));

        let build = |e| W(e, vec![]).u32(7).u32(8).u64(2).u64(1).u64(2).u64(3).u64(4);
        let parse = |i: Reader<'_>| shown(namespaces(i).map(|(r, v)| (r, (v.nr_namespaces, v.namespace(1)))));
        check(case(t::NAMESPACES, &parse, &build, &(2u64, Some((3u64, 4u64))), usize::MAX));
        let build = |e| W(e, vec![]).u64(0xffffffffc0000000).u32(0x80).u16(1).u16(0).bytes(b"bpf_prog_x\0\0\0\0\0\0");
        let expect = KsymbolRecord { addr: 0xffffffffc0000000, len: 0x80, ksym_type: 1, flags: 0, name: b"bpf_prog_x" };
        check(case(t::KSYMBOL, &|i| shown(ksymbol(i)), &build, &expect, 16));
        let build = |e| W(e, vec![]).u16(1).u16(0).u32(42).bytes(&[1, 2, 3, 4, 5, 6, 7, 8]);
        let expect = BpfEventRecord { type_: 1, flags: 0, id: 42, tag: &[1, 2, 3, 4, 5, 6, 7, 8] };
        check(case(t::BPF_EVENT, &|i| shown(bpf_event(i)), &build, &expect, usize::MAX));
        let build = |e| W(e, vec![]).u64(1).bytes(b"/\0\0\0\0\0\0\0");
        check(case(t::CGROUP, &|i| shown(cgroup(i)), &build, &CgroupRecord { id: 1, path: b"/" }, 8));
        let build = |e| W(e, vec![]).u64(0xffffffff81000000).u16(2).u16(3).bytes(&[1, 2, 3, 4, 5]);
        let expect = TextPokeRecord { addr: 0xffffffff81000000, old_bytes: &[1, 2], new_bytes: &[3, 4, 5] };
        check(case(t::TEXT_POKE, &|i| shown(text_poke(i)), &build, &expect, 17));
        let build = |e| W(e, vec![]).u64(9).u64(2).u64(0x401000).u64(0x402000);
        let parse = |i: Reader<'_>| shown(callchain_deferred(i).map(|(r, v)| (r, (v.cookie, v.ips.to_vec()))));
        check(case(t::CALLCHAIN_DEFERRED, &parse, &build, &(9u64, vec![0x401000u64, 0x402000]), usize::MAX));
    }

    #[test]
    fn the_sample_id_trailer_and_read_values() {
        use crate::attr::sample_type as st;
        let types = st::TID | st::TIME | st::CPU | st::IDENTIFIER;
        for e in [Endian::Little, Endian::Big] {
            let b = W(e, vec![]).u32(7).u32(8).u64(1000).u32(3).u32(0).u64(55).1;
            let (rest, s) = sample_id(types)(Reader::new(&b, e, Position::at(AT), "x")).unwrap();
            assert_eq!(
                (rest.remaining(), s.tid(), s.time(), s.cpu(), s.identifier()),
                (0, Some(8), Some(1000), Some(3), Some(55))
            );
            for cut in 0..b.len() {
                let err = to_error(sample_id(types)(Reader::new(&b[..cut], e, Position::at(AT), "x")).unwrap_err());
                assert_eq!(
                    err.to_string(),
                    format!("truncated input at {AT:#x}: reading sample_id trailer, needed 32 bytes, {cut} available")
                );
            }
            // A group read: nr, time_enabled, {value, id} × nr.
            let format = rf::GROUP | rf::ID | rf::TOTAL_TIME_ENABLED;
            let b = W(e, vec![]).u64(2).u64(500).u64(10).u64(1).u64(20).u64(2).1;
            let (rest, v) = read_values(format)(Reader::new(&b, e, Position::at(AT), "READ")).unwrap();
            let values: Vec<_> = v.values().map(|v| (v.value, v.id)).collect();
            assert_eq!((rest.remaining(), v.nr(), v.time_enabled()), (0, Some(2), Some(500)));
            assert_eq!(values, vec![(10, Some(1)), (20, Some(2))]);
            for cut in 0..b.len() {
                let err =
                    to_error(read_values(format)(Reader::new(&b[..cut], e, Position::at(AT), "READ")).unwrap_err());
                assert!(matches!(err, Error::Truncated { what: "READ", .. }), "{err}");
            }
            let huge = W(e, vec![]).u64(u64::MAX).u64(0).1;
            assert!(read_values(format)(Reader::new(&huge, e, Position::at(AT), "READ")).is_err());
        }
    }

    #[test]
    fn user_records() {
        use crate::attr::EventAttr;
        let attr = EventAttr { type_: 1, size: 136, config: 9, sample_type: 0x107, ..Default::default() };
        let build = |e| {
            let mut b = Vec::new();
            attr.write(e, &mut b);
            W(e, b).u64(41).u64(42)
        };
        let parse = |i: Reader<'_>| shown(header_attr(i).map(|(r, v)| (r, (v.attr(), v.ids.to_vec()))));
        // The ids run to the end of the record.
        check(case(t::HEADER_ATTR, &parse, &build, &(attr.clone(), vec![41u64, 42]), 136));

        let build = |e| W(e, vec![]).u64(3).bytes(b"cycles\0\0");
        let expect = HeaderEventTypeRecord { event_id: 3, name: b"cycles" };
        check(case(t::HEADER_EVENT_TYPE, &|i| shown(header_event_type(i)), &build, &expect, 8));

        // Inline (simpleperf's, or a perf record bigger than 12 bytes) and out of band (perf's).
        let build = |e| W(e, vec![]).u32(4).bytes(b"data");
        let expect = TracingDataRecord { size: 4, data: b"data", inline: true };
        let h = RecordHeader { type_: t::SIMPLEPERF_TRACING_DATA, misc: 0, size: 16 };
        check(case(t::SIMPLEPERF_TRACING_DATA, &|i| shown(tracing_data(h, &[])(i)), &build, &expect, usize::MAX));
        let h = RecordHeader { type_: t::HEADER_TRACING_DATA, misc: 0, size: 16 };
        let build = |e| W(e, vec![]).u32(4096).bytes(&[0; 4]);
        let body = build(Endian::Big).1;
        let (_, r) = tracing_data(h, b"payload")(Reader::new(&body, Endian::Big, Position::at(0), "x")).unwrap();
        assert_eq!((r.size, r.data, r.inline), (4096, &b"payload"[..], false));

        let id: Vec<u8> = (1..=20).collect();
        let build = |e| W(e, vec![]).u32(u32::MAX).bytes(&id).bytes(&[8, 0, 0, 0]).bytes(b"/bin/x\0\0");
        let expect = BuildIdRecord { pid: -1, build_id: &id[..8], raw_build_id: &id, size: 8, filename: b"/bin/x" };
        let bid = misc::BUILD_ID_SIZE | 2;
        check(Case { misc: bid, ..case(t::HEADER_BUILD_ID, &|i| shown(build_id(bid)(i)), &build, &expect, 28) });

        let build = |e| W(e, vec![]).u64(1).u64(100).u64(0).u64(2).u64(3).u64(0).u64(1);
        let parse = |i: Reader<'_>| shown(id_index(i).map(|(r, v)| (r, v.entries().collect::<Vec<_>>())));
        let expect = vec![IdIndexEntry { id: 100, idx: 0, cpu: 2, tid: 3, machine_pid: Some(0), vcpu: Some(1) }];
        check(case(t::ID_INDEX, &parse, &build, &expect, 40));

        let build = |e| W(e, vec![]).u32(1).u32(0).u64(7).u64(8);
        let parse = |i: Reader<'_>| shown(auxtrace_info(i).map(|(r, v)| (r, (v.type_, v.priv_.to_vec()))));
        check(case(t::AUXTRACE_INFO, &parse, &build, &(1u32, vec![7u64, 8]), 8));

        let build = |e| W(e, vec![]).u64(0x1000).u64(0).u64(5).u32(0).u32(8).u32(1).u32(0);
        let expect =
            AuxtraceRecord { size: 0x1000, offset: 0, reference: 5, idx: 0, tid: 8, cpu: 1, reserved: 0, data: b"aux" };
        check(case(t::AUXTRACE, &|i| shown(auxtrace(b"aux")(i)), &build, &expect, usize::MAX));

        let mut msg = b"overflow".to_vec();
        msg.resize(64, 0);
        let build =
            |e| W(e, vec![]).u32(1).u32(2).u32(3).u32(4).u32(5).u32(2).u64(0x401000).u64(99).bytes(&msg).u32(6).u32(7);
        let expect = AuxtraceErrorRecord {
            type_: 1,
            code: 2,
            cpu: 3,
            pid: 4,
            tid: 5,
            fmt: 2,
            ip: 0x401000,
            time: Some(99),
            msg: b"overflow",
            machine_pid: Some(6),
            vcpu: Some(7),
        };
        check(case(t::AUXTRACE_ERROR, &|i| shown(auxtrace_error(i)), &build, &expect, 40));

        let build = |e| W(e, vec![]).u64(1).u64(7).bytes(b"sh\0\0\0\0\0\0\0\0\0\0\0\0\0\0");
        let parse = |i: Reader<'_>| shown(thread_map(i).map(|(r, v)| (r, v.entries().collect::<Vec<_>>())));
        check(case(t::THREAD_MAP, &parse, &build, &vec![(7u64, &b"sh"[..])], usize::MAX));

        // The three CPU map encodings.
        let list = |e| W(e, vec![]).u16(0).u16(2).u16(0).u16(u16::MAX);
        let parse = |i: Reader<'_>| shown(cpu_map(i).map(|(r, v)| (r, v.data)));
        check(case(t::CPU_MAP, &parse, &list, &CpuMapData::Cpus(vec![0, -1]), usize::MAX));
        let mask = |e| W(e, vec![]).u16(1).u16(1).u16(8).u32(0).u64(0b1011);
        check(case(t::CPU_MAP, &parse, &mask, &CpuMapData::Mask { long_size: 8, mask: vec![0b1011] }, usize::MAX));
        let range = |e| W(e, vec![]).u16(2).bytes(&[1, 0]).u16(0).u16(3);
        let expect = CpuMapData::Range { any_cpu: true, start: 0, end: 3 };
        check(case(t::CPU_MAP, &parse, &range, &expect, usize::MAX));
        let bad = W(Endian::Little, vec![]).u16(1).u16(1).u16(3).1;
        let err = to_error(cpu_map(Reader::new(&bad, Endian::Little, Position::at(AT), "CPU_MAP")).unwrap_err());
        assert_eq!(err.to_string(), "malformed CPU_MAP at 0x200c: cpu map mask long_size 3, expected 4 or 8");

        let build = |e| W(e, vec![]).u64(1).u64(3).u64(1);
        let parse = |i: Reader<'_>| shown(stat_config(i).map(|(r, v)| (r, (v.nr, v.data.to_vec()))));
        check(case(t::STAT_CONFIG, &parse, &build, &(1u64, vec![3u64, 1]), usize::MAX));
        let build = |e| W(e, vec![]).u64(5).u32(1).u32(0).u64(100).u64(200).u64(150);
        let expect = StatRecord { id: 5, cpu: 1, thread: 0, val: 100, ena: 200, run: 150 };
        check(case(t::STAT, &|i| shown(stat(i)), &build, &expect, usize::MAX));
        let build = |e| W(e, vec![]).u64(1).u64(1000);
        check(case(
            t::STAT_ROUND,
            &|i| shown(stat_round(i)),
            &build,
            &StatRoundRecord { type_: 1, time: 1000 },
            usize::MAX,
        ));

        let build = |e| W(e, vec![]).u64(1).u64(5).u64(0.5f64.to_bits());
        let expect = EventUpdateRecord { type_: 1, id: 5, update: EventUpdate::Scale(0.5) };
        check(case(t::EVENT_UPDATE, &|i| shown(event_update(i)), &build, &expect, usize::MAX));
        let build = |e| W(e, vec![]).u64(2).u64(5).bytes(b"cycles\0\0");
        let expect = EventUpdateRecord { type_: 2, id: 5, update: EventUpdate::Name(b"cycles") };
        check(case(t::EVENT_UPDATE, &|i| shown(event_update(i)), &build, &expect, 16));

        let build =
            |e| W(e, vec![]).u64(31).u64(1 << 20).u64(7).u64(1234).u64(u64::MAX).bytes(&[1, 1, 0, 0, 0, 0, 0, 0]);
        let expect = TimeConvRecord {
            time_shift: 31,
            time_mult: 1 << 20,
            time_zero: 7,
            time_cycles: Some(1234),
            time_mask: Some(u64::MAX),
            cap_user_time_zero: Some(1),
            cap_user_time_short: Some(1),
        };
        check(case(t::TIME_CONV, &|i| shown(time_conv(i)), &build, &expect, 24));

        let build = |e| W(e, vec![]).u64(u64::from(crate::header::feature::NRCPUS)).u32(4).u32(2);
        let parse = |i: Reader<'_>| {
            let e = i.endian();
            shown(
                header_feature(i)
                    .map(|(r, v)| (r, (v.feat_id, crate::feature::system::nr_cpus(v.data, e, Position::at(0)).ok()))),
            )
        };
        let expect =
            (u64::from(crate::header::feature::NRCPUS), Some(crate::feature::NrCpus { available: 4, online: 2 }));
        check(case(t::HEADER_FEATURE, &parse, &build, &expect, 8));

        let build = |e| W(e, vec![]).u64(3).bytes(b"zst");
        let expect = CompressedRecord { data_size: Some(3), data: b"zst" };
        check(case(t::COMPRESSED2, &|i| shown(compressed2(i)), &build, &expect, usize::MAX));
        let (_, c) = compressed(Reader::new(b"zst", Endian::Little, Position::at(0), "COMPRESSED")).unwrap();
        assert_eq!(c, CompressedRecord { data_size: None, data: b"zst" });

        let mut name = b"prog".to_vec();
        name.resize(512, 0);
        let mut entry = b"key".to_vec();
        entry.resize(64, 0);
        entry.extend_from_slice(b"value");
        entry.resize(320, 0);
        let build = |e| W(e, vec![]).bytes(&name).u64(1).bytes(&entry);
        let parse =
            |i: Reader<'_>| shown(bpf_metadata(i).map(|(r, v)| (r, (v.prog_name, v.entries().collect::<Vec<_>>()))));
        check(case(t::BPF_METADATA, &parse, &build, &(&b"prog"[..], vec![(&b"key"[..], &b"value"[..])]), usize::MAX));

        let build = |e| W(e, vec![]).u64(1000).u32(1).u16(17).u16(2).bytes(&[9; 8]);
        let expect = SchedstatRecord { timestamp: 1000, cpu: 1, version: 17, domain: Some(2), counters: &[9; 8] };
        check(case(t::SCHEDSTAT_DOMAIN, &|i| shown(schedstat(true)(i)), &build, &expect, 16));
    }

    #[test]
    fn simpleperf_records() {
        let build = |e| W(e, vec![]).u32(5).bytes(b"0 T x");
        let expect = SimpleperfKernelSymbolRecord { kallsyms: b"0 T x" };
        check(case(t::SIMPLEPERF_KERNEL_SYMBOL, &|i| shown(simpleperf_kernel_symbol(i)), &build, &expect, usize::MAX));
        let build = |e| W(e, vec![]).u64(2).u64(1).u64(0x1000).bytes(b"/lib/c.so\0\0\0\0\0\0\0");
        let expect = SimpleperfDsoRecord { dso_type: 2, dso_id: 1, min_vaddr: 0x1000, name: b"/lib/c.so" };
        check(case(t::SIMPLEPERF_DSO, &|i| shown(simpleperf_dso(i)), &build, &expect, 24));
        let build = |e| W(e, vec![]).u64(0x1100).u64(0x20).u64(1).bytes(b"malloc\0\0");
        let expect = SimpleperfSymbolRecord { addr: 0x1100, len: 0x20, dso_id: 1, name: b"malloc" };
        check(case(t::SIMPLEPERF_SYMBOL, &|i| shown(simpleperf_symbol(i)), &build, &expect, 24));
        let build = |e| W(e, vec![]).u64(1).u64(0).u64(77);
        let parse = |i: Reader<'_>| shown(simpleperf_event_id(i).map(|(r, v)| (r, v.pairs().collect::<Vec<_>>())));
        check(case(t::SIMPLEPERF_EVENT_ID, &parse, &build, &vec![(0u64, 77u64)], usize::MAX));
        let build = |e| W(e, vec![]).u32(7).u32(8).u64(2).u64(1000).u64(2).u64(0x10).u64(0x20).u64(0x7f00).u64(0x7f10);
        let parse = |i: Reader<'_>| {
            shown(
                simpleperf_callchain(i)
                    .map(|(r, v)| (r, (v.pid, v.tid, v.chain_type, v.time, v.ips.to_vec(), v.sps.to_vec()))),
            )
        };
        let expect = (7u32, 8u32, 2u64, 1000u64, vec![0x10u64, 0x20], vec![0x7f00u64, 0x7f10]);
        check(case(t::SIMPLEPERF_CALLCHAIN, &parse, &build, &expect, usize::MAX));
        let build = |e| {
            W(e, vec![])
                .u64(1000)
                .u64(5)
                .u64(0)
                .u64(0)
                .u64(0x7f00)
                .u64(0x8000)
                .u64(2)
                .u64(0b11)
                .u64(0xa)
                .u64(0xb)
                .u64(4)
                .bytes(&[1, 2, 3, 4])
                .u64(4)
                .u64(1)
                .u64(0x10)
                .u64(0x7f00)
        };
        let parse = |i: Reader<'_>| {
            shown(
                simpleperf_unwinding_result(i)
                    .map(|(r, v)| (r, (v.time, v.regs.to_vec(), v.stack, v.dyn_size, v.ips.to_vec(), v.sps.to_vec()))),
            )
        };
        let expect = (1000u64, vec![0xau64, 0xb], &[1u8, 2, 3, 4][..], 4u64, vec![0x10u64], vec![0x7f00u64]);
        // Old files stop after the stack.
        check(Case { whole_at: &[100], ..case(t::SIMPLEPERF_UNWINDING_RESULT, &parse, &build, &expect, usize::MAX) });
        let build = |e| W(e, vec![]).u64(1000).bytes(b"hello\0\0\0");
        let expect = SimpleperfDebugRecord { time: 1000, message: b"hello" };
        check(case(t::SIMPLEPERF_DEBUG, &|i| shown(simpleperf_debug(i)), &build, &expect, 14));
    }
    #[test]
    fn samples_by_their_attr() {
        use crate::attr::{sample_type as st, EventAttr};
        let sample_type = st::IDENTIFIER | st::IP | st::TID | st::TIME | st::CPU | st::PERIOD | st::CALLCHAIN | st::RAW;
        let attr = EventAttr { type_: 1, size: 136, sample_type, flags: 1 << 18, ..Default::default() };
        let ev = crate::event::Event::new(0, attr, vec![5]);
        let fields = |s: &Sample<'_>| {
            let chain = s.callchain().map(|c| c.to_vec());
            (
                s.identifier(),
                s.ip(),
                s.pid(),
                s.tid(),
                s.time(),
                s.cpu(),
                s.period(),
                chain,
                s.raw().map(<[u8]>::to_vec),
            )
        };
        let expect = (
            Some(5),
            Some(0x401000),
            Some(7),
            Some(8),
            Some(1000),
            Some(1),
            Some(4000),
            Some(vec![0xffff_ffff_ffff_fe00, 0x401000]),
            Some(vec![1, 2, 3, 4]),
        );
        for e in [Endian::Little, Endian::Big] {
            let b = W(e, vec![])
                .u64(5)
                .u64(0x401000)
                .u32(7)
                .u32(8)
                .u64(1000)
                .u32(1)
                .u32(0)
                .u64(4000)
                .u64(2)
                .u64(0xffff_ffff_ffff_fe00)
                .u64(0x401000)
                .u32(4)
                .bytes(&[1, 2, 3, 4])
                .1;
            let input = |b| Reader::new(b, e, Position::at(AT), "SAMPLE");
            let (rest, s) = sample(&ev)(input(&b)).unwrap();
            assert_eq!((rest.remaining(), fields(&s)), (0, expect.clone()));
            // Every cut names the field that does not fit, where it starts.
            for cut in 0..b.len() {
                let err = to_error(sample(&ev)(input(&b[..cut])).unwrap_err());
                let (what, at) = match cut {
                    0..48 => ("SAMPLE fixed fields", 0),
                    48..72 => ("SAMPLE callchain", 48),
                    _ => ("SAMPLE raw", 72),
                };
                let at = AT + at;
                let text = format!("truncated input at {at:#x}: reading {what}, needed 8 bytes, ");
                assert!(err.to_string().starts_with(&text), "cut {cut}: {err}");
            }
            #[cfg(feature = "write")]
            {
                let mut rec = Vec::new();
                RecordHeader { type_: t::SAMPLE, misc: 0, size: 8 + b.len() as u16 }.write(e, &mut rec);
                rec.extend_from_slice(&b);
                let (o, pos) = (e.swapped(), Position::at(AT - 8));
                let mut other = Vec::new();
                crate::write::conv_record(&rec, pos, e, o, Some(&ev), None, 2, &mut other).unwrap();
                let body = other.get(8..).unwrap();
                let (_, s) = sample(&ev)(Reader::new(body, o, Position::at(AT), "SAMPLE")).unwrap();
                assert_eq!(fields(&s), expect);
                let mut back = Vec::new();
                crate::write::conv_record(&other, pos, o, e, Some(&ev), None, 2, &mut back).unwrap();
                assert_eq!(back, rec);
            }
        }
    }
}
