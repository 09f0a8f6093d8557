//! The public API of a crate of ours, listed from its sources: one line per public item, sorted,
//! so that a change of API shows as a diff of a checked-in text file (`tests/listing.rs` compares
//! each crate's `public-api.txt` with its sources; `UPDATE_PUBLIC_API=1` rewrites them).
//!
//! rustdoc's JSON would say the same with the compiler's resolution, but it needs nightly Rust;
//! this reads the sources with `syn` on stable. What it lists, by the path where it is defined:
//! every `pub` module, `pub use` (each name it brings, with its source path), struct (with its
//! `pub` fields), enum (with its variants), union, trait (with its items), function, constant,
//! static, type alias and exported macro, the `pub` functions and constants of inherent `impl`s,
//! and the trait impls of the crate's public types (derived ones on the type's line). The crates
//! deny `unreachable_pub`, so an item that is `pub` is reachable by its users, through its own path
//! or a re-export. Unit tests (`#[cfg(test)]`) are left out; other `cfg` attributes (features) are
//! kept on the line.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use quote::ToTokens;
use syn::{Attribute, Fields, ImplItem, Item, TraitItem, UseTree, Visibility};

/// The listing of the crate whose `lib.rs` is `src/lib.rs` below `dir`, named `name` (with `_`).
pub fn listing(name: &str, dir: &Path) -> Result<String, String> {
    let mut modules = Vec::new();
    walk(&dir.join("src/lib.rs"), vec![name.to_owned()], None, &mut modules)?;
    // The crate's public type names: a trait impl is listed when its self type is one of them.
    let mut types = BTreeSet::new();
    for m in &modules {
        for item in &m.items {
            match item {
                Item::Struct(s) if public(&s.vis) => types.insert(s.ident.to_string()),
                Item::Enum(e) if public(&e.vis) => types.insert(e.ident.to_string()),
                Item::Union(u) if public(&u.vis) => types.insert(u.ident.to_string()),
                Item::Type(t) if public(&t.vis) => types.insert(t.ident.to_string()),
                _ => false,
            };
        }
    }
    let mut lines = BTreeSet::new();
    for m in &modules {
        let path = m.path.join("::");
        for item in &m.items {
            list_item(&path, item, &types, &mut lines);
        }
    }
    // In the order of the paths (a type's fields, variants, methods and impls after it), not of
    // the attributes and keywords in front of them.
    let mut keyed: Vec<(String, String)> = lines.into_iter().map(|l| (sort_key(name, &l), l)).collect();
    keyed.sort();
    let mut out = String::new();
    for (_, line) in keyed {
        let _ = writeln!(out, "{line}");
    }
    Ok(out)
}

/// The path a line is about: its first `crate::…` path, or for a trait impl the module it is in
/// and the type's name.
fn sort_key(name: &str, line: &str) -> String {
    if let Some(rest) = line.strip_suffix(')').and_then(|l| l.rsplit_once(" (in ")) {
        let self_ty = rest.0.rsplit(" for ").next().unwrap_or_default();
        let self_name: String = self_ty.chars().take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':').collect();
        let self_name = self_name.rsplit("::").next().unwrap_or_default();
        return format!("{}::{self_name} ~{line}", rest.1);
    }
    let start = line.find(&format!("{name}::")).unwrap_or(0);
    let path: String = line[start..].chars().take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':').collect();
    format!("{} {line}", path.trim_end_matches(':'))
}

struct Module {
    path: Vec<String>,
    items: Vec<Item>,
}

/// Reads the module in `file` (or `inline` items) and, depth first, the modules it declares.
fn walk(file: &Path, path: Vec<String>, inline: Option<Vec<Item>>, out: &mut Vec<Module>) -> Result<(), String> {
    let items = match inline {
        Some(items) => items,
        None => {
            let text = std::fs::read_to_string(file).map_err(|e| format!("{}: {e}", file.display()))?;
            syn::parse_file(&text).map_err(|e| format!("{}: {e}", file.display()))?.items
        }
    };
    // Where this module's child files are: beside lib.rs/mod.rs, else in a folder of its name.
    let stem = file.file_stem().and_then(|s| s.to_str()).unwrap_or_default();
    let parent = file.parent().unwrap_or(Path::new("."));
    let dir: PathBuf = if matches!(stem, "lib" | "mod" | "main") { parent.to_path_buf() } else { parent.join(stem) };
    let mut kept = Vec::new();
    for item in items {
        if test_only(attrs_of(&item)) {
            continue;
        }
        if let Item::Mod(m) = &item {
            let mut child = path.clone();
            child.push(m.ident.to_string());
            match &m.content {
                Some((_, items)) => {
                    // An inline module's children live in a folder of its name.
                    walk(&dir.join(format!("{}.rs", m.ident)), child, Some(items.clone()), out)?;
                }
                None => {
                    let explicit = m.attrs.iter().find_map(path_attr);
                    let candidates = match explicit {
                        Some(p) => vec![dir_of_path_attr(file, &dir, &p)],
                        None => vec![dir.join(format!("{}.rs", m.ident)), dir.join(m.ident.to_string()).join("mod.rs")],
                    };
                    let found = candidates.iter().find(|p| p.exists()).ok_or_else(|| {
                        format!("{}: module {} not found at {:?}", file.display(), m.ident, candidates)
                    })?;
                    walk(found, child, None, out)?;
                }
            }
        }
        kept.push(item);
    }
    out.push(Module { path, items: kept });
    Ok(())
}

/// `#[path = "x.rs"]` on a module declared in a non-mod.rs file is relative to that file's folder.
fn dir_of_path_attr(file: &Path, _dir: &Path, p: &str) -> PathBuf {
    file.parent().unwrap_or(Path::new(".")).join(p)
}

fn path_attr(a: &Attribute) -> Option<String> {
    if !a.path().is_ident("path") {
        return None;
    }
    match &a.meta {
        syn::Meta::NameValue(nv) => match &nv.value {
            syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(s), .. }) => Some(s.value()),
            _ => None,
        },
        _ => None,
    }
}

fn attrs_of(item: &Item) -> &[Attribute] {
    match item {
        Item::Const(i) => &i.attrs,
        Item::Enum(i) => &i.attrs,
        Item::Fn(i) => &i.attrs,
        Item::Impl(i) => &i.attrs,
        Item::Macro(i) => &i.attrs,
        Item::Mod(i) => &i.attrs,
        Item::Static(i) => &i.attrs,
        Item::Struct(i) => &i.attrs,
        Item::Trait(i) => &i.attrs,
        Item::Type(i) => &i.attrs,
        Item::Union(i) => &i.attrs,
        Item::Use(i) => &i.attrs,
        _ => &[],
    }
}

fn test_only(attrs: &[Attribute]) -> bool {
    attrs
        .iter()
        .any(|a| a.path().is_ident("cfg") && a.meta.to_token_stream().to_string().replace(' ', "") == "cfg(test)")
}

fn public(vis: &Visibility) -> bool {
    matches!(vis, Visibility::Public(_))
}

/// The attributes that are part of an item's API, as they are written: derives, `cfg` (features),
/// `non_exhaustive`, `repr`, `deprecated`, `doc(hidden)`.
fn api_attrs(attrs: &[Attribute]) -> String {
    let mut s = String::new();
    for a in attrs {
        let p = a.path();
        let keep = p.is_ident("derive")
            || p.is_ident("cfg")
            || p.is_ident("non_exhaustive")
            || p.is_ident("repr")
            || p.is_ident("deprecated")
            || (p.is_ident("doc") && a.meta.to_token_stream().to_string().contains("hidden"));
        if keep {
            s.push_str(&tidy(&a.to_token_stream().to_string()));
            s.push(' ');
        }
    }
    s
}

/// One line of Rust as rustfmt would space it, from a token string or a pretty-printed item.
fn tidy(s: &str) -> String {
    let mut s = s.split_whitespace().collect::<Vec<_>>().join(" ");
    for (from, to) in [
        (" ,", ","),
        (" ;", ";"),
        (" :: ", "::"),
        (":: ", "::"),
        (" ::", "::"),
        ("( ", "("),
        (" )", ")"),
        ("[ ", "["),
        (" ]", "]"),
        (" < ", "<"),
        ("< ", "<"),
        (" >", ">"),
        ("& ", "&"),
        ("# [", "#["),
        (" (", "("),
        (",)", ")"),
        (",>", ">"),
        (", )", ")"),
        (", >", ">"),
        (" :", ":"),
        ("! [", "!["),
        ("' ", "'"),
    ] {
        while s.contains(from) {
            s = s.replace(from, to);
        }
    }
    // Put back the spaces the rules above took where Rust writes them.
    s = s.replace("->", " -> ").replace("  ", " ").replace(",", ", ").replace(",  ", ", ");
    s = s.replace("impl(", "impl (").replace("dyn(", "dyn (").replace("mut(", "mut (");
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// An item pretty-printed without docs or bodies, on one line.
fn unparse(item: Item) -> String {
    let file = syn::File { shebang: None, attrs: vec![], items: vec![item] };
    let text = prettyplease::unparse(&file);
    let line = tidy(text.trim_end().trim_end_matches("{}").trim_end_matches(';').trim_end());
    line.trim_end_matches(',').to_owned()
}

fn no_attrs(attrs: &mut Vec<Attribute>) {
    attrs.clear();
}

fn sig_line(vis: &Visibility, sig: &syn::Signature) -> String {
    let f = syn::ItemFn {
        attrs: vec![],
        vis: vis.clone(),
        sig: sig.clone(),
        block: Box::new(syn::Block { brace_token: Default::default(), stmts: vec![] }),
    };
    unparse(Item::Fn(f))
}

/// `fn name` in `line` becomes `fn path::name`.
fn qualify(line: &str, keyword: &str, name: &str, path: &str) -> String {
    let needle = format!("{keyword} {name}");
    match line.find(&needle) {
        Some(i) => format!("{}{keyword} {path}::{name}{}", &line[..i], &line[i + needle.len()..]),
        None => line.to_owned(),
    }
}

fn type_name(ty: &syn::Type) -> Option<String> {
    match ty {
        syn::Type::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
        syn::Type::Reference(r) => type_name(&r.elem),
        _ => None,
    }
}

fn list_item(path: &str, item: &Item, types: &BTreeSet<String>, out: &mut BTreeSet<String>) {
    match item {
        Item::Mod(m) if public(&m.vis) => {
            out.insert(format!("{}pub mod {path}::{}", api_attrs(&m.attrs), m.ident));
        }
        Item::Use(u) if public(&u.vis) => {
            let mut leaves = Vec::new();
            use_leaves(&u.tree, String::new(), &mut leaves);
            for (name, from) in leaves {
                out.insert(format!("{}pub use {path}::{name} = {from}", api_attrs(&u.attrs)));
            }
        }
        Item::Struct(s) if public(&s.vis) => {
            let attrs = api_attrs(&s.attrs);
            let mut head = s.clone();
            no_attrs(&mut head.attrs);
            match &s.fields {
                Fields::Named(named) => {
                    head.fields =
                        Fields::Named(syn::FieldsNamed { brace_token: named.brace_token, named: Default::default() });
                    let private = named.named.iter().filter(|f| !public(&f.vis)).count();
                    let line = unparse(Item::Struct(head));
                    let line = line.trim_end_matches("{}").trim_end().trim_end_matches('{').trim_end().to_owned();
                    let more = if private > 0 { format!(" {{ {private} private fields }}") } else { String::new() };
                    out.insert(format!("{attrs}{}{more}", qualify(&line, "struct", &s.ident.to_string(), path)));
                    for f in named.named.iter().filter(|f| public(&f.vis)) {
                        let ty = tidy(&f.ty.to_token_stream().to_string());
                        let fattrs = api_attrs(&f.attrs);
                        let ident = f.ident.as_ref().map(|i| i.to_string()).unwrap_or_default();
                        out.insert(format!("{fattrs}pub field {path}::{}::{ident}: {ty}", s.ident));
                    }
                }
                Fields::Unnamed(unnamed) => {
                    for f in head.fields.iter_mut() {
                        if !public(&f.vis) {
                            f.ty = syn::parse_quote!(_);
                        }
                        f.attrs.clear();
                    }
                    let _ = unnamed;
                    out.insert(format!(
                        "{attrs}{}",
                        qualify(&unparse(Item::Struct(head)), "struct", &s.ident.to_string(), path)
                    ));
                }
                Fields::Unit => {
                    out.insert(format!(
                        "{attrs}{}",
                        qualify(&unparse(Item::Struct(head)), "struct", &s.ident.to_string(), path)
                    ));
                }
            }
        }
        Item::Enum(e) if public(&e.vis) => {
            let attrs = api_attrs(&e.attrs);
            let mut head = e.clone();
            no_attrs(&mut head.attrs);
            head.variants = Default::default();
            let line = unparse(Item::Enum(head));
            let line = line.trim_end_matches("{}").trim_end().trim_end_matches('{').trim_end().to_owned();
            out.insert(format!("{attrs}{}", qualify(&line, "enum", &e.ident.to_string(), path)));
            for v in &e.variants {
                let mut v = v.clone();
                let vattrs = api_attrs(&v.attrs);
                v.attrs.clear();
                for f in v.fields.iter_mut() {
                    f.attrs.clear();
                }
                v.discriminant = None;
                out.insert(format!("{vattrs}variant {path}::{}::{}", e.ident, tidy(&v.to_token_stream().to_string())));
            }
        }
        Item::Union(u) if public(&u.vis) => {
            out.insert(format!("{}pub union {path}::{}", api_attrs(&u.attrs), u.ident));
        }
        Item::Trait(t) if public(&t.vis) => {
            let attrs = api_attrs(&t.attrs);
            let mut head = t.clone();
            no_attrs(&mut head.attrs);
            head.items.clear();
            let line = unparse(Item::Trait(head));
            let line = line.trim_end_matches("{}").trim_end().trim_end_matches('{').trim_end().to_owned();
            out.insert(format!("{attrs}{}", qualify(&line, "trait", &t.ident.to_string(), path)));
            for ti in &t.items {
                let line = match ti {
                    TraitItem::Fn(f) => {
                        let l = sig_line(&Visibility::Inherited, &f.sig);
                        let provided = if f.default.is_some() { " (provided)" } else { "" };
                        format!(
                            "{}{}{provided}",
                            api_attrs(&f.attrs),
                            qualify(&l, "fn", &f.sig.ident.to_string(), &format!("{path}::{}", t.ident))
                        )
                    }
                    TraitItem::Type(ty) => {
                        let mut ty = ty.clone();
                        ty.attrs.clear();
                        ty.default = None;
                        format!("{path}::{}: {}", t.ident, tidy(&ty.to_token_stream().to_string()))
                    }
                    TraitItem::Const(c) => {
                        let mut c = c.clone();
                        c.attrs.clear();
                        c.default = None;
                        format!("{path}::{}: {}", t.ident, tidy(&c.to_token_stream().to_string()))
                    }
                    _ => continue,
                };
                out.insert(line);
            }
        }
        Item::Fn(f) if public(&f.vis) => {
            let l = sig_line(&f.vis, &f.sig);
            out.insert(format!("{}{}", api_attrs(&f.attrs), qualify(&l, "fn", &f.sig.ident.to_string(), path)));
        }
        Item::Const(c) if public(&c.vis) => {
            let ty = tidy(&c.ty.to_token_stream().to_string());
            out.insert(format!("{}pub const {path}::{}: {ty}", api_attrs(&c.attrs), c.ident));
        }
        Item::Static(s) if public(&s.vis) => {
            let ty = tidy(&s.ty.to_token_stream().to_string());
            out.insert(format!("{}pub static {path}::{}: {ty}", api_attrs(&s.attrs), s.ident));
        }
        Item::Type(t) if public(&t.vis) => {
            let mut t = t.clone();
            let attrs = api_attrs(&t.attrs);
            no_attrs(&mut t.attrs);
            let name = t.ident.to_string();
            out.insert(format!("{attrs}{}", qualify(&unparse(Item::Type(t)), "type", &name, path)));
        }
        Item::Macro(m) if m.attrs.iter().any(|a| a.path().is_ident("macro_export")) => {
            if let Some(ident) = &m.ident {
                out.insert(format!("macro {}::{ident}!", path.split("::").next().unwrap_or(path)));
            }
        }
        Item::Impl(i) => {
            let Some(self_name) = type_name(&i.self_ty) else { return };
            if !types.contains(&self_name) {
                return;
            }
            let attrs = api_attrs(&i.attrs);
            if let Some((bang, trait_, _)) = &i.trait_ {
                let generics = if i.generics.params.is_empty() {
                    String::new()
                } else {
                    tidy(&i.generics.to_token_stream().to_string())
                };
                let bang = if bang.is_some() { "!" } else { "" };
                let where_ = i
                    .generics
                    .where_clause
                    .as_ref()
                    .map(|w| format!(" {}", tidy(&w.to_token_stream().to_string())))
                    .unwrap_or_default();
                out.insert(format!(
                    "{attrs}impl{generics} {bang}{} for {}{where_} (in {path})",
                    tidy(&trait_.to_token_stream().to_string()),
                    tidy(&i.self_ty.to_token_stream().to_string()),
                ));
                return;
            }
            for ii in &i.items {
                match ii {
                    ImplItem::Fn(f) if public(&f.vis) => {
                        let l = sig_line(&f.vis, &f.sig);
                        let fattrs = api_attrs(&f.attrs);
                        out.insert(format!(
                            "{attrs}{fattrs}{}",
                            qualify(&l, "fn", &f.sig.ident.to_string(), &format!("{path}::{self_name}"))
                        ));
                    }
                    ImplItem::Const(c) if public(&c.vis) => {
                        let ty = tidy(&c.ty.to_token_stream().to_string());
                        out.insert(format!("{attrs}pub const {path}::{self_name}::{}: {ty}", c.ident));
                    }
                    _ => {}
                }
            }
        }
        _ => {}
    }
}

/// The names a `use` tree brings in, each with the path it comes from.
fn use_leaves(tree: &UseTree, prefix: String, out: &mut Vec<(String, String)>) {
    let join = |p: &str, s: &str| if p.is_empty() { s.to_owned() } else { format!("{p}::{s}") };
    match tree {
        UseTree::Path(p) => use_leaves(&p.tree, join(&prefix, &p.ident.to_string()), out),
        UseTree::Name(n) => {
            let name = n.ident.to_string();
            if name == "self" {
                let last = prefix.rsplit("::").next().unwrap_or(&prefix).to_owned();
                out.push((last, prefix));
            } else {
                out.push((name.clone(), join(&prefix, &name)));
            }
        }
        UseTree::Rename(r) => out.push((r.rename.to_string(), join(&prefix, &r.ident.to_string()))),
        UseTree::Glob(_) => out.push(("*".to_owned(), join(&prefix, "*"))),
        UseTree::Group(g) => {
            for t in &g.items {
                use_leaves(t, prefix.clone(), out);
            }
        }
    }
}
