"""Real Helm (Helm 4's Go SDK, through helm-python-sdk) as a test oracle for operator-rs.

Reads one JSON request per line on stdin and answers one JSON line per request on stdout, in
order, so that one process renders many charts. A request:

    {"chart": "/path/to/chart", "values": {...} | null, "values_yaml": "..." | null,
     "name": "release-name", "namespace": "default", "revision": 1,
     "is_upgrade": false, "kube_version": "v1.33.0", "api_versions": ["g/v", "g/v/Kind"]}

An answer is {"manifests": {"<chart>/templates/<file>": "<text>", ...}} or
{"error": "<Helm's message>", "error_type": "<exception class>"}.

A request with "op" acts on releases in a cluster through a kubeconfig (Helm's Secret storage):

    {"op": "list" | "history" | "get_values" | "status" | "install" | "upgrade" | "uninstall",
     "kubeconfig": "/path", "namespace": "default", "name": "release", "chart": "/path",
     "values": {...}, "all": false}

and is answered {"result": <what the SDK returned>} or an error as above.
"""

import json
import sys

import helm_python as helm
from helm_python import _native


def render(req):
    chart = helm.Chart.load(req["chart"])
    values = req.get("values")
    if req.get("values_yaml") is not None:
        values = helm.values_from_yaml(req["values_yaml"]) or {}
    opts = {}
    for key in ("name", "namespace", "revision", "is_install", "is_upgrade", "kube_version",
                "api_versions"):
        if req.get(key) is not None:
            opts[key] = req[key]
    # Chart.render takes no kube_version/api_versions; the native call underneath does.
    rendered = _native.call_string(
        "helm_render",
        chart._raw(),
        json.dumps(values) if values is not None else None,
        json.dumps(opts) if opts else None,
    )
    return {"manifests": json.loads(rendered)}


def release_op(req):
    config = helm.Config(kubeconfig_path=req["kubeconfig"], namespace=req.get("namespace"))
    try:
        op, name = req["op"], req.get("name")
        if op == "list":
            result = config.list(all_states=bool(req.get("all")))
        elif op == "history":
            result = config.history(name)
        elif op == "get_values":
            result = config.get_values(name, all_values=bool(req.get("all")),
                                       revision=req.get("revision"))
        elif op == "status":
            result = config.status(name, revision=req.get("revision"))
        elif op == "install":
            result = config.install(req["chart"], name, req.get("values"),
                                    namespace=req.get("namespace"))
        elif op == "upgrade":
            result = config.upgrade(req["chart"], name, req.get("values"),
                                    namespace=req.get("namespace"),
                                    max_history=req.get("max_history"))
        elif op == "uninstall":
            result = config.uninstall(name)
        else:
            raise ValueError(f"unknown op {op!r}")
        return {"result": result}
    finally:
        config.close()


def main():
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        try:
            req = json.loads(line)
            answer = release_op(req) if "op" in req else render(req)
        except helm.HelmError as e:
            answer = {"error": str(e), "error_type": type(e).__name__}
        except Exception as e:  # a broken request must not end the other cases
            answer = {"error": f"oracle: {e}", "error_type": type(e).__name__}
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
