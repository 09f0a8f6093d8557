//! `sched_switch`'s `prev_state`: the bit values and letters come from the recording's own
//! `print fmt` (`__print_flags(prev_state & …, "|", { 0x01, "S" }, { 0x02, "D" }, …)` and the
//! preemption bit of `prev_state & (MASK) ? "+" : ""`), so files from any kernel read right.

use perfdata_core::tracepoint::Format;

/// How to read `prev_state` values of one recording.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TaskStates {
    /// (bit, letter) in the order of the print fmt's flag table.
    pub letters: Vec<(u64, char)>,
    /// The bit that marks a task switched out while still runnable (`TASK_REPORT_MAX`, printed
    /// `R+`); 0 when the format has none.
    pub preempt: u64,
}

impl Default for TaskStates {
    /// The table of kernels 4.14 and later (0x100 = preempted), used when a format has no
    /// readable print fmt.
    fn default() -> Self {
        TaskStates {
            letters: vec![
                (0x01, 'S'),
                (0x02, 'D'),
                (0x04, 'T'),
                (0x08, 't'),
                (0x10, 'X'),
                (0x20, 'Z'),
                (0x40, 'P'),
                (0x80, 'I'),
            ],
            preempt: 0x100,
        }
    }
}

impl TaskStates {
    /// The table of a `sched_switch` format; the default when its print fmt does not say.
    pub fn from_format(fmt: &Format) -> TaskStates {
        fmt.print_fmt.as_deref().and_then(parse_print_fmt).unwrap_or_default()
    }

    /// Preempted: switched out while runnable (`R+`).
    pub fn is_preempted(&self, state: u64) -> bool {
        self.preempt != 0 && state & self.preempt != 0
    }

    /// Runnable at switch-out: no sleep bit set (`R`), or preempted (`R+`).
    pub fn is_runnable(&self, state: u64) -> bool {
        let sleep_bits = if self.preempt != 0 { self.preempt - 1 } else { u64::MAX };
        state & sleep_bits == 0
    }

    /// One letter: `R` for runnable (also preempted), else the letter of the lowest bit set
    /// that the table names, `?` for bits it does not.
    pub fn letter(&self, state: u64) -> char {
        if self.is_runnable(state) {
            return 'R';
        }
        self.letters.iter().find(|(bit, _)| state & bit != 0).map_or('?', |(_, c)| *c)
    }

    /// The state as the tracepoint prints it: `R`, `R+`, `S`, `D|K`…
    pub fn label(&self, state: u64) -> String {
        let sleep_bits = if self.preempt != 0 { self.preempt - 1 } else { u64::MAX };
        let mut s = String::new();
        if state & sleep_bits == 0 {
            s.push('R');
        } else {
            let mut rest = state & sleep_bits;
            for (bit, c) in &self.letters {
                if rest & bit == *bit && *bit != 0 {
                    if !s.is_empty() {
                        s.push('|');
                    }
                    s.push(*c);
                    rest &= !bit;
                }
            }
            if rest != 0 {
                if !s.is_empty() {
                    s.push('|');
                }
                s.push_str(&format!("0x{rest:x}"));
            }
        }
        if self.is_preempted(state) {
            s.push('+');
        }
        s
    }
}

/// perf 6.1 `perf sched latency`'s state letter: `"RSDTtZXxKWP"[prev_state]`, indexed by the raw
/// value, so only 0 is `R` (past the string perf reads undefined memory; here `?`).
pub fn perf61_latency_letter(state: u64) -> char {
    const S: &[u8] = b"RSDTtZXxKWP";
    usize::try_from(state).ok().and_then(|i| S.get(i)).map_or('?', |&b| char::from(b))
}

/// perf 6.1 `perf sched timehist`'s state letter (`task_state_char`): `"RSDTtZXxKWP"[ffs(state)]`
/// of the value as an `int`, `?` past the string, `I` for the idle task.
pub fn perf61_timehist_letter(state: u64, idle: bool) -> char {
    const S: &[u8] = b"RSDTtZXxKWP";
    if idle {
        return 'I';
    }
    let v = state as u32;
    let bit = if v == 0 { 0 } else { v.trailing_zeros() as usize + 1 };
    S.get(bit).filter(|_| bit < S.len()).map_or('?', |&b| char::from(b))
}

/// The flag table and preemption bit of a sched_switch print fmt.
fn parse_print_fmt(pf: &str) -> Option<TaskStates> {
    let flags_at = pf.find("__print_flags(")?;
    let rest = pf.get(flags_at..)?;
    // The flag table: `{ VALUE, "L" }` pairs up to the closing parenthesis of __print_flags.
    let mut letters = Vec::new();
    let end = matching_paren(rest, rest.find('(')?)?;
    let mut t = rest.get(..end)?;
    while let Some(open) = t.find('{') {
        let close = t.get(open..)?.find('}')? + open;
        let inner = t.get(open + 1..close)?;
        let mut parts = inner.splitn(2, ',');
        let value = eval(parts.next()?.trim())?;
        let name = parts.next()?.trim().trim_matches('"');
        if let Some(c) = name.chars().next() {
            letters.push((value, c));
        }
        t = t.get(close + 1..)?;
    }
    if letters.is_empty() {
        return None;
    }
    // The preemption bit: `prev_state & (EXPR) ? "+"`.
    let after = rest.get(end..)?;
    let plus = after.find("? \"+\"")?;
    let before = after.get(..plus)?.trim_end();
    let amp = before.rfind('&')?;
    let preempt = eval(before.get(amp + 1..)?.trim()).unwrap_or(0);
    Some(TaskStates { letters, preempt })
}

/// The index just past the parenthesis that closes the one at `open`.
fn matching_paren(s: &str, open: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (i, c) in s.char_indices().skip_while(|(i, _)| *i < open) {
        match c {
            '(' => depth += 1,
            ')' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            _ => {}
        }
    }
    None
}

/// Evaluate the constant expressions of state masks: integers (decimal, hex), `| & + - << >>`
/// and parentheses, C precedence.
fn eval(s: &str) -> Option<u64> {
    let toks = tokenize(s)?;
    let mut p = Parser { toks: &toks, i: 0 };
    let v = p.expr(0)?;
    (p.i == toks.len()).then_some(v)
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Tok {
    Num(u64),
    Op(&'static str),
    Open,
    Close,
}

fn tokenize(s: &str) -> Option<Vec<Tok>> {
    let b = s.as_bytes();
    let mut i = 0;
    let mut out = Vec::new();
    while let Some(&c) = b.get(i) {
        match c {
            b' ' | b'\t' => i += 1,
            b'(' => {
                out.push(Tok::Open);
                i += 1;
            }
            b')' => {
                out.push(Tok::Close);
                i += 1;
            }
            b'0'..=b'9' => {
                let start = i;
                while b.get(i).is_some_and(|c| c.is_ascii_alphanumeric()) {
                    i += 1;
                }
                let t = s.get(start..i)?.trim_end_matches(['u', 'U', 'l', 'L']);
                let v = match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
                    Some(h) => u64::from_str_radix(h, 16).ok()?,
                    None => t.parse().ok()?,
                };
                out.push(Tok::Num(v));
            }
            _ => {
                let two = s.get(i..i + 2);
                let op = match (two, c) {
                    (Some("<<"), _) => "<<",
                    (Some(">>"), _) => ">>",
                    (_, b'|') => "|",
                    (_, b'&') => "&",
                    (_, b'+') => "+",
                    (_, b'-') => "-",
                    _ => return None,
                };
                out.push(Tok::Op(op));
                i += op.len();
            }
        }
    }
    Some(out)
}

struct Parser<'a> {
    toks: &'a [Tok],
    i: usize,
}

impl Parser<'_> {
    fn prec(op: &str) -> u8 {
        match op {
            "|" => 1,
            "&" => 2,
            "<<" | ">>" => 3,
            _ => 4,
        }
    }

    fn expr(&mut self, min: u8) -> Option<u64> {
        let mut lhs = self.atom()?;
        while let Some(Tok::Op(op)) = self.toks.get(self.i).copied() {
            let p = Self::prec(op);
            if p < min {
                break;
            }
            self.i += 1;
            let rhs = self.expr(p + 1)?;
            lhs = match op {
                "|" => lhs | rhs,
                "&" => lhs & rhs,
                "<<" => lhs.checked_shl(u32::try_from(rhs).ok()?)?,
                ">>" => lhs.checked_shr(u32::try_from(rhs).ok()?)?,
                "+" => lhs.wrapping_add(rhs),
                _ => lhs.wrapping_sub(rhs),
            };
        }
        Some(lhs)
    }

    fn atom(&mut self) -> Option<u64> {
        let t = *self.toks.get(self.i)?;
        self.i += 1;
        match t {
            Tok::Num(v) => Some(v),
            Tok::Open => {
                let v = self.expr(0)?;
                (self.toks.get(self.i) == Some(&Tok::Close)).then(|| self.i += 1)?;
                Some(v)
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const K618: &str = r#""prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s%s ==> next_comm=%s next_pid=%d next_prio=%d", REC->prev_comm, REC->prev_pid, REC->prev_prio, (REC->prev_state & ((((0x00000000 | 0x00000001 | 0x00000002 | 0x00000004 | 0x00000008 | 0x00000010 | 0x00000020 | 0x00000040) + 1) << 1) - 1)) ? __print_flags(REC->prev_state & ((((0x00000000 | 0x00000001 | 0x00000002 | 0x00000004 | 0x00000008 | 0x00000010 | 0x00000020 | 0x00000040) + 1) << 1) - 1), "|", { 0x00000001, "S" }, { 0x00000002, "D" }, { 0x00000004, "T" }, { 0x00000008, "t" }, { 0x00000010, "X" }, { 0x00000020, "Z" }, { 0x00000040, "P" }, { 0x00000080, "I" }) : "R", REC->prev_state & (((0x00000000 | 0x00000001 | 0x00000002 | 0x00000004 | 0x00000008 | 0x00000010 | 0x00000020 | 0x00000040) + 1) << 1) ? "+" : "", REC->next_comm, REC->next_pid, REC->next_prio"#;
    // A 4.x kernel's (TASK_REPORT_MAX = 1024 there, states up to 512).
    const K4: &str = r#""prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s%s ==> next_comm=%s next_pid=%d next_prio=%d", REC->prev_comm, REC->prev_pid, REC->prev_prio, REC->prev_state & (1024-1) ? __print_flags(REC->prev_state & (1024-1), "|", { 1, "S"} , { 2, "D" }, { 4, "T" }, { 8, "t" }, { 16, "Z" }, { 32, "X" }, { 64, "x" }, { 128, "K" }, { 256, "W" }, { 512, "P" }) : "R", REC->prev_state & 1024 ? "+" : "", REC->next_comm, REC->next_pid, REC->next_prio"#;

    #[test]
    fn tables_from_print_fmt() {
        let t = parse_print_fmt(K618).unwrap();
        assert_eq!(t, TaskStates::default());
        assert_eq!((t.letter(0), t.letter(1), t.letter(2), t.letter(0x100), t.letter(0x80)), ('R', 'S', 'D', 'R', 'I'));
        assert_eq!((t.label(0x100), t.label(3), t.label(0)), ("R+".to_string(), "S|D".to_string(), "R".to_string()));
        let t = parse_print_fmt(K4).unwrap();
        assert_eq!(t.preempt, 1024);
        assert_eq!(t.letters.len(), 10);
        assert_eq!((t.letter(16), t.letter(1024), t.letter(256)), ('Z', 'R', 'W'));
    }

    #[test]
    fn perf61_letters() {
        assert_eq!(perf61_latency_letter(0), 'R');
        assert_eq!(perf61_latency_letter(0x100), '?');
        assert_eq!(perf61_latency_letter(2), 'D');
        assert_eq!(perf61_timehist_letter(0x100, false), 'W');
        assert_eq!(perf61_timehist_letter(0x20, false), 'X');
        assert_eq!(perf61_timehist_letter(0x80, false), 'K');
        assert_eq!(perf61_timehist_letter(2, false), 'D');
        assert_eq!(perf61_timehist_letter(0, true), 'I');
    }
}
