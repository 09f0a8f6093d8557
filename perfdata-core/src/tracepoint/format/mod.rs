//! The ftrace `format` grammar (reference §8.2): `name:`, `ID:`, the common and event fields with
//! their offset/size/signedness, and the `print fmt:` line.
//!
//! Parsing follows libtraceevent (`event_read_format`, `event_read_fields`, `__read_token`) token for
//! token, so a format perf can read is read the same way here and one perf rejects fails the same
//! way: a tokenizer, never fixed string offsets (the `header_page` text writes `field: TYPE NAME;`
//! with a space, events `field:TYPE NAME;`; old kernels omit `signed:`).

pub(crate) mod print;

use crate::reader::Endian;
use nom::bytes::complete::take_while;
use nom::character::complete::{digit0, hex_digit0, oct_digit0};
use nom::IResult;

/// Token classes of libtraceevent's tokenizer (`enum tep_event_type`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Tok {
    /// End of input or a byte the tokenizer does not accept.
    None,
    /// A parse error reported by a `process_*` step (never produced by the lexer).
    Error,
    /// A run of blanks other than newline.
    Space,
    /// `\n`.
    Newline,
    /// An operator (`->`, `<<=`, `*`, `:`, `;`, `[`, …).
    Op,
    /// `(`, `)` or `,`.
    Delim,
    /// A run of `[A-Za-z0-9_]`.
    Item,
    /// A double-quoted string (quotes removed, escapes kept, adjacent strings joined).
    DQuote,
    /// A single-quoted character.
    SQuote,
}

impl Tok {
    /// `event_item_type`: ITEM, DQUOTE or SQUOTE.
    pub(crate) fn is_item(self) -> bool {
        matches!(self, Tok::Item | Tok::DQuote | Tok::SQuote)
    }
}

/// C `isspace` in the C locale.
fn is_space(c: i32) -> bool {
    matches!(c, 0x20 | 0x09..=0x0d)
}

/// C `isprint` in the C locale.
fn is_print(c: i32) -> bool {
    (0x20..=0x7e).contains(&c)
}

fn is_item_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// `get_type`: the class of a character (`c < 0` for end of input / bytes ≥ 0x80, which C reads as
/// negative `char`s).
fn class(c: i32) -> Tok {
    if c == i32::from(b'\n') {
        Tok::Newline
    } else if is_space(c) {
        Tok::Space
    } else if u8::try_from(c).is_ok_and(is_item_byte) {
        Tok::Item
    } else if c == i32::from(b'\'') {
        Tok::SQuote
    } else if c == i32::from(b'"') {
        Tok::DQuote
    } else if !is_print(c) {
        Tok::None
    } else if matches!(u8::try_from(c), Ok(b'(' | b')' | b',')) {
        Tok::Delim
    } else {
        Tok::Op
    }
}

/// libtraceevent's tokenizer over a format text or a print-fmt.
#[derive(Clone, Debug)]
pub(crate) struct Lexer<'a> {
    buf: &'a [u8],
    at: usize,
}

impl<'a> Lexer<'a> {
    pub(crate) fn new(buf: &'a [u8]) -> Self {
        Lexer { buf, at: 0 }
    }

    /// The unread input.
    pub(crate) fn rest(&self) -> &'a [u8] {
        self.buf.get(self.at..).unwrap_or(&[])
    }

    /// `tep_peek_char`: the next byte as C's signed `char` (or -1 at the end).
    fn peek(&self) -> i32 {
        match self.buf.get(self.at) {
            Some(&b) => i32::from(b as i8),
            None => -1,
        }
    }

    /// `__read_char`.
    fn read(&mut self) -> i32 {
        let c = self.peek();
        if self.at < self.buf.len() {
            self.at += 1;
        }
        c
    }

    /// `__read_token`: the next token, spaces included.
    pub(crate) fn raw_token(&mut self) -> (Tok, String) {
        let ch = self.read();
        if ch < 0 {
            return (Tok::None, String::new());
        }
        let ty = class(ch);
        if ty == Tok::None {
            return (Tok::None, String::new());
        }
        let mut buf: Vec<u8> = vec![ch as u8];
        match ty {
            Tok::Newline | Tok::Delim => return (ty, char::from(ch as u8).to_string()),
            Tok::Op => {
                let mut test_equal = false;
                let c = ch as u8;
                if c == b'-' && self.peek() == i32::from(b'>') {
                    buf.push(b'>');
                    self.read();
                } else if matches!(c, b'-' | b'+' | b'|' | b'&' | b'>' | b'<') {
                    if self.peek() == ch {
                        buf.push(c);
                        self.read();
                        test_equal = matches!(c, b'>' | b'<');
                    } else {
                        test_equal = true;
                    }
                } else if matches!(c, b'!' | b'=') {
                    test_equal = true;
                }
                if test_equal && self.peek() == i32::from(b'=') {
                    buf.push(b'=');
                    self.read();
                }
                return (Tok::Op, String::from_utf8_lossy(&buf).into_owned());
            }
            Tok::DQuote | Tok::SQuote => return self.quoted(ty, ch),
            _ => {}
        }
        // Runs of one class: ITEM or SPACE (nom: take the rest of the run in one step).
        let rest = self.rest();
        let run: IResult<&[u8], &[u8]> = if ty == Tok::Item {
            take_while(is_item_byte)(rest)
        } else {
            take_while(|c: u8| c != b'\n' && is_space(i32::from(c)))(rest)
        };
        if let Ok((_, run)) = run {
            buf.extend_from_slice(run);
            self.at += run.len();
        }
        let text = String::from_utf8_lossy(&buf).into_owned();
        if ty == Tok::Item {
            // libtraceevent's workaround for the broken mac80211 macros (kernel commit 811cb50baf63).
            let forced = match text.as_str() {
                "LOCAL_PR_FMT" => Some("%s "),
                "STA_PR_FMT" => Some(" sta:%pM "),
                "VIF_PR_FMT" => Some(" vif:%p(%d) "),
                _ => None,
            };
            if let Some(f) = forced {
                return (Tok::DQuote, f.to_string());
            }
        }
        (ty, text)
    }

    /// A quoted token: escapes are kept, the closing quote dropped, adjacent `"…"` strings joined.
    fn quoted(&mut self, ty: Tok, quote: i32) -> (Tok, String) {
        let mut out: Vec<u8> = Vec::new();
        let mut ch = quote;
        let mut ty = ty;
        loop {
            let mut last;
            loop {
                last = ch;
                ch = self.read();
                if ch == i32::from(b'\\') && last == i32::from(b'\\') {
                    last = 0;
                }
                if ch <= 0 {
                    break;
                }
                out.push(ch as u8);
                let more = (ch != quote && is_print(ch)) || last == i32::from(b'\\') || ch == i32::from(b'\n');
                if !more {
                    // The character that ended the string (normally the quote) is not kept.
                    out.pop();
                    break;
                }
            }
            if ch <= 0 {
                ty = Tok::None;
            }
            if ty == Tok::DQuote {
                let save = self.at;
                let mut c = self.read();
                while is_space(c) {
                    c = self.read();
                }
                if c == i32::from(b'"') {
                    ch = c;
                    continue;
                }
                self.at = save;
            }
            break;
        }
        (ty, String::from_utf8_lossy(&out).into_owned())
    }

    /// `tep_read_token`: skip spaces (newlines are tokens).
    pub(crate) fn token(&mut self) -> (Tok, String) {
        loop {
            let t = self.raw_token();
            if t.0 != Tok::Space {
                return t;
            }
        }
    }

    /// `read_token_item`: skip spaces and newlines.
    pub(crate) fn token_item(&mut self) -> (Tok, String) {
        loop {
            let t = self.raw_token();
            if t.0 != Tok::Space && t.0 != Tok::Newline {
                return t;
            }
        }
    }

    /// `read_expected` (newline_ok: spaces skipped only) / `read_expected_item` (newlines skipped).
    pub(crate) fn expect(&mut self, ty: Tok, text: &str, skip_newlines: bool) -> Result<(), String> {
        let (t, s) = if skip_newlines { self.token_item() } else { self.token() };
        if t == ty && s == text {
            Ok(())
        } else {
            Err(format!("expected {text:?}, found {s:?}"))
        }
    }

    /// `read_expect_type` (spaces skipped).
    pub(crate) fn expect_type(&mut self, ty: Tok) -> Result<String, String> {
        let (t, s) = self.token();
        if t == ty {
            Ok(s)
        } else {
            Err(format!("expected a {ty:?} token, found {s:?}"))
        }
    }
}

/// C `strtoull(s, NULL, 0)`: optional blanks and sign, `0x` hex / leading-0 octal / decimal prefix,
/// stops at the first invalid character, saturates on overflow, 0 when there are no digits.
pub(crate) fn strtoull(s: &str) -> u64 {
    let t = s.trim_start_matches(|c: char| c.is_ascii() && is_space(c as i32));
    let (neg, t) = match t.as_bytes().first() {
        Some(b'-') => (true, t.get(1..).unwrap_or("")),
        Some(b'+') => (false, t.get(1..).unwrap_or("")),
        _ => (false, t),
    };
    let lower = t.get(..2).map(str::to_ascii_lowercase);
    let hex: IResult<&str, &str> = hex_digit0(t.get(2..).unwrap_or(""));
    let (digits, radix) = match (lower.as_deref(), hex) {
        (Some("0x"), Ok((_, h))) if !h.is_empty() => (h, 16),
        _ if t.starts_with('0') => {
            let o: IResult<&str, &str> = oct_digit0(t);
            (o.map(|(_, d)| d).unwrap_or(""), 8)
        }
        _ => {
            let d: IResult<&str, &str> = digit0(t);
            (d.map(|(_, d)| d).unwrap_or(""), 10)
        }
    };
    let mut v: u64 = 0;
    for c in digits.chars() {
        let d = u64::from(c.to_digit(radix).unwrap_or(0));
        v = match v.checked_mul(u64::from(radix)).and_then(|x| x.checked_add(d)) {
            Some(x) => x,
            None => return u64::MAX,
        };
    }
    if neg {
        v.wrapping_neg()
    } else {
        v
    }
}

/// C `strtoll(s, NULL, 0)` (saturating at `i64::MIN`/`i64::MAX`).
pub(crate) fn strtoll(s: &str) -> i64 {
    let t = s.trim_start_matches(|c: char| c.is_ascii() && is_space(c as i32));
    let neg = t.starts_with('-');
    let mag = strtoull(t.strip_prefix(['-', '+']).unwrap_or(t));
    if neg {
        if mag > 1u64 << 63 {
            i64::MIN
        } else {
            (mag as i64).wrapping_neg()
        }
    } else if mag > i64::MAX as u64 {
        i64::MAX
    } else {
        mag as i64
    }
}

/// One field of a format (libtraceevent `struct tep_format_field`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Field {
    /// Field name (e.g. `prev_pid`).
    pub name: String,
    /// The declared type as libtraceevent reconstructs it (e.g. `pid_t`, `char[16]`,
    /// `__data_loc char[]`, `const char *`).
    pub type_name: String,
    /// Byte offset in the raw record (for dynamic fields: of the 4-byte descriptor).
    pub offset: u32,
    /// Size in bytes (for dynamic fields: of the descriptor).
    pub size: u32,
    /// The stored `signed:` flag; `None` for kernels that do not write it.
    pub signed: Option<bool>,
    /// Declared with `[...]` (fixed or dynamic array).
    pub is_array: bool,
    /// `*` in the type.
    pub is_pointer: bool,
    /// Array of `char`/`u8`/`s8`: printed as a string.
    pub is_string: bool,
    /// `__data_loc` or `__rel_loc`: the data lives after the fixed part, located by a descriptor.
    pub is_dynamic: bool,
    /// `__rel_loc`: the descriptor's offset counts from the end of the descriptor.
    pub is_relative: bool,
    /// The type names `long` (a kernel `long`, `long_size` bytes).
    pub is_long: bool,
    /// The last number inside `[...]` (0 for `[]` and for non-numeric lengths).
    pub array_len: u32,
    /// Size of one element (arrays), of the value (scalars); 0 when unknown.
    pub element_size: u32,
}

impl Field {
    /// Signedness: the stored flag, or for kernels without `signed:` a guess from the type name.
    pub fn is_signed(&self) -> bool {
        match self.signed {
            Some(s) => s,
            None => {
                let t = self.type_name.as_str();
                let words: Vec<&str> = t.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).collect();
                if words.iter().any(|w| matches!(*w, "unsigned" | "bool" | "_Bool")) || self.is_pointer {
                    false
                } else {
                    words.iter().any(|w| {
                        matches!(
                            *w,
                            "int"
                                | "long"
                                | "short"
                                | "s8"
                                | "s16"
                                | "s32"
                                | "s64"
                                | "__s8"
                                | "__s16"
                                | "__s32"
                                | "__s64"
                                | "pid_t"
                                | "ssize_t"
                                | "loff_t"
                                | "off_t"
                                | "time64_t"
                                | "ktime_t"
                                | "signed"
                        )
                    })
                }
            }
        }
    }

    /// The element type of a dynamic array (`__data_loc int[] x` → `int`), or the type of a fixed
    /// array without its brackets (`char[16]` → `char`).
    pub fn element_type(&self) -> &str {
        let t = self.type_name.as_str();
        let t = t.strip_prefix("__data_loc ").or_else(|| t.strip_prefix("__rel_loc ")).unwrap_or(t);
        t.split('[').next().unwrap_or(t).trim()
    }
}

/// C type name → size for `type_size` (the element size of `__data_loc TYPE[]`).
fn type_size(name: &str) -> u32 {
    match name {
        "u8" | "s8" | "char" => 1,
        "u16" | "s16" => 2,
        "u32" | "s32" => 4,
        "u64" | "s64" => 8,
        _ => 0,
    }
}

/// Read the field lines up to the blank line that ends them (`event_read_fields`). Returns the
/// fields read so far and, if the list did not end cleanly, why.
pub(crate) fn read_fields(lex: &mut Lexer<'_>, is_ftrace: bool, long_size: u8) -> (Vec<Field>, Result<(), String>) {
    let mut fields = Vec::new();
    loop {
        match read_field(lex, is_ftrace, long_size) {
            Ok(Some(f)) => fields.push(f),
            Ok(None) => return (fields, Ok(())),
            Err(e) => return (fields, Err(e)),
        }
    }
}

/// One `field:` line, or `None` at the blank line.
fn read_field(lex: &mut Lexer<'_>, is_ftrace: bool, long_size: u8) -> Result<Option<Field>, String> {
    let (ty, tok) = lex.token();
    if ty == Tok::Newline {
        return Ok(None);
    }
    if !(ty == Tok::Item && tok == "field") {
        return Err(format!("expected \"field\", found {tok:?}"));
    }
    let (mut ty, mut tok) = lex.token();
    if is_ftrace && ty == Tok::Item && tok == "special" {
        (ty, tok) = lex.token();
    }
    if !(ty == Tok::Op && tok == ":") {
        return Err(format!("expected ':' after \"field\", found {tok:?}"));
    }
    let mut last_token = lex.expect_type(Tok::Item)?;
    let mut type_name: Option<String> = None;
    let mut is_pointer = false;
    let mut delim = " ";
    // The type is every token before the name; the name is the last item before `;` or `[`.
    loop {
        (ty, tok) = lex.token();
        let continues = ty == Tok::Item || (ty == Tok::Op && tok == "*") || (is_ftrace && ty == Tok::Op && tok == ".");
        if continues {
            if tok == "*" {
                is_pointer = true;
            }
            match type_name.as_mut() {
                Some(t) => {
                    t.push_str(delim);
                    t.push_str(&last_token);
                }
                None => type_name = Some(last_token.clone()),
            }
            last_token = tok;
            delim = " ";
            continue;
        }
        // `__attribute__((user))` and the like stay part of the type text.
        if ty == Tok::Delim && last_token == "__attribute__" && tok.starts_with('(') {
            let t = type_name.get_or_insert_with(String::new);
            t.push(' ');
            t.push_str(&last_token);
            t.push('(');
            delim = " ";
            let mut depth = 1;
            loop {
                let (t2, s2) = lex.token();
                if t2 == Tok::None {
                    break;
                }
                if t2 == Tok::Delim {
                    if s2.starts_with('(') {
                        depth += 1;
                    } else if s2.starts_with(')') {
                        depth -= 1;
                    }
                    if depth == 0 {
                        break;
                    }
                    t.push_str(&s2);
                    delim = "";
                } else {
                    t.push_str(delim);
                    t.push_str(&s2);
                    delim = " ";
                }
                last_token = s2;
            }
            continue;
        }
        break;
    }
    let Some(mut type_name) = type_name else {
        return Err(format!("field {last_token:?} has no type"));
    };
    let mut name = last_token;
    if ty != Tok::Op {
        return Err(format!("expected an operator after field {name:?}, found {tok:?}"));
    }
    let mut is_array = false;
    let mut array_len = 0u32;
    let mut size_dynamic = 0u32;
    if tok == "[" {
        is_array = true;
        let mut brackets = String::from("[");
        let mut last_type = ty;
        (ty, tok) = lex.token();
        array_len = if ty == Tok::Item { strtoull(&tok) as u32 } else { 0 };
        while tok != "]" {
            let d = if last_type == Tok::Item && ty == Tok::Item { " " } else { "" };
            last_type = ty;
            brackets.push_str(d);
            brackets.push_str(&tok);
            // Only the last token inside the brackets counts.
            array_len = strtoull(&tok) as u32;
            (ty, tok) = lex.token();
            if ty == Tok::None {
                return Err(format!("unterminated '[' in field {name:?}"));
            }
        }
        brackets.push(']');
        (ty, tok) = lex.token();
        if ty == Tok::Item {
            // `__data_loc TYPE[] NAME`: what looked like the name was the element type.
            type_name.push(' ');
            type_name.push_str(&name);
            type_name.push_str(&brackets);
            size_dynamic = type_size(&name);
            name = tok;
            (ty, tok) = lex.token();
        } else {
            type_name.push_str(&brackets);
        }
    }
    let is_string = is_array && (type_name.contains("char") || type_name.contains("u8") || type_name.contains("s8"));
    let is_relative = type_name.starts_with("__rel_loc");
    let is_dynamic = type_name.starts_with("__data_loc") || is_relative;
    let is_long = type_name.contains("long");
    if !(ty == Tok::Op && tok == ";") {
        return Err(format!("expected ';' after field {name:?}, found {tok:?}"));
    }
    lex.expect(Tok::Item, "offset", false)?;
    lex.expect(Tok::Op, ":", false)?;
    let offset = strtoull(&lex.expect_type(Tok::Item)?) as u32;
    lex.expect(Tok::Op, ";", false)?;
    lex.expect(Tok::Item, "size", false)?;
    lex.expect(Tok::Op, ":", false)?;
    let size = strtoull(&lex.expect_type(Tok::Item)?) as u32;
    lex.expect(Tok::Op, ";", false)?;
    // Old kernels: a 2-byte dynamic field is an offset only, the string runs to the record's end.
    let (is_string, is_array) = if is_dynamic && size == 2 { (true, true) } else { (is_string, is_array) };
    let mut signed = None;
    let (ty, tok) = lex.token();
    if ty != Tok::Newline {
        if !(ty == Tok::Item && tok == "signed") {
            return Err(format!("expected \"signed\" or end of line in field {name:?}, found {tok:?}"));
        }
        lex.expect(Tok::Op, ":", false)?;
        signed = Some(strtoull(&lex.expect_type(Tok::Item)?) != 0);
        lex.expect(Tok::Op, ";", false)?;
        lex.expect_type(Tok::Newline)?;
    }
    let element_size = if is_array || is_dynamic {
        if let Some(n) = size.checked_div(array_len) {
            n
        } else if is_dynamic {
            size_dynamic
        } else if is_string {
            1
        } else if is_long {
            u32::from(long_size)
        } else {
            0
        }
    } else {
        size
    };
    Ok(Some(Field {
        name,
        type_name,
        offset,
        size,
        signed,
        is_array,
        is_pointer,
        is_string,
        is_dynamic,
        is_relative,
        is_long,
        array_len,
        element_size,
    }))
}

/// A tracepoint format: one `events/<system>/<name>/format` file.
#[derive(Clone, Debug)]
pub struct Format {
    /// System (directory) name, e.g. `sched`.
    pub system: String,
    /// Event name, e.g. `sched_switch`.
    pub name: String,
    /// Event ID (`attr.config` of the perf event; `common_type` of its records).
    pub id: u32,
    /// The `common_*` fields.
    pub common_fields: Vec<Field>,
    /// The event's own fields.
    pub fields: Vec<Field>,
    /// The `print fmt:` line as stored (format string and arguments), if the format has one.
    pub print_fmt: Option<String>,
    /// Byte order of raw records (the tracing data's).
    pub endian: Endian,
    /// Kernel `long` size used for pointers and `long` arrays.
    pub long_size: u8,
    /// Why the fields or the print format could not be parsed, if they could not (perf then prints
    /// `[FAILED TO PARSE]` followed by the fields).
    pub parse_error: Option<String>,
    pub(crate) print: Option<print::PrintFmt>,
}

impl Format {
    /// Parse a format text (`__tep_parse_format`). `system` is the directory it came from.
    ///
    /// Fails only when the name or ID cannot be read (perf then drops the format too); a format whose
    /// fields or print fmt do not parse is returned with [`Format::parse_error`] set.
    pub fn parse(text: &[u8], system: &str, endian: Endian, long_size: u8) -> Result<Format, String> {
        let mut lex = Lexer::new(text);
        lex.expect(Tok::Item, "name", false)?;
        lex.expect(Tok::Op, ":", false)?;
        let name = lex.expect_type(Tok::Item).map_err(|e| format!("event name: {e}"))?;
        let is_ftrace = system == "ftrace";
        lex.expect(Tok::Item, "ID", true)?;
        lex.expect(Tok::Op, ":", false)?;
        let id_text = lex.expect_type(Tok::Item).map_err(|e| format!("event ID: {e}"))?;
        // perf keeps the ID in an int and rejects negative ones.
        let id = strtoull(&id_text) as u32;
        if (id as i32) < 0 {
            return Err(format!("event ID {id_text} out of range"));
        }
        let mut f = Format {
            system: system.to_string(),
            name,
            id,
            common_fields: Vec::new(),
            fields: Vec::new(),
            print_fmt: None,
            endian,
            long_size,
            parse_error: None,
            print: None,
        };
        if let Err(e) = f.read_body(&mut lex, is_ftrace) {
            f.parse_error = Some(e);
        }
        Ok(f)
    }

    fn read_body(&mut self, lex: &mut Lexer<'_>, is_ftrace: bool) -> Result<(), String> {
        lex.expect(Tok::Item, "format", true)?;
        lex.expect(Tok::Op, ":", false)?;
        lex.expect_type(Tok::Newline)?;
        let (common, r) = read_fields(lex, is_ftrace, self.long_size);
        self.common_fields = common;
        r?;
        let (fields, r) = read_fields(lex, is_ftrace, self.long_size);
        self.fields = fields;
        r?;
        lex.expect(Tok::Item, "print", true)?;
        // The raw text of the line, kept for users.
        let rest = lex.rest();
        let line = rest.split(|&c| c == b'\n').next().unwrap_or(rest);
        let line = String::from_utf8_lossy(line);
        self.print_fmt = Some(line.trim_start().strip_prefix("fmt:").unwrap_or(&line).trim().to_string());
        lex.expect(Tok::Item, "fmt", false)?;
        lex.expect(Tok::Op, ":", false)?;
        let print = print::PrintFmt::parse(lex, self, is_ftrace)?;
        self.print = Some(print);
        Ok(())
    }

    /// Every field: common ones first (the order libtraceevent searches names in).
    pub fn all_fields(&self) -> impl Iterator<Item = &Field> {
        self.common_fields.iter().chain(self.fields.iter())
    }

    /// A field by name (common fields first, as `tep_find_any_field`).
    pub fn field_def(&self, name: &str) -> Option<&Field> {
        self.all_fields().find(|f| f.name == name)
    }

    /// `system:name`, perf's event name for a tracepoint.
    pub fn full_name(&self) -> String {
        format!("{}:{}", self.system, self.name)
    }

    /// Whether the print fmt parsed; if not, [`Tracepoints::render`](super::Tracepoints::render)
    /// prints `[FAILED TO PARSE]` and the fields, as perf does.
    pub fn print_parsed(&self) -> bool {
        self.print.as_ref().is_some_and(|p| !p.failed)
    }
}

/// The `commit` field size of a `header_page` text: the kernel's `long` size (perf uses it instead
/// of the size in the tracing-data header, `read_header_files`).
pub(crate) fn header_page_long_size(text: &[u8]) -> Option<u8> {
    let mut lex = Lexer::new(text);
    let (fields, _) = read_fields(&mut lex, false, 8);
    fields.iter().find(|f| f.name == "commit").and_then(|f| u8::try_from(f.size).ok()).filter(|s| *s > 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(s: &str) -> Vec<(Tok, String)> {
        let mut l = Lexer::new(s.as_bytes());
        let mut v = Vec::new();
        loop {
            let t = l.token();
            if t.0 == Tok::None {
                return v;
            }
            v.push(t);
        }
    }

    #[test]
    fn tokens_like_libtraceevent() {
        let t = toks("REC->a >>= 2 && b != \"x\\\"y\" \"z\" 'c' <<");
        let texts: Vec<&str> = t.iter().map(|(_, s)| s.as_str()).collect();
        assert_eq!(texts, ["REC", "->", "a", ">>=", "2", "&&", "b", "!=", "x\\\"yz", "c", "<<"]);
        assert_eq!(t[8].0, Tok::DQuote);
        assert_eq!(t[9].0, Tok::SQuote);
    }

    #[test]
    fn c_number_parsing() {
        assert_eq!(strtoull("0x1f"), 31);
        assert_eq!(strtoull("010"), 8);
        assert_eq!(strtoull("1U"), 1);
        assert_eq!(strtoull("IOPRIO"), 0);
        assert_eq!(strtoull("-1"), u64::MAX);
        assert_eq!(strtoull("99999999999999999999999"), u64::MAX);
        assert_eq!(strtoll("-5"), -5);
        assert_eq!(strtoll("0xffffffffffffffff"), i64::MAX);
    }
}
