//! The predicates of dataset queries (`perfdata flamegraph --from-dataset DATASET --where
//! PREDICATE`): a subset of SQL's `WHERE` clause, parsed by nom combinators.
//!
//! ```text
//! predicate  := or
//! or         := and ( OR and )*
//! and        := not ( AND not )*
//! not        := NOT not | '(' predicate ')' | comparison
//! comparison := column op literal | literal op column
//!             | column [NOT] IN '(' literal ( ',' literal )* ')'
//!             | column [NOT] LIKE string
//! op         := = | != | <> | < | <= | > | >=
//! column     := name | "name"            (case-insensitive, one of the table's columns)
//! literal    := 'string' ('' is a quote) | integer (optionally negative)
//! ```
//!
//! Keywords are case-insensitive; `NOT` binds tighter than `AND`, which binds tighter than `OR`,
//! as in SQL. Strings compare byte by byte (DuckDB's default collation), integers as numbers; a
//! string column compared with an integer (or the reverse) is an error, as is an unknown column.
//! `LIKE` patterns are case-sensitive, `%` matching any run of characters and `_` one character
//! (there is no escape character). Columns are never NULL in the tables queried, so there is no
//! `IS NULL`.
//!
//! ```
//! use perfdata_analysis::query::predicate::{Predicate, Value, STACKS_COLUMNS};
//! let p = Predicate::parse("host IN ('a', 'b') AND NOT comm LIKE 'kworker/%'", STACKS_COLUMNS)?;
//! let row = |c: &str| match c {
//!     "host" => Some(Value::Str("a")),
//!     "comm" => Some(Value::Str("postgres")),
//!     _ => None,
//! };
//! assert_eq!(p.eval(&row), Some(true));
//! // Only the partition columns known: `None` when the rest decides.
//! assert_eq!(p.eval(&|c: &str| (c == "host").then_some(Value::Str("a"))), None);
//! assert_eq!(p.eval(&|c: &str| (c == "host").then_some(Value::Str("c"))), Some(false));
//! let e = Predicate::parse("hots = 'a'", STACKS_COLUMNS).unwrap_err();
//! assert_eq!(e.where_column(), Some(1));
//! assert!(e.to_string().contains("unknown column `hots`"));
//! # Ok::<(), perfdata_analysis::Error>(())
//! ```

use crate::{Error, Result};
use nom::branch::alt;
use nom::bytes::complete::{tag, tag_no_case, take_while};
use nom::character::complete::{char, digit1, multispace0, satisfy};
use nom::combinator::{cut, not, opt, recognize};
use nom::error::{context, ContextError, ErrorKind, ParseError};
use nom::sequence::{pair, preceded, terminated};
use nom::{IResult, Parser};
use std::cmp::Ordering;

/// The type of a column's values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColumnType {
    /// Text.
    String,
    /// Whole numbers.
    Integer,
}

/// A column a predicate may name.
#[derive(Clone, Copy, Debug)]
pub struct Column {
    /// Its name (lower case).
    pub name: &'static str,
    /// The type of its values.
    pub ty: ColumnType,
    /// A Hive partition key (`NAME=VALUE` directories): known before a file is opened.
    pub partition: bool,
}

/// The scalar columns of the dataset's `stacks` table and its partition keys (`frames` is a
/// list, which predicates cannot compare).
pub const STACKS_COLUMNS: &[Column] = &[
    Column { name: "host", ty: ColumnType::String, partition: true },
    Column { name: "date", ty: ColumnType::String, partition: true },
    Column { name: "comm", ty: ColumnType::String, partition: false },
    Column { name: "file", ty: ColumnType::String, partition: false },
    Column { name: "weight", ty: ColumnType::Integer, partition: false },
];

/// A value of a row's column, as [`Predicate::eval`] is given it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Value<'a> {
    /// Text.
    Str(&'a str),
    /// A number.
    Int(i128),
}

/// A literal of the predicate.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Literal {
    Str(String),
    Int(i128),
}

impl Literal {
    fn ty(&self) -> ColumnType {
        match self {
            Literal::Str(_) => ColumnType::String,
            Literal::Int(_) => ColumnType::Integer,
        }
    }

    /// `value` compared with this literal (`None`: different types).
    fn cmp_value(&self, value: Value<'_>) -> Option<Ordering> {
        match (value, self) {
            (Value::Str(v), Literal::Str(l)) => Some(v.cmp(l.as_str())),
            (Value::Int(v), Literal::Int(l)) => Some(v.cmp(l)),
            _ => None,
        }
    }
}

/// A comparison operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl Op {
    /// `a op b` as `b flipped a`.
    fn flipped(self) -> Op {
        match self {
            Op::Lt => Op::Gt,
            Op::Le => Op::Ge,
            Op::Gt => Op::Lt,
            Op::Ge => Op::Le,
            o => o,
        }
    }

    fn holds(self, o: Ordering) -> bool {
        match self {
            Op::Eq => o == Ordering::Equal,
            Op::Ne => o != Ordering::Equal,
            Op::Lt => o == Ordering::Less,
            Op::Le => o != Ordering::Greater,
            Op::Gt => o == Ordering::Greater,
            Op::Ge => o != Ordering::Less,
        }
    }
}

/// The parsed predicate's tree; columns are indices into the column list.
#[derive(Clone, Debug)]
enum Expr {
    Compare { column: usize, op: Op, value: Literal },
    In { column: usize, values: Vec<Literal>, negated: bool },
    Like { column: usize, pattern: Vec<char>, negated: bool },
    Not(Box<Expr>),
    And(Box<Expr>, Box<Expr>),
    Or(Box<Expr>, Box<Expr>),
}

/// A parsed `WHERE` predicate over a table's columns.
#[derive(Clone, Debug)]
pub struct Predicate {
    expr: Expr,
    columns: &'static [Column],
    text: String,
}

/// nom's error: where, what was expected there (the furthest position wins across `alt`
/// branches), or a message that stops parsing (an unknown column, a type mismatch).
#[derive(Debug)]
struct PErr<'a> {
    at: &'a str,
    expected: Vec<&'static str>,
    message: Option<String>,
}

impl<'a> ParseError<&'a str> for PErr<'a> {
    fn from_error_kind(input: &'a str, _: ErrorKind) -> Self {
        PErr { at: input, expected: Vec::new(), message: None }
    }

    fn append(_: &'a str, _: ErrorKind, other: Self) -> Self {
        other
    }

    fn or(self, other: Self) -> Self {
        match self.at.len().cmp(&other.at.len()) {
            Ordering::Less => self,
            Ordering::Greater => other,
            Ordering::Equal => {
                let mut merged = other;
                for e in self.expected {
                    if !merged.expected.contains(&e) {
                        merged.expected.push(e);
                    }
                }
                merged.message = merged.message.or(self.message);
                merged
            }
        }
    }
}

impl<'a> ContextError<&'a str> for PErr<'a> {
    fn add_context(input: &'a str, ctx: &'static str, mut other: Self) -> Self {
        // What failed right where `ctx` starts is `ctx`; a failure further in says more itself.
        if other.message.is_none() && other.at.len() == input.len() {
            other.expected = vec![ctx];
        }
        other
    }
}

type Res<'a, T> = IResult<&'a str, T, PErr<'a>>;

fn failure<T>(at: &str, message: String) -> Res<'_, T> {
    Err(nom::Err::Failure(PErr { at, expected: Vec::new(), message: Some(message) }))
}

fn is_ident_start(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_'
}

fn is_ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// A keyword, whole word, any case, after blanks.
fn keyword<'a>(kw: &'static str) -> impl Parser<&'a str, Output = &'a str, Error = PErr<'a>> {
    preceded(multispace0, terminated(tag_no_case(kw), not(satisfy(is_ident_char))))
}

/// `'…'`, `''` standing for a quote.
fn string(i: &str) -> Res<'_, String> {
    let (rest, _) = char('\'').parse(i)?;
    let mut out = String::new();
    let mut chars = rest.char_indices();
    while let Some((at, c)) = chars.next() {
        if c != '\'' {
            out.push(c);
            continue;
        }
        let after = rest.get(at + 1..).unwrap_or("");
        if after.starts_with('\'') {
            out.push('\'');
            chars.next();
        } else {
            return Ok((after, out));
        }
    }
    failure(i, "a string literal without its closing `'`".into())
}

fn integer(i: &str) -> Res<'_, i128> {
    let (rest, digits) = recognize(pair(opt(char('-')), digit1)).parse(i)?;
    match digits.parse() {
        Ok(n) => Ok((rest, n)),
        Err(_) => failure(i, format!("the integer {digits} is out of range")),
    }
}

fn literal(i: &str) -> Res<'_, Literal> {
    let i = multispace0(i)?.0;
    context("a string ('…') or integer literal", alt((string.map(Literal::Str), integer.map(Literal::Int)))).parse(i)
}

fn op(i: &str) -> Res<'_, Op> {
    let i = multispace0(i)?.0;
    context(
        "a comparison (=, !=, <>, <, <=, >, >=), IN or LIKE",
        alt((
            tag("!=").map(|_| Op::Ne),
            tag("<>").map(|_| Op::Ne),
            tag("<=").map(|_| Op::Le),
            tag(">=").map(|_| Op::Ge),
            tag("=").map(|_| Op::Eq),
            tag("<").map(|_| Op::Lt),
            tag(">").map(|_| Op::Gt),
        )),
    )
    .parse(i)
}

struct Grammar {
    columns: &'static [Column],
}

impl Grammar {
    /// A column name (bare or `"quoted"`), resolved: an unknown one stops parsing.
    fn column<'a>(&self, i: &'a str) -> Res<'a, usize> {
        let i = multispace0(i)?.0;
        let quoted = preceded(char('"'), cut(terminated(take_while(|c| c != '"'), char('"'))));
        let bare = recognize(pair(satisfy(is_ident_start), take_while(is_ident_char)));
        let (rest, name) = context("a column name", alt((quoted, bare))).parse(i)?;
        match self.columns.iter().position(|c| c.name.eq_ignore_ascii_case(name)) {
            Some(c) => Ok((rest, c)),
            None => {
                let names: Vec<&str> = self.columns.iter().map(|c| c.name).collect();
                failure(i, format!("unknown column `{name}` (the columns are {})", names.join(", ")))
            }
        }
    }

    /// `literal`, of `column`'s type.
    fn typed_literal<'a>(&self, column: usize, i: &'a str) -> Res<'a, Literal> {
        let at = multispace0(i)?.0;
        let (rest, value) = literal(at)?;
        self.check_type(column, &value, at)?;
        Ok((rest, value))
    }

    fn check_type<'a>(&self, column: usize, value: &Literal, at: &'a str) -> Res<'a, ()> {
        let Some(c) = self.columns.get(column) else { return failure(at, "no such column".into()) };
        if c.ty == value.ty() {
            return Ok((at, ()));
        }
        let (is, want) = match c.ty {
            ColumnType::String => ("a string", "a string literal ('…')"),
            ColumnType::Integer => ("an integer", "an integer literal"),
        };
        failure(at, format!("`{}` is {is} column: compare it with {want}", c.name))
    }

    fn or<'a>(&self, i: &'a str) -> Res<'a, Expr> {
        self.chain(i, "or", Self::and, Expr::Or)
    }

    fn and<'a>(&self, i: &'a str) -> Res<'a, Expr> {
        self.chain(i, "and", Self::negation, Expr::And)
    }

    /// `next ( KEYWORD next )*`, joined left to right.
    fn chain<'a>(
        &self,
        i: &'a str,
        kw: &'static str,
        next: fn(&Self, &'a str) -> Res<'a, Expr>,
        join: fn(Box<Expr>, Box<Expr>) -> Expr,
    ) -> Res<'a, Expr> {
        let (mut i, mut e) = next(self, i)?;
        while let Ok((rest, _)) = keyword(kw).parse(i) {
            let (rest, r) = cut(|i| next(self, i)).parse(rest)?;
            e = join(Box::new(e), Box::new(r));
            i = rest;
        }
        Ok((i, e))
    }

    fn negation<'a>(&self, i: &'a str) -> Res<'a, Expr> {
        if let Ok((rest, _)) = keyword("not").parse(i) {
            let (rest, e) = cut(|i| self.negation(i)).parse(rest)?;
            return Ok((rest, Expr::Not(Box::new(e))));
        }
        let i = multispace0(i)?.0;
        if let Ok((rest, _)) = char::<_, PErr<'a>>('(').parse(i) {
            let (rest, e) = cut(|i| self.or(i)).parse(rest)?;
            let (rest, _) = cut(preceded(multispace0, context("AND, OR or `)`", char(')')))).parse(rest)?;
            return Ok((rest, e));
        }
        context("a column, a literal, NOT or `(`", |i| self.comparison(i)).parse(i)
    }

    fn comparison<'a>(&self, i: &'a str) -> Res<'a, Expr> {
        // `literal op column`
        match literal(i) {
            Ok((rest, value)) => {
                let (rest, op) = cut(op).parse(rest)?;
                let (rest, column) = cut(|i| self.column(i)).parse(rest)?;
                self.check_type(column, &value, i)?;
                return Ok((rest, Expr::Compare { column, op: op.flipped(), value }));
            }
            Err(nom::Err::Error(_)) => {}
            Err(e) => return Err(e),
        }
        let (rest, column) = self.column(i)?;
        let (rest, negated) = opt(keyword("not")).map(|n| n.is_some()).parse(rest)?;
        if let Ok((rest, _)) = keyword("in").parse(rest) {
            let (mut rest, _) = cut(preceded(multispace0, context("`(`", char('(')))).parse(rest)?;
            let mut values = Vec::new();
            loop {
                let (r, v) = cut(|i| self.typed_literal(column, i)).parse(rest)?;
                values.push(v);
                let (r, sep) =
                    cut(preceded(multispace0, context("`,` or `)`", alt((char(','), char(')')))))).parse(r)?;
                rest = r;
                if sep == ')' {
                    break;
                }
            }
            return Ok((rest, Expr::In { column, values, negated }));
        }
        if let Ok((r, _)) = keyword("like").parse(rest) {
            let (r, pattern) = cut(|i| self.typed_literal(column, i)).parse(r)?;
            let Literal::Str(pattern) = pattern else { return failure(rest, "LIKE needs a string column".into()) };
            return Ok((r, Expr::Like { column, pattern: pattern.chars().collect(), negated }));
        }
        if negated {
            let at = multispace0(rest)?.0;
            return Err(nom::Err::Failure(PErr { at, expected: vec!["IN or LIKE after NOT"], message: None }));
        }
        let (rest, op) = cut(op).parse(rest)?;
        let (rest, value) = cut(|i| self.typed_literal(column, i)).parse(rest)?;
        Ok((rest, Expr::Compare { column, op, value }))
    }
}

/// What the text at `at` starts with, for "found …".
fn found(at: &str) -> String {
    let token: String = at.chars().take_while(|c| !c.is_whitespace()).take(16).collect();
    if token.is_empty() {
        "the end".into()
    } else {
        format!("`{token}`")
    }
}

impl Predicate {
    /// Parse `text` as a predicate over `columns`; [`Error::Where`] says where it does not.
    pub fn parse(text: &str, columns: &'static [Column]) -> Result<Predicate> {
        let g = Grammar { columns };
        let error = |e: PErr<'_>| {
            let offset = text.len().saturating_sub(e.at.len());
            let message = match e.message {
                Some(m) => m,
                None if e.expected.is_empty() => format!("unexpected {}", found(e.at)),
                None => format!("expected {}, found {}", e.expected.join(" or "), found(e.at)),
            };
            Error::Where { predicate: text.to_string(), offset, message }
        };
        match g.or(text) {
            Ok((rest, expr)) => {
                let rest = rest.trim_start();
                if !rest.is_empty() {
                    let e = PErr { at: rest, expected: vec!["AND, OR or the end"], message: None };
                    return Err(error(e));
                }
                Ok(Predicate { expr, columns, text: text.to_string() })
            }
            Err(nom::Err::Error(e) | nom::Err::Failure(e)) => Err(error(e)),
            Err(nom::Err::Incomplete(_)) => {
                Err(Error::Where { predicate: text.to_string(), offset: text.len(), message: "incomplete".into() })
            }
        }
    }

    /// The text parsed.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The names of the columns the predicate reads.
    pub fn columns(&self) -> Vec<&'static str> {
        fn walk(e: &Expr, out: &mut Vec<usize>) {
            match e {
                Expr::Compare { column, .. } | Expr::In { column, .. } | Expr::Like { column, .. } => out.push(*column),
                Expr::Not(a) => walk(a, out),
                Expr::And(a, b) | Expr::Or(a, b) => {
                    walk(a, out);
                    walk(b, out);
                }
            }
        }
        let mut idx = Vec::new();
        walk(&self.expr, &mut idx);
        idx.sort_unstable();
        idx.dedup();
        idx.into_iter().filter_map(|i| self.columns.get(i).map(|c| c.name)).collect()
    }

    /// Whether a row-level column (not a partition key) is read.
    pub fn reads_rows(&self) -> bool {
        self.columns().iter().any(|n| self.columns.iter().any(|c| c.name == *n && !c.partition))
    }

    /// The predicate on a row whose column values `value` gives by name, in SQL's three-valued
    /// logic: `None` where a value it needs is unknown (`value` returned `None`), so that
    /// `Some(false)` on the partition keys alone means no row of the partition can match.
    pub fn eval<'v>(&self, value: &dyn Fn(&str) -> Option<Value<'v>>) -> Option<bool> {
        self.eval_expr(&self.expr, value)
    }

    fn eval_expr<'v>(&self, e: &Expr, value: &dyn Fn(&str) -> Option<Value<'v>>) -> Option<bool> {
        let get = |c: &usize| self.columns.get(*c).and_then(|c| value(c.name));
        match e {
            Expr::Compare { column, op, value: lit } => Some(op.holds(lit.cmp_value(get(column)?)?)),
            Expr::In { column, values, negated } => {
                let v = get(column)?;
                let mut hit = false;
                for l in values {
                    hit |= l.cmp_value(v)? == Ordering::Equal;
                }
                Some(hit != *negated)
            }
            Expr::Like { column, pattern, negated } => match get(column)? {
                Value::Str(s) => Some(like(s, pattern) != *negated),
                Value::Int(_) => None,
            },
            Expr::Not(a) => self.eval_expr(a, value).map(|b| !b),
            Expr::And(a, b) => match (self.eval_expr(a, value), self.eval_expr(b, value)) {
                (Some(false), _) | (_, Some(false)) => Some(false),
                (Some(true), Some(true)) => Some(true),
                _ => None,
            },
            Expr::Or(a, b) => match (self.eval_expr(a, value), self.eval_expr(b, value)) {
                (Some(true), _) | (_, Some(true)) => Some(true),
                (Some(false), Some(false)) => Some(false),
                _ => None,
            },
        }
    }
}

/// SQL `s LIKE pattern`: `%` any run of characters, `_` one character, the rest itself.
pub fn like(s: &str, pattern: &[char]) -> bool {
    let s: Vec<char> = s.chars().collect();
    // The classic wildcard walk: on a mismatch, let the last `%` swallow one more character.
    let (mut si, mut pi) = (0usize, 0usize);
    let mut star: Option<(usize, usize)> = None;
    while si < s.len() {
        match pattern.get(pi) {
            Some('%') => {
                star = Some((pi, si));
                pi += 1;
            }
            Some(p) if *p == '_' || Some(p) == s.get(si) => {
                pi += 1;
                si += 1;
            }
            _ => match star {
                Some((sp, ss)) => {
                    pi = sp + 1;
                    si = ss + 1;
                    star = Some((sp, ss + 1));
                }
                None => return false,
            },
        }
    }
    pattern.get(pi..).is_some_and(|rest| rest.iter().all(|c| *c == '%'))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> Predicate {
        Predicate::parse(s, STACKS_COLUMNS).unwrap_or_else(|e| panic!("{e}"))
    }

    /// A parse error's offset, message and 1-based column.
    #[derive(Debug)]
    struct WhereError {
        offset: usize,
        message: String,
        text: String,
        col: usize,
    }

    impl WhereError {
        fn column(&self) -> usize {
            self.col
        }
    }

    impl std::fmt::Display for WhereError {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str(&self.text)
        }
    }

    fn where_error(e: Error) -> WhereError {
        let (text, col) = (e.to_string(), e.where_column().unwrap_or(0));
        match e {
            Error::Where { offset, message, .. } => WhereError { offset, message, text, col },
            e => panic!("not a WHERE error: {e}"),
        }
    }

    fn err(s: &str) -> WhereError {
        where_error(Predicate::parse(s, STACKS_COLUMNS).unwrap_err())
    }

    fn row<'a>(host: &'a str, comm: &'a str, weight: i128) -> impl Fn(&str) -> Option<Value<'a>> {
        move |c| match c {
            "host" => Some(Value::Str(host)),
            "date" => Some(Value::Str("2026-11-02")),
            "comm" => Some(Value::Str(comm)),
            "file" => Some(Value::Str("a.data")),
            "weight" => Some(Value::Int(weight)),
            _ => None,
        }
    }

    #[test]
    fn comparisons_and_logic() {
        let r = row("web1", "postgres", 10);
        for (s, want) in [
            ("host = 'web1'", true),
            ("HOST='web1'", true),
            ("\"host\" = 'web1'", true),
            ("host != 'web1'", false),
            ("host <> 'web2'", true),
            ("host < 'web2' and host >= 'web1'", true),
            ("'web1' = host", true),
            ("'web0' < host", true),
            ("weight > 9", true),
            ("weight <= 9", false),
            ("10 >= weight", true),
            ("weight = -1", false),
            ("host in ('a', 'web1')", true),
            ("host not in ('a', 'web1')", false),
            ("weight in (1, 2)", false),
            ("comm like 'post%'", true),
            ("comm like 'p_stgres'", true),
            ("comm like 'post'", false),
            ("comm not like '%sql'", true),
            ("not host = 'web1' or comm = 'postgres'", true),
            ("not (host = 'web1' or comm = 'postgres')", false),
            ("host = 'x' or host = 'web1' and comm = 'y'", false),
            ("(host = 'x' or host = 'web1') and comm = 'postgres'", true),
            ("date = '2026-11-02' AND date > '2026-11-01'", true),
            ("comm = 'it''s'", false),
        ] {
            assert_eq!(p(s).eval(&r), Some(want), "{s}");
        }
        assert_eq!(p("comm = 'it''s'").eval(&row("h", "it's", 1)), Some(true));
    }

    #[test]
    fn unknown_values_make_three_valued_logic() {
        let host_only = |c: &str| (c == "host").then_some(Value::Str("a"));
        assert_eq!(p("host = 'a' and comm = 'x'").eval(&host_only), None);
        assert_eq!(p("host = 'b' and comm = 'x'").eval(&host_only), Some(false));
        assert_eq!(p("host = 'a' or comm = 'x'").eval(&host_only), Some(true));
        assert_eq!(p("host = 'b' or comm = 'x'").eval(&host_only), None);
        assert_eq!(p("not (host = 'b' or comm = 'x')").eval(&host_only), None);
        assert!(p("host = 'b' or comm = 'x'").reads_rows());
        assert!(!p("host = 'b' or date = 'x'").reads_rows());
        assert_eq!(p("weight > 1 and host = 'b' or host = 'c'").columns(), ["host", "weight"]);
    }

    #[test]
    fn like_patterns() {
        let l = |s: &str, p: &str| like(s, &p.chars().collect::<Vec<_>>());
        assert!(l("", "") && l("", "%") && !l("", "_") && !l("a", ""));
        assert!(l("abc", "a%c") && l("abc", "%b%") && l("abc", "___") && !l("abc", "__"));
        assert!(l("aXbXc", "a%b%c") && !l("aXbXd", "a%b%c") && l("mississippi", "%iss%pi"));
        assert!(l("über", "_ber") && !l("Abc", "abc") && l("a%", "a%"));
    }

    #[test]
    fn random_text_never_panics() {
        // Token soup (xorshift, fixed seed): every outcome is a predicate or an error inside the text.
        let tokens = [
            "host",
            "date",
            "comm",
            "weight",
            "file",
            "frames",
            "\"host\"",
            "\"",
            "'a'",
            "'é''x'",
            "'",
            "5",
            "-7",
            "99999999999999999999999999999999999999999",
            "=",
            "!=",
            "<>",
            "<",
            "<=",
            ">",
            ">=",
            "==",
            "in",
            "IN",
            "not",
            "NOT",
            "like",
            "and",
            "or",
            "AND",
            "OR",
            "(",
            ")",
            ",",
            " ",
            "  ",
            "%",
            "_",
            "é",
            "\t",
            ";",
        ];
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let r = row("web1", "postgres", 10);
        for _ in 0..20_000 {
            let mut text = String::new();
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            for k in 0..(x % 12) {
                let t = tokens[((x >> (k * 5)) % tokens.len() as u64) as usize];
                text.push_str(t);
                if (x >> (k + 3)) & 1 == 1 {
                    text.push(' ');
                }
            }
            match Predicate::parse(&text, STACKS_COLUMNS) {
                Ok(p) => {
                    let _ = p.eval(&r);
                    let _ = p.eval(&|_: &str| None);
                }
                Err(e) => {
                    let e = where_error(e);
                    assert!(e.offset <= text.len() && text.is_char_boundary(e.offset), "{text:?}: {e:?}");
                    assert!(!e.message.is_empty());
                    let _ = e.to_string();
                }
            }
        }
    }

    #[test]
    fn errors_say_where_and_what() {
        let e = err("hots = 'a'");
        assert_eq!((e.offset, e.column()), (0, 1));
        assert_eq!(e.message, "unknown column `hots` (the columns are host, date, comm, file, weight)");
        let e = err("host = ");
        assert_eq!(e.offset, 7);
        assert_eq!(e.message, "expected a string ('…') or integer literal, found the end");
        assert_eq!(e.to_string(), "WHERE predicate, column 8: expected a string ('…') or integer literal, found the end\n  host = \n         ^");
        let e = err("host == 'a'");
        assert_eq!((e.offset, e.message.as_str()), (6, "expected a string ('…') or integer literal, found `=`"));
        let e = err("host 'a'");
        assert_eq!(
            (e.offset, e.message.as_str()),
            (5, "expected a comparison (=, !=, <>, <, <=, >, >=), IN or LIKE, found `'a'`")
        );
        let e = err("host = 5");
        assert_eq!(
            (e.offset, e.message.as_str()),
            (7, "`host` is a string column: compare it with a string literal ('…')")
        );
        let e = err("weight like '1%'");
        assert_eq!(
            (e.offset, e.message.as_str()),
            (12, "`weight` is an integer column: compare it with an integer literal")
        );
        let e = err("host in ('a' 'b')");
        assert_eq!((e.offset, e.message.as_str()), (13, "expected `,` or `)`, found `'b')`"));
        let e = err("(host = 'a'");
        assert_eq!((e.offset, e.message.as_str()), (11, "expected AND, OR or `)`, found the end"));
        let e = err("host = 'a' host = 'b'");
        assert_eq!((e.offset, e.message.as_str()), (11, "expected AND, OR or the end, found `host`"));
        let e = err("host = 'a");
        assert_eq!((e.offset, e.message.as_str()), (7, "a string literal without its closing `'`"));
        let e = err("host = 'a' and");
        assert_eq!((e.offset, e.message.as_str()), (14, "expected a column, a literal, NOT or `(`, found the end"));
        let e = err("frames = 'x'");
        assert!(e.message.starts_with("unknown column `frames`"), "{e}");
        let e = err("weight = 99999999999999999999999999999999999999999");
        assert_eq!(e.offset, 9);
        assert!(e.message.contains("out of range"), "{e}");
        let e = err("host not = 'a'");
        assert_eq!((e.offset, e.message.as_str()), (9, "expected IN or LIKE after NOT, found `=`"));
        assert_eq!(err("").message, "expected a column, a literal, NOT or `(`, found the end");
        // Keywords are whole words: `orange` is not `or ange`.
        assert_eq!(err("host = 'a' orange").offset, 11);
        let e = err("é = 'a'");
        assert_eq!(e.column(), 1);
        let e = err("'é' = hóst");
        assert_eq!((e.offset, e.column()), (7, 7));
    }
}
