# SPDX-License-Identifier: MIT
"""The report of bench/realops.sh: one row per operator, the counts, and
the blockers ranked by how many operators each stops, from what 'ascendopt
init' printed and what 'ascendopt eval --json' answered.

    realops-report.py LIST OUTDIR COMMIT SECONDS COMMITTED_SHAPES

Writes OUTDIR/realops.md, realops.json and realops-shapes.json, and prints
the table, the counts, the blockers and one JSON line."""
import json
import os
import re
import sys


def read(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError:
        return None


def normalise(text):
    """A blocker's words without what differs between operators."""
    text = re.sub(r"(?<![\w.])/[^\s:'\"‘’]*/", "", text)  # absolute paths, down to the file name
    text = re.sub(r"\b\d+\b", "N", text)
    text = re.sub(r"case [A-Za-z0-9_]+", "case X", text)
    return text.strip()[:150]


def first_error(text):
    """The first compiler or runtime error line in a message."""
    for line in text.splitlines():
        m = re.search(r"error: (.*)", line)
        if m and not m.group(1).startswith(("compile_error", "runtime_error")):
            return m.group(1)
    return None


def init_blocker(text):
    lines = [l for l in text.splitlines() if l.strip()]
    head = next((l for l in lines if l.startswith("ascendopt init: ")), lines[0] if lines else "")
    head = head[len("ascendopt init: "):] if head.startswith("ascendopt init: ") else head
    if "does not compile for the simulator" in head:
        err = first_error(text) or head
        return "init: host code does not compile: " + normalise(err)
    m = re.search(r"does not run on the simulator: case [^:]+: ([a-z_]+)(?: \(([a-z_]+)\))?", head)
    if m:
        err = first_error(text)
        if m.group(1) == "compile_error":
            return "init check: kernel does not compile: " + normalise(err or head)
        rest = [l for l in lines[lines.index(next(l for l in lines if l.startswith("ascendopt init: "))) + 1:]
                if not l.startswith("ascendopt init: ")]
        detail = err or (rest[0] if rest else "")
        return "init check: %s (%s): %s" % (m.group(1), m.group(2) or "-", normalise(detail))
    return "init: " + normalise(re.sub(r"^[^ ]*: ", "", head))


def main():
    list_path, out, commit, seconds, committed_path = sys.argv[1:6]
    ops = [l.strip() for l in open(list_path) if l.strip() and not l.startswith("#")]
    committed = json.loads(read(committed_path) or "{}").get("shapes", {})
    rows, shapes, blockers, changed_shapes = [], {}, {}, []
    counts = {"operators": len(ops), "init_ok": 0, "eval_ok": 0, "passed": 0,
              "golden": {"match": 0, "mismatch": 0, "unavailable": 0, "none": 0}}
    for op in ops:
        base = os.path.join(out, "ops", op.replace("/", "+"))
        init_out = read(base + ".init") or ""
        init_ok = (read(base + ".init-rc") or "").strip() == "0"
        row = {"operator": op, "init": "ok" if init_ok else "failed", "status": "-", "error": "",
               "golden": "-", "bench_us": None}
        manifest = json.loads(read(base + ".manifest.json") or "null")
        if manifest:
            bench = [c for c in manifest.get("cases", []) if c.get("bench")]
            shapes[op] = [c.get("shapes") for c in bench]
            if op in committed and committed[op] != shapes[op]:
                changed_shapes.append(op)
        result = None
        text = read(base + ".eval.json")
        if text:
            try:
                result = json.loads(text)
            except ValueError:
                result = None
        if init_ok:
            counts["init_ok"] += 1
        if result:
            row["status"] = result.get("status", "?")
            err = result.get("error") or {}
            if row["status"] != "ok":
                row["error"] = "%s: %s" % (err.get("kind", row["status"]),
                                           (err.get("message") or "").splitlines()[0][:120]
                                           if err.get("message") else "")
            golden = result.get("golden") or {}
            row["golden"] = golden.get("verdict", "none")
            counts["golden"][row["golden"] if row["golden"] in counts["golden"] else "none"] += 1
            if isinstance(result.get("latency_us"), (int, float)):
                row["bench_us"] = round(result["latency_us"], 2)
            if row["status"] == "ok":
                counts["eval_ok"] += 1
        elif init_ok:
            row["status"] = "no result"
            row["error"] = normalise((read(base + ".eval.err") or "").strip().splitlines()[-1:][0]
                                     if (read(base + ".eval.err") or "").strip() else "")
        passed = init_ok and row["status"] == "ok"
        counts["passed"] += passed
        if not init_ok:
            key = init_blocker(init_out)
            row["error"] = key
        elif not passed:
            key = "eval: %s" % normalise(row["error"] or row["status"])
        if not passed:
            blockers.setdefault(key, []).append(op.split("/")[-1])
        rows.append(row)

    lines = ["# Real operators: init (no flags) and eval, repository %s" % commit[:12], "",
             "| operator | init | eval | error | golden | bench us |",
             "|---|---|---|---|---|---|"]
    for r in rows:
        lines.append("| %s | %s | %s | %s | %s | %s |" % (
            r["operator"], r["init"], r["status"], r["error"].replace("|", "/")[:160],
            r["golden"], "" if r["bench_us"] is None else r["bench_us"]))
    n = counts["operators"]
    lines += ["", "init ok %d of %d; init and eval ok %d of %d (%.1f%%)" % (
        counts["init_ok"], n, counts["passed"], n, 100.0 * counts["passed"] / max(n, 1)),
        "goldens: %(match)d match, %(mismatch)d mismatch, %(unavailable)d unavailable, "
        "%(none)d with none" % counts["golden"],
        "%d s with %s" % (int(seconds), os.environ.get("REALOPS_JOBS", "all") + " jobs"), "",
        "## Blockers, by operators stopped", ""]
    for key, names in sorted(blockers.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        lines.append("- %d: %s (%s)" % (len(names), key, ", ".join(sorted(names)[:8]) +
                                        (", ..." if len(names) > 8 else "")))
    if changed_shapes:
        lines += ["", "bench shapes differ from bench/results/realops-shapes.json for: " +
                  ", ".join(changed_shapes)]
    text = "\n".join(lines) + "\n"
    with open(os.path.join(out, "realops.md"), "w") as f:
        f.write(text)
    summary = dict(counts, commit=commit, seconds=int(seconds), rows=rows,
                   blockers={k: sorted(v) for k, v in blockers.items()})
    with open(os.path.join(out, "realops.json"), "w") as f:
        json.dump(summary, f, indent=1)
    with open(os.path.join(out, "realops-shapes.json"), "w") as f:
        json.dump({"repository_commit": commit, "shapes": shapes}, f, indent=1, sort_keys=True)
    sys.stdout.write(text)
    print(json.dumps({"bench": "realops", "operators": n, "init_ok": counts["init_ok"],
                      "eval_ok": counts["eval_ok"], "passed": counts["passed"],
                      "golden": counts["golden"]}))


if __name__ == "__main__":
    main()
