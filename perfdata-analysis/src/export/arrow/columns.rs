//! Column builders that end exactly as large as their data: values go into a `Vec`, which is shrunk
//! (`realloc`, in place for large blocks) and handed to Arrow without a copy. Arrow's own builders
//! double their capacity and keep it, which leaves columns up to twice their size.

use arrow_array::types::ArrowPrimitiveType;
use arrow_array::{ArrayRef, LargeListArray, PrimitiveArray, UInt64Array};
use arrow_buffer::{NullBufferBuilder, OffsetBuffer, ScalarBuffer};
use arrow_schema::{ArrowError, DataType, Field};
use std::sync::Arc;

/// A nullable primitive column.
pub(crate) struct Prim<T: ArrowPrimitiveType> {
    values: Vec<T::Native>,
    nulls: NullBufferBuilder,
}

impl<T: ArrowPrimitiveType> Default for Prim<T> {
    fn default() -> Self {
        Self::nulls(0)
    }
}

impl<T: ArrowPrimitiveType> Prim<T> {
    /// A column of `n` nulls (for a column created after `n` rows).
    pub(crate) fn nulls(n: usize) -> Self {
        let mut nulls = NullBufferBuilder::new(n.max(1024));
        nulls.append_n_nulls(n);
        Prim { values: vec![T::Native::default(); n], nulls }
    }

    /// Append a value or a null.
    pub(crate) fn push(&mut self, v: Option<T::Native>) {
        match v {
            Some(v) => {
                self.values.push(v);
                self.nulls.append_non_null();
            }
            None => {
                self.values.push(T::Native::default());
                self.nulls.append_null();
            }
        }
    }

    /// The array.
    pub(crate) fn finish(mut self) -> Result<PrimitiveArray<T>, ArrowError> {
        self.values.shrink_to_fit();
        PrimitiveArray::try_new(ScalarBuffer::from(self.values), self.nulls.finish())
    }
}

/// A nullable `large_list<uint64>` column.
pub(crate) struct U64List {
    values: Vec<u64>,
    offsets: Vec<i64>,
    nulls: NullBufferBuilder,
}

impl Default for U64List {
    fn default() -> Self {
        Self::nulls(0)
    }
}

impl U64List {
    /// A column of `n` nulls.
    pub(crate) fn nulls(n: usize) -> Self {
        let mut nulls = NullBufferBuilder::new(n.max(1024));
        nulls.append_n_nulls(n);
        U64List { values: Vec::new(), offsets: vec![0; n + 1], nulls }
    }

    /// Append a list, or a null.
    pub(crate) fn push(&mut self, v: Option<impl Iterator<Item = u64>>) {
        match v {
            Some(it) => {
                self.values.extend(it);
                self.nulls.append_non_null();
            }
            None => self.nulls.append_null(),
        }
        self.offsets.push(self.values.len() as i64);
    }

    /// The Arrow type of the column.
    pub(crate) fn data_type() -> DataType {
        DataType::LargeList(Arc::new(Field::new_list_field(DataType::UInt64, true)))
    }

    /// The array.
    pub(crate) fn finish(mut self) -> Result<LargeListArray, ArrowError> {
        self.values.shrink_to_fit();
        self.offsets.shrink_to_fit();
        let values: ArrayRef = Arc::new(UInt64Array::try_new(ScalarBuffer::from(self.values), None)?);
        LargeListArray::try_new(
            Arc::new(Field::new_list_field(DataType::UInt64, true)),
            OffsetBuffer::new(ScalarBuffer::from(self.offsets)),
            values,
            self.nulls.finish(),
        )
    }
}
