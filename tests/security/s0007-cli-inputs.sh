#!/bin/bash
# SPDX-License-Identifier: MIT
# Inputs a user or a client gives are checked before anything acts on
# them: an operator path that climbs out of its repository, a branch of
# ascendopt's own output, a timeout that is not a number of seconds, an
# operator directory that does not exist; a config the daemon cannot use.
. "$(dirname "$0")/../tap.sh"
plan 17

repo=$SCRATCH/ops
sock=$SCRATCH/ascendoptd.sock
cfg=$SCRATCH/ascendoptd.json
export ASCENDOPT_SOCKET=$sock
cli() { "$BUILD/ascendopt" "$@"; }

git init -q -b main "$repo"
(
	cd "$repo" && git config user.email t@example.com && git config user.name Tester &&
	mkdir -p ops/add/op_host ops/add/op_kernel &&
	echo h >ops/add/op_host/add.cpp && echo k >ops/add/op_kernel/add.cpp &&
	git add -A && git commit -qm initial && git branch ascendopt/main/ops/add
)
printf '{"state_dir": "%s/state", "socket": "%s", "devices": 1, "repos": [{"path": "%s", "branches": ["*"]}]}' \
	"$SCRATCH" "$sock" "$repo" >"$cfg"
"$BUILD/ascendoptd" --config "$cfg" 2>>"$SCRATCH/log" &
pid=$!
for _ in $(seq 100); do [ -S "$sock" ] && cli status >/dev/null 2>&1 && break; sleep 0.05; done
cli pause >/dev/null

contains "enqueue refuses an operator path with '..'" "$(cli enqueue "$repo" ../../etc 2>&1)" "no '.' or '..' component"
contains "and an absolute one" "$(cli enqueue "$repo" /etc 2>&1)" "relative"
contains "enqueue refuses ascendopt's own sibling branch" \
	"$(cli enqueue "$repo" ops/add --branch ascendopt/main/ops/add 2>&1)" "publish prefix"
is "and a pattern matching it picks the user's branch instead" \
	"$(cli enqueue "$repo" ops/add --json 2>/dev/null | python3 -c 'import json, sys; print(json.load(sys.stdin)["branch"])')" main
# an operator folder whose name holds a terminal escape (git allows it in a tree)
esc=$(printf 'ops/x\033[2Jy')
(cd "$repo" && git checkout -q main && mkdir -p "$esc/op_host" "$esc/op_kernel" &&
	echo h >"$esc/op_host/a.cpp" && echo k >"$esc/op_kernel/a.cpp" && git add -A && git commit -qm esc)
for _ in $(seq 60); do cli queue --json 2>/dev/null | grep -q 'x\\u001b' && break; sleep 0.1; done
out=$(cli queue; cli episodes)
check "queue and episodes show a path's escape sequence as '?', never raw" \
	bash -c '! grep -q $'"'"'\033'"'"' <<<"$1" && grep -q "ops/x?\[2Jy" <<<"$1"' _ "$out"
post() { # BODY: the daemon's answer to POST /v1/enqueue with that body
	python3 - "$sock" "$1" <<'PY'
import socket, sys
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])
body = sys.argv[2].encode()
s.sendall(b"POST /v1/enqueue HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\nConnection: close\r\n\r\n" % len(body) + body)
print(s.makefile("rb").read().decode(errors="replace").split("\r\n\r\n", 1)[-1])
PY
}
contains "a body that is not JSON is told where it broke" "$(post '{"repo": ')" "not JSON"
contains "a JSON body that is not an object is told what to send" "$(post '[1, 2]')" "must be a JSON object"
# a member of the daemon's group through a supplementary group may change things
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null; then
	chmod 0711 "$SCRATCH"
	out=$(setpriv --reuid=65534 --regid=65534 --groups="$(id -g)" "$BUILD/ascendopt" resume 2>&1)
	is "a client whose supplementary groups hold the daemon's group may resume it" "$?/$out" "0/$out"
else
	skip "a client in the daemon's group by a supplementary group: needs root and setpriv"
fi
kill -TERM "$pid"
wait "$pid"

cli eval "$SCRATCH" --timeout nan >/dev/null 2>&1
is "--timeout nan is a usage error" "$?" 64
cli eval "$SCRATCH" --timeout 1e9 >/dev/null 2>&1
is "so is a timeout of 30 years" "$?" 64
cli rewind "$SCRATCH/nonexistent" >/dev/null 2>&1
is "rewind of a missing operator fails (EX_NOINPUT)" "$?" 66

# the daemon's config: a FIFO, a prefix git refuses, a socket path too long
mkfifo "$SCRATCH/fifo.json"
out=$(timeout 10 "$BUILD/ascendoptd" --config "$SCRATCH/fifo.json" --check-config 2>&1)
contains "a FIFO as the config is refused at once (it used to hang)" "$out" "not a regular file"
echo '{"publish": {"prefix": "a/../b/"}}' >"$SCRATCH/c.json"
contains "a publish prefix with '..' is refused" \
	"$("$BUILD/ascendoptd" --config "$SCRATCH/c.json" --check-config 2>&1)" ".publish.prefix"
printf '{"socket": "%s/%0200d"}' "$SCRATCH" 0 >"$SCRATCH/c.json"
contains "a socket path longer than a unix socket allows is refused" \
	"$("$BUILD/ascendoptd" --config "$SCRATCH/c.json" --check-config 2>&1)" ".socket"

# a data blob in an operator: never scanned as a source, never copied into candidates
cp -r "$SRC/tests/ops/ok/unary_ops" "$SCRATCH/blob"
head -c 5000000 /dev/zero >"$SCRATCH/blob/op_kernel/table.bin"
is "eval of an operator holding a 5 MB data file still runs" \
	"$(cli eval "$SCRATCH/blob" --state-dir "$SCRATCH/bstate" --json 2>/dev/null |
		python3 -c 'import json, sys; print(json.load(sys.stdin)["status"])')" ok
contains "optimize refuses it, naming the file and the limit" \
	"$(cli optimize "$SCRATCH/blob" --state-dir "$SCRATCH/bstate" --budget 2 2>&1)" "table.bin: larger than the 4096 KiB"

# a baseline that fails leaves nothing in the scratch directory
cli optimize "$SRC/tests/ops/bad/acc_val_unset" --state-dir "$SCRATCH/fstate" --budget 2 >/dev/null 2>&1
is "a failed baseline leaves no scratch behind" "$(ls -A "$SCRATCH/fstate/scratch" 2>/dev/null)" ""
done_testing
