//! What every fuzz target does with a parsed file: read all records in both orders and touch every
//! field, so the whole public API runs on the fuzzed bytes, not just the entry point.

use perfdata_core::attr::{sample_type as st, EventAttr};
use perfdata_core::record::RecordKind;
use perfdata_core::{Endian, Order, PerfFile};

/// Read everything of `file`; returns the number of records read.
pub fn drive(file: &PerfFile<'_>) -> usize {
    let mut n = 0;
    for bit in file.feature_bits() {
        let _ = file.feature_data(bit);
    }
    let _ = file.compression();
    for order in [Order::File, Order::Time] {
        let Ok(mut recs) = file.records(order) else { return n };
        let mut guard = 0usize;
        while let Some(r) = recs.next_record() {
            guard += 1;
            if guard > 5_000_000 {
                panic!("reader does not terminate");
            }
            match r {
                Ok(r) => {
                    n += 1;
                    touch(&r);
                }
                Err(e) => {
                    let _ = (e.to_string(), e.position(), e.record_type());
                }
            }
        }
        let _ = recs.diagnostics();
    }
    n
}

fn touch(r: &perfdata_core::Record<'_>) {
    let _ = perfdata_core::json::record_json(r);
    let _ = r.time();
    if let Some(sid) = r.sample_id {
        let _ = (sid.pid(), sid.tid(), sid.time(), sid.id(), sid.stream_id(), sid.cpu(), sid.res(), sid.identifier());
    }
    match &r.kind {
        RecordKind::Sample(s) => {
            let _ = (s.identifier(), s.ip(), s.pid(), s.tid(), s.time(), s.addr(), s.id(), s.stream_id());
            let _ = (s.cpu(), s.cpu_res(), s.period_or_attr(), s.weight_struct(), s.transaction(), s.phys_addr());
            let _ = (s.cgroup(), s.data_page_size(), s.code_page_size(), s.aux().map(<[u8]>::len), s.trailing().len());
            let _ =
                s.data_src_decoded().map(|d| (d.op_names(), d.lvl_names(), d.snoop_names(), d.dtlb_names(), d.hops()));
            let _ = s.read().map(|r| (r.nr(), r.time_enabled(), r.time_running(), r.values().count()));
            let _ = s.callchain().map(|c| c.iter().fold(0u64, |a, b| a ^ b));
            let _ = s.callchain_contexts();
            let _ = s.raw().map(<[u8]>::len);
            let _ = s.branch_stack().map(|b| {
                b.entries().map(|e| (e.cycles(), e.branch_type(), e.spec(), e.priv_(), e.new_type())).count()
                    + b.counters.map_or(0, |c| c.len())
            });
            for regs in [s.regs_user(), s.regs_intr()].into_iter().flatten() {
                let _ = regs.iter().count();
                let _ = regs.get(7);
            }
            let _ = s.stack_user().map(|u| (u.size, u.data.len(), u.dyn_size));
            if let Some(ev) = r.event {
                let _ = perfdata_core::event::sample_event_names(s, ev, r.events);
            }
        }
        RecordKind::ThreadMap(t) => {
            let _ = t.entries().count();
        }
        RecordKind::CpuMap(c) => {
            let _ = c.data.cpus().len();
        }
        RecordKind::IdIndex(i) => {
            let _ = i.entries().count();
        }
        RecordKind::StatConfig(c) => {
            let _ = c.entries().count();
        }
        RecordKind::BpfMetadata(b) => {
            let _ = b.entries().count();
        }
        RecordKind::Namespaces(ns) => {
            let _ = ns.namespace(3);
        }
        _ => {}
    }
}

/// A one-attr perf.data file with the given attr and data section.
pub fn file_with(attr: &EventAttr, data: &[u8], endian: Endian) -> Vec<u8> {
    let mut out = vec![0u8; 104];
    let attrs_off = out.len() as u64;
    attr.write(endian, &mut out);
    endian.put_u64(&mut out, 0);
    endian.put_u64(&mut out, 0);
    let attr_size = out.len() as u64 - attrs_off;
    let data_off = out.len() as u64;
    out.extend_from_slice(data);
    let mut h = Vec::new();
    h.extend_from_slice(if endian == Endian::Little { b"PERFILE2" } else { b"2ELIFREP" });
    for v in [104u64, attr_size, attrs_off, attr_size, data_off, data.len() as u64, 0, 0, 0, 0, 0, 0] {
        endian.put_u64(&mut h, v);
    }
    if let Some(dst) = out.get_mut(..104) {
        dst.copy_from_slice(&h);
    }
    out
}

/// An attr whose sample layout comes from the first 40 bytes of `data` (sample_type, read_format,
/// branch_sample_type, regs masks), sampling everything the bytes ask for.
pub fn attr_from(data: &[u8]) -> EventAttr {
    let word = |i: usize| data.get(i * 8..i * 8 + 8).map_or(0, |b| u64::from_le_bytes(b.try_into().unwrap_or([0; 8])));
    EventAttr {
        type_: 1,
        size: 136,
        sample_type: word(0) & ((1 << 25) - 1) | st::TIME,
        read_format: word(1) & 0x1f,
        branch_sample_type: word(2),
        sample_regs_user: word(3),
        sample_regs_intr: word(4),
        flags: 1 << 18,
        ..Default::default()
    }
}
