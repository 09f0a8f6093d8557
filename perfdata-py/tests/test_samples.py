"""Samples and records equal what ``perf report -D`` printed (in perf's time order)."""

from __future__ import annotations

import pytest

import perfdata
import perfout

U32_MAX = 2**32 - 1
U64_MAX = 2**64 - 1


def perf_dump(path):
    """perf's dump text, and whether perf failed part way (its dump is then a prefix)."""
    text = perfout.perf_output(path, "dump")
    if text is None:
        pytest.skip("no stored perf dump (zstd not available?)")
    if "PERF_RECORD_" not in text:
        pytest.skip("perf could not read this file (covered by test_errors)")
    return text, perfout.perf_failed(path)


def combined_sample_type(f):
    """The union of the events' sample_type, which decides what perf prints before each sample.

    perf's header output lists the attrs only when the file has EVENT_DESC; our events carry the same
    sample_type bits there (test_header checks that), so they are used for every file."""
    out = set()
    for e in f.events:
        out |= e.sample_type
    return out


def dump_line(p):
    """What perf's dump line of sample `p` says, in expected_line's form."""
    return dict(
        prefix=p.prefix,
        misc=p.misc,
        size=p.size,
        pid=p.pid,
        tid=p.tid,
        ip=p.ip,
        period=p.period,
        addr=p.addr,
        callchain=p.callchain,
    )


def expected_line(s, combined):
    """What perf's dump_sample line shows for our sample (perf's defaults where a field is absent:
    cpu/pid/tid -1, time -1, ip/addr 0)."""
    prefix = []
    if "CPU" in combined:
        prefix.append(U32_MAX if s.cpu is None else s.cpu)
    if "TIME" in combined:
        prefix.append(U64_MAX if s.time is None else s.time)
    return dict(
        prefix=prefix,
        misc=s.misc,
        size=s.size,
        pid=-1 if s.pid is None else (s.pid if s.pid < 2**31 else s.pid - 2**32),
        tid=-1 if s.tid is None else (s.tid if s.tid < 2**31 else s.tid - 2**32),
        ip=s.ip or 0,
        period=s.period,
        addr=s.addr or 0,
        callchain=s.callchain,
    )


def test_samples_match_perf_dump(recording):
    text, failed = perf_dump(recording)
    perf = perfout.parse_dump_samples(text)
    with perfdata.open(recording) as f:
        ours = list(f.samples(order="time"))
        combined = combined_sample_type(f)
        compressed = "COMPRESSED" in f.header.features or f.header.format == "pipe"
        assert f.sample_count == len(ours)
    if failed:
        assert len(ours) >= len(perf)
    else:
        assert len(ours) == len(perf)
    for i, (s, p) in enumerate(zip(ours, perf)):
        assert expected_line(s, combined) == dump_line(p), f"sample {i} at {p.offset:#x}"
        if not compressed:
            assert s.offset == p.offset, f"sample {i}"


def test_record_counts_match_perf_dump(recording):
    """Every record type perf's dump shows, as many times (records counted in one pass)."""
    text, failed = perf_dump(recording)
    perf = perfout.dump_record_types(text)
    with perfdata.open(recording) as f:
        ours = f.record_counts()
    # perf shows COMPRESSED records as well as what they carry; we yield the carried records only.
    perf.pop("COMPRESSED", None)
    perf.pop("COMPRESSED2", None)
    if failed:
        assert all(ours.get(t, 0) >= n for t, n in perf.items()), (ours, perf)
    else:
        assert ours == perf


def test_sample_objects(quickstart):
    f = perfdata.open(quickstart)
    s = next(iter(f.samples()))
    assert s.type == "SAMPLE"
    assert s.event == "cpu-clock" and s.event_index == 0
    assert s.cpumode in ("kernel", "user")
    assert s.cpu is None and s.addr is None and s.raw is None  # not sampled by this event
    d = s.to_dict()
    assert d["time"] == s.time and d["callchain"] == s.callchain and "cpu" not in d
    assert "SAMPLE" not in repr(s) and "cpu-clock" in repr(s)


def test_records_stream_every_type(quickstart):
    f = perfdata.open(quickstart, order="file")
    types = [r.type for r in f.records()]
    assert types.count("SAMPLE") == f.sample_count
    comm = next(r for r in f.records() if r.type == "COMM")
    # a non-sample record's fields are attributes, its trailer's too
    assert isinstance(comm.comm, str) and comm.pid == comm.to_dict()["pid"]
    assert "time" in comm.to_dict() and comm.time == comm.to_dict()["time"]
    with pytest.raises(AttributeError):
        comm.no_such_field


def test_samples_event_filter(recording):
    with perfdata.open(recording) as f:
        events = f.events
        total = sum(1 for _ in f.samples())
        per_event = []
        for e in events:
            by_obj = sum(1 for _ in f.samples(e))
            by_index = sum(1 for _ in f.samples(e.index))
            assert by_obj == by_index
            per_event.append(by_obj)
        if len({e.name for e in events}) == len(events):
            for e, n in zip(events, per_event):
                assert sum(1 for _ in f.samples(e.name)) == n
    # samples whose id matched no event are counted in total only
    assert sum(per_event) <= total


def test_iteration_streams_and_is_restartable(quickstart):
    f = perfdata.open(quickstart)
    a = f.samples()
    b = f.samples()
    first_a = next(a)
    first_b = next(b)
    assert first_a.time == first_b.time
    assert iter(a) is a
    assert sum(1 for _ in a) + 1 == sum(1 for _ in b) + 1


def test_orders(quickstart):
    f = perfdata.open(quickstart)
    by_time = [s.time for s in f.samples(order="time")]
    by_file = [s.time for s in f.samples(order="file")]
    assert sorted(by_file) == by_time
    with pytest.raises(ValueError):
        f.samples(order="random")
    with pytest.raises(TypeError):
        f.samples(event=1.5)
