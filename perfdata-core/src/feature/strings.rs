//! The string encodings shared by feature sections.

use crate::error::Result;
use crate::reader::{until_nul, Reader};

/// `perf_header_string`: `u32 len; u8 str[len]` (len includes NUL and padding). Cut at the first NUL.
pub fn header_string(r: &mut Reader<'_>) -> Result<String> {
    let len = r.u32()?;
    let b = r.bytes_u64(u64::from(len))?;
    Ok(String::from_utf8_lossy(until_nul(b)).into_owned())
}

/// A `perf_header_string` borrowed from the section: the bytes up to the first NUL, as `str`
/// when they are UTF-8 (no copy), else with the invalid bytes replaced.
pub fn header_str<'a>(r: &mut Reader<'a>) -> Result<std::borrow::Cow<'a, str>> {
    let len = r.u32()?;
    let b = r.bytes_u64(u64::from(len))?;
    Ok(String::from_utf8_lossy(until_nul(b)))
}

/// A string list borrowed from the section (see [`header_str`]).
pub fn str_list<'a>(r: &mut Reader<'a>) -> Result<Vec<std::borrow::Cow<'a, str>>> {
    let nr = r.u32()?;
    let mut v = Vec::with_capacity((nr as usize).min(r.remaining() / 4));
    for _ in 0..nr {
        v.push(header_str(r)?);
    }
    Ok(v)
}

/// A string list: `u32 nr; perf_header_string[nr]`.
pub fn string_list(r: &mut Reader<'_>) -> Result<Vec<String>> {
    let nr = r.u32()?;
    // Each string needs at least its 4-byte length.
    let mut v = Vec::with_capacity((nr as usize).min(r.remaining() / 4));
    for _ in 0..nr {
        v.push(header_string(r)?);
    }
    Ok(v)
}
