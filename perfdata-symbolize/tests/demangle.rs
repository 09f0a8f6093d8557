//! `demangle` against binutils' `c++filt -p -i` (libiberty's `cplus_demangle` without
//! DMGL_PARAMS and DMGL_VERBOSE: the flags perf 6.1 passes) on a committed sample of symbols from
//! cc1plus, libstdc++, node and libLLVM, chosen for what demanglers get wrong (literals, lambdas,
//! function pointers and pack expansions in template arguments, abi tags, decltype, vtables,
//! thunks, anonymous namespaces, ref-qualified members, Rust legacy names).
//! `bench/demangle-compare.sh` runs the same comparison over every symbol of those binaries.

use perfdata_symbolize::demangle;
use std::collections::BTreeSet;

fn testdata(name: &str) -> String {
    let path = format!("{}/../testdata/demangle/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

#[test]
fn demangles_as_cplus_demangle() {
    let symbols = testdata("symbols.tsv");
    // Names where we still differ from libiberty, each listed so that a regression elsewhere
    // and a fix here both fail the test (a fixed name must leave the list).
    let known: BTreeSet<&str> = testdata("known-differences.txt").leak().lines().collect();
    let mut wrong = Vec::new();
    let mut fixed = Vec::new();
    let mut n = 0;
    for line in symbols.lines() {
        let (mangled, expected) = line.split_once('\t').expect("mangled<TAB>c++filt");
        n += 1;
        let ours = demangle(mangled);
        match (ours == expected, known.contains(mangled)) {
            (false, false) => wrong.push(format!("{mangled}\n  c++filt: {expected}\n  ours:    {ours}")),
            (true, true) => fixed.push(mangled),
            _ => {}
        }
    }
    assert!(n > 2000, "the sample has {n} symbols");
    assert!(wrong.is_empty(), "{} of {n} differ from c++filt -p -i:\n{}", wrong.len(), wrong.join("\n"));
    assert!(fixed.is_empty(), "now equal to c++filt, remove from known-differences.txt:\n{}", fixed.join("\n"));
}

#[test]
fn literal_suffixes_and_special_names() {
    // Hand-checked against c++filt -p -i (binutils 2.40).
    for (mangled, expected) in [
        ("_ZN4llvm11IntervalMapImlLj8ENS_23IntervalMapHalfOpenInfoImEEE8iterator9eraseNodeEj",
         "llvm::IntervalMap<unsigned long, long, 8u, llvm::IntervalMapHalfOpenInfo<unsigned long> >::iterator::eraseNode"),
        ("_ZN1AILln1EE1fEv", "A<-1l>::f"),
        ("_ZN1AILy5EE1fEv", "A<5ull>::f"),
        ("_ZN1AILb1EE1fEv", "A<true>::f"),
        ("_ZTVN4Cody8ResolverE", "vtable for Cody::Resolver"),
        ("_ZTTSd", "VTT for std::iostream"),
        ("_ZThn8_N1A1fEv", "non-virtual thunk to A::f()"),
        ("_ZTv0_n24_N1AD1Ev", "virtual thunk to A::~A()"),
        ("_ZGTtNKSt9exception4whatEv", "transaction clone for std::exception::what() const"),
        ("_ZN12_GLOBAL__N_19gInpcTrieE", "(anonymous namespace)::gInpcTrie"),
        ("_ZNKRSt7__cxx1119basic_ostringstreamIwSt11char_traitsIwESaIwEE3strEv",
         "std::__cxx11::basic_ostringstream<wchar_t, std::char_traits<wchar_t>, std::allocator<wchar_t> >::str"),
        ("_ZN1A1fIDnEEvT_", "A::f<decltype(nullptr)>"),
        ("not_mangled", "not_mangled"),
        ("_ZN3foo3bar17h0123456789abcdefE", "foo::bar"),
        ("_ZN3foo3barE", "foo::bar"),
    ] {
        assert_eq!(demangle(mangled), expected, "{mangled}");
    }
}
