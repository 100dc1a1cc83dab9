#!/bin/bash
# SPDX-License-Identifier: MIT
# The optional LLM path end to end: ascendoptd with an OpenAI-compatible
# endpoint (the scripted peer on loopback) and a repo that allows it.  The
# peer answers the Stage I prompt with a known good tiling rewrite (blockDim
# from the vector core count) and the Stage II prompt with code that does
# not compile.  The rewrite must be built, measured, accepted and credited
# to the LLM in the report; the broken answer must be discarded with the
# compiler's reason and cost no evaluation; the key must be sent and never
# logged.
# expensive: episodes against the scripted LLM peer
. "$(dirname "$0")/tap.sh"
plan 22
repo=$SCRATCH/repo
sock=$SCRATCH/ascendoptd.sock
export ASCENDOPT_SOCKET=$sock
cli() { "$BUILD/ascendopt" "$@"; }
export TEST_LLM_KEY=sk-test-5ecret-do-not-log

git init -q -b main "$repo"
git -C "$repo" config user.email t@example.com
git -C "$repo" config user.name Tester
mkdir -p "$repo/ops/relu"
(cd "$SRC/examples/ops/level1/relu" && tar cf - --exclude=expert .) | tar xf - -C "$repo/ops/relu"
git -C "$repo" add -A
git -C "$repo" commit -qm "relu"

# the known good rewrite: the same host file with blockDim taken from the platform
sed 's|\tuint32_t blockLength = (totalLength + BLOCK_DIM - 1) / BLOCK_DIM;|\tauto ascendcPlatform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());\n\tuint32_t coreNum = ascendcPlatform.GetCoreNumAiv();\n\tuint32_t blockLength = (totalLength + coreNum - 1) / coreNum;|' \
	"$repo/ops/relu/op_host/relu_custom.cpp" >"$SCRATCH/rewrite.cpp"
json_escape() { awk 'BEGIN { ORS = "" } { gsub(/\\/, "\\\\"); gsub(/"/, "\\\""); gsub(/\t/, "\\t"); print $0 "\\n" }' "$1"; }
answer() { # CONTENT-FILE: a chat completion whose message is the file's text
	printf '{"status": 200, "json": {"id": "c1", "object": "chat.completion", "choices": [{"index": 0, "message": {"role": "assistant", "content": "%s"}, "finish_reason": "stop"}], "usage": {"prompt_tokens": 900, "completion_tokens": 300, "total_tokens": 1200}}}' "$(json_escape "$1")"
}
truncated() { # an answer cut off by max_tokens
	printf '{"status": 200, "json": {"choices": [{"index": 0, "message": {"role": "assistant", "content": "```cpp\\n#include \\"kernel_operator.h\\"\\nextern"}, "finish_reason": "length"}], "usage": {"prompt_tokens": 900, "completion_tokens": 4096, "total_tokens": 4996}}}'
}
{ echo "Took blockDim from the vector core count instead of a fixed 8."; echo '```cpp'; cat "$SCRATCH/rewrite.cpp"; echo '```'; } >"$SCRATCH/tiling-answer.txt"
{ echo '```cpp'; echo 'this is not a kernel at all'; echo '```'; } >"$SCRATCH/kernel-answer.txt"
embedding() { # VECTOR...: an embeddings answer, one row per vector
	local data= i=0 v
	for v in "$@"; do
		data="$data${data:+, }{\"object\": \"embedding\", \"index\": $i, \"embedding\": [$v]}"
		i=$((i + 1))
	done
	printf '{"status": 200, "json": {"object": "list", "data": [%s], "usage": {"prompt_tokens": 10, "total_tokens": 10}}}' "$data"
}
# a bank of two entries that BM25 cannot match to any signature; the one
# embedded second points where the query does
cat >"$SCRATCH/bank.json" <<JSON
{"entries": [
  {"title": "Entry Alpha", "description": "one rewrite", "bottleneck": "nothing=shared", "diff": "-a\n+b\n", "motif": "double_buffer"},
  {"title": "Entry Beta", "description": "another rewrite", "bottleneck": "nothing=shared", "diff": "-c\n+d\n", "motif": "hoist_duplicate"}
]}
JSON
export ASCENDOPT_SEED_BANK=$SCRATCH/bank.json
cat >"$SCRATCH/script.json" <<JSON
{"rules": [
  {"path": "/v1/embeddings", "body_contains": "Entry Alpha", "responses": [$(embedding "1, 0" "0, 1")]},
  {"path": "/v1/embeddings", "responses": [$(embedding "0, 1")]},
  {"path": "/v1/chat/completions", "body_contains": "host-side tiling", "responses": [$(answer "$SCRATCH/tiling-answer.txt")]},
  {"path": "/v1/chat/completions", "body_contains": "rewrite the device kernel", "responses": [$(answer "$SCRATCH/kernel-answer.txt"), $(truncated)]}
]}
JSON
coproc PEER { exec "$BUILD/tests/helpers/llm-peer" --script "$SCRATCH/script.json" --log "$SCRATCH/peer.log" --timeout 600; }
read -r port <&"${PEER[0]}"

cat >"$SCRATCH/ascendoptd.json" <<JSON
{
  "state_dir": "$SCRATCH/state",
  "socket": "$sock",
  "backend": "sim",
  "devices": 1,
  "episode": {"budget": 4, "stage1_steps": 2, "stage2_steps": 2},
  "repos": [{"path": "$repo", "branches": ["main"], "llm_allowed": true}],
  "llm": {"endpoint": "http://127.0.0.1:$port/v1", "model": "scripted-coder", "embedding_model": "scripted-embedder", "api_key_env": "TEST_LLM_KEY"}
}
JSON
ASCENDOPT_PROMPTS_DIR=$SRC/etc/ascendopt/prompts "$BUILD/ascendoptd" --config "$SCRATCH/ascendoptd.json" --foreground 2>"$SCRATCH/daemon.log" &
pid=$!
for _ in $(seq 600); do cli status >/dev/null 2>&1 && break; sleep 0.05; done
id=$(cli enqueue "$repo" ops/relu --json | grep -o '"id":[0-9]*' | cut -d: -f2)
for _ in $(seq 1500); do
	cli show "$id" --json | grep -q '"episode_state":"\(done\|failed\)"' && break
	sleep 0.2
done
json=$(cli show "$id" --json)
echo "$json" >"$SCRATCH/show.json"
shown=$(cli show "$id")
contains "the episode ends done" "$json" '"episode_state":"done"'
case "$json" in *'"episode_state":"done"'*) ;; *) echo "# $json" | head -c 2000; tail -20 "$SCRATCH/daemon.log" | sed 's/^/# /' ;; esac
contains "the LLM's tiling rewrite is measured and becomes a new best" \
	"$(echo "$json" | grep -o '{[^{}]*"purpose":"tiling_mutation"[^{}]*}' | head -1)" '"verdict":"new_best"'
contains "the report credits the LLM" "$shown" "the LLM's tiling rewrite (Stage I)"
contains "the report quotes what the LLM said it changed" "$shown" "blockDim from the vector core count"
contains "the broken kernel is discarded as not compiling" "$json" '"verdict":"does_not_compile"'
contains "with the compiler's message" "$json" "this is not a kernel"
contains "an answer cut off by max_tokens is discarded as truncated" "$json" '"verdict":"truncated"'
contains "show reports the LLM's usage" "$shown" "1 answers measured, 1 new bests, 2 discarded"
evaluations=$(echo "$json" | grep -o '"evaluations":[0-9]*' | head -1 | cut -d: -f2)
is "the discarded answer costs no evaluation (the budget is all measured candidates)" "$evaluations" 4
contains "the peer got the key" "$(cat "$SCRATCH/peer.log")" "Bearer $TEST_LLM_KEY"
contains "without streaming" "$(cat "$SCRATCH/peer.log")" '\"stream\":false'
case "$(cat "$SCRATCH/daemon.log")$json" in
*"$TEST_LLM_KEY"*) not_ok "the key is in no log and no record" ;;
*) ok "the key is in no log and no record" ;;
esac
cands=$(cli candidates ops/relu)
contains "candidates lists the LLM's rewrite as a new best" "$(echo "$cands" | grep llm_tiling)" "new best"
contains "candidates of an operator never queued says so" "$(cli candidates ops/none)" "no candidate measured for ops/none"
contains "the log names the LLM setup" "$(cat "$SCRATCH/daemon.log")" "llm: scripted-coder at http://127.0.0.1:$port/v1"
second=$(grep '"path":"/v1/embeddings"' "$SCRATCH/peer.log" | head -1 | grep -o 'Entry Alpha\|Entry Beta' | tail -1)
contains "Stage II retrieves by embeddings" "$json" '"dense_retrievals":'
contains "the refiner is given the entry nearest the query first ($second)" \
	"$(grep 'rewrite the device kernel' "$SCRATCH/peer.log" | head -1 | grep -o '1\. Entry [A-Za-z]*')" "1. $second"
kill -TERM "$pid"; wait "$pid"

# run_again NAME LLM-JSON: a fresh state dir, the same repo, another llm section
run_again() {
	local dir=$SCRATCH/$1
	mkdir -p "$dir"
	sed -e "s|\"state_dir\": \"[^\"]*\"|\"state_dir\": \"$dir/state\"|" \
		-e "s|\"llm\": {.*}|\"llm\": $2|" "$SCRATCH/ascendoptd.json" >"$dir/ascendoptd.json"
	ASCENDOPT_PROMPTS_DIR=$SRC/etc/ascendopt/prompts "$BUILD/ascendoptd" --config "$dir/ascendoptd.json" --foreground 2>"$dir/daemon.log" &
	pid=$!
	for _ in $(seq 600); do cli status >/dev/null 2>&1 && break; sleep 0.05; done
	id=$(cli enqueue "$repo" ops/relu --json | grep -o '"id":[0-9]*' | cut -d: -f2)
	for _ in $(seq 1500); do
		cli show "$id" --json | grep -q '"episode_state":"\(done\|failed\)"' && break
		sleep 0.2
	done
	cli show "$id" --json
	kill -TERM "$pid"; wait "$pid"
}

# a token budget smaller than one answer: the first call is served, then rules only
json=$(run_again budget "{\"endpoint\": \"http://127.0.0.1:$port/v1\", \"model\": \"scripted-coder\", \"api_key_env\": \"TEST_LLM_KEY\", \"episode_token_budget\": 1000}")
contains "with the token budget spent the episode still ends done" "$json" '"episode_state":"done"'
contains "the spent budget turns the LLM off" "$json" "the episode's LLM token budget is spent"
is "and the rules spend the whole evaluation budget" "$(echo "$json" | grep -o '"evaluations":[0-9]*' | head -1 | cut -d: -f2)" 4

# an endpoint that is down: two failed calls, then rules only
kill "$PEER_PID" 2>/dev/null; wait "$PEER_PID" 2>/dev/null
json=$(run_again down "{\"endpoint\": \"http://127.0.0.1:$port/v1\", \"model\": \"scripted-coder\", \"api_key_env\": \"TEST_LLM_KEY\", \"timeout_s\": 5}")
contains "with the endpoint down the episode still ends done" "$json" '"episode_state":"done"'
contains "and says the endpoint failed" "$json" "the LLM endpoint failed 2 calls in a row"
done_testing
