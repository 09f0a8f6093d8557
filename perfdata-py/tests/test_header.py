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
