# lib.sh - shell helpers sourced by record.sh and script-rec/record.sh.

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
