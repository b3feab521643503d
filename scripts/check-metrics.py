"""Checks a /metrics page: parsed by the Prometheus project's own Python client (prometheus-client,
its text-format parser), then held to the naming rules Prometheus documents and promtool's
`check metrics` lint applies. Usage: python3 check-metrics.py FILE [REQUIRED_FAMILY ...]"""
import re
import sys

from prometheus_client.parser import text_string_to_metric_families

NAME = re.compile(r"^[a-zA-Z_:][a-zA-Z0-9_:]*$")
UNITS = ("_seconds", "_bytes", "_records", "_total", "_info")


def lint(text: str, required: list[str]) -> list[str]:
    problems = []
    families = list(text_string_to_metric_families(text))  # raises on a malformed line
    seen = set()
    helps = set(re.findall(r"^# HELP (\S+) ", text, re.M))
    types = dict(re.findall(r"^# TYPE (\S+) (\S+)$", text, re.M))
    for family in families:
        name = family.name
        exposed = name + "_total" if family.type == "counter" else name
        if exposed in seen:
            problems.append(f"{exposed}: exposed twice")
        seen.add(exposed)
        if not NAME.match(name):
            problems.append(f"{name}: not a valid metric name")
        if exposed not in helps:
            problems.append(f"{exposed}: no HELP")
        if exposed not in types:
            problems.append(f"{exposed}: no TYPE")
        if name.startswith("tapehouse_process_") or name.startswith("tapehouse_nodejs_"):
            problems.append(f"{name}: Node's default metrics are prefixed (stock dashboards expect process_*, nodejs_*)")
        if family.type == "counter" and not types.get(exposed) == "counter":
            problems.append(f"{exposed}: a counter should end in _total")
        if family.type == "histogram":
            if not name.endswith(("_seconds", "_bytes")):
                problems.append(f"{name}: a histogram should name its base unit (_seconds, _bytes)")
            problems += check_histogram(family)
        # prom-client's own defaults (nodejs_active_handles_total, a gauge) keep their names.
        if family.type == "gauge" and name.endswith("_total") and name.startswith("tapehouse_"):
            problems.append(f"{name}: a gauge should not end in _total")
        if name.startswith("tapehouse_") and family.type in ("counter", "gauge") and not exposed.endswith(UNITS) and not re.search(r"_(gaps|records)$", name):
            problems.append(f"{exposed}: no unit suffix")
    for name in required:
        if name not in seen:
            problems.append(f"{name}: missing")
    return problems


def check_histogram(family) -> list[str]:
    problems = []
    series = {}
    for sample in family.samples:
        labels = tuple(sorted((k, v) for k, v in sample.labels.items() if k != "le"))
        entry = series.setdefault(labels, {"buckets": [], "count": None})
        if sample.name.endswith("_bucket"):
            entry["buckets"].append((float(sample.labels["le"]), sample.value))
        elif sample.name.endswith("_count"):
            entry["count"] = sample.value
    for labels, entry in series.items():
        buckets = entry["buckets"]
        if not buckets or buckets[-1][0] != float("inf"):
            problems.append(f"{family.name}{dict(labels)}: no +Inf bucket")
            continue
        if any(b[1] > a[1] for b, a in zip(buckets, buckets[1:])) or [b[0] for b in buckets] != sorted(b[0] for b in buckets):
            problems.append(f"{family.name}{dict(labels)}: buckets not cumulative")
        if entry["count"] != buckets[-1][1]:
            problems.append(f"{family.name}{dict(labels)}: _count differs from the +Inf bucket")
    return problems


if __name__ == "__main__":
    path, *required = sys.argv[1:]
    with open(path, encoding="utf-8") as f:
        text = f.read()
    problems = lint(text, required)
    families = len(set(re.findall(r"^# TYPE (\S+) ", text, re.M)))
    if problems:
        print("\n".join(f"  {p}" for p in problems))
        print(f"/metrics: {len(problems)} problem(s) in {families} families")
        sys.exit(1)
    print(f"/metrics: {families} families, all parsed and named by the rules")
