"""Header and events equal what ``perf report --header-only -I`` printed for each recording."""

from __future__ import annotations

import pytest

import perfdata
import perfout

# perf's header key → (our Header attribute, how to read perf's text)
HEADER_KEYS = {
    "hostname": ("hostname", str),
    "os release": ("os_release", str),
    "perf version": ("perf_version", str),
    "arch": ("arch", str),
    "nrcpus online": ("nr_cpus_online", int),
    "nrcpus avail": ("nr_cpus_available", int),
    "cpudesc": ("cpu_desc", str),
    "cpuid": ("cpuid", str),
    "total memory": ("total_mem_kb", lambda v: int(v.split()[0])),
}
# The feature bit of each (perf's HEADER_* numbers), and of cmdline.
FEATURE_BIT = {
    "hostname": 3, "os release": 4, "perf version": 5, "arch": 6, "nrcpus online": 7,
    "nrcpus avail": 7, "cpudesc": 8, "cpuid": 9, "total memory": 10, "cmdline": 11,
}  # fmt: skip
FEATURE_NAME = {3: "HOSTNAME", 4: "OSRELEASE", 5: "VERSION", 6: "ARCH", 8: "CPUDESC", 9: "CPUID"}

# Every attr field perf 6.1's perf_event_attr__fprintf prints (it leaves out the zero ones).
BIT_SETS = ("sample_type", "read_format", "branch_sample_type")
INT_FIELDS = (
    "type", "size", "config", "sample_period", "wakeup_events", "bp_type", "config1", "config2",
    "sample_regs_user", "sample_stack_user", "clockid", "sample_regs_intr", "aux_watermark",
    "sample_max_stack", "aux_sample_size", "sig_data",
)  # fmt: skip
FLAGS = (
    "disabled", "inherit", "pinned", "exclusive", "exclude_user", "exclude_kernel", "exclude_hv",
    "exclude_idle", "mmap", "comm", "freq", "inherit_stat", "enable_on_exec", "task", "watermark",
    "precise_ip", "mmap_data", "sample_id_all", "exclude_host", "exclude_guest",
    "exclude_callchain_kernel", "exclude_callchain_user", "mmap2", "comm_exec", "use_clockid",
    "context_switch", "write_backward", "namespaces", "ksymbol", "bpf_event", "aux_output",
    "cgroup", "text_poke", "build_id", "inherit_thread", "remove_on_exec", "sigtrap",
)  # fmt: skip


def perf_header(path):
    text = perfout.perf_output(path, "header")
    if text is None:
        pytest.skip("no stored perf header output")
    return perfout.parse_header(text)


def perf_gave_up_after(perf, present) -> int:
    """perf stops reading feature sections at the first one it cannot read
    (perf_header__process_sections) and shows the rest as empty: the bit of that feature, or a
    number above every bit when perf read them all. A string feature perf shows as '(null)' although
    the file has it is such a failure."""
    for key, bit in sorted(FEATURE_BIT.items(), key=lambda kv: kv[1]):
        if perf.values.get(key) == "(null)" and FEATURE_NAME.get(bit) in present:
            return bit
    return 1 << 30


def test_header_matches_perf(recording):
    perf = perf_header(recording)
    with perfdata.open(recording) as f:
        h = f.header
    last = perf_gave_up_after(perf, set(h.features))
    for key, (attr, conv) in HEADER_KEYS.items():
        if FEATURE_BIT[key] > last:
            continue
        if key in perf.values and perf.values[key] != "(null)":
            assert getattr(h, attr) == conv(perf.values[key]), key
        else:
            assert getattr(h, attr) is None, f"perf shows no {key!r}"
    if FEATURE_BIT["cmdline"] > last:
        pass
    elif perf.values.get("cmdline"):
        # perf prints every argument followed by one space
        assert "".join(a + " " for a in h.cmdline) == perf.values["cmdline"]
    else:
        assert not h.cmdline
    d = h.to_dict()
    for key, (attr, _) in HEADER_KEYS.items():
        assert d[attr] == getattr(h, attr)
    if h.format == "file":
        assert h.data_offset == int(perf.values["data offset"])
        assert h.data_size == int(perf.values["data size"])


def _perf_value(text: str) -> int:
    return int(text, 0)


def test_events_match_perf(recording):
    perf = perf_header(recording)
    with perfdata.open(recording) as f:
        events = f.events
        pipe = f.header.format == "pipe"
    if not perf.events:
        # perf prints events from the EVENT_DESC feature only; in old pipe data each event is a
        # HEADER_ATTR record, which perf's dump counts
        dump = perfout.perf_output(recording, "dump")
        if not pipe or dump is None:
            pytest.skip("perf printed no events (it prints them from the EVENT_DESC feature only)")
        assert len(events) == perfout.dump_record_types(dump).get("HEADER_ATTR", 0)
        return
    assert len(events) == len(perf.events)
    for ev, pe in zip(events, perf.events):
        assert ev.name == pe.name
        assert ev.ids == pe.ids, ev.name
        known = set(BIT_SETS) | set(INT_FIELDS) | set(FLAGS)
        unknown = set(pe.fields) - known
        assert not unknown, f"perf prints attr fields the test does not know: {unknown}"
        for k in BIT_SETS:
            want = set(pe.fields[k].split("|")) if k in pe.fields else set()
            assert getattr(ev, k) == want, (ev.name, k)
        for k in INT_FIELDS + FLAGS:
            want = _perf_value(pe.fields[k]) if k in pe.fields else 0
            assert getattr(ev, k) == want, (ev.name, k)
        d = ev.to_dict()
        assert d["name"] == ev.name and d["ids"] == ev.ids
        assert set(d["sample_type"]) == ev.sample_type
        assert d["flags"] == {k: getattr(ev, k) for k in FLAGS if getattr(ev, k)}


def test_quickstart_header_values(quickstart):
    """Spot values perf printed for testdata/quickstart.data (see quickstart.data.header)."""
    perf = perfout.parse_header(quickstart.with_name("quickstart.data.header").read_text())
    f = perfdata.open(str(quickstart))
    assert f.header.hostname == perf.values["hostname"]
    assert f.header.cmdline[:2] == perf.values["cmdline"].split()[:2]
    ev = f.events[0]
    assert ev.name == perf.events[0].name == "cpu-clock"
    assert ev.sample_freq is None and ev.freq == 0
    assert ev.sample_type_value & 1  # IP


def test_header_of_pipe_data_from_bytes():
    pipes = [p for p in perfout.corpus_recordings() if ".piped." in p.name]
    if not pipes:
        pytest.skip("shared corpus absent")
    p = next(p for p in pipes if "header_features_aligned" in p.name)
    perf = perf_header(p)
    f = perfdata.open(p.read_bytes())
    assert f.header.format == "pipe"
    assert f.header.hostname == perf.values["hostname"]
    assert f.header.nr_cpus_online == int(perf.values["nrcpus online"])


# ------------------------------------------------------------------------------------------------
# Every feature section of HeaderInfo, against what perf printed (perfdata-core/tests/info.rs does
# the same on the Rust side; here through the Python values).

FEATURE_BITS = {
    "CPU_TOPOLOGY": 13, "NUMA_TOPOLOGY": 14, "BRANCH_STACK": 15, "PMU_MAPPINGS": 16, "GROUP_DESC": 17,
    "AUXTRACE": 18, "STAT": 19, "CACHE": 20, "SAMPLE_TIME": 21, "MEM_TOPOLOGY": 22, "CLOCKID": 23,
    "DIR_FORMAT": 24, "COMPRESSED": 27, "CPU_PMU_CAPS": 28, "CLOCK_DATA": 29, "HYBRID_TOPOLOGY": 30,
    "PMU_CAPS": 31,
}  # fmt: skip


def without_mtime(text: str) -> str:
    """perf's text without its "captured on" line: the file's mtime, which a checkout changes."""
    return "".join(line + "\n" for line in text.splitlines() if not line.startswith("# captured on"))


def garbage_table(h) -> bool:
    """killed.data: data size 0 puts perf's feature table on top of the records (perf prints what
    those bytes decode to; we ignore the table)."""
    return h.format == "file" and h.data_size == 0


def perf_lines(recording):
    text = perfout.perf_output(recording, "header")
    if text is None:
        pytest.skip("no stored perf header output")
    return text, text.splitlines()


def test_perf_text_is_perfs_line_for_line(recording):
    text, _ = perf_lines(recording)
    with perfdata.open(recording) as f:
        h = f.header
    ours, perf = without_mtime(h.perf_text()), without_mtime(text)
    if garbage_table(h):

        def keep(s):
            return [
                line for line in s.splitlines()
                if line.startswith("# ====") or "  : " in line or line.startswith("# missing")
            ]  # fmt: skip

        assert keep(ours) == keep(perf)
        return
    assert ours.splitlines() == perf.splitlines()


def _cpu_set(s: str) -> set:
    out = set()
    for part in filter(None, s.split(",")):
        a, _, b = part.partition("-")
        out.update(range(int(a), int(b or a) + 1))
    return out


def _one(lines, prefix):
    found = [line[len(prefix):] for line in lines if line.startswith(prefix)]
    assert len(found) <= 1, prefix
    return found[0] if found else None


def _all(lines, prefix):
    return [line[len(prefix):] for line in lines if line.startswith(prefix)]


def test_feature_sections_match_perf(recording):
    _, lines = perf_lines(recording)
    with perfdata.open(recording) as f:
        h = f.header
    if garbage_table(h):
        assert h.feature_sections == [] and h.features == []
        assert _one(lines, "# missing features: ").split() == h.missing_features
        return
    pipe = h.format == "pipe"
    present = {s["bit"] for s in h.feature_sections}
    assert [s["name"] for s in h.feature_sections] == h.features
    # perf stops reading sections at the first one it cannot read (EVENT_DESC and BUILD_ID never
    # fail in perf) and shows the rest from empty defaults.
    failed = [e["bit"] for e in h.errors if e["bit"] not in (2, 12)]
    first_failed = min(failed) if failed else 1 << 30

    def read(name):
        bit = FEATURE_BITS[name]
        return bit in present and bit < first_failed

    # header block
    if not pipe:
        assert int(_one(lines, "# data offset    : ")) == h.data_offset
        assert int(_one(lines, "# feat offset    : ")) == h.feat_offset

    # CPU topology
    t = h.cpu_topology if read("CPU_TOPOLOGY") else None
    sockets, threads = _all(lines, "# sibling sockets : "), _all(lines, "# sibling threads : ")
    if t is None:
        assert not sockets and not threads
    else:
        assert sockets == t["package_cpus"] and threads == t["core_cpus"]
        dies = _all(lines, "# sibling dies    : ")
        if dies:
            assert dies == t["die_cpus"]
        ids = [line for line in _all(lines, "# CPU ") if ": Core ID " in line]
        if ids and t["cpus"]:
            assert len(ids) == len(t["cpus"])
            for i, (line, cpu) in enumerate(zip(ids, t["cpus"])):
                n, rest = line.split(": ", 1)
                assert int(n) == i
                kv = dict(part.rsplit(" ", 1) for part in rest.split(", "))
                assert int(kv["Core ID"]) == cpu["core_id"] and int(kv["Socket ID"]) == cpu["socket_id"]
                if "Die ID" in kv:
                    assert int(kv["Die ID"]) == cpu["die_id"]

    # NUMA nodes: "# node0 meminfo  : total = N kB, free = N kB", "# node0 cpu list : 0-1"
    nodes = (h.numa_topology if read("NUMA_TOPOLOGY") else None) or []
    mem = [line for line in lines if line.startswith("# node") and " meminfo  : " in line]
    cpus = [line for line in lines if line.startswith("# node") and " cpu list : " in line]
    assert len(mem) == len(cpus) == len(nodes)
    for m, c, n in zip(mem, cpus, nodes):
        node, rest = m[len("# node"):].split(" meminfo  : total = ")
        total, free = rest.split(" kB, free = ")
        assert (int(node), int(total), int(free.split()[0])) == (
            n["node"], n["mem_total_kb"], n["mem_free_kb"],
        )  # fmt: skip
        assert _cpu_set(c.split(" cpu list : ")[1]) == _cpu_set(n["cpus"])

    # PMU mappings: "# pmu mappings: software = 1, uprobe = 8"
    pmu = _one(lines, "# pmu mappings: ")
    if read("PMU_MAPPINGS") and pmu != "not available":
        perf = [(m.rsplit(" = ", 1)[0], int(m.rsplit(" = ", 1)[1])) for m in pmu.split(", ")]
        assert perf == [(m["name"], m["type"]) for m in h.pmu_mappings]
    elif read("PMU_MAPPINGS"):
        assert h.pmu_mappings == []

    # groups: "# group: NAME{a,b}"
    perf_groups = []
    for g in _all(lines, "# group: "):
        name, members = g.split("{", 1)
        perf_groups.append((name, members.rstrip("}").split(",")))
    ours = [
        (g["name"] or "", g["members"])
        for g in (h.group_desc or []) if g["nr_members"] > 1 and read("GROUP_DESC")
    ]  # fmt: skip
    assert perf_groups == ours

    # caches: "#  L1 Data                 32K [0]"
    perf_cache = []
    for line in _all(lines, "#  L"):
        level, rest = line.split(" ", 1)
        rest, cpu_map = rest.rsplit(" [", 1)
        words = rest.split()
        perf_cache.append((int(level), " ".join(words[:-1]), words[-1], cpu_map.rstrip("]")))
    ours = [(c["level"], c["type"], c["size"], c["map"]) for c in (h.cache or []) if read("CACHE")]
    assert perf_cache == ours

    # sample time: seconds truncated to µs
    first, last = _one(lines, "# time of first sample : "), _one(lines, "# time of last sample : ")
    if first is not None:
        st = h.sample_time if read("SAMPLE_TIME") else {"first": 0, "last": 0}

        def us(ns):
            return f"{ns // 10**9}.{ns % 10**9 // 1000:06d}"

        assert (first, last) == (us(st["first"]), us(st["last"]))
    else:
        assert FEATURE_BITS["SAMPLE_TIME"] not in present

    # memory nodes: "# memory nodes (nr 1, block size 0x8000000):"
    head = _one(lines, "# memory nodes (nr ")
    if head is not None:
        nr, bsize = head.rstrip("):").split(", block size ")
        m = h.mem_topology if read("MEM_TOPOLOGY") else None
        assert (int(nr), int(bsize, 16)) == ((len(m["nodes"]), m["block_size"]) if m else (0, 0))

    # missing features (files only)
    missing = _one(lines, "# missing features: ")
    if missing is None:
        assert pipe
    else:
        assert missing.split() == h.missing_features

    # the small features
    freq = _one(lines, "# clockid frequency: ")
    if FEATURE_BITS["CLOCKID"] in present:
        ours = (h.clockid_res_ns or 0) * 1000 if read("CLOCKID") else 0
        assert int(freq.split()[0]) == ours
    else:
        assert freq is None
    comp = _one(lines, "# compressed : ")
    if FEATURE_BITS["COMPRESSED"] in present:
        c = h.compressed if read("COMPRESSED") else None
        want = "Unknown, level = 0, ratio = 0"
        if c is not None:
            kind = "Zstd" if c["type"] == 1 else "Unknown"
            want = f"{kind}, level = {c['level']}, ratio = {c['ratio']}"
        assert comp == want
    else:
        assert comp is None
    clockid, ref = _one(lines, "# clockid: "), _one(lines, "# reference time: ")
    if clockid is not None:
        c = h.clock_data
        assert int(clockid.split(" (")[1].rstrip(")")) == c["clockid"]
        parts = ref.split(" = ")
        tod = f"{c['tod_ns'] // 10**9}.{c['tod_ns'] % 10**9 // 1000:06d} (TOD)"
        clk = f"{c['clockid_ns'] // 10**9}.{c['clockid_ns'] % 10**9:09d} ({clockid.split(' (')[0]})"
        assert parts[1:] == [tod, clk]
    else:
        assert not read("CLOCK_DATA")
    assert (_one(lines, "# contains samples with branch stack") is not None) == h.branch_stack
    assert (_one(lines, "# contains stat data") is not None) == h.stat
    aux = _one(lines, "# contains AUX area data (e.g. instruction trace)") is not None
    assert aux == (FEATURE_BITS["AUXTRACE"] in present)
    if read("AUXTRACE"):
        assert isinstance(h.auxtrace, list)
    dirv = _one(lines, "# directory data version : ")
    if FEATURE_BITS["DIR_FORMAT"] in present:
        assert int(dirv) == ((h.dir_format or 0) if read("DIR_FORMAT") else 0)
    else:
        assert dirv is None

    # PMU capabilities: "# cpu pmu capabilities: a=1, b=2" or "…: not available"
    perf_caps = [
        tuple(line[2:].split(" pmu capabilities: ", 1)) for line in lines
        if line.startswith("# ") and " pmu capabilities: " in line
    ]  # fmt: skip

    def caps_text(caps):
        return ", ".join(f"{c['name']}={c['value']}" for c in caps) or "not available"

    ours = []
    if read("CPU_PMU_CAPS"):
        ours.append(("cpu", caps_text(h.cpu_pmu_caps)))
    elif FEATURE_BITS["CPU_PMU_CAPS"] in present:
        ours.append(("cpu", "not available"))
    if read("PMU_CAPS"):
        ours += [(p["pmu_name"], caps_text(p["caps"])) for p in h.pmu_caps]
    assert perf_caps == ours

    # hybrid topology: "# cpu_core cpu list : 0-3"
    hybrid = [
        tuple(line[2:].split(" cpu list : ")) for line in lines
        if " cpu list : " in line and not line.startswith("# node")
    ]  # fmt: skip
    ours = [(n["pmu_name"], n["cpus"]) for n in (h.hybrid_topology or []) if read("HYBRID_TOPOLOGY")]
    assert hybrid == ours

    # BPF: "# btf info of id N", "# bpf_prog_info ID: bpf_prog_TAG_NAME addr 0x… size N"
    assert {int(x) for x in _all(lines, "# btf info of id ")} == {b["id"] for b in h.bpf_btf or []}
    progs = {p["id"]: p for p in h.bpf_prog_info or []}
    for line in _all(lines, "# bpf_prog_info "):
        pid, rest = line.split(":", 1)
        assert int(pid) in progs
        if " size " in rest:
            what, size = rest.split(" size ")
            tag = what.strip()[len("bpf_prog_"):].split("_")[0]
            assert (progs[int(pid)]["tag"], progs[int(pid)]["jited_prog_len"]) == (tag, int(size))


def test_header_events_are_perfs(recording):
    """Header.events (EVENT_DESC, what perf prints) against perf's "# event :" lines."""
    _, lines = perf_lines(recording)
    with perfdata.open(recording) as f:
        h = f.header
    perf_events = [perfout.parse_event_line(e) for e in _all(lines, "# event : ")]
    if "EVENT_DESC" not in h.features or garbage_table(h):
        assert not perf_events
        return
    assert [(e["name"], e["ids"]) for e in h.events] == [(p.name, p.ids) for p in perf_events]
    for e, p in zip(h.events, perf_events):
        assert e["type"] == int(p.fields.get("type", "0"))
        if "sample_type" in p.fields:
            assert set(e["sample_type_names"]) >= set(p.fields["sample_type"].split("|"))


def test_build_ids_are_perf_buildid_lists(committed):
    """BuildId entries against ``perf buildid-list -i F`` (testdata/F.buildids): the same ids, hex
    and bytes, for the same files; all of the host (pid -1)."""
    stored = committed.with_name(committed.name + ".buildids")
    if not stored.exists():
        pytest.skip("no stored perf buildid-list output (pipe data)")
    perf = set()
    for line in stored.read_text().splitlines():
        # A line without an id (blank) is a binary perf found in the records of a file without
        # BUILD_ID feature (compressed recordings).
        if not line.startswith(" "):
            hexid, name = line.split(" ", 1)
            perf.add((hexid, name))
    with perfdata.open(committed) as f:
        h = f.header
    if garbage_table(h):
        assert not perf and h.build_ids is None
        return
    ids = h.build_ids or []
    assert {(b.hex, b.filename) for b in ids} == perf
    for b in ids:
        assert b.build_id == bytes.fromhex(b.hex) and len(b.build_id) == 20
        assert b.pid == -1
        assert b.cpumode == ("kernel" if b.filename.startswith("[kernel") else "user")
        assert b.to_dict()["build_id"] == b.build_id
    if ids:
        assert [d["build_id"] for d in h.to_dict()["build_ids"]] == [b.hex for b in ids]


def test_to_dict_is_the_json_of_perfdata_info(recording):
    """to_dict() and to_json() hold the same data, with the keys of ``perfdata info --json``, and
    agree with the attributes."""
    import json

    with perfdata.open(recording) as f:
        h = f.header
    d = h.to_dict()
    assert json.loads(h.to_json()) == d == json.loads(h.to_json(indent=None))
    assert h.to_json().startswith('{\n  "format": ')
    assert list(d)[:8] == [
        "format", "endian", "captured_on", "header_version", "data_offset", "data_size",
        "feat_offset", "features",
    ]  # fmt: skip
    for key in (
        "hostname", "os_release", "perf_version", "arch", "nr_cpus_online", "nr_cpus_available",
        "cpu_desc", "cpuid", "total_mem_kb", "cmdline", "format", "endian", "feat_offset",
        "cpu_topology", "numa_topology", "cache", "pmu_mappings", "group_desc", "auxtrace",
        "sample_time", "mem_topology", "clockid_res_ns", "compressed", "clock_data",
        "hybrid_topology", "pmu_caps", "cpu_pmu_caps", "bpf_prog_info", "bpf_btf", "cpu_domain_info",
        "branch_stack", "stat", "dir_format", "missing_features", "errors", "events",
        "tracing_data_size", "build_ids_old_abi", "captured_on",
    ):  # fmt: skip
        assert d[key] == getattr(h, key), key
    assert d["features"] == h.feature_sections
    if h.format != "pipe":
        assert d["data_offset"] == h.data_offset


def test_header_of_a_stream_leaves_the_records():
    """A pipe read as a stream: the header is what was known at open and the records still come."""
    p = perfout.TESTDATA / "pipe.data"
    perf = perfout.parse_dump_samples(p.with_name("pipe.data.dump").read_text())
    with open(p, "rb") as fo:
        f = perfdata.open(fo, stream=True)
        assert f.header.format == "pipe" and f.header.perf_text().startswith("# ========\n")
        assert sum(1 for _ in f.samples()) == len(perf)


def _simpleperf_dump_sections(name):
    """The meta_info pairs and the file blocks (path, type, symbol count) ``simpleperf dump``
    printed for testdata/peer/NAME."""
    text = perfout.perf_output(perfout.TESTDATA / "peer" / name, "simpleperf-dump")
    assert text is not None
    meta, files, section = {}, [], None
    for line in text.splitlines():
        if line.startswith("feature section for "):
            section = line.split()[3].rstrip(":")
            continue
        if line.startswith("record "):
            section = None
        if section == "meta_info" and line.startswith("    ") and " = " in line:
            k, v = line.strip().split(" = ", 1)
            meta[k] = v
        elif section == "meta_info" and not line.startswith(" ") and meta:
            meta[k] += "\n" + line  # event_type_info goes on over lines
        elif section in ("file", "file2"):
            t = line.strip()
            if t.startswith("file_path "):
                files.append([t[len("file_path "):], None, 0])
            elif t.startswith("file_type "):
                files[-1][1] = t[len("file_type "):]
            elif line.startswith("      ") and t.endswith("]") and files:
                files[-1][2] += 1
    return meta, files


@pytest.mark.parametrize("name", ["perf_with_meta_info.data", "perf_with_tracepoint_event.data"])
def test_simpleperf_features_equal_simpleperf_dump(name):
    h = perfdata.open(str(perfout.TESTDATA / "peer" / name)).header
    meta, files = _simpleperf_dump_sections(name)
    assert h.simpleperf_meta_info == meta
    assert [[f["path"], f["file_type"], f["symbols"]] for f in (h.simpleperf_files or [])] == files
    assert "SIMPLEPERF_META_INFO" in h.features
    assert perfdata.open(str(perfout.TESTDATA / "fp.data")).header.simpleperf_meta_info is None
