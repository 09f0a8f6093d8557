//! The first rows of a table as HTML (`ArrowTable._repr_html_`), formatted here for the column
//! types perfdata builds, so a notebook preview needs neither pyarrow nor pandas.

use arrow_array::cast::AsArray;
use arrow_array::types::{Int16Type, Int32Type, Int64Type, Int8Type, UInt16Type, UInt32Type, UInt64Type, UInt8Type};
use arrow_array::{Array, ArrayRef, RecordBatch};
use arrow_schema::DataType;

/// Longest cell text shown.
const MAX_CELL: usize = 80;

/// Row `i` of `a` as text (`null` for nulls; lists and bytes shortened).
pub fn cell(a: &ArrayRef, i: usize) -> String {
    if a.is_null(i) {
        return "null".to_string();
    }
    let s = match a.data_type() {
        DataType::UInt8 => a.as_primitive::<UInt8Type>().value(i).to_string(),
        DataType::UInt16 => a.as_primitive::<UInt16Type>().value(i).to_string(),
        DataType::UInt32 => a.as_primitive::<UInt32Type>().value(i).to_string(),
        DataType::UInt64 => a.as_primitive::<UInt64Type>().value(i).to_string(),
        DataType::Int8 => a.as_primitive::<Int8Type>().value(i).to_string(),
        DataType::Int16 => a.as_primitive::<Int16Type>().value(i).to_string(),
        DataType::Int32 => a.as_primitive::<Int32Type>().value(i).to_string(),
        DataType::Int64 => a.as_primitive::<Int64Type>().value(i).to_string(),
        DataType::Boolean => a.as_boolean().value(i).to_string(),
        DataType::Utf8 => a.as_string::<i32>().value(i).to_string(),
        DataType::LargeUtf8 => a.as_string::<i64>().value(i).to_string(),
        DataType::Dictionary(_, _) => match a.as_any_dictionary_opt() {
            Some(d) => {
                let key = d.normalized_keys().get(i).copied().unwrap_or(0);
                cell(d.values(), key)
            }
            None => format!("<{}>", a.data_type()),
        },
        DataType::LargeList(_) => {
            let l = a.as_list::<i64>().value(i);
            return list(&l);
        }
        DataType::List(_) => {
            let l = a.as_list::<i32>().value(i);
            return list(&l);
        }
        DataType::LargeBinary => format!("{} bytes", a.as_binary::<i64>().value(i).len()),
        DataType::Binary => format!("{} bytes", a.as_binary::<i32>().value(i).len()),
        t => format!("<{t}>"),
    };
    if s.chars().count() > MAX_CELL {
        let cut: String = s.chars().take(MAX_CELL).collect();
        format!("{cut}…")
    } else {
        s
    }
}

/// A list cell: its first 3 items and its length (never cut, so the length always shows).
fn list(l: &ArrayRef) -> String {
    let items: Vec<String> = (0..l.len().min(3)).map(|j| cell(l, j)).collect();
    format!("[{}{}] ({} items)", items.join(", "), if l.len() > 3 { ", …" } else { "" }, l.len())
}

/// The first `n` rows of `batches` as cells.
pub fn rows(batches: &[RecordBatch], n: usize) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    for b in batches {
        for i in 0..b.num_rows() {
            if out.len() >= n {
                return out;
            }
            out.push(b.columns().iter().map(|c| cell(c, i)).collect());
        }
    }
    out
}
