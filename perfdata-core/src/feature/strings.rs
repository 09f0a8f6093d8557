//! The string encodings shared by feature sections, as cursor reads over the parsers of
//! [`crate::parse::feature`].

use crate::error::Result;
use crate::reader::Reader;

/// `perf_header_string`: `u32 len; u8 str[len]` (len includes NUL and padding). Cut at the first NUL.
pub fn header_string(r: &mut Reader<'_>) -> Result<String> {
    r.run(parse::header_string)
}

/// A `perf_header_string` borrowed from the section: the bytes up to the first NUL, as `str`
/// when they are UTF-8 (no copy), else with the invalid bytes replaced.
pub fn header_str<'a>(r: &mut Reader<'a>) -> Result<std::borrow::Cow<'a, str>> {
    r.run(parse::header_str)
}

/// A string list borrowed from the section (see [`header_str`]).
pub fn str_list<'a>(r: &mut Reader<'a>) -> Result<Vec<std::borrow::Cow<'a, str>>> {
    r.run(parse::str_list)
}

/// A string list: `u32 nr; perf_header_string[nr]`.
pub fn string_list(r: &mut Reader<'_>) -> Result<Vec<String>> {
    r.run(parse::string_list)
}

/// The nom parsers of these sections, run by the functions above; public as [`crate::parse::feature`].
pub mod parse {
    use crate::reader::{count, take_u64, u32, until_nul};
    use crate::reader::{PResult, Reader};
    use std::borrow::Cow;

    /// `perf_header_string`: `u32 len; u8 str[len]` (`len` counts the NUL and the padding), cut at the
    /// first NUL; borrowed when it is UTF-8, else with the invalid bytes replaced.
    pub fn header_str<'a>(input: Reader<'a>) -> PResult<'a, Cow<'a, str>> {
        let (input, len) = u32(input)?;
        let (input, b) = take_u64(u64::from(len))(input)?;
        Ok((input, String::from_utf8_lossy(until_nul(b))))
    }

    /// [`header_str`] as an owned `String`.
    pub fn header_string(input: Reader<'_>) -> PResult<'_, String> {
        header_str(input).map(|(rest, s)| (rest, s.into_owned()))
    }

    /// A string list: `u32 nr; perf_header_string[nr]`, borrowed (see [`header_str`]).
    pub fn str_list<'a>(input: Reader<'a>) -> PResult<'a, Vec<Cow<'a, str>>> {
        let (input, nr) = u32(input)?;
        count(nr.into(), 4, header_str)(input)
    }

    /// [`str_list`] as owned strings.
    pub fn string_list(input: Reader<'_>) -> PResult<'_, Vec<String>> {
        let (input, nr) = u32(input)?;
        count(nr.into(), 4, header_string)(input)
    }
}
