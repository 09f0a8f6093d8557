//! Links the system's libiberty (Debian's `libiberty-dev`: the library perf 6.1 links, whose
//! `cplus_demangle` names every ELF symbol perf prints) when the C compiler finds a usable
//! `libiberty.a`, and says so with `cfg(libiberty)`; otherwise the crate demangles with the
//! pure-Rust `cpp_demangle` and `rustc-demangle` (see src/demangle.rs and docs/demangling.md).
//!
//! Found by asking the C compiler for `libiberty.a` (`cc -print-file-name`), or taken from
//! `PERFDATA_LIBIBERTY=/path/to/libiberty.a`; `PERFDATA_LIBIBERTY=none` forces the fallback.
//! A library is used only when a probe that calls the two demanglers links into a shared object
//! with it: that checks it has them and that its code is position-independent (the Python
//! extension is a shared object). Its symbols stay out of what our shared objects export: rustc
//! gives a cdylib a version script exporting only its own entry points.

use std::env;
use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    println!("cargo::rerun-if-env-changed=PERFDATA_LIBIBERTY");
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rustc-check-cfg=cfg(libiberty)");
    let demangler = match find_libiberty() {
        Ok(lib) => {
            println!("cargo::rerun-if-changed={}", lib.display());
            let dir = lib.parent().unwrap_or(Path::new("/"));
            println!("cargo::rustc-link-search=native={}", dir.display());
            println!("cargo::rustc-link-lib=static=iberty");
            println!("cargo::rustc-cfg=libiberty");
            format!("libiberty ({})", lib.display())
        }
        Err(why) => {
            println!(
                "cargo::warning=demangling with cpp_demangle and rustc-demangle, not perf's libiberty ({why}); \
                 install libiberty-dev for perf's exact names"
            );
            "cpp_demangle + rustc-demangle (no libiberty)".to_string()
        }
    };
    println!("cargo::rustc-env=PERFDATA_DEMANGLER={demangler}");
}

/// The `libiberty.a` to link, or why there is none.
fn find_libiberty() -> Result<PathBuf, String> {
    if env::var("CARGO_CFG_TARGET_ARCH").as_deref() == Ok("wasm32") {
        return Err("a wasm32 build has no libiberty".into());
    }
    let compiler = cc::Build::new().cargo_metadata(false).cargo_warnings(false).get_compiler();
    let lib = match env::var_os("PERFDATA_LIBIBERTY") {
        Some(v) if v == "none" => return Err("PERFDATA_LIBIBERTY=none".into()),
        Some(v) => PathBuf::from(v),
        None => {
            let out = Command::new(compiler.path())
                .arg("-print-file-name=libiberty.a")
                .output()
                .map_err(|e| format!("{}: {e}", compiler.path().display()))?;
            // gcc and clang print the name alone when no library directory holds it.
            PathBuf::from(String::from_utf8_lossy(&out.stdout).trim())
        }
    };
    if !lib.is_absolute() || !lib.is_file() {
        return Err(format!("no libiberty.a found by {}", compiler.path().display()));
    }
    let lib = lib.canonicalize().unwrap_or(lib);
    probe(&compiler, &lib)?;
    Ok(lib)
}

/// Links a shared object that calls the two demanglers perfdata calls against `lib`.
fn probe(compiler: &cc::Tool, lib: &Path) -> Result<(), String> {
    let dir = PathBuf::from(env::var_os("OUT_DIR").ok_or("no OUT_DIR")?);
    let src = dir.join("libiberty-probe.c");
    std::fs::write(
        &src,
        "typedef void (*cb)(const char *, unsigned long, void *);\n\
         int rust_demangle_callback(const char *, int, cb, void *);\n\
         int cplus_demangle_v3_callback(const char *, int, cb, void *);\n\
         int probe(const char *s, cb f) { return rust_demangle_callback(s, 0, f, 0) + cplus_demangle_v3_callback(s, 0, f, 0); }\n",
    )
    .map_err(|e| format!("{}: {e}", src.display()))?;
    let out = dir.join("libiberty-probe.so");
    let result = compiler
        .to_command()
        .args(["-shared", "-fPIC", "-Wl,--no-undefined", "-o"])
        .arg(&out)
        .arg(&src)
        .arg(lib)
        .arg("-lc")
        .output()
        .map_err(|e| format!("{}: {e}", compiler.path().display()))?;
    if result.status.success() {
        Ok(())
    } else {
        let err = String::from_utf8_lossy(&result.stderr);
        Err(format!("{} does not link into a shared object: {}", lib.display(), err.lines().next().unwrap_or("")))
    }
}
