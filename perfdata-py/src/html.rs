//! The `_repr_html_` of the objects a notebook shows: small, self-contained HTML (no scripts, no
//! external styles), every value escaped.

use std::fmt::Write;

/// `s` with `& < > "` escaped.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            c => out.push(c),
        }
    }
    out
}

/// A two-column table of the `(label, value)` rows whose value is known.
pub fn key_values(rows: &[(&str, Option<String>)]) -> String {
    let mut out = String::from("<table>");
    for (k, v) in rows {
        if let Some(v) = v {
            let _ = write!(
                out,
                "<tr><th style=\"text-align:left\">{}</th><td style=\"text-align:left\">{}</td></tr>",
                escape(k),
                escape(v)
            );
        }
    }
    out.push_str("</table>");
    out
}

/// A table with a header row; cells are escaped.
pub fn table(head: &[&str], rows: &[Vec<String>]) -> String {
    let mut out = String::from("<table><thead><tr>");
    for h in head {
        let _ = write!(out, "<th style=\"text-align:left\">{}</th>", escape(h));
    }
    out.push_str("</tr></thead><tbody>");
    for r in rows {
        out.push_str("<tr>");
        for c in r {
            let _ = write!(out, "<td style=\"text-align:left\">{}</td>", escape(c));
        }
        out.push_str("</tr>");
    }
    out.push_str("</tbody></table>");
    out
}

/// A list of diagnostics (at most `max` shown, the rest counted).
pub fn diagnostics(items: &[String], max: usize) -> String {
    if items.is_empty() {
        return String::new();
    }
    let mut out = format!(
        "<details><summary>{} diagnostic{}</summary><ul>",
        items.len(),
        if items.len() == 1 { "" } else { "s" }
    );
    for d in items.iter().take(max) {
        let _ = write!(out, "<li>{}</li>", escape(d));
    }
    if items.len() > max {
        let _ = write!(out, "<li>… {} more</li>", items.len() - max);
    }
    out.push_str("</ul></details>");
    out
}

/// `ns` (a perf clock time) as seconds with µs, as perf script prints times.
pub fn seconds(ns: u64) -> String {
    format!("{}.{:06}", ns / 1_000_000_000, ns % 1_000_000_000 / 1000)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_escaped() {
        assert_eq!(escape("<a href=\"x\">&</a>"), "&lt;a href=&quot;x&quot;&gt;&amp;&lt;/a&gt;");
        let t = table(&["comm"], &[vec!["<script>".into()]]);
        assert!(t.contains("&lt;script&gt;") && !t.contains("<script>"));
        assert_eq!(seconds(3_117_201_023_456), "3117.201023");
    }
}
