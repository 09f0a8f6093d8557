//! Parsing a print fmt: libtraceevent's recursive `process_arg`/`process_op` step by step,
//! including its operator-precedence shortcuts, so every expression evaluates to what perf prints (a
//! textbook C parser would disagree on e.g. `a - b - c`, which libtraceevent groups to the right,
//! or `a * (b + c)`, which it rotates into `a * b + c`).

use super::{eval_type_str, Arg, FlagSym, PrintFmt, Seg, SegKind, Step};
use crate::tracepoint::format::{strtoll, strtoull, Format, Lexer, Tok};

/// `get_op_prio`: lower numbers bind tighter; -1 for what libtraceevent does not know.
fn get_op_prio(op: &str) -> i32 {
    let b = op.as_bytes();
    if b.len() == 1 {
        match b.first() {
            Some(b'~' | b'!') => 4,
            Some(b'*' | b'/' | b'%') => 6,
            Some(b'+' | b'-') => 7,
            Some(b'<' | b'>') => 9,
            Some(b'&') => 11,
            Some(b'^') => 12,
            Some(b'|') => 13,
            Some(b'?') => 16,
            _ => -1,
        }
    } else {
        match op {
            "++" | "--" => 3,
            ">>" | "<<" => 8,
            ">=" | "<=" => 9,
            "==" | "!=" => 10,
            "&&" => 14,
            "||" => 15,
            _ => -1,
        }
    }
}

/// The binary operators `process_op` accepts.
const BINARY_OPS: [&str; 18] =
    [">>", "<<", "&", "|", "&&", "||", "-", "+", "*", "^", "/", "%", "<", ">", "<=", ">=", "==", "!="];

/// Nesting limit of the recursive descent: a print fmt is input, and a crafted one must not
/// exhaust the stack (real ones nest a few dozen levels at most).
const MAX_DEPTH: u32 = 256;

struct Parser<'l, 'a, 'f> {
    lex: &'l mut Lexer<'a>,
    fmt: &'f Format,
    depth: u32,
}

fn expect_tok(got: &(Tok, String), ty: Tok, text: &str) -> Result<(), String> {
    if got.0 == ty && got.1 == text {
        Ok(())
    } else {
        Err(format!("expected {text:?}, found {:?}", got.1))
    }
}

impl Parser<'_, '_, '_> {
    fn any_field(&self, name: &str) -> Option<usize> {
        self.fmt.all_fields().position(|f| f.name == name)
    }

    /// `tep_find_field`: event fields only.
    fn event_field(&self, name: &str) -> Option<usize> {
        let n = self.fmt.common_fields.len();
        self.fmt.fields.iter().position(|f| f.name == name).map(|i| i + n)
    }

    fn process_arg(&mut self, arg: &mut Arg) -> Step {
        let (ty, tok) = self.lex.token();
        self.process_arg_token(arg, ty, tok)
    }

    fn process_arg_token(&mut self, arg: &mut Arg, ty: Tok, tok: String) -> Step {
        self.depth += 1;
        let r = if self.depth > MAX_DEPTH {
            Err("print fmt nested too deeply".into())
        } else {
            self.arg_token(arg, ty, tok)
        };
        self.depth -= 1;
        r
    }

    fn arg_token(&mut self, arg: &mut Arg, ty: Tok, tok: String) -> Step {
        match ty {
            Tok::Item if tok == "REC" => self.process_entry(arg),
            Tok::Item => {
                let mut atom = tok;
                let (mut t, mut s) = self.lex.token_item();
                if t == Tok::Delim && s == "(" {
                    return self.process_function(arg, &atom);
                }
                // Atoms can be several words (`unsigned long`).
                while t == Tok::Item {
                    atom.push(' ');
                    atom.push_str(&s);
                    (t, s) = self.lex.token_item();
                }
                *arg = Arg::Atom(atom);
                Ok((t, s))
            }
            // perf 6.1's libtraceevent keeps a quoted character as text, like a string.
            Tok::DQuote | Tok::SQuote => {
                *arg = Arg::Atom(tok);
                Ok(self.lex.token_item())
            }
            Tok::Delim if tok == "(" => self.process_paren(arg),
            Tok::Delim | Tok::Op => {
                *arg = Arg::Op { op: tok.clone(), left: None, right: None, prio: 0 };
                self.process_op(arg, tok)
            }
            _ => Err(format!("unexpected token {tok:?}")),
        }
    }

    fn process_op(&mut self, arg: &mut Arg, tok: String) -> Step {
        self.depth += 1;
        let r = if self.depth > MAX_DEPTH { Err("print fmt nested too deeply".into()) } else { self.op(arg, tok) };
        self.depth -= 1;
        r
    }

    fn op(&mut self, arg: &mut Arg, tok: String) -> Step {
        // Where libtraceevent's `right` pointer ends up: the right child, the left child after a
        // rotation, or nowhere (`?:` and `[]`).
        #[derive(PartialEq)]
        enum Slot {
            RightChild,
            LeftChild,
            Nowhere,
        }
        let unary = matches!(arg, Arg::Op { left: None, .. });
        let (ty, next, right_at) = if unary {
            if !(tok.len() == 1 && matches!(tok.as_bytes().first(), Some(b'~' | b'!' | b'+' | b'-'))) {
                return Err(format!("bad unary operator {tok:?}"));
            }
            let mut right = Arg::Null;
            let r = self.process_arg(&mut right);
            if let Arg::Op { left, right: rr, .. } = arg {
                *left = Some(Box::new(Arg::Null));
                *rr = Some(Box::new(right));
            }
            let (t, s) = r?;
            (t, s, Slot::RightChild)
        } else if tok == "?" {
            let left = std::mem::take(arg);
            *arg = Arg::Op { op: tok, left: Some(Box::new(left)), right: None, prio: 0 };
            let (t, s) = self.process_cond(arg)?;
            (t, s, Slot::Nowhere)
        } else if BINARY_OPS.contains(&tok.as_str()) {
            let left = std::mem::take(arg);
            // `set_op_prio`: an operator with an empty left side binds tightest.
            let prio = if left == Arg::Null { 0 } else { get_op_prio(&tok) };
            if prio == -1 {
                return Err(format!("unknown operator {tok:?}"));
            }
            let (t, s) = self.lex.token_item();
            if tok == "*" && t == Tok::Delim && s == ")" {
                // `(char *)`: a pointer type, not a multiplication.
                return match left {
                    Arg::Atom(a) => {
                        *arg = Arg::Atom(format!("{a} *"));
                        Ok((t, s))
                    }
                    _ => Err("bad pointer type".into()),
                };
            }
            *arg = Arg::Op { op: tok.clone(), left: Some(Box::new(left)), right: None, prio };
            let mut right = Arg::Null;
            let (t, s) = self.process_arg_token(&mut right, t, s)?;
            let rotate = match &right {
                Arg::Op { op: rop, .. } => get_op_prio(&tok) < get_op_prio(rop),
                _ => false,
            };
            if rotate {
                // Rotate according to priority: arg.right = right.left; swap; arg.left = old arg.
                let rl = match &mut right {
                    Arg::Op { left, .. } => left.take(),
                    _ => None,
                };
                if let Arg::Op { right: ar, .. } = arg {
                    *ar = rl;
                }
                std::mem::swap(arg, &mut right);
                if let Arg::Op { left, .. } = arg {
                    *left = Some(Box::new(right));
                }
                (t, s, Slot::LeftChild)
            } else {
                if let Arg::Op { right: ar, .. } = arg {
                    *ar = Some(Box::new(right));
                }
                (t, s, Slot::RightChild)
            }
        } else if tok == "[" {
            let left = std::mem::take(arg);
            *arg = Arg::Op { op: tok, left: Some(Box::new(left)), right: None, prio: 0 };
            let (t, s) = self.process_array(arg)?;
            (t, s, Slot::Nowhere)
        } else {
            return Err(format!("unknown operator {tok:?}"));
        };
        if ty == Tok::Op && next != ":" {
            let prio = get_op_prio(&next);
            if prio < 0 {
                return Err(format!("unknown operator {next:?}"));
            }
            // Looser-binding operators take the whole expression so far as their left side.
            if prio > arg.prio() {
                return self.process_op(arg, next);
            }
            let target = match (right_at, arg) {
                (Slot::RightChild, Arg::Op { right: Some(r), .. }) => r,
                (Slot::LeftChild, Arg::Op { left: Some(l), .. }) => l,
                _ => return Err(format!("operator {next:?} has no operand")),
            };
            return self.process_op(target, next);
        }
        Ok((ty, next))
    }

    fn process_cond(&mut self, top: &mut Arg) -> Step {
        let mut left = Arg::Null;
        let mut right = Arg::Null;
        let (mut t, mut s) = self.process_arg(&mut left)?;
        while t == Tok::Op && s != ":" {
            (t, s) = self.process_op(&mut left, s)?;
        }
        expect_tok(&(t, s), Tok::Op, ":")?;
        let r = self.process_arg(&mut right)?;
        if let Arg::Op { right: tr, .. } = top {
            *tr = Some(Box::new(Arg::Op {
                op: ":".into(),
                left: Some(Box::new(left)),
                right: Some(Box::new(right)),
                prio: 0,
            }));
        }
        Ok(r)
    }

    fn process_array(&mut self, top: &mut Arg) -> Step {
        let mut a = Arg::Null;
        let r = self.process_arg(&mut a)?;
        expect_tok(&r, Tok::Op, "]")?;
        if let Arg::Op { right, .. } = top {
            *right = Some(Box::new(a));
        }
        Ok(self.lex.token_item())
    }

    fn process_entry(&mut self, arg: &mut Arg) -> Step {
        let r = self.lex.token_item();
        expect_tok(&r, Tok::Op, "->")?;
        let name = self.lex.expect_type(Tok::Item)?;
        let field = self.any_field(&name);
        *arg = Arg::Field { name, field };
        Ok(self.lex.token())
    }

    fn process_paren(&mut self, arg: &mut Arg) -> Step {
        let (mut t, mut s) = self.process_arg(arg)?;
        if t == Tok::Op {
            (t, s) = self.process_op(arg, s)?;
        }
        expect_tok(&(t, s), Tok::Delim, ")")?;
        let (t, s) = self.lex.token_item();
        // An item or another `(` after `(...)` makes it a cast.
        if t.is_item() || (t == Tok::Delim && s == "(") {
            let Arg::Atom(ty) = std::mem::take(arg) else {
                return Err("a cast needs a type name".into());
            };
            let mut item = Arg::Null;
            let r = self.process_arg_token(&mut item, t, s)?;
            *arg = Arg::Type { ty, item: Box::new(item) };
            return Ok(r);
        }
        Ok((t, s))
    }

    fn process_field_arg(&mut self, arg: &mut Arg) -> Step {
        let (mut t, mut s) = self.process_arg(arg)?;
        while t == Tok::Op {
            (t, s) = self.process_op(arg, s)?;
        }
        Ok((t, s))
    }

    fn process_fields(&mut self, list: &mut Vec<FlagSym>) -> Step {
        loop {
            let (t, s) = self.lex.token_item();
            if !(t == Tok::Op && s == "{") {
                return Ok((t, s));
            }
            let mut a = Arg::Null;
            let (mut t, mut s) = self.process_arg(&mut a)?;
            if t == Tok::Op {
                (t, s) = self.process_op(&mut a, s)?;
            }
            expect_tok(&(t, s), Tok::Delim, ",")?;
            let value = arg_eval(&a).ok_or("a flag value must be a constant")?;
            let mut b = Arg::Null;
            let r = self.process_arg(&mut b)?;
            expect_tok(&r, Tok::Op, "}")?;
            let text = arg_eval(&b).ok_or("a flag name must be a constant")?;
            list.push(FlagSym { value, text });
            let (t, s) = self.lex.token_item();
            if !(t == Tok::Delim && s == ",") {
                return Ok((t, s));
            }
        }
    }

    fn process_flags(&mut self, arg: &mut Arg) -> Step {
        let mut field = Arg::Null;
        let (mut t, mut s) = self.process_field_arg(&mut field)?;
        while t == Tok::Op {
            (t, s) = self.process_op(&mut field, s)?;
        }
        expect_tok(&(t, s), Tok::Delim, ",")?;
        let (mut t, mut s) = self.lex.token_item();
        let mut delim = None;
        if t.is_item() {
            delim = Some(s);
            (t, s) = self.lex.token_item();
        }
        expect_tok(&(t, s), Tok::Delim, ",")?;
        let mut flags = Vec::new();
        let r = self.process_fields(&mut flags)?;
        expect_tok(&r, Tok::Delim, ")")?;
        *arg = Arg::Flags { field: Box::new(field), delim, flags };
        Ok(self.lex.token_item())
    }

    fn process_symbols(&mut self, arg: &mut Arg) -> Step {
        let mut field = Arg::Null;
        let r = self.process_field_arg(&mut field)?;
        expect_tok(&r, Tok::Delim, ",")?;
        let mut symbols = Vec::new();
        let r = self.process_fields(&mut symbols)?;
        expect_tok(&r, Tok::Delim, ")")?;
        *arg = Arg::Symbol { field: Box::new(field), symbols };
        Ok(self.lex.token_item())
    }

    /// One argument of `__print_hex`/`__print_array`: a single term (perf 6.1 allows no operators).
    fn alloc_and_process_delim(&mut self, next: &str) -> Result<Arg, String> {
        let mut f = Arg::Null;
        let r = self.process_arg(&mut f)?;
        expect_tok(&r, Tok::Delim, next)?;
        Ok(f)
    }

    fn process_dynamic_array(&mut self, arg: &mut Arg) -> Step {
        let (t, s) = self.lex.token();
        if t != Tok::Item {
            return Err(format!("expected a field name, found {s:?}"));
        }
        let idx = self.event_field(&s).ok_or_else(|| format!("no field {s:?}"))?;
        *arg = Arg::DynArray(idx);
        self.lex.expect(Tok::Delim, ")", false)?;
        let (t, s) = self.lex.token_item();
        if !(t == Tok::Op && s == "[") {
            return Ok((t, s));
        }
        let mut index = Arg::Null;
        let (t, s) = self.process_arg(&mut index)?;
        // libtraceevent's test is inverted here: an index followed by `]` is an error.
        if t == Tok::Op && s == "]" {
            return Err("indexing __get_dynamic_array() is not supported".into());
        }
        Ok(self.lex.token_item())
    }

    fn process_dynamic_array_len(&mut self, arg: &mut Arg) -> Step {
        let name = self.lex.expect_type(Tok::Item)?;
        let idx = self.event_field(&name).ok_or_else(|| format!("no field {name:?}"))?;
        *arg = Arg::DynArrayLen(idx);
        self.lex.expect(Tok::Delim, ")", false)?;
        Ok(self.lex.token())
    }

    fn process_named(&mut self, arg: &mut Arg, make: fn(String) -> Arg) -> Step {
        let name = self.lex.expect_type(Tok::Item)?;
        *arg = make(name);
        self.lex.expect(Tok::Delim, ")", false)?;
        Ok(self.lex.token())
    }

    fn process_builtin_expect(&mut self, arg: &mut Arg) -> Step {
        let (t, s) = self.process_arg(arg)?;
        if !(t == Tok::Delim && s.starts_with(',')) {
            return Err("__builtin_expect needs two arguments".into());
        }
        self.lex.expect_type(Tok::Item)?;
        self.lex.expect(Tok::Delim, ")", false)?;
        Ok(self.lex.token_item())
    }

    fn process_function(&mut self, arg: &mut Arg, name: &str) -> Step {
        match name {
            "__print_flags" => self.process_flags(arg),
            "__print_symbolic" => self.process_symbols(arg),
            "__print_hex" | "__print_hex_str" => {
                let field = self.alloc_and_process_delim(",")?;
                let size = self.alloc_and_process_delim(")")?;
                *arg = Arg::Hex { field: Box::new(field), size: Box::new(size), spaced: name == "__print_hex" };
                Ok(self.lex.token_item())
            }
            "__print_array" => {
                let field = self.alloc_and_process_delim(",")?;
                let count = self.alloc_and_process_delim(",")?;
                let el_size = self.alloc_and_process_delim(")")?;
                *arg = Arg::IntArray { field: Box::new(field), count: Box::new(count), el_size: Box::new(el_size) };
                Ok(self.lex.token_item())
            }
            "__get_str" | "__get_rel_str" => self.process_named(arg, Arg::Str),
            "__get_bitmask" | "__get_rel_bitmask" => self.process_named(arg, Arg::Bitmask),
            "__get_dynamic_array" | "__get_rel_dynamic_array" => self.process_dynamic_array(arg),
            "__get_dynamic_array_len" | "__get_rel_dynamic_array_len" => self.process_dynamic_array_len(arg),
            "__builtin_expect" => self.process_builtin_expect(arg),
            // perf registers no function handlers (they come from libtraceevent plugins).
            _ => Err(format!("function {name} not defined")),
        }
    }

    /// `event_read_print_args`.
    fn read_args(&mut self, args: &mut Vec<Arg>) -> Result<(), String> {
        let mut ty = Tok::Error;
        loop {
            if ty == Tok::Newline {
                ty = self.lex.token_item().0;
                if ty == Tok::None {
                    return Ok(());
                }
                continue;
            }
            let mut a = Arg::Null;
            let (t, s) = self.process_arg(&mut a)?;
            if t == Tok::Op {
                let (t2, _) = self.process_op(&mut a, s)?;
                consolidate(&mut a);
                args.push(a);
                // The token that ended the expression (normally `,`) is dropped.
                ty = t2;
                if ty == Tok::None {
                    return Ok(());
                }
                continue;
            }
            args.push(a);
            if t == Tok::Delim && s == "," {
                ty = t;
                continue;
            }
            return Ok(());
        }
    }
}

/// `consolidate_op_arg`: fold operators whose both sides are constants.
fn consolidate(arg: &mut Arg) {
    let Arg::Op { op, left, right, .. } = arg else {
        return;
    };
    if let Some(l) = left.as_deref_mut() {
        consolidate(l);
    }
    if let Some(r) = right.as_deref_mut() {
        consolidate(r);
    }
    let (Some(Arg::Atom(l)), Some(Arg::Atom(r))) = (left.as_deref(), right.as_deref()) else {
        return;
    };
    let (l, r) = (strtoull(l), strtoull(r));
    let b = op.as_bytes();
    let second = b.get(1).copied().unwrap_or(0);
    let val = match b.first() {
        Some(b'>') => match second {
            b'>' => l.wrapping_shr((r & 63) as u32),
            b'=' => u64::from(l >= r),
            _ => u64::from(l > r),
        },
        Some(b'<') => match second {
            b'<' => l.wrapping_shl((r & 63) as u32),
            b'=' => u64::from(l <= r),
            _ => u64::from(l < r),
        },
        Some(b'&') => {
            if second == b'&' {
                u64::from(l != 0 && r != 0)
            } else {
                l & r
            }
        }
        Some(b'|') => {
            if second == b'|' {
                u64::from(l != 0 || r != 0)
            } else {
                l | r
            }
        }
        Some(b'-') => l.wrapping_sub(r),
        Some(b'+') => l.wrapping_add(r),
        Some(b'*') => l.wrapping_mul(r),
        Some(b'^') => l ^ r,
        Some(b'/') => match l.checked_div(r) {
            Some(v) => v,
            None => return,
        },
        Some(b'%') => match l.checked_rem(r) {
            Some(v) => v,
            None => return,
        },
        Some(b'=') => u64::from(l == r),
        Some(b'!') => u64::from(l != r),
        _ => return,
    };
    *arg = Arg::Atom((val as i64).to_string());
}

/// `arg_num_eval`: constant evaluation for flag tables (signed, as libtraceevent).
fn arg_num_eval(arg: &Arg) -> Option<i64> {
    match arg {
        Arg::Atom(a) => Some(strtoll(a)),
        Arg::Type { ty, item } => Some(eval_type_str(arg_num_eval(item)? as u64, ty, false) as i64),
        Arg::Op { op, left, right, .. } => {
            let b = op.as_bytes();
            let second = b.get(1).copied().unwrap_or(0);
            let ev = |a: &Option<Box<Arg>>| a.as_deref().and_then(arg_num_eval);
            let both = || Some((ev(left)?, ev(right)?));
            match b.first()? {
                b'|' => both().map(|(l, r)| if second != 0 { i64::from(l != 0 || r != 0) } else { l | r }),
                b'&' => both().map(|(l, r)| if second != 0 { i64::from(l != 0 && r != 0) } else { l & r }),
                b'<' => both().and_then(|(l, r)| match second {
                    0 => Some(i64::from(l < r)),
                    b'<' => Some(l.wrapping_shl((r & 63) as u32)),
                    b'=' => Some(i64::from(l <= r)),
                    _ => None,
                }),
                b'>' => both().and_then(|(l, r)| match second {
                    0 => Some(i64::from(l > r)),
                    b'>' => Some(l.wrapping_shr((r & 63) as u32)),
                    b'=' => Some(i64::from(l >= r)),
                    _ => None,
                }),
                b'=' => both().and_then(|(l, r)| (second == b'=').then_some(i64::from(l == r))),
                b'!' => both().and_then(|(l, r)| (second == b'=').then_some(i64::from(l != r))),
                b'-' | b'+' => {
                    let l = match left.as_deref() {
                        Some(Arg::Null) => 0,
                        _ => ev(left)?,
                    };
                    let r = ev(right)?;
                    Some(if b.first() == Some(&b'-') { l.wrapping_sub(r) } else { l.wrapping_add(r) })
                }
                b'~' => Some(!ev(right)?),
                _ => None,
            }
        }
        _ => None,
    }
}

/// `arg_eval`: the text of a constant (`{ value, "string" }` entries).
fn arg_eval(arg: &Arg) -> Option<String> {
    match arg {
        Arg::Atom(a) => Some(a.clone()),
        Arg::Type { item, .. } => arg_eval(item),
        Arg::Op { .. } => arg_num_eval(arg).map(|v| v.to_string()),
        _ => None,
    }
}

/// `parse_arg_format_pointer`: how many characters after `%p` belong to the conversion.
fn pointer_ext_len(f: &[u8]) -> usize {
    let at = |i: usize| f.get(i).copied().unwrap_or(0);
    match at(0) {
        b'F' | b'S' | b'f' | b's' => 1,
        b'M' | b'm' => 1 + usize::from(matches!(at(1), b'R' | b'F')),
        b'I' | b'i' => {
            let mut ret = 1;
            let mut index = 2;
            match at(1) {
                b'S' | b'4' => {
                    if at(1) == b'S' {
                        while matches!(at(index), b'p' | b'f' | b's') {
                            ret += 1;
                            index += 1;
                        }
                    }
                    if matches!(at(index), b'h' | b'n' | b'l' | b'b') {
                        ret += 1;
                        index += 1;
                    }
                    if at(1) == b'4' {
                        ret += 1;
                    } else {
                        ret += usize::from(at(index) == b'c') + 1;
                    }
                }
                b'6' => ret += usize::from(at(index) == b'c') + 1,
                _ => {}
            }
            ret
        }
        b'U' => 1 + usize::from(matches!(at(1), b'L' | b'l' | b'B' | b'b')),
        b'h' => 1 + usize::from(matches!(at(1), b'C' | b'D' | b'N')),
        _ => 0,
    }
}

/// `parse_args`: split the format string into literal pieces and conversions bound to arguments.
/// Returns the pieces and whether the arguments ran out (libtraceevent then fails the event).
fn parse_segments(format: &[u8], nargs: usize) -> (Vec<Seg>, bool) {
    let mut segs = Vec::new();
    let mut failed = false;
    let mut next_arg = 0usize;
    let mut i = 0usize;
    let at = |k: usize| format.get(k).copied().unwrap_or(0);
    while i < format.len() {
        if at(i) == b'%' && at(i + 1) != b'%' {
            // One conversion.
            let start = i;
            let mut j = i + 1;
            let mut ls = 0i32;
            let mut len_arg = None;
            while j < format.len() {
                let c = at(j);
                match c {
                    // No `+` flag, and `z` does not change the argument size, in perf 6.1.
                    b'#' | b'.' | b'0'..=b'9' | b'-' | b'z' | b'Z' => {}
                    b'h' => ls -= 1,
                    b'l' => ls += 1,
                    b'L' => ls = 2,
                    b'*' => {
                        if next_arg >= nargs || len_arg.is_some() {
                            failed = true;
                            break;
                        }
                        len_arg = Some(next_arg);
                        next_arg += 1;
                    }
                    b'p' | b'd' | b'u' | b'i' | b'x' | b'X' | b'o' | b's' => {
                        if next_arg >= nargs {
                            failed = true;
                            break;
                        }
                        let (kind, end) = match c {
                            b'p' => (SegKind::Pointer, j + pointer_ext_len(format.get(j + 1..).unwrap_or(&[]))),
                            b's' => (SegKind::Str, j),
                            _ => {
                                if !(-2..=2).contains(&ls) {
                                    failed = true;
                                }
                                (SegKind::Digit { ls }, j)
                            }
                        };
                        let spec = String::from_utf8_lossy(format.get(start..=end).unwrap_or(&[])).into_owned();
                        if spec.len() > 31 {
                            failed = true;
                        }
                        segs.push(Seg { kind, spec, arg: Some(next_arg), len_arg });
                        next_arg += 1;
                        j = end + 1;
                        break;
                    }
                    _ => {
                        segs.push(Seg {
                            kind: SegKind::Literal(format!(">{}<", char::from(c))),
                            spec: String::new(),
                            arg: None,
                            len_arg: None,
                        });
                        j += 1;
                        break;
                    }
                }
                j += 1;
            }
            i = j.max(i + 1);
        } else {
            // A literal run up to the next lone `%`, with C escapes resolved.
            let mut s = Vec::new();
            while i < format.len() {
                let c = at(i);
                if c == b'\\' {
                    i += 1;
                    match at(i) {
                        b'n' => s.push(b'\n'),
                        b't' => s.push(b'\t'),
                        b'r' => s.push(b'\r'),
                        0 => {}
                        other => s.push(other),
                    }
                } else if c == b'%' {
                    if at(i + 1) == b'%' {
                        s.push(b'%');
                        i += 1;
                    } else {
                        break;
                    }
                } else {
                    s.push(c);
                }
                i += 1;
            }
            segs.push(Seg {
                kind: SegKind::Literal(String::from_utf8_lossy(&s).into_owned()),
                spec: String::new(),
                arg: None,
                len_arg: None,
            });
        }
    }
    (segs, failed)
}

impl PrintFmt {
    /// Parse from just after `print fmt:` (`event_read_print`).
    pub(crate) fn parse(lex: &mut Lexer<'_>, fmt: &Format, is_ftrace: bool) -> Result<PrintFmt, String> {
        let mut format = lex.expect_type(Tok::DQuote)?;
        let (mut t, mut s) = lex.token_item();
        while t == Tok::DQuote {
            format.push_str(&s);
            (t, s) = lex.token_item();
        }
        let mut args = Vec::new();
        if t != Tok::None {
            expect_tok(&(t, s), Tok::Delim, ",")?;
            Parser { lex, fmt, depth: 0 }.read_args(&mut args)?;
        }
        if args.is_empty() && is_ftrace {
            // Old ftrace formats have no arguments: print every field.
            let n = fmt.common_fields.len();
            args = fmt
                .fields
                .iter()
                .enumerate()
                .map(|(i, f)| Arg::Field { name: f.name.clone(), field: Some(i + n) })
                .collect();
        }
        let (segs, failed) = parse_segments(format.as_bytes(), args.len());
        Ok(PrintFmt { format, args, segs, failed })
    }
}
