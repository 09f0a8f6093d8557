//! Reader behaviours that conformance with perf does not show: ids matching no event, and where
//! errors say they are.

mod common;

use perfdata_core::{Order, PerfFile, RecordKind};

#[test]
fn a_sample_whose_id_matches_no_event_is_reported_not_given_to_event_0() {
    let path = common::repo().join("testdata/multi.data");
    let mut bytes = std::fs::read(&path).unwrap();
    let file = PerfFile::from_bytes(&bytes).unwrap();
    assert!(file.events().len() > 1);
    assert!(file.events()[0].attr.sample_type & perfdata_core::attr::sample_type::IDENTIFIER != 0);
    // Find the first sample and its identifier (the first u64 of the body).
    let mut recs = file.records(Order::File).unwrap();
    let mut target = None;
    let mut total = 0;
    while let Some(r) = recs.next_record() {
        let r = r.unwrap();
        total += 1;
        if let (RecordKind::Sample(s), None) = (&r.kind, target) {
            target = Some((r.pos.offset, s.identifier().unwrap()));
        }
    }
    let (off, id) = target.unwrap();
    drop(recs);
    drop(file);
    let at = off as usize + 8;
    bytes[at..at + 8].copy_from_slice(&0xdead_beef_u64.to_le_bytes());
    let file = PerfFile::from_bytes(&bytes).unwrap();
    let mut recs = file.records(Order::File).unwrap();
    let (mut ok, mut errors) = (0, Vec::new());
    while let Some(r) = recs.next_record() {
        match r {
            Ok(_) => ok += 1,
            Err(e) => errors.push(e),
        }
    }
    assert_eq!(errors.len(), 1, "exactly the damaged sample fails");
    let e = &errors[0];
    assert_eq!(e.position().unwrap().offset, off);
    assert_eq!(e.record_type(), Some("SAMPLE"));
    assert!(e.to_string().contains(&format!("id {}", 0xdead_beef_u64)), "{e}");
    assert_eq!(ok + 1, total, "every other record is still read");
    assert!(recs.diagnostics().iter().any(|d| d.contains("1 records carried an id")), "{:?}", recs.diagnostics());
    assert_eq!(recs.stats().unknown_id, 1);
    assert_ne!(id, 0xdead_beef);
    // The same in time order.
    let mut recs = file.records(Order::Time).unwrap();
    let mut errors = 0;
    while let Some(r) = recs.next_record() {
        errors += usize::from(r.is_err());
    }
    assert_eq!((errors, recs.stats().unknown_id), (1, 1));
}

#[test]
fn pipe_streams_know_their_events_up_front_and_replay_them() {
    let bytes = std::fs::read(common::repo().join("testdata/pipe.data")).unwrap();
    let file = PerfFile::from_reader(std::io::Cursor::new(bytes.clone())).unwrap();
    // Its leading header records are read ahead (and replayed to the records): events known.
    assert_eq!(file.events().first().map(|e| e.display_name()).as_deref(), Some("cpu-clock"));
    let mut recs = file.records(Order::File).unwrap();
    let mut samples = 0;
    while let Some(r) = recs.next_record() {
        if let RecordKind::Sample(_) = r.unwrap().kind {
            samples += 1;
        }
    }
    assert!(samples > 0);
    assert!(!recs.events().is_empty());
    assert_eq!(recs.events()[0].display_name(), "cpu-clock");
    // The same bytes as a slice are pre-scanned: events are known up front.
    let f2 = PerfFile::from_bytes(&bytes).unwrap();
    assert_eq!(f2.events().len(), recs.events().len());
    assert_eq!(file.events().len(), f2.events().len());
    // A stream is read once.
    drop(recs);
    assert!(file.records(Order::File).is_err());
}

#[test]
fn a_sample_that_does_not_fit_names_the_field_and_its_offset() {
    let mut bytes = std::fs::read(common::repo().join("testdata/fp.data")).unwrap();
    let file = PerfFile::from_bytes(&bytes).unwrap();
    let ev = &file.events()[0];
    let fixed = ev.layout.fixed_size;
    let mut recs = file.records(Order::File).unwrap();
    let mut off = None;
    while let Some(r) = recs.next_record() {
        let r = r.unwrap();
        if let RecordKind::Sample(s) = &r.kind {
            assert!(s.callchain().is_some());
            off = Some(r.pos.offset as usize);
            break;
        }
    }
    drop(recs);
    drop(file);
    let off = off.unwrap();
    // The callchain's nr follows the fixed fields: make it claim far more frames than the record has.
    let nr_at = off + 8 + fixed;
    bytes[nr_at..nr_at + 8].copy_from_slice(&1000u64.to_le_bytes());
    let file = PerfFile::from_bytes(&bytes).unwrap();
    let mut recs = file.records(Order::File).unwrap();
    let err = loop {
        match recs.next_record().unwrap() {
            Err(e) => break e,
            Ok(_) => continue,
        }
    };
    assert_eq!(err.record_type(), Some("SAMPLE"));
    let msg = err.to_string();
    assert!(msg.contains("SAMPLE callchain"), "{msg}");
    assert!(msg.contains(&format!("{:#x}", nr_at)), "the error points at the callchain's nr: {msg}");
    // Reading goes on after it.
    assert!(recs.next_record().is_some());
}

/// Records that frame but do not decode are damage: each is in the file's problem log once (in
/// file order and in time order), however many readings meet it; past 100, they are counted.
#[test]
fn records_that_do_not_decode_join_the_problem_log() {
    let mut bytes = std::fs::read(common::repo().join("testdata/fp.data")).unwrap();
    let file = PerfFile::from_bytes(&bytes).unwrap();
    let fixed = file.events()[0].layout.fixed_size;
    let mut samples = Vec::new();
    let mut recs = file.records(Order::File).unwrap();
    while let Some(r) = recs.next_record() {
        let r = r.unwrap();
        if matches!(r.kind, RecordKind::Sample(_)) {
            samples.push(r.pos.offset as usize);
        }
    }
    drop(recs);
    drop(file);
    assert!(samples.len() > 105, "{}", samples.len());
    let spoil = |bytes: &mut Vec<u8>, at: usize| {
        let nr_at = at + 8 + fixed;
        bytes[nr_at..nr_at + 8].copy_from_slice(&1000u64.to_le_bytes());
    };
    spoil(&mut bytes, samples[3]);
    {
        let file = PerfFile::from_bytes(&bytes).unwrap();
        for order in [Order::File, Order::Time, Order::File] {
            let mut recs = file.records(order).unwrap();
            while recs.next_record().is_some() {}
        }
        let problems = file.problems().list();
        assert_eq!(problems.len(), 1, "{problems:#?}");
        assert!(problems[0].starts_with(&format!("bad SAMPLE record at {:#x}", samples[3])), "{problems:#?}");
    }
    // 105 bad records: the first 100, then a count of the others.
    for &at in &samples[..105] {
        spoil(&mut bytes, at);
    }
    let file = PerfFile::from_bytes(&bytes).unwrap();
    let mut recs = file.records(Order::File).unwrap();
    while recs.next_record().is_some() {}
    let d = recs.diagnostics();
    assert_eq!(d.len(), 101, "{d:#?}");
    assert_eq!(d[100], "5 more records could not be decoded");
}
