"""Real Helm (Helm 4's Go SDK, through helm-python-sdk) as a test oracle for operator-rs.

Reads one JSON request per line on stdin and answers one JSON line per request on stdout, in
order, so that one process renders many charts. A request:

    {"chart": "/path/to/chart", "values": {...} | null, "values_yaml": "..." | null,
     "name": "release-name", "namespace": "default", "revision": 1,
     "is_upgrade": false, "kube_version": "v1.33.0", "api_versions": ["g/v", "g/v/Kind"]}

An answer is {"manifests": {"<chart>/templates/<file>": "<text>", ...}} or
{"error": "<Helm's message>", "error_type": "<exception class>"}.
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


def main():
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        try:
            answer = render(json.loads(line))
        except helm.HelmError as e:
            answer = {"error": str(e), "error_type": type(e).__name__}
        except Exception as e:  # a broken request must not end the other cases
            answer = {"error": f"oracle: {e}", "error_type": type(e).__name__}
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
