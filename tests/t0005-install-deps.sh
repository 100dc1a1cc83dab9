#!/bin/bash
# SPDX-License-Identifier: MIT
# scripts/install-deps is a no-op once everything is installed: it asks
# dpkg and never reaches apt-get (a stand-in first in PATH records any
# call), so make check and make demo cost nothing on a second run.
. "$(dirname "$0")/tap.sh"
plan 3
mkdir -p "$SCRATCH/bin"
for tool in apt-get apt sudo; do
	printf '#!/bin/sh\necho "%s $*" >>"%s/calls"\nexit 1\n' "$tool" "$SCRATCH" >"$SCRATCH/bin/$tool"
	chmod +x "$SCRATCH/bin/$tool"
done
PATH="$SCRATCH/bin:$PATH" "$SRC/scripts/install-deps" >"$SCRATCH/out" 2>&1; rc=$?
is "a second install-deps run succeeds" "$rc" 0
if [ -s "$SCRATCH/calls" ]; then
	not_ok "it called the package manager: $(head -n 1 "$SCRATCH/calls")"
else
	ok "it never calls apt-get, apt or sudo"
fi
if [ -s "$SCRATCH/out" ]; then not_ok "it printed: $(head -n 1 "$SCRATCH/out")"; else ok "it prints nothing"; fi
done_testing
