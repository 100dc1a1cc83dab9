#!/bin/bash
# SPDX-License-Identifier: MIT
# Rewind with the optional LLM ('ascendopt rewind --llm', the scripted peer
# on loopback): the distiller rewrites each kept entry's title, description
# and bottleneck (a bottleneck outside the signature vocabulary is not
# taken), and once the motifs are spent the inverse agent's proposals are
# built, measured and kept like any step; one that does not compile or
# has no code block is discarded and counted.
# expensive: rewinds expert kernels with the scripted LLM peer
. "$(dirname "$0")/tap.sh"
plan 9
export TEST_LLM_KEY=sk-rewind-key
json_escape() { awk 'BEGIN { ORS = "" } { gsub(/\\/, "\\\\"); gsub(/"/, "\\\""); gsub(/\t/, "\\t"); print $0 "\\n" }' "$1"; }
answer() { # CONTENT-FILE
	printf '{"status": 200, "json": {"choices": [{"index": 0, "message": {"role": "assistant", "content": "%s"}, "finish_reason": "stop"}], "usage": {"prompt_tokens": 500, "completion_tokens": 100, "total_tokens": 600}}}' "$(json_escape "$1")"
}
op=$SRC/examples/ops/level1/relu
# a real de-optimization the motifs do not know, on the version the walk has
# reached (the expert without its L2 hints): a full barrier after every Relu
sed -e 's|^\t\tRelu(yLocal, xLocal, count);|\t\tRelu(yLocal, xLocal, count);\n\t\tPipeBarrier<PIPE_ALL>();|' \
	-e '/SetL2CacheHint/d' "$op/expert/op_kernel/relu_custom.cpp" >"$SCRATCH/slower.cpp"
{ echo '```cpp'; echo 'not a kernel'; echo '```'; } >"$SCRATCH/broken.txt"
{ echo '```cpp'; cat "$SCRATCH/slower.cpp"; echo '```'; echo 'Waits for every pipe after each Relu.'; } >"$SCRATCH/slower.txt"
echo 'I would rather not.' >"$SCRATCH/refusal.txt"
cat >"$SCRATCH/distilled.txt" <<'TEXT'
```json
{"title": "Distilled: stream once-read tensors past L2", "description": "The slow version let streamed tensors fill L2.", "bottleneck": "bound=mte2 stall=buffer_free"}
```
TEXT
cat >"$SCRATCH/distilled-bad.txt" <<'TEXT'
```json
{"title": "Distilled: one Relu pass", "description": "The slow version ran the vector pass twice.", "bottleneck": "made-up=tokens"}
```
TEXT
cat >"$SCRATCH/script.json" <<JSON
{"rules": [
  {"path": "/v1/chat/completions", "body_contains": "PipeBarrier<PIPE_ALL>();", "responses": [$(answer "$SCRATCH/distilled-bad.txt")]},
  {"path": "/v1/chat/completions", "body_contains": "write one entry", "responses": [$(answer "$SCRATCH/distilled.txt")]},
  {"path": "/v1/chat/completions", "body_contains": "propose ONE de-optimization", "responses": [$(answer "$SCRATCH/broken.txt"), $(answer "$SCRATCH/slower.txt"), $(answer "$SCRATCH/refusal.txt")]}
]}
JSON
coproc PEER { exec "$BUILD/tests/helpers/llm-peer" --script "$SCRATCH/script.json" --log "$SCRATCH/peer.log" --timeout 600; }
read -r port <&"${PEER[0]}"
cat >"$SCRATCH/ascendoptd.json" <<JSON
{"state_dir": "$SCRATCH/unused", "socket": "$SCRATCH/unused.sock", "repos": [],
 "llm": {"endpoint": "http://127.0.0.1:$port/v1", "model": "scripted-distiller", "api_key_env": "TEST_LLM_KEY"}}
JSON
export ASCENDOPT_PROMPTS_DIR=$SRC/etc/ascendopt/prompts
out=$("$BUILD/ascendopt" rewind "$op" --motifs l2_bypass --llm "$SCRATCH/ascendoptd.json" \
	--state-dir "$SCRATCH/state" --json 2>"$SCRATCH/stderr")
is "rewind with the LLM exits 0" "$?" 0
echo "$out" >"$SCRATCH/out.json"
contains "the l2_bypass step and the inverse agent's step are both kept" "$out" '"inverse_kept":1'
contains "three de-optimizations were asked for" "$out" '"inverse_asked":3'
contains "the one that does not compile is discarded" "$out" '"does_not_compile":1'
contains "so is the answer without code" "$out" '"no_code_block":1'
bank=$("$BUILD/ascendopt" experience --json --state-dir "$SCRATCH/state")
contains "the distiller's title replaces the motif's" "$bank" "Distilled: stream once-read tensors past L2"
contains "with its bottleneck" "$bank" '"bottleneck":"bound=mte2 stall=buffer_free"'
contains "the inverse agent's entry is in the bank as llm_inverse" "$bank" '"motif":"llm_inverse"'
case "$bank" in
*made-up=tokens*) not_ok "a bottleneck outside the vocabulary is not taken" ;;
*) ok "a bottleneck outside the vocabulary is not taken" ;;
esac
kill "$PEER_PID" 2>/dev/null; wait "$PEER_PID" 2>/dev/null
done_testing
