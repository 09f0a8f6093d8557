//! nom parsers of the feature sections (perf's header.c `write_*`/`process_*`, reference §3), one
//! per section, and of the feature section table.
//!
//! Each parser takes the section's payload and names itself in its errors (the feature's name:
//! `NRCPUS`, `CPU_TOPOLOGY dies`, …); it returns the typed value of [`crate::feature`], borrowing
//! from the payload where that type does. The functions of [`crate::feature`] (`nr_cpus(data,
//! endian, pos)`, …) and [`crate::feature::Features`] run these.
//! Each parser is defined in the `parse` submodule of its family's module (`feature::system::parse`,
//! …; the table in `header`); this module re-exports them.
//!
//! ```
//! use perfdata_core::parse::{feature, Reader};
//! use perfdata_core::{Endian, Position};
//! // HEADER_NRCPUS of a big-endian file: 4 CPUs available, 2 online.
//! let payload = [0, 0, 0, 4, 0, 0, 0, 2];
//! let input = Reader::new(&payload, Endian::Big, Position::at(0x1000), "feature section");
//! let (_, n) = feature::nr_cpus(input).unwrap();
//! assert_eq!((n.available, n.online), (4, 2));
//! let short = Reader::new(&payload[..6], Endian::Big, Position::at(0x1000), "feature section");
//! let err = perfdata_core::parse::to_error(feature::nr_cpus(short).unwrap_err());
//! assert_eq!(err.to_string(), "truncated input at 0x1004: reading NRCPUS, needed 4 bytes, 2 available");
//! ```

pub use crate::feature::bpf::parse::*;
pub use crate::feature::build_id::parse::*;
pub use crate::feature::clock::parse::*;
pub use crate::feature::data::parse::*;
pub use crate::feature::events::parse::*;
pub use crate::feature::simpleperf::parse::*;
pub use crate::feature::strings::parse::*;
pub use crate::feature::system::parse::*;
pub use crate::feature::topology::parse::*;
pub use crate::header::feature_table as table;

#[cfg(test)]
mod tests {
    use super::*;
    use super::{compressed, event_desc};
    use crate::feature::bpf::BpfBtf;
    use crate::feature::build_id::MISC_BUILD_ID_SIZE;
    use crate::feature::build_id::{BuildId, BuildIds};
    use crate::feature::simpleperf::{dso_type, SimpleperfFile, SimpleperfSymbol};
    use crate::feature::*;
    use crate::parse::Reader;

    use crate::attr::EventAttr;
    use crate::error::Error;
    use crate::feature::simpleperf::tests::{field_bytes as field, field_varint};
    use crate::feature::system::tests::put_string;
    use crate::header::feature as bit;
    use crate::header::Section;
    use crate::parse::tests::{shown, Parsed};
    use crate::parse::to_error;
    use crate::{Endian, Position};
    use std::fmt::Debug;

    const AT: u64 = 0x1000;

    /// How a section is checked: the parser, the section built in a byte order, the value, the
    /// cuts that are a shorter section rather than a truncated one, and whether the writer
    /// converts the section's byte order.
    struct Case<'c> {
        bit: u32,
        name: &'static str,
        parse: &'c dyn Fn(Reader<'_>) -> Parsed,
        build: &'c dyn Fn(Endian) -> Vec<u8>,
        expect: &'c dyn Debug,
        whole_cuts: &'c dyn Fn(Endian) -> Vec<usize>,
        converted: bool,
    }

    fn none(_: Endian) -> Vec<usize> {
        vec![]
    }

    fn case<'c>(
        bit: u32,
        name: &'static str,
        parse: &'c dyn Fn(Reader<'_>) -> Parsed,
        build: &'c dyn Fn(Endian) -> Vec<u8>,
        expect: &'c dyn Debug,
    ) -> Case<'c> {
        Case { bit, name, parse, build, expect, whole_cuts: &none, converted: true }
    }

    fn input(b: &[u8], e: Endian) -> Reader<'_> {
        Reader::new(b, e, Position::at(AT), "feature section")
    }

    /// In both byte orders: the whole section parses to the value and is read to its end; every
    /// cut short of it (but the whole-entry cuts) is an error naming the section, at an offset
    /// inside the cut bytes; the writer's conversion to the other byte order parses to the same
    /// value and converts back to the same bytes.
    fn check(c: Case<'_>) {
        let want = format!("{:?}", c.expect);
        for e in [Endian::Little, Endian::Big] {
            let b = (c.build)(e);
            assert_eq!((c.parse)(input(&b, e)).unwrap(), (0, want.clone()), "{} {e:?}", c.name);
            let whole = (c.whole_cuts)(e);
            for cut in 0..b.len() {
                if whole.contains(&cut) {
                    assert!((c.parse)(input(&b[..cut], e)).is_ok(), "{} {e:?} cut {cut}", c.name);
                    continue;
                }
                let err = to_error((c.parse)(input(&b[..cut], e)).unwrap_err());
                match &err {
                    Error::Truncated { what, pos, .. } | Error::Malformed { what, pos, .. } => {
                        assert!(what.starts_with(c.name), "{} {e:?} cut {cut}: {err}", c.name);
                        assert!((AT..=AT + cut as u64).contains(&pos.offset), "{} cut {cut}: {err}", c.name);
                    }
                    err => panic!("{} {e:?} cut {cut}: {err}", c.name),
                }
            }
            #[cfg(feature = "write")]
            if c.converted {
                let (o, pos) = (e.swapped(), Position::at(AT));
                let mut other = Vec::new();
                crate::write::conv_feature(c.bit, &b, e, o, pos, 2, &mut other).unwrap();
                assert_eq!((c.parse)(input(&other, o)).unwrap(), (0, want.clone()), "{} to {o:?}", c.name);
                let mut back = Vec::new();
                crate::write::conv_feature(c.bit, &other, o, e, pos, 2, &mut back).unwrap();
                assert_eq!(back, b, "{} back to {e:?}", c.name);
            }
        }
    }

    fn u32s(e: Endian, v: &[u32]) -> Vec<u8> {
        let mut b = Vec::new();
        v.iter().for_each(|&v| e.put_u32(&mut b, v));
        b
    }

    fn u64s_(e: Endian, v: &[u64]) -> Vec<u8> {
        let mut b = Vec::new();
        v.iter().for_each(|&v| e.put_u64(&mut b, v));
        b
    }

    fn strings(e: Endian, b: &mut Vec<u8>, l: &[&str]) {
        l.iter().for_each(|s| put_string(e, b, s));
    }

    #[test]
    fn machine_description_sections() {
        check(case(
            bit::HOSTNAME,
            "string feature",
            &|i| shown(string(i)),
            &|e| {
                let mut b = Vec::new();
                put_string(e, &mut b, "vm");
                b
            },
            &"vm",
        ));
        check(case(
            bit::NRCPUS,
            "NRCPUS",
            &|i| shown(nr_cpus(i)),
            &|e| u32s(e, &[4, 2]),
            &NrCpus { available: 4, online: 2 },
        ));
        check(case(bit::TOTAL_MEM, "TOTAL_MEM", &|i| shown(total_mem(i)), &|e| u64s_(e, &[24684084]), &24684084u64));
        check(case(
            bit::CMDLINE,
            "CMDLINE",
            &|i| shown(cmdline(i)),
            &|e| {
                let mut b = u32s(e, &[3]);
                strings(e, &mut b, &["/usr/bin/perf", "record", "-a"]);
                b
            },
            &["/usr/bin/perf", "record", "-a"],
        ));
    }

    #[test]
    fn build_ids_and_event_descs() {
        use crate::feature::build_id::tests::entry;
        let build = |e| {
            let mut b = Vec::new();
            entry(e, &mut b, 1 | MISC_BUILD_ID_SIZE, Some(-1), &[0xab; 20], 20, "[kernel.kallsyms]");
            entry(e, &mut b, 2 | MISC_BUILD_ID_SIZE, Some(7), &[0xab; 8], 8, "/bin/x");
            b
        };
        let expect = BuildIds {
            entries: vec![
                BuildId { pid: -1, misc: 0x8001, build_id: vec![0xab; 20], filename: "[kernel.kallsyms]".into() },
                BuildId { pid: 7, misc: 0x8002, build_id: vec![0xab; 8], filename: "/bin/x".into() },
            ],
            old_abi: false,
        };
        let first = |_| vec![0, 56];
        check(Case {
            whole_cuts: &first,
            ..case(bit::BUILD_ID, "BUILD_ID entry", &|i| shown(build_ids(i)), &build, &expect)
        });

        let attr = EventAttr { type_: 2, size: 128, config: 0x174, flags: 0x140003, ..Default::default() };
        let build = |e| {
            let mut b = u32s(e, &[1, 128]);
            attr.write(e, &mut b);
            e.put_u32(&mut b, 2);
            put_string(e, &mut b, "sched:sched_switch");
            b.extend_from_slice(&u64s_(e, &[1334, 1335]));
            b
        };
        let expect = vec![EventDesc { attr: attr.clone(), name: "sched:sched_switch".into(), ids: vec![1334, 1335] }];
        check(case(bit::EVENT_DESC, "EVENT_DESC", &|i| shown(event_desc(i)), &build, &expect));
        let err = to_error(event_desc(input(&u32s(Endian::Little, &[1, 63]), Endian::Little)).unwrap_err());
        assert_eq!(err.to_string(), "malformed EVENT_DESC at 0x1004: attr_size 63 below 64");
    }

    #[test]
    fn topology_sections() {
        let lists = |e: Endian, b: &mut Vec<u8>, l: &[&str]| {
            e.put_u32(b, l.len() as u32);
            strings(e, b, l);
        };
        let build = |e| {
            let mut b = Vec::new();
            lists(e, &mut b, &["0-1"]);
            lists(e, &mut b, &["0", "1"]);
            b.extend_from_slice(&u32s(e, &[0, 0, 1, u32::MAX]));
            lists(e, &mut b, &["0-1"]);
            b.extend_from_slice(&u32s(e, &[0, 3]));
            b
        };
        let expect = CpuTopology {
            package_cpus: vec!["0-1".into()],
            core_cpus: vec!["0".into(), "1".into()],
            cpus: Some(vec![
                CpuIds { core_id: 0, socket_id: 0, die_id: Some(0) },
                CpuIds { core_id: 1, socket_id: -1, die_id: Some(3) },
            ]),
            die_cpus: Some(vec!["0-1".into()]),
        };
        // Before 4.1 the section stops after the lists, before 5.3 after the ids.
        let blocks = |_| vec![4 + 68 + 4 + 2 * 68, 4 + 68 + 4 + 2 * 68 + 16];
        check(Case {
            whole_cuts: &blocks,
            ..case(bit::CPU_TOPOLOGY, "CPU_TOPOLOGY", &|i| shown(cpu_topology(2)(i)), &build, &expect)
        });

        let build = |e| {
            let mut b = u32s(e, &[1, 0]);
            b.extend_from_slice(&u64s_(e, &[5990604, 4749392]));
            put_string(e, &mut b, "0-1");
            b
        };
        let expect = vec![NumaNode { node: 0, mem_total_kb: 5990604, mem_free_kb: 4749392, cpus: "0-1".into() }];
        check(case(bit::NUMA_TOPOLOGY, "NUMA_TOPOLOGY", &|i| shown(numa_topology(i)), &build, &expect));

        let build = |e| {
            let mut b = u32s(e, &[1, 1, 3, 64, 32768, 16]);
            strings(e, &mut b, &["Unified", "32768K", "0-1"]);
            b
        };
        let expect = vec![CacheLevel {
            level: 3,
            line_size: 64,
            sets: 32768,
            ways: 16,
            type_: "Unified".into(),
            size: "32768K".into(),
            map: "0-1".into(),
        }];
        check(case(bit::CACHE, "CACHE", &|i| shown(cache(i)), &build, &expect));
        let err = to_error(cache(input(&u32s(Endian::Big, &[2, 0]), Endian::Big)).unwrap_err());
        assert_eq!(err.to_string(), "malformed CACHE at 0x1004: version 2, only 1 is defined");

        let build = |e| u64s_(e, &[1, 0x8000000, 1, 0, 200, 200, u64::MAX, 0xffff_ffff_0000_00ff, 0, 0]);
        let expect = MemTopology {
            version: 1,
            block_size: 0x8000000,
            nodes: vec![MemoryNode {
                node: 0,
                size: 200,
                nbits: 200,
                bitmap: vec![u64::MAX, 0xffff_ffff_0000_00ff, 0, 0],
            }],
        };
        check(case(bit::MEM_TOPOLOGY, "MEM_TOPOLOGY", &|i| shown(mem_topology(i)), &build, &expect));

        let build = |e| {
            let mut b = u32s(e, &[1]);
            strings(e, &mut b, &["cpu_core", "0-3"]);
            b
        };
        let expect = vec![HybridNode { pmu_name: "cpu_core".into(), cpus: "0-3".into() }];
        check(case(bit::HYBRID_TOPOLOGY, "HYBRID_TOPOLOGY", &|i| shown(hybrid_topology(i)), &build, &expect));

        let build = |e| {
            let mut b = u32s(e, &[17, 1, 0, 1, 0]);
            strings(e, &mut b, &["MC", "00000003", "0-1"]);
            b
        };
        let expect = CpuDomainInfo {
            schedstat_version: 17,
            max_sched_domains: 1,
            cpus: vec![CpuDomains {
                cpu: 0,
                domains: vec![SchedDomain {
                    domain: 0,
                    name: Some("MC".into()),
                    cpumask: "00000003".into(),
                    cpulist: "0-1".into(),
                }],
            }],
        };
        // The writer copies CPU_DOMAIN_INFO as it is (not converted).
        check(Case {
            converted: false,
            ..case(bit::CPU_DOMAIN_INFO, "CPU_DOMAIN_INFO", &|i| shown(cpu_domain_info(1)(i)), &build, &expect)
        });
    }

    #[test]
    fn event_and_pmu_sections() {
        let build = |e| {
            let mut b = u32s(e, &[1]);
            put_string(e, &mut b, "{anon_group}");
            b.extend_from_slice(&u32s(e, &[0, 2]));
            b
        };
        let expect = vec![GroupDesc { name: "{anon_group}".into(), leader_idx: 0, nr_members: 2 }];
        check(case(bit::GROUP_DESC, "GROUP_DESC", &|i| shown(group_desc(i)), &build, &expect));

        let build = |e| {
            let mut b = u32s(e, &[2, 1]);
            put_string(e, &mut b, "software");
            e.put_u32(&mut b, 0xffff_0001);
            put_string(e, &mut b, "hwmon_x");
            b
        };
        let expect = vec![
            PmuMapping { type_: 1, name: "software".into() },
            PmuMapping { type_: 0xffff_0001, name: "hwmon_x".into() },
        ];
        check(case(bit::PMU_MAPPINGS, "PMU_MAPPINGS", &|i| shown(pmu_mappings(i)), &build, &expect));

        let build = |e| {
            let mut b = u32s(e, &[1]);
            strings(e, &mut b, &["branches", "32"]);
            b
        };
        let expect = vec![PmuCap { name: "branches".into(), value: "32".into() }];
        check(case(bit::CPU_PMU_CAPS, "CPU_PMU_CAPS", &|i| shown(cpu_pmu_caps(i)), &build, &expect));

        let build = |e| {
            let mut b = u32s(e, &[2, 1]);
            strings(e, &mut b, &["branches", "32", "cpu_core"]);
            e.put_u32(&mut b, 0);
            put_string(e, &mut b, "cpu_atom");
            b
        };
        let expect = vec![
            PmuCaps { pmu_name: "cpu_core".into(), caps: vec![PmuCap { name: "branches".into(), value: "32".into() }] },
            PmuCaps { pmu_name: "cpu_atom".into(), caps: vec![] },
        ];
        check(case(bit::PMU_CAPS, "PMU_CAPS", &|i| shown(pmu_caps(i)), &build, &expect));
    }

    #[test]
    fn time_and_data_sections() {
        let st = SampleTime { first: 4410607901000, last: 4410696880000 };
        check(case(
            bit::SAMPLE_TIME,
            "SAMPLE_TIME",
            &|i| shown(sample_time(i)),
            &|e| u64s_(e, &[st.first, st.last]),
            &st,
        ));
        check(case(bit::CLOCKID, "CLOCKID", &|i| shown(clockid_res_ns(i)), &|e| u64s_(e, &[1]), &1u64));
        let build = |e| {
            let mut b = u32s(e, &[1, 4]);
            b.extend_from_slice(&u64s_(e, &[1795411894813587000, 3112013177188]));
            b
        };
        let expect = ClockData { version: 1, clockid: 4, tod_ns: 1795411894813587000, clockid_ns: 3112013177188 };
        check(case(bit::CLOCK_DATA, "CLOCK_DATA", &|i| shown(clock_data(i)), &build, &expect));
        let expect = vec![
            AuxtraceIndexEntry { file_offset: 0x1000, size: 0x48 },
            AuxtraceIndexEntry { file_offset: 0x2000, size: 0x1048 },
        ];
        let build = |e| u64s_(e, &[2, 0x1000, 0x48, 0x2000, 0x1048]);
        check(case(bit::AUXTRACE, "AUXTRACE", &|i| shown(auxtrace(i)), &build, &expect));
        check(case(bit::DIR_FORMAT, "DIR_FORMAT", &|i| shown(dir_format(i)), &|e| u64s_(e, &[1]), &1u64));
        let expect = Compressed { version: 0, type_: 1, level: 1, ratio: 7, mmap_len: 528384 };
        let build = |e| u32s(e, &[0, 1, 1, 7, 528384]);
        check(case(bit::COMPRESSED, "COMPRESSED feature", &|i| shown(compressed(i)), &build, &expect));
        // A count no section could hold allocates nothing and is an error.
        let b = u64s_(Endian::Little, &[u64::MAX]);
        assert!(auxtrace(input(&b, Endian::Little)).is_err());
    }

    #[test]
    fn bpf_sections() {
        let info = [7u8; 24];
        let build = |e| {
            let mut b = u32s(e, &[1, 24, 3]);
            e.put_u64(&mut b, 5);
            b.extend_from_slice(&info);
            b.extend_from_slice(&[9, 9, 9]);
            b
        };
        // The writer copies BPF sections as they are (perf skips them in cross-endian files).
        let fields = |i: Reader<'_>| {
            shown(bpf_prog_info(i).map(|(rest, v)| {
                let v: Vec<_> = v.iter().map(|p| (p.info_len, p.data_len, p.arrays, p.info, p.data)).collect();
                (rest, v)
            }))
        };
        let expect = vec![(24u32, 3u32, 5u64, &info[..], &[9u8; 3][..])];
        check(Case { converted: false, ..case(bit::BPF_PROG_INFO, "BPF_PROG_INFO", &fields, &build, &expect) });
        for e in [Endian::Little, Endian::Big] {
            let b = build(e);
            let (_, p) = bpf_prog_info(input(&b, e)).unwrap();
            assert_eq!(p.first().map(|p| p.endian), Some(e));
        }
        let build = |e| {
            let mut b = u32s(e, &[1, 7, 2]);
            b.extend_from_slice(&[0x9f, 0xeb]);
            b
        };
        let expect = vec![BpfBtf { id: 7, data: &[0x9f, 0xeb] }];
        check(Case { converted: false, ..case(bit::BPF_BTF, "BPF_BTF", &|i| shown(bpf_btf(i)), &build, &expect) });
    }

    #[test]
    fn simpleperf_sections() {
        let build = |e: Endian| {
            let mut entry = b"/system/lib/libc.so\0".to_vec();
            e.put_u32(&mut entry, dso_type::ELF_FILE);
            e.put_u64(&mut entry, 0x1000);
            e.put_u32(&mut entry, 1);
            e.put_u64(&mut entry, 0x1100);
            e.put_u32(&mut entry, 0x20);
            entry.extend_from_slice(b"malloc\0");
            e.put_u64(&mut entry, 0x400);
            let mut b = u32s(e, &[entry.len() as u32]);
            b.extend_from_slice(&entry);
            b
        };
        let expect = vec![SimpleperfFile {
            path: "/system/lib/libc.so".into(),
            file_type: dso_type::ELF_FILE,
            min_vaddr: 0x1000,
            symbols: vec![SimpleperfSymbol { vaddr: 0x1100, len: 0x20, name: "malloc".into() }],
            dex_file_offsets: vec![],
            file_offset_of_min_vaddr: Some(0x400),
        }];
        check(Case {
            whole_cuts: &|_| vec![0],
            ..case(bit::SIMPLEPERF_FILE, "SIMPLEPERF_FILE", &|i| shown(simpleperf_file(i)), &build, &expect)
        });

        let build = |e| {
            let mut sym = Vec::new();
            field_varint(&mut sym, 1, 0x1100);
            field_varint(&mut sym, 2, 0x20);
            field(&mut sym, 3, b"malloc");
            let mut elf = Vec::new();
            field_varint(&mut elf, 1, 0x400);
            let mut msg = Vec::new();
            field(&mut msg, 1, b"/system/lib/libc.so");
            field_varint(&mut msg, 2, u64::from(dso_type::ELF_FILE));
            field_varint(&mut msg, 3, 0x1000);
            field(&mut msg, 4, &sym);
            field(&mut msg, 6, &elf);
            let mut b = u32s(e, &[msg.len() as u32]);
            b.extend_from_slice(&msg);
            b
        };
        check(Case {
            whole_cuts: &|_| vec![0],
            ..case(bit::SIMPLEPERF_FILE2, "SIMPLEPERF_FILE2", &|i| shown(simpleperf_file2(i)), &build, &expect)
        });

        let build = |_| b"simpleperf_version\x001.0\0clockid\0perf\0".to_vec();
        let expect = vec![("simpleperf_version", "1.0"), ("clockid", "perf")];
        check(Case {
            whole_cuts: &|_| vec![0, 23],
            ..case(
                bit::SIMPLEPERF_META_INFO,
                "SIMPLEPERF_META_INFO",
                &|i| shown(simpleperf_meta_info(i)),
                &build,
                &expect,
            )
        });

        let build = |_| {
            let mut file = Vec::new();
            field(&mut file, 1, b"/system/bin/app");
            field_varint(&mut file, 2, 4096);
            let mut b = Vec::new();
            field(&mut b, 1, &file);
            b
        };
        let expect = vec![DebugUnwindFile { path: "/system/bin/app".into(), size: 4096 }];
        check(Case {
            whole_cuts: &|_| vec![0],
            ..case(
                bit::SIMPLEPERF_DEBUG_UNWIND,
                "DebugUnwindFeature",
                &|i| shown(simpleperf_debug_unwind(i)),
                &build,
                &expect,
            )
        });
        // A length past the end, an 11-byte varint, a group.
        for (bad, detail) in [
            (&[0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f][..], "malformed m at 0x1006: 4294967295 bytes wanted, 0 left"),
            (&[0x80; 11][..], "malformed m at 0x1009: varint over 64 bits"),
            (&[0x0b][..], "malformed m at 0x1001: wire type 3 of field 1"),
        ] {
            let err = to_error(proto_field(input(bad, Endian::Little).context("m")).unwrap_err());
            assert_eq!(err.to_string(), detail);
        }
    }

    #[test]
    fn the_feature_table() {
        for e in [Endian::Little, Endian::Big] {
            let b = u64s_(e, &[0x300, 0x40, 0x340, 0x8]);
            let (rest, t) = table(&[2, 7])(input(&b, e)).unwrap();
            assert_eq!(rest.remaining(), 0);
            assert_eq!(t, vec![(2, Section { offset: 0x300, size: 0x40 }), (7, Section { offset: 0x340, size: 8 })]);
            for cut in 0..b.len() {
                let err = to_error(table(&[2, 7])(input(&b[..cut], e)).unwrap_err());
                assert!(matches!(err, Error::Truncated { what: "feature section table", .. }), "{err}");
            }
        }
    }
}
