#!/bin/bash
# SPDX-License-Identifier: MIT
# The daemon's own costs: memory when idle and after the commits, as the
# machine pays it (private dirty pages, target <= 8 MiB idle, and the
# proportional share PSS; RSS also counts clean library pages that other
# processes share and the kernel can drop, so it is shown for reference),
# commit-to-queued latency (p50, p99) and queue round trips per second
# through the CLI.  The latency is sampled by polling every 10 ms, so it
# includes up to 10 ms of the probe; the inotify settle delay is part of it.
set -euo pipefail

SRC=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "${BUILD:-$SRC/build}" && pwd)
COMMITS=${BENCH_COMMITS:-30}
ENQUEUES=${BENCH_ENQUEUES:-200}
dir=$(mktemp -d "${TMPDIR:-/tmp}/ascendopt-bench.XXXXXX")
pid=
cleanup() { [ -n "$pid" ] && kill -TERM "$pid" 2>/dev/null && wait "$pid" 2>/dev/null; rm -rf "$dir"; }
trap cleanup EXIT
export ASCENDOPT_SOCKET=$dir/ascendoptd.sock ASCENDOPT_SEED_BANK=
cli() { "$BUILD/ascendopt" "$@"; }

repo=$dir/ops
git init -q -b main "$repo"
git -C "$repo" config user.email b@example.com
git -C "$repo" config user.name Bench
for op in add relu; do
	mkdir -p "$repo/ops/$op/op_host" "$repo/ops/$op/op_kernel"
	echo h >"$repo/ops/$op/op_host/$op.cpp"
	echo k >"$repo/ops/$op/op_kernel/$op.cpp"
done
git -C "$repo" add -A && git -C "$repo" commit -qm initial
printf '{"state_dir": "%s/state", "socket": "%s", "devices": 1, "repos": [{"path": "%s"}]}' \
	"$dir" "$ASCENDOPT_SOCKET" "$repo" >"$dir/cfg.json"
"$BUILD/ascendoptd" --config "$dir/cfg.json" 2>"$dir/log" &
pid=$!
for _ in $(seq 200); do cli status >/dev/null 2>&1 && break; sleep 0.05; done
cli pause >/dev/null # the operators are not real: queue only
sleep 2
# smaps_rollup FIELD: the daemon's total of one field, in KiB
smaps() { awk -v f="$1:" '$1 == f {print $2}' "/proc/$pid/smaps_rollup"; }
rss_kib=$(awk '/^VmRSS/ {print $2}' "/proc/$pid/status")
dirty_kib=$(smaps Private_Dirty)
pss_kib=$(smaps Pss)
cpu_before=$(awk '{print $14 + $15}' "/proc/$pid/stat")
sleep 3
cpu_idle=$(($(awk '{print $14 + $15}' "/proc/$pid/stat") - cpu_before))

latencies=()
for i in $(seq "$COMMITS"); do
	echo "$i" >"$repo/ops/add/op_kernel/add.cpp"
	echo "$i" >"$repo/ops/relu/op_kernel/relu.cpp"
	git -C "$repo" commit -qam "c$i"
	start=$(date +%s%N)
	commit=$(git -C "$repo" rev-parse HEAD)
	until cli queue --json | grep -q "$commit"; do sleep 0.01; done
	latencies+=($((($(date +%s%N) - start) / 1000000)))
done
sorted=$(printf '%s\n' "${latencies[@]}" | sort -n)
p50=$(echo "$sorted" | awk -v n="${#latencies[@]}" 'NR == int((n + 1) / 2)')
p99=$(echo "$sorted" | awk -v n="${#latencies[@]}" 'NR == int(n * 0.99 + 0.999)')

start=$(date +%s%N)
for i in $(seq "$ENQUEUES"); do
	cli enqueue "$repo" "ops/$([ $((i % 2)) = 0 ] && echo add || echo relu)" >/dev/null
done
elapsed_ms=$((($(date +%s%N) - start) / 1000000))
rss_after=$(awk '/^VmRSS/ {print $2}' "/proc/$pid/status")
dirty_after=$(smaps Private_Dirty)
pss_after=$(smaps Pss)

mib() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }
per_s=$(awk -v n="$ENQUEUES" -v ms="$elapsed_ms" 'BEGIN { printf "%.1f", n * 1000 / ms }')
printf '%-44s %10s\n' "daemon" "value"
printf '%-44s %9.1f MiB  (target <= 8)\n' "idle private dirty" "$(mib "$dirty_kib")"
printf '%-44s %9.1f MiB\n' "idle PSS" "$(mib "$pss_kib")"
printf '%-44s %9.1f MiB  (counts shared library pages)\n' "idle RSS" "$(mib "$rss_kib")"
printf '%-44s %10d ticks\n' "CPU while idle for 3 s (clock ticks)" "$cpu_idle"
printf '%-44s %7d ms\n' "commit-to-queued latency p50 ($COMMITS commits)" "$p50"
printf '%-44s %7d ms\n' "commit-to-queued latency p99" "$p99"
printf '%-44s %10.0f /s\n' "enqueue round trips via the CLI" "$per_s"
printf '%-44s %9.1f MiB\n' "private dirty after the run" "$(mib "$dirty_after")"
printf '%-44s %9.1f MiB\n' "PSS after the run" "$(mib "$pss_after")"
printf '%-44s %9.1f MiB\n' "RSS after the run" "$(mib "$rss_after")"
printf '{"bench":"daemon","idle_private_dirty_kib":%d,"idle_pss_kib":%d,"idle_rss_kib":%d,"idle_cpu_ticks":%d,"commit_to_queued_ms":{"p50":%d,"p99":%d},"enqueue_per_s":%.1f,"private_dirty_after_kib":%d,"pss_after_kib":%d,"rss_after_kib":%d}\n' \
	"$dirty_kib" "$pss_kib" "$rss_kib" "$cpu_idle" "$p50" "$p99" "$per_s" "$dirty_after" "$pss_after" "$rss_after"
