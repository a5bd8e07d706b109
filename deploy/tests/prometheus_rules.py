#!/usr/bin/env python3
"""prometheus.rules: the example alert rules and Grafana dashboard name only what sluice exports.

promtool is not installed for this (Debian's `prometheus` package is ~96 MB and would start a
Prometheus server; built from its Go module it takes ~10 minutes on 2 cores); when a promtool
is on PATH, `promtool check rules` and the unit tests in alerts_test.yml run too. Always:
  - alerts.yml parses, every rule has an alert name (unique), an expr, a `for` duration, a
    severity and a summary, and its brackets balance;
  - the dashboard is valid JSON with unique panel ids, panels inside 24 columns and not
    overlapping, and a multi-select `instance` variable that every sluice query is narrowed by;
  - every sluice_* name in an expression is a family registered in connector/metrics/*.cc (a
    histogram's _bucket, _sum or _count included);
  - sluice_state{state="..."} names a state connector/base/connector_state.cc spells.

Usage: prometheus_rules.py SOURCE_DIR
"""

import glob
import json
import os
import re
import shutil
import subprocess
import sys

import yaml

METRIC = re.compile(r"\bsluice_[a-z0-9_]+")
DURATION = re.compile(r"^([0-9]+(ms|s|m|h|d|w|y))+$")
failures = []
checks = [0]


def check(ok, what):
    checks[0] += 1
    if not ok:
        print("FAIL  " + what)
        failures.append(what)
    return ok


def known_metrics(source):
    names = set()
    for path in glob.glob(os.path.join(source, "connector/metrics/*.cc")):
        with open(path) as f:
            names.update(re.findall(r'\.Name\("(sluice_[a-z0-9_]+)"\)', f.read()))
    return names


def states(source):
    with open(os.path.join(source, "connector/base/connector_state.cc")) as f:
        return set(re.findall(r'return "([A-Z]+)";', f.read())) - {"UNKNOWN"}


def balanced(expr):
    depth = []
    pairs = {")": "(", "]": "[", "}": "{"}
    in_string = None
    for c in expr:
        if in_string:
            in_string = None if c == in_string else in_string
        elif c in "\"'`":
            in_string = c
        elif c in "([{":
            depth.append(c)
        elif c in pairs:
            if not depth or depth.pop() != pairs[c]:
                return False
    return not depth and not in_string


def check_expr(expr, where, registered, state_names):
    check(balanced(expr), f"{where}: brackets balance in {expr!r}")
    for name in set(METRIC.findall(expr)):
        base = re.sub(r"_(bucket|sum|count)$", "", name)
        exported = name in registered or base in registered
        check(exported, f"{where}: {name} is a metric sluice exports")
    for state in re.findall(r'sluice_state\{[^}]*\bstate="([^"]*)"', expr):
        check(state in state_names, f"{where}: sluice_state{{state=\"{state}\"}} is a state "
              f"sluice spells ({', '.join(sorted(state_names))})")


def check_rules(path, registered, state_names):
    with open(path) as f:
        rules_file = yaml.safe_load(f)
    names = set()
    for group in rules_file["groups"]:
        for rule in group["rules"]:
            name = rule.get("alert", "?")
            check(name not in names, f"{name}: one rule of that name")
            names.add(name)
            check(isinstance(rule.get("expr"), str), f"{name}: an expr")
            check(DURATION.match(str(rule.get("for", ""))) is not None, f"{name}: a `for` duration")
            check(rule.get("labels", {}).get("severity") in ("page", "ticket"),
                  f"{name}: severity page or ticket")
            check(bool(rule.get("annotations", {}).get("summary")), f"{name}: a summary")
            check_expr(rule["expr"], name, registered, state_names)
            # Queries inside the annotations' templates name metrics too.
            for text in rule.get("annotations", {}).values():
                for query in re.findall(r"`([^`]*)`", text):
                    check_expr(query, f"{name} (annotation)", registered, state_names)
    return names


def check_dashboard(path, registered, state_names):
    with open(path) as f:
        try:
            dashboard = json.load(f)
        except json.JSONDecodeError as e:
            check(False, f"{path} is valid JSON: {e}")
            return
    variables = {v["name"]: v for v in dashboard.get("templating", {}).get("list", [])}
    instance = variables.get("instance", {})
    check(instance.get("multi") is True, "dashboard: a multi-select `instance` variable")
    check("label_values(sluice_state, instance)" in json.dumps(instance.get("query")),
          "dashboard: `instance` lists label_values(sluice_state, instance)")

    ids, cells = set(), {}
    for panel in dashboard["panels"]:
        title = f"panel {panel.get('id')} ({panel.get('title')})"
        check(panel.get("id") not in ids, f"{title}: a unique id")
        ids.add(panel.get("id"))
        pos = panel["gridPos"]
        check(pos["x"] + pos["w"] <= 24, f"{title}: within 24 columns")
        for x in range(pos["x"], pos["x"] + pos["w"]):
            for y in range(pos["y"], pos["y"] + pos["h"]):
                other = cells.setdefault((x, y), title)
                if other != title:
                    check(False, f"{title}: overlaps {other} at ({x}, {y})")
                    break
        for target in panel.get("targets", []):
            expr = target["expr"]
            check_expr(expr, title, registered, state_names)
            for selector in re.findall(r"sluice_[a-z0-9_]+(\{[^}]*\})?", expr):
                check('instance=~"$instance"' in selector,
                      f"{title}: narrowed to the chosen instances in {expr!r}")


def promtool(path, unit_tests):
    tool = shutil.which("promtool")
    if not tool:
        print("note  promtool not installed: `check rules` and its unit tests are skipped")
        return
    for args in (["check", "rules", path], ["test", "rules", unit_tests]):
        result = subprocess.run([tool, *args], capture_output=True, text=True)
        check(result.returncode == 0, f"promtool {' '.join(args)}: {result.stdout}{result.stderr}")


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    source = sys.argv[1]
    registered = known_metrics(source)
    state_names = states(source)
    if not registered or not state_names:
        sys.exit("prometheus_rules.py: no metric families or states found under " + source)

    rules = os.path.join(source, "examples/docker/prometheus/alerts.yml")
    names = check_rules(rules, registered, state_names)
    for wanted in ("SluiceDegraded", "SluiceMemberNotHeartbeating"):
        check(wanted in names, f"alerts.yml has {wanted}")
    promtool(rules, os.path.join(source, "deploy/tests/alerts_test.yml"))
    check_dashboard(os.path.join(source, "examples/docker/grafana/dashboards/sluice.json"),
                    registered, state_names)

    print(f"\nprometheus.rules: {checks[0] - len(failures)} checks passed, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
