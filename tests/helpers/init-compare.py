# SPDX-License-Identifier: MIT
#
# Helpers of tests/t0033-init.sh, on the corpus manifests (which were
# written by hand):
#   init-compare.py st MANIFEST OUT.json   writes the manifest's cases as an
#                                          msOpSt case file (tests/st layout)
#   init-compare.py compare WANT GOT       says how a drafted manifest GOT
#                                          differs from the hand-written WANT
#                                          in what an msOpSt file carries;
#                                          exit 1 when it does
import json
import sys

ST_TYPE = {"float32": "float", "float16": "float16", "bfloat16": "bfloat16",
           "int8": "int8", "int16": "int16", "int32": "int32", "int64": "int64",
           "uint8": "uint8", "uint16": "uint16", "uint32": "uint32", "bool": "bool"}


def effective_attrs(manifest, case):
    attrs = dict(manifest.get("attrs", {}))
    attrs.update(case.get("attrs", {}))
    return attrs


def to_st(manifest):
    """The manifest's cases as msOpSt writes them: types, shapes, ranges, attrs."""
    ranges = manifest.get("input_ranges", {})
    cases = []
    for case in manifest["cases"]:
        inputs = []
        for t in manifest["inputs"]:
            desc = {"name": t["name"], "format": ["ND"], "type": [ST_TYPE[t["dtype"]]],
                    "shape": case["shapes"][t["name"]], "data_distribute": ["uniform"]}
            if t["name"] in ranges:
                desc["value_range"] = [ranges[t["name"]]]
            inputs.append(desc)
        outputs = [{"name": t["name"], "format": ["ND"], "type": [ST_TYPE[t["dtype"]]]}
                   for t in manifest["outputs"]]
        attrs = [{"name": k, "type": "float" if isinstance(v, float) else "int", "value": v}
                 for k, v in effective_attrs(manifest, case).items()]
        entry = {"case_name": case["name"], "op": manifest["name"],
                 "input_desc": inputs, "output_desc": outputs}
        if attrs:
            entry["attr"] = attrs
        cases.append(entry)
    return cases


def tensors(manifest, key):
    return [(t["name"], t["dtype"], bool(t.get("list"))) for t in manifest[key]]


def compare(want, got):
    problems = []
    for field in ("name", "kernel"):
        if want.get(field, got.get(field)) != got.get(field):
            problems.append(f"{field}: {got.get(field)!r}, not {want.get(field)!r}")
    for key in ("inputs", "outputs"):
        if tensors(want, key) != tensors(got, key):
            problems.append(f"{key}: {tensors(got, key)}, not {tensors(want, key)}")
    names = [c["name"] for c in want["cases"]]
    bench = [c for c in got["cases"] if c.get("bench")]
    if len(bench) != 1:
        problems.append(f"{len(bench)} bench cases, not 1")
    elif bench[0]["name"] == "bench" and "bench" not in names:
        # init's own bench case, added when every case is small: the largest
        # input grown to at least 8M elements
        def elements(dims):
            n = 1
            for d in dims:
                n *= d
            return n
        largest = max(elements(d) for d in bench[0]["shapes"].values())
        if largest < 8 << 20:
            problems.append(f"the added bench case has {largest} elements, under 8M")
        got = dict(got, cases=[c for c in got["cases"] if c is not bench[0]])
    if [c["name"] for c in got["cases"]] != names:
        problems.append(f"case names: {[c['name'] for c in got['cases']]}, not {names}")
    for w, g in zip(want["cases"], got["cases"]):
        for t in want["inputs"]:
            if w["shapes"][t["name"]] != g["shapes"].get(t["name"]):
                problems.append(f"case {w['name']}: {t['name']} is {g['shapes'].get(t['name'])}")
        if effective_attrs(want, w) != effective_attrs(got, g):
            problems.append(f"case {w['name']}: attrs {effective_attrs(got, g)}, "
                            f"not {effective_attrs(want, w)}")
    if want.get("input_ranges", {}) != got.get("input_ranges", {}):
        problems.append(f"input_ranges: {got.get('input_ranges')}, not {want.get('input_ranges')}")
    for p in problems:
        print(p)
    return not problems


def main():
    if sys.argv[1] == "st":
        with open(sys.argv[2]) as f:
            manifest = json.load(f)
        with open(sys.argv[3], "w") as f:
            json.dump(to_st(manifest), f, indent=2)
        return 0
    with open(sys.argv[2]) as f:
        want = json.load(f)
    with open(sys.argv[3]) as f:
        got = json.load(f)
    return 0 if compare(want, got) else 1


if __name__ == "__main__":
    sys.exit(main())
