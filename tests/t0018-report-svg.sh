#!/bin/bash
# SPDX-License-Identifier: MIT
# The episode report as a user sees it: rendered from a real episode record
# to files, the SVG valid XML (xmllint) and drawn by a real browser
# (headless Chromium) into a picture that is not blank.  Tools that are not
# installed skip their subtests with a reason.
. "$(dirname "$0")/tap.sh"
plan 9
render="$BUILD/tests/helpers/report-render"
record="$SRC/tests/data/episode-record.json"
out="$SCRATCH/report"
mkdir -p "$out"

"$render" "$record" "$out" --op-path ops/relu_custom 2>"$SCRATCH/render.err"
is "the report renders" "$?" 0
check "the Markdown, JSON and SVG files are written" \
	test -s "$out/ascendopt-report.md" -a -s "$out/ascendopt-report.json" -a -s "$out/ascendopt-report.svg"
is "the commit message names the speedup" "$(head -n 1 "$out/commit-message.txt")" \
	"ascendopt: relu_custom 2.31x faster (157.4 -> 68.1 us, Ascend910B2 sim)"
contains "the Markdown links the plot" "$(cat "$out/ascendopt-report.md")" "](ascendopt-report.svg)"

sed 's/"baseline"/"no_baseline"/' "$record" >"$SCRATCH/no-baseline.json"
"$render" "$SCRATCH/no-baseline.json" "$SCRATCH" 2>"$SCRATCH/nb.err"
is "a record without a baseline is bad data" "$?" 65

if command -v xmllint >/dev/null 2>&1; then
	check "the SVG is well-formed XML" xmllint --noout "$out/ascendopt-report.svg"
else
	skip "xmllint is not installed (apt-get install libxml2-utils)"
fi

chromium=""
for c in chromium chromium-browser; do
	command -v "$c" >/dev/null 2>&1 && chromium=$c && break
done
if [ -z "$chromium" ]; then
	skip "chromium is not installed"
	skip "chromium is not installed"
	skip "chromium is not installed"
else
	png="$SCRATCH/report.png"
	# its own profile and no session bus, so it runs the same under prove -j
	HOME="$SCRATCH" timeout 60 "$chromium" --headless --no-sandbox --disable-gpu \
		--user-data-dir="$SCRATCH/chromium" --screenshot="$png" --window-size=900,600 \
		"file://$out/ascendopt-report.svg" >"$SCRATCH/chromium.log" 2>&1
	check "headless Chromium draws the SVG" test -s "$png"
	size=$(stat -c %s "$png" 2>/dev/null || echo 0)
	if [ "$size" -gt 5000 ]; then ok "the picture is not trivial ($size bytes)"; else
		not_ok "the picture is not trivial ($size bytes)"
		sed 's/^/# /' "$SCRATCH/chromium.log"
	fi
	if command -v python3 >/dev/null 2>&1; then
		# The colours of the PNG's pixels (8-bit RGB or RGBA, as Chromium writes).
		colours=$(python3 - "$png" <<'PY'
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
pos, idat, width, height, kind = 8, b"", 0, 0, 0
while pos < len(data):
    n, tag = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if tag == b"IHDR":
        width, height, depth, kind = struct.unpack(">IIBB", body[:10])
    elif tag == b"IDAT":
        idat += body
    pos += 12 + n
bpp = {2: 3, 6: 4}[kind]
raw, stride, prev, seen = zlib.decompress(idat), width * bpp, bytearray(width * bpp), set()
for y in range(height):
    f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    for i in range(stride):
        a = line[i - bpp] if i >= bpp else 0
        b, c = prev[i], prev[i - bpp] if i >= bpp else 0
        if f == 1: line[i] = (line[i] + a) & 255
        elif f == 2: line[i] = (line[i] + b) & 255
        elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    for x in range(0, stride, bpp):
        seen.add(bytes(line[x:x + 3]).hex())
    prev = line
# Stage I and Stage II shading, the best-so-far line, the failure marks
want = ["dbeafe", "fde4c4", "1d4ed8", "dc2626"]
print(" ".join(w for w in want if w in seen) + " of %d colours" % len(seen))
PY
)
		is "the picture shows both stage shadings, the line and failures" "$colours" \
			"$(echo "$colours" | sed 's/^.* of /dbeafe fde4c4 1d4ed8 dc2626 of /')"
	else
		skip "python3 is not installed to look at the picture's colours"
	fi
fi
done_testing
