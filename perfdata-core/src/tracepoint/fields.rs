//! Decode a tracepoint's RAW data into named, typed values (reference §8.3), by field name and the
//! offsets of the stored format — never fixed offsets: layouts differ between kernels.

use super::format::{Field, Format};
use crate::reader::{until_nul, Endian};
use std::fmt;

/// An array of fixed-size integers in the raw record (byte order of the tracing data).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IntArray<'a> {
    /// The element bytes.
    pub bytes: &'a [u8],
    /// Element size: 1, 2, 4 or 8.
    pub element_size: u8,
    /// Whether elements are signed.
    pub signed: bool,
    /// Byte order of the elements.
    pub endian: Endian,
}

impl<'a> IntArray<'a> {
    /// Number of elements.
    pub fn len(&self) -> usize {
        self.bytes.len() / usize::from(self.element_size.max(1))
    }

    /// True when there are no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Element `i`.
    pub fn get(&self, i: usize) -> Option<Value<'a>> {
        let n = usize::from(self.element_size);
        let start = i.checked_mul(n)?;
        let b = self.bytes.get(start..start.checked_add(n)?)?;
        Some(scalar(b, self.signed, self.endian))
    }

    /// The elements.
    pub fn iter(&self) -> impl Iterator<Item = Value<'a>> + 'a {
        let a = *self;
        (0..a.len()).filter_map(move |i| a.get(i))
    }
}

/// A decoded field value. Slices borrow from the raw record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Value<'a> {
    /// Unsigned 8-bit.
    U8(u8),
    /// Unsigned 16-bit.
    U16(u16),
    /// Unsigned 32-bit.
    U32(u32),
    /// Unsigned 64-bit (also pointers).
    U64(u64),
    /// Signed 8-bit.
    I8(i8),
    /// Signed 16-bit.
    I16(i16),
    /// Signed 32-bit.
    I32(i32),
    /// Signed 64-bit.
    I64(i64),
    /// A `char` array or dynamic string, up to its first NUL.
    Str(&'a [u8]),
    /// An array of integers (fixed or `__data_loc`).
    Array(IntArray<'a>),
    /// Bytes without a known integer layout (odd sizes, arrays of structs).
    Bytes(&'a [u8]),
    /// The field (or its dynamic data) lies outside the raw record.
    Missing,
}

impl Value<'_> {
    /// The value as a u64 (integers only; signed values are sign-extended then reinterpreted).
    pub fn as_u64(&self) -> Option<u64> {
        Some(match *self {
            Value::U8(v) => u64::from(v),
            Value::U16(v) => u64::from(v),
            Value::U32(v) => u64::from(v),
            Value::U64(v) => v,
            Value::I8(v) => v as u64,
            Value::I16(v) => v as u64,
            Value::I32(v) => v as u64,
            Value::I64(v) => v as u64,
            _ => return None,
        })
    }

    /// The value as an i64 (integers only; u64 above `i64::MAX` wraps).
    pub fn as_i64(&self) -> Option<i64> {
        Some(match *self {
            Value::I8(v) => i64::from(v),
            Value::I16(v) => i64::from(v),
            Value::I32(v) => i64::from(v),
            Value::I64(v) => v,
            _ => self.as_u64()? as i64,
        })
    }

    /// The string of a `Str` value (lossy UTF-8).
    pub fn as_str(&self) -> Option<std::borrow::Cow<'_, str>> {
        match self {
            Value::Str(s) => Some(String::from_utf8_lossy(s)),
            _ => None,
        }
    }

    /// As JSON: integers as numbers, strings as strings, arrays as arrays, bytes as lower-case hex,
    /// `Missing` as null.
    #[cfg(feature = "json")]
    pub fn to_json(&self) -> serde_json::Value {
        use serde_json::Value as J;
        match self {
            Value::U8(_) | Value::U16(_) | Value::U32(_) | Value::U64(_) => self.as_u64().map_or(J::Null, J::from),
            Value::I8(_) | Value::I16(_) | Value::I32(_) | Value::I64(_) => self.as_i64().map_or(J::Null, J::from),
            Value::Str(s) => J::String(String::from_utf8_lossy(s).into_owned()),
            Value::Array(a) => J::Array(a.iter().map(|v| v.to_json()).collect()),
            Value::Bytes(b) => J::String(crate::json::hex(b)),
            Value::Missing => J::Null,
        }
    }
}

impl fmt::Display for Value<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::U8(_) | Value::U16(_) | Value::U32(_) | Value::U64(_) => write!(f, "{}", self.as_u64().unwrap_or(0)),
            Value::I8(_) | Value::I16(_) | Value::I32(_) | Value::I64(_) => write!(f, "{}", self.as_i64().unwrap_or(0)),
            Value::Str(s) => write!(f, "{}", String::from_utf8_lossy(s)),
            Value::Array(a) => {
                write!(f, "[")?;
                for (i, v) in a.iter().enumerate() {
                    if i > 0 {
                        write!(f, ", ")?;
                    }
                    write!(f, "{v}")?;
                }
                write!(f, "]")
            }
            Value::Bytes(b) => {
                for x in *b {
                    write!(f, "{x:02x}")?;
                }
                Ok(())
            }
            Value::Missing => write!(f, "?"),
        }
    }
}

fn scalar(b: &[u8], signed: bool, e: Endian) -> Value<'_> {
    match (b.len(), signed) {
        (1, false) => Value::U8(b.first().copied().unwrap_or(0)),
        (1, true) => Value::I8(b.first().copied().unwrap_or(0) as i8),
        (2, false) => Value::U16(e.u16(b)),
        (2, true) => Value::I16(e.u16(b) as i16),
        (4, false) => Value::U32(e.u32(b)),
        (4, true) => Value::I32(e.u32(b) as i32),
        (8, false) => Value::U64(e.u64(b)),
        (8, true) => Value::I64(e.u64(b) as i64),
        _ => Value::Bytes(b),
    }
}

/// Size of one element named by a C type (for `__data_loc TYPE[]` whose size the format does not
/// give), or 0 when unknown.
fn c_type_size(ty: &str, long_size: u8) -> u8 {
    let words: Vec<&str> = ty.split_whitespace().filter(|w| !matches!(*w, "const" | "volatile")).collect();
    let t = words.join(" ");
    let t = t.strip_prefix("unsigned ").or_else(|| t.strip_prefix("signed ")).unwrap_or(&t);
    match t {
        "char" | "u8" | "s8" | "__u8" | "__s8" | "bool" | "_Bool" => 1,
        "short" | "short int" | "u16" | "s16" | "__u16" | "__s16" => 2,
        "int" | "u32" | "s32" | "__u32" | "__s32" | "pid_t" => 4,
        "long long" | "long long int" | "u64" | "s64" | "__u64" | "__s64" => 8,
        "long" | "long int" | "size_t" | "ssize_t" => long_size,
        _ if t.ends_with('*') => long_size,
        _ => 0,
    }
}

/// The element size of an array field (its `size:` / count, or from its C type when the format does
/// not say: `__data_loc`), 0 when unknown. Arrays of elements of 1, 2, 4 or 8 bytes decode as
/// [`Value::Array`], others as [`Value::Bytes`].
pub fn array_element_size(f: &Field, fmt: &Format) -> u8 {
    match u8::try_from(f.element_size) {
        Ok(n) if n != 0 => n,
        _ => c_type_size(f.element_type(), fmt.long_size),
    }
}

/// The bytes of an array's data and its element size.
fn array_value<'a>(f: &Field, bytes: &'a [u8], fmt: &Format) -> Value<'a> {
    if f.is_string {
        return Value::Str(until_nul(bytes));
    }
    let el = array_element_size(f, fmt);
    if matches!(el, 1 | 2 | 4 | 8) && bytes.len().is_multiple_of(usize::from(el)) {
        Value::Array(IntArray { bytes, element_size: el, signed: f.is_signed(), endian: fmt.endian })
    } else {
        Value::Bytes(bytes)
    }
}

/// The location of a dynamic field's data: `(offset, len)` from its descriptor.
pub(crate) fn dynamic_location(f: &Field, raw: &[u8], endian: Endian) -> Option<(usize, usize)> {
    let start = f.offset as usize;
    let desc = raw.get(start..start.checked_add(f.size as usize)?)?;
    let (off, len) = match desc.len() {
        4 => {
            let v = endian.u32(desc);
            ((v & 0xffff) as usize, (v >> 16) as usize)
        }
        // Old kernels: a 16-bit offset, the data runs to the end of the record.
        2 => {
            let o = usize::from(endian.u16(desc));
            (o, raw.len().checked_sub(o)?)
        }
        _ => return None,
    };
    let off = if f.is_relative { off.checked_add(start)?.checked_add(desc.len())? } else { off };
    Some((off, len))
}

/// Decode one field.
pub fn decode_field<'a>(fmt: &Format, f: &Field, raw: &'a [u8]) -> Value<'a> {
    let start = f.offset as usize;
    if f.is_dynamic {
        let Some((off, len)) = dynamic_location(f, raw, fmt.endian) else {
            return Value::Missing;
        };
        return match off.checked_add(len).and_then(|end| raw.get(off..end)) {
            Some(b) => array_value(f, b, fmt),
            None => Value::Missing,
        };
    }
    let end = if f.size == 0 { Some(raw.len()) } else { start.checked_add(f.size as usize) };
    let Some(b) = end.and_then(|end| raw.get(start..end)) else {
        return Value::Missing;
    };
    if f.is_array {
        array_value(f, b, fmt)
    } else {
        scalar(b, f.is_signed(), fmt.endian)
    }
}

impl Format {
    /// Decode the event's own fields (not the `common_*` ones) from a sample's RAW data.
    pub fn decode<'a>(&self, raw: &'a [u8]) -> Vec<(&str, Value<'a>)> {
        self.fields.iter().map(|f| (f.name.as_str(), decode_field(self, f, raw))).collect()
    }

    /// Decode the `common_*` fields.
    pub fn decode_common<'a>(&self, raw: &'a [u8]) -> Vec<(&str, Value<'a>)> {
        self.common_fields.iter().map(|f| (f.name.as_str(), decode_field(self, f, raw))).collect()
    }

    /// One field by name (common fields included), `None` if the format has no such field.
    pub fn field<'a>(&self, raw: &'a [u8], name: &str) -> Option<Value<'a>> {
        self.field_def(name).map(|f| decode_field(self, f, raw))
    }

    /// Every field (common ones first) as a JSON object `name → value`.
    ///
    /// The strings, arrays and byte runs of a real format's fields do not overlap, so together they
    /// hold at most `raw.len()` bytes; a crafted format can point thousands of fields at the same
    /// bytes. Past that many bytes, further strings, arrays and byte runs are `null` rather than
    /// copied again.
    #[cfg(feature = "json")]
    pub fn fields_json(&self, raw: &[u8]) -> serde_json::Value {
        let mut budget = raw.len();
        let m: serde_json::Map<String, serde_json::Value> = self
            .all_fields()
            .map(|f| {
                let v = decode_field(self, f, raw);
                let len = match v {
                    Value::Str(b) | Value::Bytes(b) | Value::Array(IntArray { bytes: b, .. }) => b.len(),
                    _ => 0,
                };
                let j = match budget.checked_sub(len) {
                    Some(rest) => {
                        budget = rest;
                        v.to_json()
                    }
                    None => serde_json::Value::Null,
                };
                (f.name.clone(), j)
            })
            .collect();
        serde_json::Value::Object(m)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reader::Endian;

    /// fuzz/regressions/tracepoint/overlapping-fields-json: fields that all cover the same bytes.
    #[cfg(feature = "json")]
    #[test]
    fn json_of_overlapping_fields_is_bounded_by_the_record() {
        let mut text = String::from("name: t\nID: 1\nformat:\n\tfield:int c;\toffset:0;\tsize:4;\tsigned:1;\n\n");
        for i in 0..50 {
            text.push_str(&format!("\tfield:int a{i}[16];\toffset:0;\tsize:64;\tsigned:1;\n"));
        }
        text.push_str("\nprint fmt: \"x\"\n");
        let fmt = Format::parse(text.as_bytes(), "s", Endian::Little, 8).unwrap();
        let raw = [1u8; 64];
        let v = fmt.fields_json(&raw);
        assert_eq!(v["c"], 0x0101_0101);
        assert_eq!(v["a0"].as_array().map(Vec::len), Some(16));
        assert!((1..50).all(|i| v[format!("a{i}")].is_null()));
        // Every field still decodes on its own.
        assert!(matches!(fmt.field(&raw, "a49"), Some(Value::Array(a)) if a.len() == 16));
    }
}
