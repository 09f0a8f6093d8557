# lib.sh - shell helpers sourced by record.sh, script-rec/record.sh, gen-report.sh and
# diff/gen-diff.sh.

# busy_on / busy_off: keep CPU 1 busy with a niced shell loop (CPU 1 of the recording VM drops
# events raised while it idles); BUSY holds its pid.
BUSY=
busy_on() {
	taskset -c 1 nice -n 19 sh -c 'while :; do :; done' &
	BUSY=$!
	sleep 0.2
}
busy_off() {
	[ -n "$BUSY" ] && kill "$BUSY" 2>/dev/null && wait "$BUSY" 2>/dev/null
	BUSY=
}

# fixture_cache: a throwaway HOME whose build-id cache (~/.debug) holds the recorded binaries (the
# real ones where this machine has them with the recorded build ids, testdata/folded's extracts
# for the rest) and the recording kernel's kallsyms, so perf names the committed recordings'
# frames on any machine. Run in testdata/. The cache goes when the shell exits.
fixture_cache() {
	HOME=$(mktemp -d)
	export HOME
	trap 'rm -rf "$HOME"' EXIT
	for f in bin/spin /usr/lib/x86_64-linux-gnu/libc.so.6 /usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2 \
		$(find folded/root -type f); do
		perf buildid-cache -a "$f" 2>/dev/null || true
	done
	# perf reads a kernel's kallsyms from the cache by its build id; it needs _text: folded's
	# extract (the one perfdata's tests read) with _text first. (kmod/kallsyms, made so from an
	# older extract, lacks functions added since, which perf then names by a __pfx_ symbol before.)
	local kernel=4a5a9b0affb66c437abcd455d2738af879985fa9
	mkdir -p "$HOME/.debug/[kernel.kallsyms]/$kernel"
	{ echo 'ffffffff81000000 T _text'; cat "folded/kallsyms-$kernel"; } > "$HOME/.debug/[kernel.kallsyms]/$kernel/kallsyms"
}
