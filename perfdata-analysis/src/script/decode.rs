//! The text perf script prints for memory-sample and register fields (`data_src`, `iregs`,
//! `uregs`, page sizes). Not written yet: [`super::fields`] refuses those fields and leaves them
//! out of the defaults until it is, so nothing here is printed.
#![allow(dead_code, unused_variables, clippy::ptr_arg)]

/// perf's `data_src` column (not yet: the value in hex).
pub(crate) fn data_src(v: u64, out: &mut String) {
    out.push_str(&format!("{v:16x}"));
}

/// The `data_src` column, padded to the widest so far as perf pads it.
#[derive(Default)]
pub(crate) struct DataSrcColumn {
    maxlen: usize,
}

impl DataSrcColumn {
    /// Append one sample's column.
    pub(crate) fn write(&mut self, v: u64, out: &mut String) {
        data_src(v, out);
    }
}

/// perf's register dump (not yet: nothing).
pub(crate) fn regs(regs: &perfdata_core::sample::Regs<'_>, arch: &str, out: &mut String) {}

/// perf's page size name (not yet: empty).
pub(crate) fn page_size_name(size: u64) -> String {
    String::new()
}
