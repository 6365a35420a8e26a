#!/bin/sh
# misbehave.sh DIR BEHAVIOURS ROLE ARGS...
#
# A benchmark (ROLE benchmark) or fixtures command (ROLE fixtures) that
# runs benchsim from DIR and misbehaves as the comma-separated BEHAVIOURS
# say. It ignores SIGTERM, as do the processes it starts, and appends the
# pid of each of them to DIR/pids.
#
#   linger          the benchmark stays after writing its rows
#   seed-hang       the fixtures seed never ends (also status-, cleanup-)
#   detach          the ghx benchmark of the whole set leaves a writer in a
#                   session of its own, which appends a failing row to the
#                   mode's file once DIR/go exists
#   fifo-MODE       MODE's benchmark leaves a FIFO where its rows belong
#   zero-MODE       ... a link to /dev/zero
#   nan-MODE        MODE's benchmark writes NaN for the latency of its
#                   first row (not JSON), in every run
#   flood           the ghx benchmark of the whole set writes 600 MiB
#                   without a newline (a sparse file) before its rows, and
#                   stays until DIR/go exists
#   tamper-HOW      the ghx benchmark of a --scenario run (a rerun) changes
#                   attempt 0's ghx file after writing its own rows; HOW is
#                   append (a failing row), delete, truncate (to 0 bytes)
#                   or rewrite (every row failing, the file replaced by
#                   rename); DIR/tampered says whether the change went through
#   force           ... after making that file and its folder writable
#   tamper-earlier-set  the ghx benchmark of set pr-thread-mutations (in an
#                   ordered run) appends a failing row to the attempt 0 ghx
#                   file of set pr-exec, which ended before it
#   manifest-delete the ghx benchmark of set pr-exec deletes the manifest
#                   $SHARED_MANIFEST names
#   manifest-switch ... rewrites it to name another repository
#   attack          every benchmark run sources DIR/attack.sh once its rows
#                   are written, with $mode, $out, $whole (yes for the whole
#                   set, no for a --scenario rerun) and $set; every
#                   fixtures command sources DIR/fixtures-attack.sh with
#                   $action (seed, status, cleanup)
dir=$1 how=$2 role=$3
shift 3
trap '' TERM
has() { case ",$how," in *",$1,"*) return 0 ;; esac; return 1; }
linger() { sleep 100000 & echo $! >> "$dir/pids"; wait $!; }
echo $$ >> "$dir/pids"
if [ "$role" = fixtures ]; then
	if has "$1-hang"; then linger; fi
	action=$1
	if has attack && [ -e "$dir/fixtures-attack.sh" ]; then . "$dir/fixtures-attack.sh"; fi
	exec "$dir/benchsim" fixtures "$@"
fi
mode=$1 out= prev= whole=no set=
for a in "$@"; do
	[ "$prev" = --output-jsonl ] && out=$a
	[ "$prev" = --scenario-set ] && set=$a
	[ "$a" = --scenario-set ] && whole=yes
	prev=$a
done
if has "fifo-$mode"; then mkfifo "$out"; exit 0; fi
if has "zero-$mode"; then ln -s /dev/zero "$out"; exit 0; fi
if has flood && [ "$whole" = yes ] && [ "$mode" = ghx ]; then
	truncate -s 600M "$out" && printf '\n' >> "$out"
fi
"$dir/benchsim" benchmark "$@" || exit $?
if has "nan-$mode"; then
	sed -i '1s/"latency_ms_wall":[0-9.]*/"latency_ms_wall":NaN/' "$out"
fi
if has detach && [ "$whole" = yes ] && [ "$mode" = ghx ]; then
	setsid sh -c 'echo $$ >> "$1/pids"; echo $$ > "$1/detached.pid"
		while [ ! -e "$1/go" ]; do sleep 0.05; done
		echo "{\"late\":\"row\"}" >> "$2"' sh "$dir" "$out" &
	while [ ! -e "$dir/detached.pid" ]; do sleep 0.05; done
fi
if [ "$set" = pr-exec ] && [ "$mode" = ghx ]; then
	if has manifest-delete; then rm -f "$SHARED_MANIFEST"; fi
	if has manifest-switch; then
		sed -i 's/"full_name": *"[^"]*"/"full_name": "other-org\/other-repo"/' "$SHARED_MANIFEST"
	fi
fi
if has tamper-earlier-set && [ "$set" = pr-thread-mutations ] && [ "$mode" = ghx ]; then
	for target in "$(dirname "$out")"/../../../../pr-exec/_run/*/attempt-0/ghx-suite.jsonl; do
		row=$(head -n 1 "$target" | sed 's/"success":true/"success":false/')
		printf '%s\n' "$row" >> "$target" && echo yes > "$dir/tampered"
	done
fi
tamper=no
case ",$how," in *,tamper-append,* | *,tamper-delete,* | *,tamper-truncate,* | *,tamper-rewrite,*) tamper=yes ;; esac
if [ "$tamper" = yes ] && [ "$whole" = no ] && [ "$mode" = ghx ]; then
	target=$(dirname "$out")/../attempt-0/ghx-suite.jsonl
	if has force; then chmod u+w "$(dirname "$target")" "$target"; fi
	ok=no
	if has tamper-append; then
		row=$(head -n 1 "$target" | sed 's/"success":true/"success":false/')
		printf '%s\n' "$row" >> "$target" && ok=yes
	elif has tamper-delete; then
		rm -f "$target" && [ ! -e "$target" ] && ok=yes
	elif has tamper-truncate; then
		truncate -s 0 "$target" && ok=yes
	elif has tamper-rewrite; then
		sed 's/"success":true/"success":false/' "$target" > "$target.new" && mv -f "$target.new" "$target" && ok=yes
	fi
	echo "$ok" > "$dir/tampered"
fi
if has attack; then . "$dir/attack.sh"; fi
if has flood && [ "$whole" = yes ] && [ "$mode" = ghx ]; then
	while [ ! -e "$dir/go" ]; do sleep 0.05; done
fi
if has linger; then linger; fi
exit 0
