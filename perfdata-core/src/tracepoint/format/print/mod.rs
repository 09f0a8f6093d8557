//! `print fmt`: parse the printf-style format and its C-expression arguments once per format
//! ([`parse`]), then render raw records the way `perf script` does ([`render`], libtraceevent's
//! `pretty_print`), with C `printf` conversions reimplemented in [`printf`].
//!
//! The target is the libtraceevent copy built into perf 6.1 (tools/lib/traceevent as of 2020), not
//! the later standalone library: no `%c`, no `+` flag, `%z` does not widen the argument, quoted
//! characters stay text, `__print_array` prints decimal, no `sizeof`, `(REC)->`, `__get_cpumask` or
//! `__get_sockaddr`, and `__print_hex`/`__print_array` arguments take no operators. Each of these
//! was checked against perf 6.1 itself by rewriting the print fmts of a recording.

mod parse;
mod printf;
mod render;

pub(crate) use render::render;

use super::{Field, Format, Tok};

/// `{ value, "string" }` of `__print_flags` / `__print_symbolic`: both as libtraceevent keeps them
/// (the value is evaluated when printing).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct FlagSym {
    value: String,
    text: String,
}

/// `struct tep_print_arg`.
#[derive(Clone, Debug, PartialEq, Default)]
pub(crate) enum Arg {
    #[default]
    Null,
    Atom(String),
    /// `REC->name`; `field` indexes [`Format::all_fields`].
    Field {
        name: String,
        field: Option<usize>,
    },
    Flags {
        field: Box<Arg>,
        delim: Option<String>,
        flags: Vec<FlagSym>,
    },
    Symbol {
        field: Box<Arg>,
        symbols: Vec<FlagSym>,
    },
    /// `__print_hex` (`spaced`) / `__print_hex_str`.
    Hex {
        field: Box<Arg>,
        size: Box<Arg>,
        spaced: bool,
    },
    /// `__print_array(field, count, el_size)`.
    IntArray {
        field: Box<Arg>,
        count: Box<Arg>,
        el_size: Box<Arg>,
    },
    /// A C cast `(type)item`.
    Type {
        ty: String,
        item: Box<Arg>,
    },
    /// `__get_str(name)`.
    Str(String),
    /// `__get_bitmask(name)`.
    Bitmask(String),
    /// `__get_dynamic_array(field)` (index into [`Format::all_fields`]).
    DynArray(usize),
    /// `__get_dynamic_array_len(field)`.
    DynArrayLen(usize),
    Op {
        op: String,
        left: Option<Box<Arg>>,
        right: Option<Box<Arg>>,
        prio: i32,
    },
}

impl Arg {
    /// libtraceevent's `enum tep_print_arg_type` number (printed in some error texts).
    fn type_id(&self) -> u8 {
        match self {
            Arg::Null => 0,
            Arg::Atom(_) => 1,
            Arg::Field { .. } => 2,
            Arg::Flags { .. } => 3,
            Arg::Symbol { .. } => 4,
            Arg::Hex { spaced: true, .. } => 5,
            Arg::IntArray { .. } => 6,
            Arg::Type { .. } => 7,
            Arg::Str(_) => 8,
            Arg::DynArray(_) => 10,
            Arg::Op { .. } => 11,
            Arg::Bitmask(_) => 13,
            Arg::DynArrayLen(_) => 14,
            Arg::Hex { spaced: false, .. } => 15,
        }
    }

    fn prio(&self) -> i32 {
        match self {
            Arg::Op { prio, .. } => *prio,
            _ => 0,
        }
    }
}

/// What a piece of the format string prints (`enum tep_print_parse_type`).
#[derive(Clone, Debug, PartialEq)]
enum SegKind {
    Literal(String),
    Digit { ls: i32 },
    Pointer,
    Str,
}

/// One piece of the format string (`struct tep_print_parse`).
#[derive(Clone, Debug, PartialEq)]
struct Seg {
    kind: SegKind,
    /// The conversion text, e.g. `%03d`.
    spec: String,
    arg: Option<usize>,
    len_arg: Option<usize>,
}

/// A parsed `print fmt`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct PrintFmt {
    /// The format string (adjacent literals joined, escapes as written).
    pub(crate) format: String,
    args: Vec<Arg>,
    segs: Vec<Seg>,
    /// The format string and arguments do not match (libtraceevent's `TEP_EVENT_FL_FAILED`).
    pub(crate) failed: bool,
}

type Step = Result<(Tok, String), String>;

/// Field `i` of [`Format::all_fields`].
fn field_at(fmt: &Format, i: usize) -> Option<&Field> {
    let n = fmt.common_fields.len();
    if i < n {
        fmt.common_fields.get(i)
    } else {
        fmt.fields.get(i - n)
    }
}

/// `eval_type_str`: apply a cast to a value.
fn eval_type_str(val: u64, ty: &str, pointer: bool) -> u64 {
    let len = ty.len();
    if len < 2 {
        return val;
    }
    if pointer {
        if !ty.ends_with('*') {
            return val;
        }
        return eval_type_str(val, ty.get(..len - 2).unwrap_or(""), false);
    }
    if ty.ends_with('*') || ty.starts_with("struct") {
        return val;
    }
    match ty {
        "u8" => return val & 0xff,
        "u16" => return val & 0xffff,
        "u32" => return val & 0xffff_ffff,
        "u64" | "s64" => return val,
        "s8" => return (val as i8 as u64) & 0xff,
        "s16" => return (val as i16 as u64) & 0xffff,
        "s32" => return (val as i32 as u64) & 0xffff_ffff,
        _ => {}
    }
    // libtraceevent never sign-extends here: `(int)x` and `(unsigned int)x` both mask.
    let t = ty.strip_prefix("unsigned ").unwrap_or(ty);
    match t {
        "char" => val & 0xff,
        "short" => val & 0xffff,
        "int" => val & 0xffff_ffff,
        _ => val,
    }
}
