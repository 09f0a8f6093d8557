//! BPF_PROG_INFO and BPF_BTF: the BPF programs and BTF blobs that were loaded while recording. The
//! payloads stay raw (borrowed); the accessors decode the `struct bpf_prog_info` fields perf uses.
//! perf itself skips both sections in cross-endian files; here every integer is read in file order.

use crate::error::{Position, Result};
use crate::reader::{until_nul, Endian, Reader};

/// One BPF_PROG_INFO entry (perf's `struct perf_bpil`, pointer fields stored as offsets into `data`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BpfProgInfo<'a> {
    /// Bytes of `struct bpf_prog_info` the writer had.
    pub info_len: u32,
    /// Bytes of the array data.
    pub data_len: u32,
    /// Bit mask of the arrays present in `data` (`PERF_BPIL_*`).
    pub arrays: u64,
    /// The raw `struct bpf_prog_info`.
    pub info: &'a [u8],
    /// The arrays (jited instructions, ksyms, function lengths, line info…).
    pub data: &'a [u8],
    pub(crate) endian: Endian,
}

impl BpfProgInfo<'_> {
    fn u32_at(&self, off: usize) -> Option<u32> {
        self.info.get(off..off.checked_add(4)?).map(|b| self.endian.u32(b))
    }

    /// `type` (BPF_PROG_TYPE_*).
    pub fn prog_type(&self) -> Option<u32> {
        self.u32_at(0)
    }
    /// `id`, the kernel's program id.
    pub fn id(&self) -> Option<u32> {
        self.u32_at(4)
    }
    /// `tag`, the program's 8-byte hash.
    pub fn tag(&self) -> Option<[u8; 8]> {
        self.info.get(8..16).and_then(|b| b.try_into().ok())
    }
    /// `jited_prog_len`.
    pub fn jited_prog_len(&self) -> Option<u32> {
        self.u32_at(16)
    }
    /// `name` (up to 16 bytes).
    pub fn name(&self) -> Option<String> {
        self.info.get(64..80).map(|b| String::from_utf8_lossy(until_nul(b)).into_owned())
    }
    /// `nr_jited_ksyms`: number of sub-programs.
    pub fn nr_jited_ksyms(&self) -> Option<u32> {
        self.u32_at(104)
    }
    /// `btf_id`.
    pub fn btf_id(&self) -> Option<u32> {
        self.u32_at(128)
    }
    /// `nr_jited_func_lens`.
    pub fn nr_jited_func_lens(&self) -> Option<u32> {
        self.u32_at(108)
    }
    /// `func_info_rec_size`.
    pub fn func_info_rec_size(&self) -> Option<u32> {
        self.u32_at(132)
    }
    /// `nr_func_info`.
    pub fn nr_func_info(&self) -> Option<u32> {
        self.u32_at(144)
    }
    /// `nr_prog_tags`.
    pub fn nr_prog_tags(&self) -> Option<u32> {
        self.u32_at(180)
    }

    /// Element `index` (of `size` bytes) of the array whose pointer field is at `field` in the info
    /// struct; the field holds the array's offset in `data` (perf's `bpil_addr_to_offs`).
    fn element(&self, field: usize, index: usize, size: usize) -> Option<&[u8]> {
        let off = self.info.get(field..field.checked_add(8)?).map(|b| self.endian.u64(b))?;
        let start = usize::try_from(off).ok()?.checked_add(index.checked_mul(size)?)?;
        self.data.get(start..start.checked_add(size)?)
    }

    /// `jited_ksyms[i]`: start address of sub-program `i`.
    pub fn jited_ksym(&self, i: usize) -> Option<u64> {
        self.element(112, i, 8).map(|b| self.endian.u64(b))
    }
    /// `jited_func_lens[i]`: code size of sub-program `i`.
    pub fn jited_func_len(&self, i: usize) -> Option<u32> {
        self.element(120, i, 4).map(|b| self.endian.u32(b))
    }
    /// `prog_tags[i]`: tag of sub-program `i`.
    pub fn prog_tag(&self, i: usize) -> Option<[u8; 8]> {
        self.element(184, i, 8).and_then(|b| b.try_into().ok())
    }
    /// `func_info[i].type_id`: the BTF type (a FUNC) of sub-program `i`.
    pub fn func_info_type_id(&self, i: usize) -> Option<u32> {
        let rec = usize::try_from(self.func_info_rec_size()?).ok()?;
        if rec < 8 {
            return None;
        }
        self.element(136, i, rec).and_then(|b| b.get(4..8)).map(|b| self.endian.u32(b))
    }
}

/// Parse HEADER_BPF_PROG_INFO: `u32 count;` count × `{u32 info_len; u32 data_len; u64 arrays;
/// u8 info[info_len]; u8 data[data_len]}`.
pub fn bpf_prog_info(data: &[u8], endian: Endian, pos: Position) -> Result<Vec<BpfProgInfo<'_>>> {
    super::run(data, endian, pos, parse::bpf_prog_info)
}

/// One BPF_BTF entry: a raw BTF blob.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BpfBtf<'a> {
    /// The kernel's BTF id.
    pub id: u32,
    /// The BTF data.
    pub data: &'a [u8],
}

/// Parse HEADER_BPF_BTF: `u32 count;` count × `{u32 id; u32 data_size; u8 data[data_size]}`.
pub fn bpf_btf(data: &[u8], endian: Endian, pos: Position) -> Result<Vec<BpfBtf<'_>>> {
    super::run(data, endian, pos, parse::bpf_btf)
}

/// A parsed BTF blob, enough to name types (libbpf's `btf__new` + `btf__type_by_id` +
/// `btf__name_by_offset`). Either byte order (told by the magic).
#[derive(Clone, Debug)]
pub struct Btf<'a> {
    pub(crate) endian: Endian,
    /// Byte offset of each type's `name_off`, indexed by type id - 1.
    types: Vec<usize>,
    type_data: &'a [u8],
    strings: &'a [u8],
}

const BTF_MAGIC: u16 = 0xeb9f;

impl<'a> Btf<'a> {
    /// Parse a BTF blob; `None` when it is not valid BTF (libbpf would refuse it too).
    pub fn parse(data: &'a [u8]) -> Option<Btf<'a>> {
        let endian = match data.get(..2)? {
            [0x9f, 0xeb] => Endian::Little,
            [0xeb, 0x9f] => Endian::Big,
            _ => return None,
        };
        let mut r = Reader::new(data, endian, Position::default(), "BTF header");
        let (magic, version, _flags, hdr_len) = (r.u16().ok()?, r.u8().ok()?, r.u8().ok()?, r.u32().ok()?);
        let (type_off, type_len, str_off, str_len) = (r.u32().ok()?, r.u32().ok()?, r.u32().ok()?, r.u32().ok()?);
        if magic != BTF_MAGIC || version != 1 || hdr_len < 24 {
            return None;
        }
        let body = data.get(hdr_len as usize..)?;
        let section = |off: u32, len: u32| body.get(off as usize..(off as usize).checked_add(len as usize)?);
        let (type_data, strings) = (section(type_off, type_len)?, section(str_off, str_len)?);
        if strings.first() != Some(&0) || strings.last() != Some(&0) {
            return None;
        }
        let mut types = Vec::with_capacity(type_data.len() / 12);
        let mut t = Reader::new(type_data, endian, Position::default(), "BTF type");
        while t.remaining() > 0 {
            types.push(t.consumed());
            let (_name, info, _size) = (t.u32().ok()?, t.u32().ok()?, t.u32().ok()?);
            let vlen = (info & 0xffff) as usize;
            let extra = match (info >> 24) & 0x1f {
                // PTR, FWD, TYPEDEF, VOLATILE, CONST, RESTRICT, FUNC, FLOAT, TYPE_TAG
                2 | 7 | 8 | 9 | 10 | 11 | 12 | 16 | 18 => 0,
                // INT, VAR, DECL_TAG
                1 | 14 | 17 => 4,
                // ARRAY
                3 => 12,
                // STRUCT, UNION, DATASEC, ENUM64: 12-byte entries; ENUM, FUNC_PROTO: 8-byte entries
                4 | 5 | 15 | 19 => vlen.checked_mul(12)?,
                6 | 13 => vlen.checked_mul(8)?,
                _ => return None,
            };
            t.skip(extra).ok()?;
        }
        Some(Btf { endian, types, type_data, strings })
    }

    /// Number of types (ids 1..=n; 0 is `void`).
    pub fn len(&self) -> usize {
        self.types.len()
    }

    /// True when the blob has no types.
    pub fn is_empty(&self) -> bool {
        self.types.is_empty()
    }

    /// `name_off` of type `id` (`Some(0)` for `void`), `None` when there is no such type.
    pub fn name_off(&self, id: u32) -> Option<u32> {
        if id == 0 {
            return Some(0);
        }
        let at = *self.types.get(id as usize - 1)?;
        self.type_data.get(at..at.checked_add(4)?).map(|b| self.endian.u32(b))
    }

    /// The string at `offset` of the string section.
    pub fn string(&self, offset: u32) -> Option<&'a str> {
        let s = until_nul(self.strings.get(offset as usize..)?);
        std::str::from_utf8(s).ok()
    }

    /// The name of type `id`.
    pub fn type_name(&self, id: u32) -> Option<&'a str> {
        self.string(self.name_off(id)?)
    }
}

/// The nom parsers of these sections, run by the functions above; public as [`crate::parse::feature`].
pub mod parse {
    use super::*;
    use crate::reader::{count, take_u64, u32, u64};
    use crate::reader::{PResult, Reader};

    /// HEADER_BPF_PROG_INFO: `u32 count;` count × `{u32 info_len; u32 data_len; u64 arrays; u8
    /// info[info_len]; u8 data[data_len]}`, both byte arrays borrowed.
    pub fn bpf_prog_info(input: Reader<'_>) -> PResult<'_, Vec<BpfProgInfo<'_>>> {
        let endian = input.endian();
        let prog = move |input| {
            let (input, info_len) = u32(input)?;
            let (input, data_len) = u32(input)?;
            let (input, arrays) = u64(input)?;
            let (input, info) = take_u64(info_len.into())(input)?;
            let (input, data) = take_u64(data_len.into())(input)?;
            Ok((input, BpfProgInfo { info_len, data_len, arrays, info, data, endian }))
        };
        let (input, nr) = u32(input.context("BPF_PROG_INFO"))?;
        count(nr.into(), 16, prog)(input)
    }

    /// HEADER_BPF_BTF: `u32 count;` count × `{u32 id; u32 data_size; u8 data[data_size]}`, borrowed.
    pub fn bpf_btf(input: Reader<'_>) -> PResult<'_, Vec<BpfBtf<'_>>> {
        let btf = |input| {
            let (input, id) = u32(input)?;
            let (input, size) = u32(input)?;
            let (input, data) = take_u64(size.into())(input)?;
            Ok((input, BpfBtf { id, data }))
        };
        let (input, nr) = u32(input.context("BPF_BTF"))?;
        count(nr.into(), 8, btf)(input)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prog_info_and_btf_in_both_orders() {
        for e in [Endian::Little, Endian::Big] {
            let mut info = vec![0u8; 136];
            let mut w = Vec::new();
            e.put_u32(&mut w, 17);
            e.put_u32(&mut w, 42);
            info[..8].copy_from_slice(&w);
            info[8..16].copy_from_slice(&[1, 2, 3, 4, 5, 6, 7, 8]);
            info[64..68].copy_from_slice(b"prog");
            let mut b = Vec::new();
            e.put_u32(&mut b, 1);
            e.put_u32(&mut b, 136);
            e.put_u32(&mut b, 3);
            e.put_u64(&mut b, 0x5);
            b.extend_from_slice(&info);
            b.extend_from_slice(&[9, 9, 9]);
            let p = bpf_prog_info(&b, e, Position::at(0)).unwrap();
            assert_eq!((p[0].prog_type(), p[0].id(), p[0].name().as_deref()), (Some(17), Some(42), Some("prog")));
            assert_eq!(p[0].tag(), Some([1, 2, 3, 4, 5, 6, 7, 8]));
            assert_eq!(p[0].data, &[9, 9, 9]);
            assert!(bpf_prog_info(&b[..b.len() - 1], e, Position::at(0)).is_err());

            let mut b = Vec::new();
            e.put_u32(&mut b, 1);
            e.put_u32(&mut b, 7);
            e.put_u32(&mut b, 2);
            b.extend_from_slice(&[0x9f, 0xeb]);
            let t = bpf_btf(&b, e, Position::at(0)).unwrap();
            assert_eq!(t, vec![BpfBtf { id: 7, data: &[0x9f, 0xeb] }]);
            assert!(bpf_btf(&b[..b.len() - 1], e, Position::at(0)).is_err());
        }
        // A short info struct: the accessors say "not there" instead of reading past it.
        let p =
            BpfProgInfo { info_len: 4, data_len: 0, arrays: 0, info: &[1, 0, 0, 0], data: &[], endian: Endian::Little };
        assert_eq!((p.prog_type(), p.id(), p.name()), (Some(1), None, None));
    }

    /// A BTF blob with an INT and a FUNC_PROTO (one param) and a FUNC named "handler".
    fn btf(e: Endian) -> Vec<u8> {
        let strings = b"\0int\0handler\0x\0";
        let mut types = Vec::new();
        for v in [1u32, 1 << 24, 4, 0x20] {
            e.put_u32(&mut types, v); // int: name "int", INT, size 4, encoding
        }
        for v in [0u32, (13 << 24) | 1, 1, 13, 1] {
            e.put_u32(&mut types, v); // func_proto returning int, one param (name "x", type int)
        }
        for v in [5u32, 12 << 24, 2] {
            e.put_u32(&mut types, v); // func "handler" of type 2
        }
        let mut b = Vec::new();
        e.put_u16(&mut b, BTF_MAGIC);
        b.extend_from_slice(&[1, 0]);
        for v in [24u32, 0, types.len() as u32, types.len() as u32, strings.len() as u32] {
            e.put_u32(&mut b, v);
        }
        b.extend_from_slice(&types);
        b.extend_from_slice(strings);
        b
    }

    #[test]
    fn btf_names_in_both_orders() {
        for e in [Endian::Little, Endian::Big] {
            let b = btf(e);
            let t = Btf::parse(&b).unwrap();
            assert_eq!(t.len(), 3);
            assert_eq!(t.type_name(3), Some("handler"));
            assert_eq!(t.type_name(1), Some("int"));
            assert_eq!(t.type_name(0), Some(""));
            assert_eq!(t.type_name(4), None);
            for cut in [1, 10, 30, b.len() - 1] {
                assert!(Btf::parse(&b[..cut]).is_none(), "cut {cut}");
            }
        }
    }
}
