#!/usr/bin/env python3
"""helm.probes: the chart's probes, ports and paths are what sluice serves.

Renders deploy/helm/sluice with `helm template`, then checks, on the rendered objects:
  - the liveness probe is GET /healthz and the readiness probe GET /readyz, on the container
    port;
  - the container port is the port of metrics.listen in the ConfigMap's sluice YAML;
  - both Services target that port, select the Deployment's pods, and the admin Service
    publishes not-ready addresses (a paused member must still receive `resume`);
  - every ${file:} of the config names a key of the Secret mounted where it points, and the
    ConfigMap is mounted where `sluice run -c` reads it;
and then that the rendered config loads: `$SLUICE_BINARY run` on it, with metrics.listen on a
free loopback port and Kafka and PostgreSQL on loopback ports nothing listens on, answers
GET /healthz 200 and GET /readyz 503 (not 404) while it waits for PostgreSQL, and drains on
SIGTERM with exit code 0.

Usage: helm_probes.py HELM CHART   (environment: SLUICE_BINARY)
"""

import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

import yaml

FILE_REF = re.compile(r"\$\{file:([^}]*)\}")
DSN_URI = re.compile(r"^(?P<scheme>postgres(?:ql)?://)(?P<user>.*@)?(?P<host>[^/?@]*)(?P<rest>[/?].*)?$")
failures = []
checks = [0]


def check(ok, what):
    checks[0] += 1
    print(("ok    " if ok else "FAIL  ") + what)
    if not ok:
        failures.append(what)
    return ok


def render(helm, chart):
    # A Secret rendered by the chart, so that its keys can be compared with the config's
    # ${file:} references (with secrets.name instead, the Secret is made outside the chart).
    out = subprocess.run(
        [helm, "template", "probes", chart, "--namespace", "probes",
         "--set-string", "secrets.files.pg-password=unused",
         "--set-string", "secrets.files.http-token=unused"],
        check=True, capture_output=True, text=True).stdout
    return [d for d in yaml.safe_load_all(out) if d]


def one(objects, kind, name_suffix=""):
    found = [o for o in objects
             if o["kind"] == kind and o["metadata"]["name"].endswith(name_suffix)]
    if len(found) != 1:
        sys.exit(f"helm_probes.py: {len(found)} {kind} named *{name_suffix}, expected one")
    return found[0]


def port_number(port, container):
    """A probe's or a Service's port (a number, or a name of the container's ports)."""
    if isinstance(port, int):
        return port
    for p in container.get("ports", []):
        if p.get("name") == port:
            return p["containerPort"]
    return None


def listen_port(listen):
    # "host:port", "[v6]:port" or a bare port (sluice's metrics.listen forms).
    return int(str(listen).rsplit(":", 1)[-1])


def lookup(config, dotted):
    """A key of sluice's YAML, nested or dotted (both name the same key)."""
    if dotted in config:
        return config, dotted
    head, _, rest = dotted.partition(".")
    while rest:
        if isinstance(config.get(head), dict):
            found = lookup(config[head], rest)
            if found:
                return found
        step, _, rest = rest.partition(".")
        head = head + "." + step
    return None


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def http_status(port, path):
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=2) as r:
            return r.status
    except urllib.error.HTTPError as e:
        return e.code
    except OSError:
        return None


def check_rendered(objects):
    deployment = one(objects, "Deployment")
    pod = deployment["spec"]["template"]
    container = pod["spec"]["containers"][0]
    config_map = one(objects, "ConfigMap")
    config = yaml.safe_load(config_map["data"]["sluice.yaml"])

    http = container["ports"][0]["containerPort"]
    live, ready = container["livenessProbe"]["httpGet"], container["readinessProbe"]["httpGet"]
    check(live["path"] == "/healthz", f"liveness path {live['path']} is /healthz")
    check(ready["path"] == "/readyz", f"readiness path {ready['path']} is /readyz")
    check(port_number(live["port"], container) == http,
          f"liveness port {live['port']} is the container port {http}")
    check(port_number(ready["port"], container) == http,
          f"readiness port {ready['port']} is the container port {http}")

    listen = lookup(config, "metrics.listen")
    check(listen is not None and listen_port(listen[0][listen[1]]) == http,
          f"metrics.listen ({listen and listen[0][listen[1]]}) is on the container port {http}")

    pod_labels = pod["metadata"]["labels"]
    for suffix, must_publish in (("-metrics", False), ("-admin", True)):
        service = one(objects, "Service", suffix)
        name = service["metadata"]["name"]
        selector = service["spec"]["selector"]
        check(all(pod_labels.get(k) == v for k, v in selector.items()),
              f"{name} selects the Deployment's pods")
        for p in service["spec"]["ports"]:
            check(port_number(p["targetPort"], container) == http,
                  f"{name} port {p['port']} targets the container port {http}")
        if must_publish:
            check(service["spec"].get("publishNotReadyAddresses") is True,
                  f"{name} publishes not-ready addresses (PAUSED, DEGRADED members)")

    # Where the config and the secrets are mounted.
    mounts = {m["name"]: m["mountPath"] for m in container.get("volumeMounts", [])}
    volumes = {v["name"]: v for v in pod["spec"].get("volumes", [])}
    config_path = container["args"][container["args"].index("-c") + 1]
    config_volume = next((n for n, v in volumes.items()
                          if v.get("configMap", {}).get("name") == config_map["metadata"]["name"]),
                         None)
    check(config_volume is not None
          and os.path.join(mounts.get(config_volume, "?"), "sluice.yaml") == config_path,
          f"the ConfigMap's sluice.yaml is mounted at {config_path} (sluice run -c)")

    secret = one(objects, "Secret")
    secret_volume = next((n for n, v in volumes.items()
                          if v.get("secret", {}).get("secretName") == secret["metadata"]["name"]),
                         None)
    secret_dir = mounts.get(secret_volume, "")
    check(bool(secret_dir), f"the Secret is mounted ({secret_dir})")
    refs = FILE_REF.findall(config_map["data"]["sluice.yaml"])
    check(len(refs) > 0, "the config reads secrets with ${file:}")
    for ref in refs:
        check(os.path.dirname(ref) == secret_dir
              and os.path.basename(ref) in secret.get("stringData", {}),
              f"${{file:{ref}}} is a key of the mounted Secret")
    env = {e["name"]: e["value"] for e in container.get("env", []) if "value" in e}
    return config, secret_dir, env


def run_sluice(binary, config, secret_dir, env, work):
    """The rendered config, pointed at loopback: sluice starts, serves, and waits."""
    metrics_port, kafka_port, pg_port = free_port(), free_port(), free_port()
    where, key = lookup(config, "metrics.listen")
    where[key] = f"127.0.0.1:{metrics_port}"
    where, key = lookup(config, "kafka.bootstrap.servers")
    where[key] = f"127.0.0.1:{kafka_port}"
    where, key = lookup(config, "postgres.dsn")
    # Not urlsplit: a ${file:/...} in the password holds slashes. The user part runs up to
    # the last @ before the host.
    dsn = DSN_URI.match(where[key])
    if not dsn:
        sys.exit("helm_probes.py: postgres.dsn is not a URI; this test rewrites URIs only")
    where[key] = f"{dsn['scheme']}{dsn['user'] or ''}127.0.0.1:{pg_port}{dsn['rest'] or ''}"

    # The secrets as files under a scratch folder instead of the mount.
    text = yaml.safe_dump(config)
    for ref in set(FILE_REF.findall(text)):
        local = os.path.join(work, "secrets", os.path.basename(ref))
        os.makedirs(os.path.dirname(local), exist_ok=True)
        with open(local, "w") as f:
            f.write("probe-secret\n")
        text = text.replace("${file:" + ref + "}", "${file:" + local + "}")
    assert secret_dir not in text
    config_file = os.path.join(work, "sluice.yaml")
    with open(config_file, "w") as f:
        f.write(text)

    log = open(os.path.join(work, "sluice.log"), "w+")
    child = subprocess.Popen([binary, "run", "-c", config_file], stdout=log,
                             stderr=subprocess.STDOUT, env={**os.environ, **env})
    try:
        deadline = time.monotonic() + 15
        healthz = None
        while time.monotonic() < deadline and child.poll() is None:
            healthz = http_status(metrics_port, "/healthz")
            if healthz is not None:
                break
            time.sleep(0.1)
        check(healthz == 200, f"sluice run on the rendered config: GET /healthz {healthz}")
        readyz = http_status(metrics_port, "/readyz")
        check(readyz == 503, f"GET /readyz {readyz} while PostgreSQL is unreachable (503)")
        metrics = http_status(metrics_port, "/metrics")
        check(metrics == 200, f"GET /metrics {metrics}")
    finally:
        if child.poll() is None:
            child.send_signal(signal.SIGTERM)
        try:
            code = child.wait(timeout=30)
        except subprocess.TimeoutExpired:
            child.kill()
            code = child.wait()
        check(code == 0, f"SIGTERM drains and exits 0 (exit code {code})")
        log.seek(0)
        output = log.read()
    if failures:
        print("--- sluice's output ---\n" + output)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    helm, chart = sys.argv[1:]
    binary = os.environ.get("SLUICE_BINARY", "")
    if not os.access(binary, os.X_OK):
        sys.exit("helm_probes.py: SLUICE_BINARY is not an executable sluice")
    config, secret_dir, env = check_rendered(render(helm, chart))
    with tempfile.TemporaryDirectory(prefix="sluice-helm-probes.") as work:
        run_sluice(binary, config, secret_dir, env, work)
    print(f"\nhelm.probes: {checks[0] - len(failures)} checks passed, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
