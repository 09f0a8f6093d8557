//! Each library crate's public API, listed from its sources, equals its checked-in `public-api.txt`: a
//! change of API is a visible diff in review (and goes into CHANGELOG.md). After a change on
//! purpose, `UPDATE_PUBLIC_API=1 cargo test -p public-api` rewrites the files.

use std::path::Path;

fn check(name: &str, dir: &str) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let dir = root.join(dir);
    let listed = match public_api::listing(name, &dir) {
        Ok(l) => l,
        Err(e) => panic!("{e}"),
    };
    let file = dir.join("public-api.txt");
    if std::env::var_os("UPDATE_PUBLIC_API").is_some() {
        if let Err(e) = std::fs::write(&file, &listed) {
            panic!("{}: {e}", file.display());
        }
        return;
    }
    let stored = std::fs::read_to_string(&file).unwrap_or_default();
    if stored != listed {
        let old: std::collections::BTreeSet<&str> = stored.lines().collect();
        let new: std::collections::BTreeSet<&str> = listed.lines().collect();
        let mut diff = String::new();
        for l in old.difference(&new) {
            diff.push_str(&format!("- {l}\n"));
        }
        for l in new.difference(&old) {
            diff.push_str(&format!("+ {l}\n"));
        }
        panic!(
            "the public API of {name} is not what {} lists:\n{diff}\
             If the change is on purpose: UPDATE_PUBLIC_API=1 cargo test -p public-api, and a CHANGELOG.md line.",
            file.display()
        );
    }
}

#[test]
fn perfdata_core() {
    check("perfdata_core", "perfdata-core");
}

#[test]
fn perfdata_symbolize() {
    check("perfdata_symbolize", "perfdata-symbolize");
}

#[test]
fn perfdata_analysis() {
    check("perfdata_analysis", "perfdata-analysis");
}

#[test]
fn perfdata_wasm() {
    check("perfdata_wasm", "perfdata-wasm");
}
