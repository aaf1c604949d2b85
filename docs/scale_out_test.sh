#!/usr/bin/env bash
# scale_out_test.sh SOURCE_DIR: the two manifests of docs/scale-out.md parse as YAML and run
# the shards they merge: a GitHub Actions matrix of N shards, each `explore --shard I/N`, and a
# merge job after them naming N directories; a Kubernetes Indexed Job of N completions running
# `explore --shard auto/N`, and a merge Job naming N directories.
set -euo pipefail
dir="$1/docs/scale-out"
python3 - "$dir" <<'PY'
import re, sys, yaml
d = sys.argv[1]

gha = yaml.safe_load(open(d + "/github-actions.yml"))
explore, merge = gha["jobs"]["explore"], gha["jobs"]["merge"]
shards = explore["strategy"]["matrix"]["shard"]
n = len(shards)
assert shards == list(range(1, n + 1)), shards
assert explore["strategy"]["fail-fast"] is False
run = " ".join(s.get("run", "") for s in explore["steps"])
m = re.search(r"lockstep explore .*--shard \$\{\{ matrix\.shard \}\}/(\d+)", run, re.S)
assert m and int(m.group(1)) == n, run
assert merge["needs"] == "explore"
merge_run = " ".join(s.get("run", "") for s in merge["steps"])
m = re.search(r"lockstep merge ((?:shard-\d+ )+)--out", merge_run)
assert m and m.group(1).split() == ["shard-%d" % i for i in shards], merge_run

docs = list(yaml.safe_load_all(open(d + "/kubernetes-job.yaml")))
job = next(x for x in docs if x["metadata"]["name"] == "lockstep-explore")
merge_job = next(x for x in docs if x["metadata"]["name"] == "lockstep-merge")
spec = job["spec"]
assert job["kind"] == "Job" and spec["completionMode"] == "Indexed", spec
k = spec["completions"]
args = " ".join(spec["template"]["spec"]["containers"][0]["args"])
m = re.search(r"lockstep explore .*--shard auto/(\d+) --out /results/shard-\$JOB_COMPLETION_INDEX", args, re.S)
assert m and int(m.group(1)) == k, args
margs = " ".join(merge_job["spec"]["template"]["spec"]["containers"][0]["args"])
m = re.search(r"lockstep merge ((?:/results/shard-\d+ )+)--out", margs)
assert m and m.group(1).split() == ["/results/shard-%d" % i for i in range(k)], margs
print("scale_out_test: ok (%d GitHub Actions shards, %d Kubernetes completions)" % (n, k))
PY
