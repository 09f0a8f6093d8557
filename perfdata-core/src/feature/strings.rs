//! The string encodings shared by feature sections, as cursor reads over the parsers of
//! [`crate::parse::feature`].

use crate::error::Result;
use crate::reader::Reader;

/// `perf_header_string`: `u32 len; u8 str[len]` (len includes NUL and padding). Cut at the first NUL.
pub fn header_string(r: &mut Reader<'_>) -> Result<String> {
    r.run(crate::parse::feature::header_string)
}

/// A `perf_header_string` borrowed from the section: the bytes up to the first NUL, as `str`
/// when they are UTF-8 (no copy), else with the invalid bytes replaced.
pub fn header_str<'a>(r: &mut Reader<'a>) -> Result<std::borrow::Cow<'a, str>> {
    r.run(crate::parse::feature::header_str)
}

/// A string list borrowed from the section (see [`header_str`]).
pub fn str_list<'a>(r: &mut Reader<'a>) -> Result<Vec<std::borrow::Cow<'a, str>>> {
    r.run(crate::parse::feature::str_list)
}

/// A string list: `u32 nr; perf_header_string[nr]`.
pub fn string_list(r: &mut Reader<'_>) -> Result<Vec<String>> {
    r.run(crate::parse::feature::string_list)
}
