//! Features about events and PMUs: EVENT_DESC, GROUP_DESC, PMU_MAPPINGS, CPU_PMU_CAPS and PMU_CAPS.

use crate::attr::EventAttr;
use crate::error::{Position, Result};
use crate::reader::Endian;

/// One EVENT_DESC entry: an attr, its name and ids.
#[derive(Clone, Debug, PartialEq)]
pub struct EventDesc {
    /// The attr as stored in the section.
    pub attr: EventAttr,
    /// Event name, e.g. `cpu-clock` or `sched:sched_switch`.
    pub name: String,
    /// Ids of the event's counters.
    pub ids: Vec<u64>,
}

/// Parse HEADER_EVENT_DESC: `u32 nr; u32 attr_size;` nr × {attr; u32 nr_ids; string name; u64 ids[]}.
pub fn event_desc(data: &[u8], endian: Endian, pos: Position) -> Result<Vec<EventDesc>> {
    super::run(data, endian, pos, parse::event_desc)
}

/// One GROUP_DESC entry: an event group as `perf record -e '{a,b}'` made it.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "json", derive(serde::Serialize))]
pub struct GroupDesc {
    /// The group's name, `{anon_group}` when it has none.
    pub name: String,
    /// Attr index (event index) of the leader.
    pub leader_idx: u32,
    /// Number of events in the group, leader included; the members are the events that follow the
    /// leader.
    pub nr_members: u32,
}

impl GroupDesc {
    /// perf's name for a group without a name.
    pub const ANON: &'static str = "{anon_group}";

    /// The name, unless it is perf's placeholder for none.
    pub fn real_name(&self) -> Option<&str> {
        (self.name != Self::ANON).then_some(self.name.as_str())
    }
}

/// Parse HEADER_GROUP_DESC: `u32 nr_groups;` nr × {string name; u32 leader_idx; u32 nr_members}.
pub fn group_desc(data: &[u8], endian: Endian, pos: Position) -> Result<Vec<GroupDesc>> {
    super::run(data, endian, pos, parse::group_desc)
}

/// One PMU_MAPPINGS entry: a PMU's dynamic `perf_event_attr.type` number.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "json", derive(serde::Serialize))]
pub struct PmuMapping {
    /// The `type` number events of this PMU carry.
    #[cfg_attr(feature = "json", serde(rename = "type"))]
    pub type_: u32,
    /// The PMU name (`cpu`, `software`, `tracepoint`, `msr`, …).
    pub name: String,
}

/// Parse HEADER_PMU_MAPPINGS: `u32 nr;` nr × {u32 type; string name}, in the writer's order.
pub fn pmu_mappings(data: &[u8], endian: Endian, pos: Position) -> Result<Vec<PmuMapping>> {
    super::run(data, endian, pos, parse::pmu_mappings)
}

/// One PMU capability (a file of `/sys/bus/event_source/devices/<pmu>/caps/`).
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "json", derive(serde::Serialize))]
pub struct PmuCap {
    /// E.g. `branches`, `max_precise`, `pmu_name`.
    pub name: String,
    /// The value as text.
    pub value: String,
}

/// The capabilities of one PMU (PMU_CAPS).
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "json", derive(serde::Serialize))]
pub struct PmuCaps {
    /// The PMU name.
    pub pmu_name: String,
    /// Its capabilities in stored order.
    pub caps: Vec<PmuCap>,
}

/// Parse HEADER_CPU_PMU_CAPS: `u32 nr;` nr × {string name; string value} of the `cpu` PMU.
pub fn cpu_pmu_caps(data: &[u8], endian: Endian, pos: Position) -> Result<Vec<PmuCap>> {
    super::run(data, endian, pos, parse::cpu_pmu_caps)
}

/// Parse HEADER_PMU_CAPS (perf ≤ 6.1: HYBRID_CPU_PMU_CAPS, same layout): `u32 nr_pmu;` nr_pmu ×
/// {`u32 nr_caps;` caps; string pmu_name} — the name comes after its caps.
pub fn pmu_caps(data: &[u8], endian: Endian, pos: Position) -> Result<Vec<PmuCaps>> {
    super::run(data, endian, pos, parse::pmu_caps)
}

/// The nom parsers of these sections, run by the functions above; public as [`crate::parse::feature`].
pub mod parse {
    use super::*;
    use crate::attr::event_attr;
    use crate::feature::strings::parse::header_string;
    use crate::reader::{count, malformed, take_input, u32, u64s};
    use crate::reader::{PResult, Reader};

    /// HEADER_EVENT_DESC: `u32 nr; u32 attr_size;` nr × {attr; u32 nr_ids; string name; u64 ids[]}.
    pub fn event_desc<'a>(input: Reader<'a>) -> PResult<'a, Vec<EventDesc>> {
        let input = input.context("EVENT_DESC");
        let (input, nr) = u32(input)?;
        let (rest, attr_size) = u32(input)?;
        if attr_size < 64 {
            return malformed(&input, "attr_size {} below 64", [attr_size.into(), 0]);
        }
        let entry = move |input: Reader<'a>| {
            let (input, a) = take_input(attr_size as usize)(input)?;
            let (_, attr) = event_attr(a.context("perf_event_attr"))?;
            let (input, nr_ids) = u32(input)?;
            let (input, name) = header_string(input)?;
            let (input, ids) = u64s(nr_ids.into())(input)?;
            Ok((input, EventDesc { attr, name, ids: ids.to_vec() }))
        };
        count(nr.into(), attr_size as usize, entry)(rest)
    }

    /// HEADER_GROUP_DESC: `u32 nr_groups;` nr × {string name; u32 leader_idx; u32 nr_members}.
    pub fn group_desc(input: Reader<'_>) -> PResult<'_, Vec<GroupDesc>> {
        let group = |input| {
            let (input, name) = header_string(input)?;
            let (input, leader_idx) = u32(input)?;
            let (input, nr_members) = u32(input)?;
            Ok((input, GroupDesc { name, leader_idx, nr_members }))
        };
        let (input, nr) = u32(input.context("GROUP_DESC"))?;
        count(nr.into(), 12, group)(input)
    }

    /// HEADER_PMU_MAPPINGS: `u32 nr;` nr × {u32 type; string name}.
    pub fn pmu_mappings(input: Reader<'_>) -> PResult<'_, Vec<PmuMapping>> {
        let mapping = |input| {
            let (input, type_) = u32(input)?;
            let (input, name) = header_string(input)?;
            Ok((input, PmuMapping { type_, name }))
        };
        let (input, nr) = u32(input.context("PMU_MAPPINGS"))?;
        count(nr.into(), 8, mapping)(input)
    }

    /// `u32 nr;` nr × {string name; string value}.
    fn caps(input: Reader<'_>) -> PResult<'_, Vec<PmuCap>> {
        let cap = |input| {
            let (input, name) = header_string(input)?;
            let (input, value) = header_string(input)?;
            Ok((input, PmuCap { name, value }))
        };
        let (input, nr) = u32(input)?;
        count(nr.into(), 8, cap)(input)
    }

    /// HEADER_CPU_PMU_CAPS: `u32 nr;` nr × {string name; string value} of the `cpu` PMU.
    pub fn cpu_pmu_caps(input: Reader<'_>) -> PResult<'_, Vec<PmuCap>> {
        caps(input.context("CPU_PMU_CAPS"))
    }

    /// HEADER_PMU_CAPS (perf ≤ 6.1: HYBRID_CPU_PMU_CAPS): `u32 nr_pmu;` nr_pmu × {caps; string
    /// pmu_name} — the name comes after its caps.
    pub fn pmu_caps(input: Reader<'_>) -> PResult<'_, Vec<PmuCaps>> {
        let pmu = |input| {
            let (input, caps) = caps(input)?;
            let (input, pmu_name) = header_string(input)?;
            Ok((input, PmuCaps { pmu_name, caps }))
        };
        let (input, nr) = u32(input.context("PMU_CAPS"))?;
        count(nr.into(), 8, pmu)(input)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::feature::system::tests::put_string;

    #[test]
    fn event_desc_in_both_orders() {
        let attr = EventAttr { type_: 2, size: 128, config: 0x174, flags: 0x140003, ..Default::default() };
        for e in [Endian::Little, Endian::Big] {
            let mut b = Vec::new();
            e.put_u32(&mut b, 1);
            e.put_u32(&mut b, 128);
            attr.write(e, &mut b);
            e.put_u32(&mut b, 2);
            put_string(e, &mut b, "sched:sched_switch");
            e.put_u64(&mut b, 1334);
            e.put_u64(&mut b, 1335);
            let d = event_desc(&b, e, Position::at(0)).unwrap();
            assert_eq!(
                d,
                vec![EventDesc { attr: attr.clone(), name: "sched:sched_switch".into(), ids: vec![1334, 1335] }]
            );
            for cut in [3, 8, 100, b.len() - 1] {
                assert!(event_desc(&b[..cut], e, Position::at(0)).is_err());
            }
        }
    }

    #[test]
    fn group_desc_and_pmu_mappings_in_both_orders() {
        for e in [Endian::Little, Endian::Big] {
            let mut b = Vec::new();
            e.put_u32(&mut b, 1);
            put_string(e, &mut b, "{anon_group}");
            e.put_u32(&mut b, 0);
            e.put_u32(&mut b, 2);
            let g = group_desc(&b, e, Position::at(0)).unwrap();
            assert_eq!(g, vec![GroupDesc { name: "{anon_group}".into(), leader_idx: 0, nr_members: 2 }]);
            assert_eq!(g[0].real_name(), None);
            assert!(group_desc(&b[..b.len() - 2], e, Position::at(0)).is_err());

            let mut b = Vec::new();
            e.put_u32(&mut b, 2);
            e.put_u32(&mut b, 1);
            put_string(e, &mut b, "software");
            e.put_u32(&mut b, 0xffff_0001);
            put_string(e, &mut b, "hwmon_x");
            let m = pmu_mappings(&b, e, Position::at(0)).unwrap();
            assert_eq!(m[0], PmuMapping { type_: 1, name: "software".into() });
            assert_eq!(m[1].type_, 0xffff_0001);
            assert!(pmu_mappings(&b[..b.len() - 70], e, Position::at(0)).is_err());
        }
    }

    #[test]
    fn pmu_caps_put_the_name_after_the_caps() {
        for e in [Endian::Little, Endian::Big] {
            let mut b = Vec::new();
            e.put_u32(&mut b, 2);
            e.put_u32(&mut b, 1);
            put_string(e, &mut b, "branches");
            put_string(e, &mut b, "32");
            put_string(e, &mut b, "cpu_core");
            e.put_u32(&mut b, 0);
            put_string(e, &mut b, "cpu_atom");
            let p = pmu_caps(&b, e, Position::at(0)).unwrap();
            assert_eq!(p[0].pmu_name, "cpu_core");
            assert_eq!(p[0].caps, vec![PmuCap { name: "branches".into(), value: "32".into() }]);
            assert_eq!(p[1], PmuCaps { pmu_name: "cpu_atom".into(), caps: vec![] });
            assert!(pmu_caps(&b[..b.len() - 1], e, Position::at(0)).is_err());

            let c = cpu_pmu_caps(&b[4..], e, Position::at(4)).unwrap();
            assert_eq!(c.len(), 1);
            assert!(cpu_pmu_caps(&b[4..20], e, Position::at(4)).is_err());
        }
    }
}
