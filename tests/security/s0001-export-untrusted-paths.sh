#!/bin/bash
# SPDX-License-Identifier: MIT
# A hostile commit cannot make the daemon's export write outside its
# scratch directory: a tree entry named "..", ".git" or "." (which git's
# own path checks refuse but which objects fetched without fsck may hold)
# fails the export with the reason, and links in the tree are not followed
# or created.  The objects are written raw, as a hostile push would bring
# them.
. "$(dirname "$0")/../tap.sh"

plan 6

repo=$SCRATCH/repo
git init -q -b main "$repo"
cd "$repo" || exit 1
git config user.email t@example.com
git config user.name Tester

# tree ENTRY...: a raw tree object from "mode name sha" entries, written unchecked
tree() {
	python3 - "$@" <<'PY' | git hash-object -w -t tree --literally --stdin
import sys
out = b""
for e in sys.argv[1:]:
    mode, name, sha = e.split(" ")
    out += mode.encode() + b" " + name.encode() + b"\0" + bytes.fromhex(sha)
sys.stdout.buffer.write(out)
PY
}
blob() { printf '%s\n' "$1" | git hash-object -w --stdin; }

k=$(blob kernel)
h=$(blob host)
evil=$(blob "written outside")
op_host=$(tree "100644 x.cpp $h")
op_kernel=$(tree "100644 x.cpp $k")
escape=$(tree "100644 escaped.txt $evil")
link=$(printf '%s' "/etc/passwd" | git hash-object -w --stdin)

# export COMMIT: the daemon's export of ops/x into $SCRATCH/out/repo; its status and error
export_op() {
	rm -rf "$SCRATCH/out"
	"$BUILD/tests/helpers/export-op" "$repo" "$1" ops/x "$SCRATCH/out/repo"
}

for bad in .. .git .GIT; do
	op=$(tree "040000 op_host $op_host" "040000 op_kernel $op_kernel" "040000 $bad $escape")
	ops=$(tree "040000 x $op")
	root=$(tree "040000 ops $ops")
	commit=$(git commit-tree -m "bad $bad" "$root")
	out=$(export_op "$commit" 2>&1)
	contains "an entry named $bad fails the export and says so" "$out" "an entry named \"$bad\""
done
check "nothing was written outside the export" \
	test ! -e "$SCRATCH/out/escaped.txt" -a ! -e "$SCRATCH/escaped.txt" -a ! -e "$SCRATCH/out/repo/ops/escaped.txt"

op=$(tree "040000 op_host $op_host" "040000 op_kernel $op_kernel" "120000 passwd $link")
root=$(tree "040000 ops $(tree "040000 x $op")")
commit=$(git commit-tree -m "a link" "$root")
out=$(export_op "$commit" 2>&1)
is "a tree with a link exports" "$?" 0
check "without the link" test ! -e "$SCRATCH/out/repo/ops/x/passwd" -a ! -L "$SCRATCH/out/repo/ops/x/passwd"

done_testing
