//! What could not be named is said (docs/damage.md, "Frames without a name"): after a command
//! that names frames, one stderr line counts the addresses left unnamed per DSO, with the cause —
//! the recorded kernel missing from the build-id cache, a binary replaced by another build, a
//! binary without symbols — and the exit status stays 0 (nothing in the input is damaged).

use std::path::{Path, PathBuf};
use std::process::Command;

fn testdata(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../testdata").join(name)
}

/// fp.data's kernel (its build id in the recording) and the extract of its kallsyms.
const KERNEL: &str = "4a5a9b0affb66c437abcd455d2738af879985fa9";

/// The lines every run below has besides its own: addresses no mapping covers (a frame-pointer
/// walk through libc code built without them; perf prints `[unknown]` for them too), and the
/// stand-in taskset under `root`, which has no symbols.
fn always(root: &Path) -> [String; 2] {
    [
        "[unknown] (11): no mapping covers 0x7fe7a9ef2ad7".into(),
        format!(
            "/usr/bin/taskset (1): {}/usr/bin/taskset has no function symbols (no .symtab or .dynsym)",
            root.display()
        ),
    ]
}

/// (status, stdout, stderr) of `perfdata ARGS` without `PERF_BUILDID_DIR`, plus `env`.
fn perfdata(args: &[&str], env: &[(&str, &Path)]) -> (i32, String, String) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_perfdata"));
    cmd.args(args).env_remove("PERF_BUILDID_DIR");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    let text = |b: Vec<u8>| String::from_utf8_lossy(&b).into_owned();
    (out.status.code().unwrap_or(-1), text(out.stdout), text(out.stderr))
}

/// A scratch directory, removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new(tag: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("perfdata-unnamed-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("cache")).unwrap();
        Scratch(dir)
    }

    /// An empty build-id cache.
    fn cache(&self) -> PathBuf {
        self.0.join("cache")
    }

    /// A copy of the fixtures' `--symfs` root without spin's debug file (so spin is read from
    /// its own file, which the caller may replace).
    fn root(&self) -> PathBuf {
        let root = self.0.join("root");
        copy_tree(&testdata("folded/root"), &root);
        std::fs::remove_dir_all(root.join("usr/lib/debug/.build-id/40")).unwrap();
        root
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let (src, dst) = (e.path(), to.join(e.file_name()));
        if e.file_type().unwrap().is_dir() {
            copy_tree(&src, &dst);
        } else {
            std::fs::copy(&src, &dst).unwrap();
        }
    }
}

/// The stderr line for `total` addresses in `dsos` DSOs, the first three parts shown.
fn line(total: u64, dsos: usize, parts: &[String]) -> String {
    let file = testdata("fp.data");
    format!("perfdata: warning: {}: {total} addresses unnamed in {dsos} DSOs: {}\n", file.display(), parts.join("; "))
}

/// Whether the running kernel is the one fp.data was recorded on (then its /proc/kallsyms names
/// the kernel frames, as perf would use it).
fn running_the_recorded_kernel() -> bool {
    std::fs::read("/sys/kernel/notes")
        .ok()
        .and_then(|n| perfdata_analysis::symbolize::running_kernel_build_id(&n))
        .is_some_and(|b| b.iter().map(|x| format!("{x:02x}")).collect::<String>() == KERNEL)
}

#[test]
fn kernel_missing_from_the_build_id_cache() {
    let s = Scratch::new("kernel");
    let fp = testdata("fp.data");
    let (fp, root) = (fp.to_str().unwrap(), testdata("folded/root"));
    let cache = s.cache();
    let mut parts = vec![format!(
        "[kernel.kallsyms] (148): no kallsyms for the recorded kernel: the running kernel is another \
         build (build id) (not in the build-id cache: {}/[kernel.kallsyms]/{KERNEL}/kallsyms)",
        cache.display()
    )];
    parts.extend(always(&root));
    let want = if running_the_recorded_kernel() { line(12, 2, &parts[1..]) } else { line(160, 3, &parts) };
    let root_s = root.to_str().unwrap();
    // --buildid-dir, and perf's variable for it.
    let by_flag = perfdata(&["folded", fp, "--symfs", root_s, "--buildid-dir", cache.to_str().unwrap()], &[]);
    let by_env = perfdata(&["folded", fp, "--symfs", root_s], &[("PERF_BUILDID_DIR", &cache)]);
    for (code, out, err) in [by_flag, by_env] {
        assert_eq!((code, err.as_str()), (0, want.as_str()));
        assert!(out.contains("spin;__libc_start_call_main;main;run;outer;leaf "), "{out}");
    }
}

#[test]
fn binary_replaced_by_another_build() {
    let s = Scratch::new("mismatch");
    let root = s.root();
    let spin = root.join("work/main/testdata/bin/spin");
    std::fs::copy(testdata("bin/jit"), &spin).unwrap();
    let kallsyms = testdata(&format!("folded/kallsyms-{KERNEL}"));
    let args = ["--symfs", root.to_str().unwrap(), "--kallsyms", kallsyms.to_str().unwrap()];
    let cache = s.cache();
    let (fp, cache) = (testdata("fp.data"), cache.to_str().unwrap());
    let mut parts = vec![format!(
        "/work/main/testdata/bin/spin (11): {} has build id 0b120964d767be4d906fc90de29f8674ec939fc6, the \
         recording expects 4019a4393ac48b472730234207e7f39e5272adc9",
        spin.display()
    )];
    parts.extend(always(&root));
    let (code, out, err) =
        perfdata(&[&["folded", fp.to_str().unwrap(), "--buildid-dir", cache][..], &args].concat(), &[]);
    assert_eq!((code, err.as_str()), (0, line(23, 3, &parts).as_str()));
    // perf's reading of a rejected binary: its frames without names.
    assert!(out.contains("spin;[unknown];[unknown]"), "{out}");
    // report and script say the same (their counts are their own lookups').
    for cmd in ["report", "script"] {
        let (code, _, err) = perfdata(&[&[cmd, fp.to_str().unwrap(), "--buildid-dir", cache][..], &args].concat(), &[]);
        assert_eq!(code, 0, "{cmd}");
        assert_eq!(err.lines().count(), 1, "{cmd}: {err}");
        assert!(err.contains("/work/main/testdata/bin/spin (") && err.contains("has build id 0b12"), "{cmd}: {err}");
    }
}

/// Hide the `.symtab` of an ELF64 little-endian file (its section type becomes SHT_NULL): what
/// `strip` leaves for symbols.
fn hide_symtab(path: &Path) {
    let mut d = std::fs::read(path).unwrap();
    let u16_at = |d: &[u8], o: usize| u16::from_le_bytes([d[o], d[o + 1]]) as usize;
    let shoff = u64::from_le_bytes(d[0x28..0x30].try_into().unwrap()) as usize;
    let (size, n) = (u16_at(&d, 0x3a), u16_at(&d, 0x3c));
    let mut hidden = 0;
    for i in 0..n {
        let ty = shoff + i * size + 4;
        if d[ty..ty + 4] == 2u32.to_le_bytes() {
            d[ty..ty + 4].copy_from_slice(&0u32.to_le_bytes());
            hidden += 1;
        }
    }
    assert_eq!(hidden, 1, "{} has one .symtab", path.display());
    std::fs::write(path, d).unwrap();
}

#[test]
fn stripped_binary() {
    let s = Scratch::new("stripped");
    let root = s.root();
    let spin = root.join("work/main/testdata/bin/spin");
    hide_symtab(&spin);
    let kallsyms = testdata(&format!("folded/kallsyms-{KERNEL}"));
    let fp = testdata("fp.data");
    let cache = s.cache();
    let (code, out, err) = perfdata(
        &[
            "folded",
            fp.to_str().unwrap(),
            "--symfs",
            root.to_str().unwrap(),
            "--kallsyms",
            kallsyms.to_str().unwrap(),
            "--buildid-dir",
            cache.to_str().unwrap(),
        ],
        &[],
    );
    let mut parts = vec![format!(
        "/work/main/testdata/bin/spin (11): {} has no function symbols (no .symtab or .dynsym)",
        spin.display()
    )];
    parts.extend(always(&root));
    assert_eq!((code, err.as_str()), (0, line(23, 3, &parts).as_str()));
    assert!(out.contains("spin;[unknown];[unknown]"), "{out}");
}
