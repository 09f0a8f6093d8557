//! Compiles libiberty's demanglers for Rust and C++ (`libiberty/rust-demangle.c`,
//! `libiberty/cp-demangle.c`: what perf 6.1's `cplus_demangle` runs; see libiberty/README.md).

fn main() {
    println!("cargo:rerun-if-changed=libiberty");
    cc::Build::new()
        .file("libiberty/cp-demangle.c")
        .file("libiberty/rust-demangle.c")
        .include("libiberty")
        // What libiberty's configure defines on Linux for this file.
        .define("HAVE_STDLIB_H", None)
        .define("HAVE_STRING_H", None)
        .define("HAVE_LIMITS_H", None)
        .define("HAVE_ALLOCA_H", None)
        // Keep its functions out of the dynamic symbol table of a shared object (the Python
        // extension): a process that also loads another libiberty keeps each its own.
        .flag_if_supported("-fvisibility=hidden")
        .warnings(false)
        .compile("perfdata_libiberty_demangle");
}
