//! JSON views of records (`perfdata dump --json`, Python `to_dict`): keys are perf_event.h's field
//! names in lower case; integers stay exact.

use crate::reader::U64s;
use crate::record::{CpuMapData, EventUpdate, Mmap2Id, Record, RecordKind, SampleId, NAMESPACE_NAMES};
use crate::sample::{ReadValues, Regs, Sample};
use serde_json::{json, Map, Value};

/// A record field as JSON: integers and flags as numbers/booleans, byte strings as (lossy) text.
trait FieldJson {
    fn json(&self) -> Value;
}

macro_rules! field_json_via_into {
    ($($t:ty),*) => {$(
        impl FieldJson for $t {
            fn json(&self) -> Value {
                (*self).into()
            }
        }
    )*};
}
field_json_via_into!(u8, u16, u32, u64, i32, i64, bool);

impl FieldJson for &[u8] {
    fn json(&self) -> Value {
        s(self)
    }
}

/// `put("name", r.name)` for each field named, the key being the field's name.
macro_rules! fields {
    ($put:ident, $r:ident; $($f:ident),+) => {
        $( $put(stringify!($f), FieldJson::json(&$r.$f)); )+
    };
}

fn s(b: &[u8]) -> Value {
    Value::String(String::from_utf8_lossy(b).into_owned())
}

pub use crate::names::hex;

fn u64s(v: U64s<'_>) -> Value {
    Value::Array(v.iter().map(Value::from).collect())
}

fn read_json(r: &ReadValues<'_>) -> Value {
    let mut m = Map::new();
    if let Some(nr) = r.nr() {
        m.insert("nr".into(), nr.into());
    }
    if let Some(v) = r.time_enabled() {
        m.insert("time_enabled".into(), v.into());
    }
    if let Some(v) = r.time_running() {
        m.insert("time_running".into(), v.into());
    }
    let values: Vec<Value> = r
        .values()
        .map(|v| {
            let mut e = Map::new();
            e.insert("value".into(), v.value.into());
            if let Some(id) = v.id {
                e.insert("id".into(), id.into());
            }
            if let Some(l) = v.lost {
                e.insert("lost".into(), l.into());
            }
            Value::Object(e)
        })
        .collect();
    m.insert("values".into(), Value::Array(values));
    Value::Object(m)
}

fn regs_json(r: &Regs<'_>) -> Value {
    json!({ "abi": r.abi, "mask": r.mask, "regs": u64s(r.values) })
}

fn sample_id_json(sid: &SampleId<'_>) -> Value {
    let mut m = Map::new();
    let mut put = |k: &str, v: Option<u64>| {
        if let Some(v) = v {
            m.insert(k.into(), v.into());
        }
    };
    put("pid", sid.pid().map(u64::from));
    put("tid", sid.tid().map(u64::from));
    put("time", sid.time());
    put("id", sid.id());
    put("stream_id", sid.stream_id());
    put("cpu", sid.cpu().map(u64::from));
    put("identifier", sid.identifier());
    Value::Object(m)
}

/// The fields of a sample, each present exactly when its sample_type bit is.
pub fn sample_fields(sm: &Sample<'_>, m: &mut Map<String, Value>) {
    let mut put = |k: &str, v: Option<Value>| {
        if let Some(v) = v {
            m.insert(k.into(), v);
        }
    };
    put("identifier", sm.identifier().map(Value::from));
    put("ip", sm.ip().map(Value::from));
    put("pid", sm.pid().map(Value::from));
    put("tid", sm.tid().map(Value::from));
    put("time", sm.time().map(Value::from));
    put("addr", sm.addr().map(Value::from));
    put("id", sm.id().map(Value::from));
    put("stream_id", sm.stream_id().map(Value::from));
    put("cpu", sm.cpu().map(Value::from));
    put("period", sm.period().map(Value::from));
    put("read", sm.read().as_ref().map(read_json));
    put("callchain", sm.callchain().map(u64s));
    put("raw", sm.raw().map(|r| Value::String(hex(r))));
    put(
        "branch_stack",
        sm.branch_stack().map(|b| {
            let entries: Vec<Value> = b
                .entries()
                .map(|e| {
                    json!({"from": e.from, "to": e.to, "flags": e.flags, "mispred": e.mispred(), "predicted": e.predicted(),
                           "in_tx": e.in_tx(), "abort": e.abort(), "cycles": e.cycles(), "type": e.branch_type(),
                           "spec": e.spec(), "new_type": e.new_type(), "priv": e.priv_()})
                })
                .collect();
            let mut o = json!({"nr": b.nr, "entries": entries});
            if let (Some(h), Some(obj)) = (b.hw_idx, o.as_object_mut()) {
                obj.insert("hw_idx".into(), h.into());
            }
            if let (Some(c), Some(obj)) = (b.counters, o.as_object_mut()) {
                obj.insert("counters".into(), u64s(c));
            }
            o
        }),
    );
    put("regs_user", sm.regs_user().as_ref().map(regs_json));
    put(
        "stack_user",
        sm.stack_user().map(|st| {
            let mut o = Map::new();
            o.insert("size".into(), st.size.into());
            if let Some(d) = st.dyn_size {
                o.insert("dyn_size".into(), d.into());
            }
            Value::Object(o)
        }),
    );
    put("weight", sm.weight().map(Value::from));
    put("data_src", sm.data_src().map(Value::from));
    put(
        "data_src_decoded",
        sm.data_src_decoded().map(|d| {
            json!({"op": d.op_names(), "lvl": d.lvl_names(), "snoop": d.snoop_names(), "lock": d.lock(), "dtlb": d.dtlb_names(),
                   "lvl_num": d.lvl_num(), "remote": d.remote(), "snoopx": d.snoopx(), "blk": d.blk(), "hops": d.hops()})
        }),
    );
    put("transaction", sm.transaction().map(Value::from));
    put("regs_intr", sm.regs_intr().as_ref().map(regs_json));
    put("phys_addr", sm.phys_addr().map(Value::from));
    put("cgroup", sm.cgroup().map(Value::from));
    put("data_page_size", sm.data_page_size().map(Value::from));
    put("code_page_size", sm.code_page_size().map(Value::from));
    put("aux", sm.aux().map(|a| Value::String(hex(a))));
}

fn cpu_map_json(d: &CpuMapData) -> Value {
    match d {
        CpuMapData::Cpus(v) => json!({"encoding": "cpus", "cpus": v}),
        CpuMapData::Mask { long_size, mask } => {
            json!({"encoding": "mask", "long_size": long_size, "mask": mask, "cpus": d.cpus()})
        }
        CpuMapData::Range { any_cpu, start, end } => {
            json!({"encoding": "range", "any_cpu": any_cpu, "start": start, "end": end, "cpus": d.cpus()})
        }
        CpuMapData::Unknown { type_ } => json!({"encoding": "unknown", "type": type_}),
    }
}

/// A record as a JSON object.
pub fn record_json(rec: &Record<'_>) -> Value {
    let mut m = Map::new();
    m.insert("type".into(), Value::String(rec.type_name().into_owned()));
    m.insert("type_id".into(), rec.header.type_.into());
    m.insert("misc".into(), rec.header.misc.into());
    m.insert("size".into(), rec.header.record_size().into());
    m.insert("offset".into(), rec.pos.offset.into());
    if let Some(i) = rec.pos.index {
        m.insert("index".into(), i.into());
    }
    if rec.pos.file != 0 {
        m.insert("file".into(), Value::String(format!("data.{}", rec.pos.file - 1)));
    }
    let ev = rec.event;
    let mut put = |k: &str, v: Value| {
        m.insert(k.into(), v);
    };
    match &rec.kind {
        RecordKind::Sample(sm) => {
            put("event", ev.map_or(Value::Null, |e| Value::String(e.display_name())));
            let mut f = Map::new();
            sample_fields(sm, &mut f);
            for (k, v) in f {
                put(&k, v);
            }
        }
        RecordKind::Mmap(r) => {
            fields!(put, r; pid, tid, addr, len, pgoff, filename);
        }
        RecordKind::Mmap2(r) => {
            fields!(put, r; pid, tid, addr, len, pgoff);
            match r.id {
                Mmap2Id::Inode { maj, min, ino, ino_generation } => {
                    put("maj", maj.into());
                    put("min", min.into());
                    put("ino", ino.into());
                    put("ino_generation", ino_generation.into());
                }
                Mmap2Id::BuildId { build_id_size, build_id, .. } => {
                    put("build_id_size", build_id_size.into());
                    put("build_id", Value::String(hex(build_id)));
                }
            }
            fields!(put, r; prot, flags, filename);
        }
        RecordKind::Comm(r) => {
            fields!(put, r; pid, tid, comm, exec);
        }
        RecordKind::Fork(r) | RecordKind::Exit(r) => {
            fields!(put, r; pid, ppid, tid, ptid, time);
        }
        RecordKind::Lost(r) => {
            fields!(put, r; id, lost);
        }
        RecordKind::Throttle(r) | RecordKind::Unthrottle(r) => {
            fields!(put, r; time, id, stream_id);
        }
        RecordKind::Read(r) => {
            fields!(put, r; pid, tid);
            put("read", read_json(&r.values));
        }
        RecordKind::Aux(r) => {
            fields!(put, r; aux_offset, aux_size, flags);
        }
        RecordKind::ItraceStart(r) => {
            fields!(put, r; pid, tid);
        }
        RecordKind::LostSamples(r) => put("lost", r.lost.into()),
        RecordKind::Switch => put("out", (rec.header.misc & crate::record::misc::SWITCH_OUT != 0).into()),
        RecordKind::SwitchCpuWide(r) => {
            put("out", (rec.header.misc & crate::record::misc::SWITCH_OUT != 0).into());
            fields!(put, r; next_prev_pid, next_prev_tid);
        }
        RecordKind::Namespaces(r) => {
            fields!(put, r; pid, tid, nr_namespaces);
            let ns: Vec<Value> = (0..r.link_info.len() / 2)
                .filter_map(|i| {
                    let (dev, ino) = r.namespace(i)?;
                    Some(
                        json!({"name": NAMESPACE_NAMES.get(i).copied().unwrap_or("unknown"), "dev": dev, "inode": ino}),
                    )
                })
                .collect();
            put("link_info", Value::Array(ns));
        }
        RecordKind::Ksymbol(r) => {
            fields!(put, r; addr, len, ksym_type, flags, name);
        }
        RecordKind::BpfEvent(r) => {
            put("bpf_type", r.type_.into());
            fields!(put, r; flags, id);
            put("tag", Value::String(hex(r.tag)));
        }
        RecordKind::Cgroup(r) => {
            fields!(put, r; id, path);
        }
        RecordKind::TextPoke(r) => {
            put("addr", r.addr.into());
            put("old_bytes", Value::String(hex(r.old_bytes)));
            put("new_bytes", Value::String(hex(r.new_bytes)));
        }
        RecordKind::AuxOutputHwId(r) => put("hw_id", r.hw_id.into()),
        RecordKind::CallchainDeferred(r) => {
            put("cookie", r.cookie.into());
            put("ips", u64s(r.ips));
        }
        RecordKind::HeaderAttr(r) => {
            put("attr", attr_json(&r.attr()));
            put("ids", u64s(r.ids));
        }
        RecordKind::HeaderEventType(r) => {
            fields!(put, r; event_id, name);
        }
        RecordKind::HeaderTracingData(r) => {
            put("tracing_data_size", r.size.into());
            put("inline", r.inline.into());
        }
        RecordKind::SimpleperfKernelSymbol(r) => {
            put("kallsyms_size", r.kallsyms.len().into());
            put("kallsyms_lines", r.kallsyms.split(|&b| b == b'\n').filter(|l| !l.is_empty()).count().into());
        }
        RecordKind::SimpleperfDso(r) => {
            put("dso_type", r.dso_type.into());
            if let Some(n) = crate::feature::simpleperf::dso_type::name(r.dso_type as u32) {
                put("dso_type_name", n.into());
            }
            fields!(put, r; dso_id, min_vaddr, name);
        }
        RecordKind::SimpleperfSymbol(r) => {
            fields!(put, r; addr, len, dso_id, name);
        }
        RecordKind::SimpleperfEventId(r) => {
            put("count", r.count.into());
            let e: Vec<Value> = r.pairs().map(|(a, e)| json!({"attr_id": a, "event_id": e})).collect();
            put("entries", Value::Array(e));
        }
        RecordKind::SimpleperfCallChain(r) => {
            fields!(put, r; pid, tid, chain_type, time);
            put("ips", u64s(r.ips));
            put("sps", u64s(r.sps));
        }
        RecordKind::SimpleperfUnwindingResult(r) => {
            fields!(put, r; time, used_time, error_code, error_addr, stack_start, stack_end, regs_abi, regs_mask);
            put("regs", u64s(r.regs));
            put("stack_size", r.stack.len().into());
            put("dyn_size", r.dyn_size.into());
            put("ips", u64s(r.ips));
            put("sps", u64s(r.sps));
        }
        RecordKind::SimpleperfDebug(r) => {
            put("time", r.time.into());
            put("message", s(r.message));
        }
        RecordKind::HeaderBuildId(r) => {
            put("pid", r.pid.into());
            put("build_id", Value::String(hex(r.build_id)));
            put("filename", s(r.filename));
        }
        RecordKind::IdIndex(r) => {
            put("nr", r.nr.into());
            let e: Vec<Value> =
                r.entries().map(|e| json!({"id": e.id, "idx": e.idx, "cpu": e.cpu, "tid": e.tid})).collect();
            put("entries", Value::Array(e));
        }
        RecordKind::AuxtraceInfo(r) => {
            put("auxtrace_type", r.type_.into());
            put("priv", u64s(r.priv_));
        }
        RecordKind::Auxtrace(r) => {
            put("aux_size", r.size.into());
            put("aux_offset", r.offset.into());
            fields!(put, r; reference, idx, tid, cpu);
        }
        RecordKind::AuxtraceError(r) => {
            put("error_type", r.type_.into());
            fields!(put, r; code, cpu, pid, tid, fmt, ip);
            if let Some(t) = r.time {
                put("time", t.into());
            }
            put("msg", s(r.msg));
        }
        RecordKind::ThreadMap(r) => {
            let e: Vec<Value> =
                r.entries().map(|(pid, comm)| json!({"pid": pid, "comm": String::from_utf8_lossy(comm)})).collect();
            put("nr", r.nr.into());
            put("entries", Value::Array(e));
        }
        RecordKind::CpuMap(r) => put("cpu_map", cpu_map_json(&r.data)),
        RecordKind::StatConfig(r) => {
            let e: Vec<Value> = r.entries().map(|(t, v)| json!({"tag": t, "val": v})).collect();
            put("nr", r.nr.into());
            put("entries", Value::Array(e));
        }
        RecordKind::Stat(r) => {
            fields!(put, r; id, cpu, thread, val, ena, run);
        }
        RecordKind::StatRound(r) => {
            put("round_type", r.type_.into());
            put("time", r.time.into());
        }
        RecordKind::EventUpdate(r) => {
            put("update_type", r.type_.into());
            put("id", r.id.into());
            match &r.update {
                EventUpdate::Unit(u) => put("unit", s(u)),
                EventUpdate::Scale(x) => put("scale", json!(x)),
                EventUpdate::Name(n) => put("name", s(n)),
                EventUpdate::Cpus(c) => put("cpus", cpu_map_json(c)),
                EventUpdate::Unknown(b) => put("data", Value::String(hex(b))),
            }
        }
        RecordKind::TimeConv(r) => {
            fields!(put, r; time_shift, time_mult, time_zero);
            if let Some(v) = r.time_cycles {
                put("time_cycles", v.into());
            }
            if let Some(v) = r.time_mask {
                put("time_mask", v.into());
            }
            if let Some(v) = r.cap_user_time_zero {
                put("cap_user_time_zero", v.into());
            }
            if let Some(v) = r.cap_user_time_short {
                put("cap_user_time_short", v.into());
            }
        }
        RecordKind::HeaderFeature(r) => {
            put("feat_id", r.feat_id.into());
            put("data_size", r.data.len().into());
        }
        RecordKind::Compressed(r) => put("data_size", r.data.len().into()),
        RecordKind::BpfMetadata(r) => {
            put("prog_name", s(r.prog_name));
            let e: Vec<Value> = r
                .entries()
                .map(|(k, v)| json!({"key": String::from_utf8_lossy(k), "value": String::from_utf8_lossy(v)}))
                .collect();
            put("entries", Value::Array(e));
        }
        RecordKind::Schedstat(r) => {
            fields!(put, r; timestamp, cpu, version);
            if let Some(d) = r.domain {
                put("domain", d.into());
            }
            put("counters", Value::String(hex(r.counters)));
        }
        RecordKind::Unknown(b) => put("data", Value::String(hex(b))),
        RecordKind::FinishedRound | RecordKind::FinishedInit => {}
    }
    if let Some(sid) = &rec.sample_id {
        m.insert("sample_id".into(), sample_id_json(sid));
    }
    Value::Object(m)
}

/// An attr as a JSON object (raw values plus flag names).
pub fn attr_json(a: &crate::attr::EventAttr) -> Value {
    let mut flags = Map::new();
    for (n, v) in a.set_flags() {
        flags.insert(n.into(), v.into());
    }
    json!({
        "type": a.type_, "size": a.size, "config": a.config, "sample_period": a.sample_period,
        "sample_type": a.sample_type, "read_format": a.read_format, "flags": a.flags, "flag_names": flags,
        "wakeup_events": a.wakeup_events, "bp_type": a.bp_type, "config1": a.config1, "config2": a.config2,
        "branch_sample_type": a.branch_sample_type, "sample_regs_user": a.sample_regs_user,
        "sample_stack_user": a.sample_stack_user, "clockid": a.clockid, "sample_regs_intr": a.sample_regs_intr,
        "aux_watermark": a.aux_watermark, "sample_max_stack": a.sample_max_stack, "aux_sample_size": a.aux_sample_size,
        "aux_action": a.aux_action, "sig_data": a.sig_data, "config3": a.config3, "config4": a.config4,
    })
}
