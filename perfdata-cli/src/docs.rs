//! Documentation generated from the clap definitions: shell completions (`perfdata completions
//! SHELL`), man pages (`perfdata man [-o DIR]`) and the Markdown reference of docs/cli.md
//! (`perfdata help-markdown`). Nothing here depends on the terminal: the same binary always prints
//! the same bytes.

use clap::{Arg, Command};
use std::fmt::Write as _;
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

/// The first line of `perfdata help-markdown`'s output: docs/cli.md is a hand-written guide, this
/// line, then the generated reference (tests/docs.rs compares that part with the binary's).
pub const MARKDOWN_MARKER: &str =
    "<!-- Generated from the clap definitions by `perfdata help-markdown`: do not edit below this line. \
     Regenerate with `UPDATE_DOCS=1 cargo test --release -p perfdata-cli --test docs`. -->";

/// The command tree, built (subcommands know their full names) at a fixed help width.
fn built(cmd: Command) -> Command {
    let mut cmd = cmd.bin_name("perfdata");
    cmd.build();
    hide_help_subcommands(&mut cmd);
    cmd
}

/// clap's generated `help` subcommands (`perfdata help sched`) get no man page nor section.
fn hide_help_subcommands(cmd: &mut Command) {
    for sub in cmd.get_subcommands_mut() {
        if sub.get_name() == "help" {
            *sub = std::mem::take(sub).hide(true);
        } else {
            hide_help_subcommands(sub);
        }
    }
}

/// The subcommands a reader is shown: not clap's generated `help`.
fn subcommands(cmd: &Command) -> impl Iterator<Item = &Command> {
    cmd.get_subcommands().filter(|c| c.get_name() != "help")
}

/// `perfdata completions SHELL`: the completion script on stdout.
pub fn completions(cmd: Command, shell: clap_complete::Shell) -> crate::CliResult {
    let mut cmd = cmd;
    let mut out = std::io::stdout().lock();
    clap_complete::generate(shell, &mut cmd, "perfdata", &mut out);
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// The root page's extra section: the helper commands, which `perfdata --help` does not list.
const MAN_HELPERS: &str = r#".SH "SHELL COMPLETION AND DOCUMENTATION"
.TP
\fBperfdata completions\fR \fIbash\fR|\fIzsh\fR|\fIfish\fR|\fIelvish\fR|\fIpowershell\fR
Print the shell's completion script, e.g. \fBperfdata completions bash > /etc/bash_completion.d/perfdata\fR.
.TP
\fBperfdata man\fR [\fB\-o\fR \fIDIR\fR]
Print this page, or write it and one page per subcommand (\fBperfdata\-sched\-latency.1\fR etc.) into \fIDIR\fR.
.TP
\fBperfdata help\-markdown\fR
Print the Markdown command reference (docs/cli.md's generated part).
"#;

/// The man page of `cmd` (a built command or subcommand), with the helper commands on the root's.
fn man_page(cmd: &Command, root: bool) -> std::io::Result<Vec<u8>> {
    let name = cmd.get_display_name().unwrap_or_else(|| cmd.get_name()).to_string();
    let man = clap_mangen::Man::new(cmd.clone())
        .title(name.to_uppercase())
        .source(format!("perfdata {}", env!("CARGO_PKG_VERSION")))
        .manual("perfdata");
    let mut page = Vec::new();
    man.render_title(&mut page)?;
    man.render_name_section(&mut page)?;
    man.render_synopsis_section(&mut page)?;
    man.render_description_section(&mut page)?;
    if cmd.get_arguments().any(|a| !a.is_hide_set()) {
        man.render_options_section(&mut page)?;
    }
    if cmd.get_subcommands().any(|c| !c.is_hide_set()) {
        man.render_subcommands_section(&mut page)?;
    }
    if root {
        page.extend_from_slice(MAN_HELPERS.as_bytes());
    }
    if cmd.get_version().is_some() {
        man.render_version_section(&mut page)?;
    }
    Ok(roff_ascii(&String::from_utf8_lossy(&page)).into_bytes())
}

/// Non-ASCII characters (…, →, µ) as groff's `\[uXXXX]` escapes: troff reads its input as Latin-1
/// unless a preprocessor converts it, so the pages render the same through man(1), groff and mandoc.
fn roff_ascii(page: &str) -> String {
    let mut out = String::with_capacity(page.len());
    for c in page.chars() {
        if c.is_ascii() {
            out.push(c);
        } else {
            let _ = write!(out, "\\[u{:04X}]", u32::from(c));
        }
    }
    out
}

/// Every man page: `(file name, page)`, perfdata.1 first, then one per subcommand in the order of
/// `perfdata --help` (nested ones after their parent), without the hidden helpers.
pub fn man_pages(cmd: Command) -> std::io::Result<Vec<(String, Vec<u8>)>> {
    fn walk(cmd: &Command, root: bool, pages: &mut Vec<(String, Vec<u8>)>) -> std::io::Result<()> {
        let name = cmd.get_display_name().unwrap_or_else(|| cmd.get_name());
        pages.push((format!("{name}.1"), man_page(cmd, root)?));
        for sub in subcommands(cmd).filter(|c| !c.is_hide_set()) {
            walk(sub, false, pages)?;
        }
        Ok(())
    }
    let mut pages = Vec::new();
    walk(&built(cmd), true, &mut pages)?;
    Ok(pages)
}

/// `perfdata man [-o DIR]`: perfdata.1 on stdout, or every page written into DIR (their paths on
/// stdout).
pub fn man(cmd: Command, dir: Option<&Path>) -> crate::CliResult {
    let pages = man_pages(cmd)?;
    let mut out = std::io::stdout().lock();
    match dir {
        None => {
            if let Some((_, page)) = pages.first() {
                out.write_all(page)?;
            }
        }
        Some(dir) => {
            std::fs::create_dir_all(dir)?;
            // Every page first, then the list (a reader that goes away loses no page).
            let mut written = Vec::new();
            for (name, page) in &pages {
                let path = dir.join(name);
                std::fs::write(&path, page)?;
                written.push(path);
            }
            for path in written {
                writeln!(out, "{}", path.display())?;
            }
        }
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// `perfdata help-markdown`.
pub fn help_markdown(cmd: Command) -> crate::CliResult {
    let mut out = std::io::stdout().lock();
    out.write_all(markdown(cmd).as_bytes())?;
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// The command's full name, `perfdata sched latency`.
fn full_name(cmd: &Command) -> String {
    cmd.get_bin_name().unwrap_or_else(|| cmd.get_name()).to_string()
}

/// GitHub's anchor of a `### \`perfdata sched latency\`` heading.
fn anchor(name: &str) -> String {
    name.replace(' ', "-")
}

/// Markdown-escape text outside code spans (`<ADDR>` would read as an HTML tag, `*` as emphasis).
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut in_code = false;
    for c in text.chars() {
        if c == '`' {
            in_code = !in_code;
        } else if !in_code && matches!(c, '\\' | '*' | '<' | '>') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// A help text as Markdown, each line after the first indented by `indent`: paragraphs (their lines
/// joined; blank lines separate them) and, for the lines a verbatim doc comment indents
/// (examples), a code block.
fn help_markdown_text(text: &str, indent: &str) -> String {
    let mut blocks: Vec<String> = Vec::new();
    let mut para: Vec<&str> = Vec::new();
    let mut code: Vec<&str> = Vec::new();
    fn flush_para(para: &mut Vec<&str>, blocks: &mut Vec<String>) {
        if !para.is_empty() {
            blocks.push(escape(&para.iter().map(|l| l.trim()).collect::<Vec<_>>().join(" ")));
            para.clear();
        }
    }
    fn flush_code(code: &mut Vec<&str>, blocks: &mut Vec<String>) {
        if !code.is_empty() {
            let cut = code.iter().map(|l| l.len() - l.trim_start().len()).min().unwrap_or(0);
            let lines: Vec<&str> = code.iter().map(|l| l.get(cut..).unwrap_or(l).trim_end()).collect();
            blocks.push(format!("```sh\n{}\n```", lines.join("\n")));
            code.clear();
        }
    }
    for line in text.lines() {
        if line.trim().is_empty() {
            flush_para(&mut para, &mut blocks);
            flush_code(&mut code, &mut blocks);
        } else if line.starts_with(' ') || line.starts_with('\t') {
            flush_para(&mut para, &mut blocks);
            code.push(line);
        } else {
            flush_code(&mut code, &mut blocks);
            para.push(line);
        }
    }
    flush_para(&mut para, &mut blocks);
    flush_code(&mut code, &mut blocks);
    let joined = blocks.join("\n\n");
    joined
        .lines()
        .enumerate()
        .map(|(i, l)| if i == 0 || l.is_empty() { l.to_string() } else { format!("{indent}{l}") })
        .collect::<Vec<_>>()
        .join("\n")
}

/// How an argument is written: `-s, --sort <SORT>`, `<FILE>`.
fn arg_spec(arg: &Arg) -> String {
    match arg.get_short() {
        Some(s) if arg.get_long().is_some() => format!("-{s}, {arg}"),
        _ => arg.to_string(),
    }
}

/// One argument as a Markdown list item.
fn arg_markdown(arg: &Arg, out: &mut String) {
    let help = arg.get_long_help().or_else(|| arg.get_help()).map(ToString::to_string).unwrap_or_default();
    let _ = write!(out, "- `{}`", arg_spec(arg));
    if !help.is_empty() {
        let _ = write!(out, ": {}", help_markdown_text(&help, "  "));
    }
    out.push('\n');
    let takes_values = arg.get_action().takes_values();
    let values: Vec<_> = if takes_values { arg.get_possible_values() } else { Vec::new() };
    let values: Vec<_> = values.iter().filter(|v| !v.is_hide_set()).collect();
    if !values.is_empty() {
        if values.iter().any(|v| v.get_help().is_some()) {
            out.push_str("\n  Possible values:\n");
            for v in &values {
                let _ = write!(out, "  - `{}`", v.get_name());
                if let Some(h) = v.get_help() {
                    let _ = write!(out, ": {}", help_markdown_text(&h.to_string(), "    "));
                }
                out.push('\n');
            }
        } else {
            let names: Vec<String> = values.iter().map(|v| format!("`{}`", v.get_name())).collect();
            let _ = write!(out, "\n  Possible values: {}.\n", names.join(", "));
        }
    }
    let defaults = arg.get_default_values();
    if takes_values && !defaults.is_empty() && !arg.is_hide_default_value_set() {
        let d: Vec<String> = defaults.iter().map(|d| d.to_string_lossy().into_owned()).collect();
        let _ = write!(out, "\n  Default: `{}`.\n", d.join(","));
    }
}

/// One command's section (and its subcommands' after it).
fn command_markdown(cmd: &Command, root: bool, out: &mut String) {
    let name = full_name(cmd);
    let _ = writeln!(out, "\n### `{name}`\n");
    if cmd.is_hide_set() {
        out.push_str("*Not listed by `perfdata --help`.*\n\n");
    }
    if let Some(about) = cmd.get_long_about().or_else(|| cmd.get_about()) {
        let _ = writeln!(out, "{}\n", help_markdown_text(&about.to_string(), ""));
    }
    let mut usage_cmd = cmd.clone();
    let usage = usage_cmd.render_usage().to_string();
    let _ = writeln!(out, "```text\n{}\n```", usage.trim_end());
    let args: Vec<&Arg> = cmd
        .get_arguments()
        .filter(|a| !a.is_hide_set() && a.get_id() != "help" && (root || !a.is_global_set()))
        .collect();
    let (positional, options): (Vec<&Arg>, Vec<&Arg>) = args.into_iter().partition(|a| a.is_positional());
    if !positional.is_empty() {
        out.push_str("\nArguments:\n\n");
        for a in positional {
            arg_markdown(a, out);
        }
    }
    if !options.is_empty() {
        out.push_str("\nOptions:\n\n");
        for a in options {
            arg_markdown(a, out);
        }
    }
    let subs: Vec<&Command> = subcommands(cmd).collect();
    if !subs.is_empty() {
        out.push_str("\nCommands:\n\n");
        for sub in &subs {
            let sub_name = full_name(sub);
            let about =
                sub.get_about().map(|a| format!(": {}", help_markdown_text(&a.to_string(), "  "))).unwrap_or_default();
            let _ = writeln!(out, "- [`{sub_name}`](#{}){about}", anchor(&sub_name));
        }
    }
    for sub in subs {
        command_markdown(sub, false, out);
    }
}

/// The command reference: a table of contents, then every command and subcommand (hidden helpers
/// too, marked) with its description, usage, arguments and options.
pub fn markdown(cmd: Command) -> String {
    let cmd = built(cmd);
    let mut out = String::new();
    out.push_str(MARKDOWN_MARKER);
    out.push_str("\n\n## Command reference\n\n");
    fn toc(cmd: &Command, depth: usize, out: &mut String) {
        let name = full_name(cmd);
        let _ = writeln!(out, "{}- [`{name}`](#{})", "  ".repeat(depth), anchor(&name));
        for sub in subcommands(cmd) {
            toc(sub, depth + 1, out);
        }
    }
    toc(&cmd, 0, &mut out);
    command_markdown(&cmd, true, &mut out);
    out
}
