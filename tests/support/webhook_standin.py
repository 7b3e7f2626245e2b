#!/usr/bin/env python3
"""A stand-in for a generated Rust operator's webhook server, for the tests of `operator-rs run`
with webhooks while the generated operator does not serve them yet.

It takes the arguments of run's contract (src/commands/run_webhooks.rs): it serves HTTPS at
--webhook-bind-address with tls.crt and tls.key of --webhook-cert-dir, and answers
  /mutate-...   defaulting: spec.image set to memcached:1.6 when missing or empty
  /validate-... validation: spec.size above 100 refused, naming spec.size and the limit
  /convert      conversion: v1alpha1's spec.size is v1beta1's spec.replicas
Every other argument is printed and ignored. SIGTERM or SIGINT stops it with status 0.
"""

import base64
import json
import os
import signal
import ssl
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def flag(name):
    for arg in sys.argv[1:]:
        if arg.startswith(name + "="):
            return arg.split("=", 1)[1]
    sys.exit(f"{name}=VALUE is required, got {sys.argv[1:]}")


def admission(review, response):
    response["uid"] = review["request"]["uid"]
    return {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "response": response}


def mutate(review):
    spec = review["request"]["object"].get("spec")
    if spec is None:
        patch = [{"op": "add", "path": "/spec", "value": {"image": "memcached:1.6"}}]
    elif not spec.get("image"):
        patch = [{"op": "add", "path": "/spec/image", "value": "memcached:1.6"}]
    else:
        return admission(review, {"allowed": True})
    encoded = base64.b64encode(json.dumps(patch).encode()).decode()
    return admission(review, {"allowed": True, "patchType": "JSONPatch", "patch": encoded})


def validate(review):
    size = (review["request"]["object"] or {}).get("spec", {}).get("size", 0)
    if size > 100:
        return admission(review, {"allowed": False, "status": {
            "code": 422, "reason": "Invalid",
            "message": f"spec.size: Invalid value: {size}: must be at most 100"}})
    return admission(review, {"allowed": True})


def convert(review):
    desired = review["request"]["desiredAPIVersion"]
    converted = []
    for obj in review["request"]["objects"]:
        spec = obj.setdefault("spec", {})
        if desired.endswith("/v1beta1") and "size" in spec:
            spec["replicas"] = spec.pop("size")
        elif desired.endswith("/v1alpha1") and "replicas" in spec:
            spec["size"] = spec.pop("replicas")
        obj["apiVersion"] = desired
        converted.append(obj)
    return {"apiVersion": "apiextensions.k8s.io/v1", "kind": "ConversionReview",
            "response": {"uid": review["request"]["uid"], "result": {"status": "Success"},
                         "convertedObjects": converted}}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def answer(self, code, body):
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self):
        review = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
        path = self.path.split("?")[0]
        if path.startswith("/mutate-"):
            answer = mutate(review)
        elif path.startswith("/validate-"):
            answer = validate(review)
        elif path == "/convert":
            answer = convert(review)
        else:
            self.answer(404, b"{}")
            return
        self.answer(200, json.dumps(answer).encode())

    def do_GET(self):
        self.answer(404, b"{}")

    def log_message(self, format, *args):
        print("webhook: " + format % args, flush=True)


def main():
    host, port = flag("--webhook-bind-address").rsplit(":", 1)
    cert_dir = flag("--webhook-cert-dir")
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(os.path.join(cert_dir, "tls.crt"), os.path.join(cert_dir, "tls.key"))
    server = ThreadingHTTPServer((host.strip("[]"), int(port)), Handler)
    server.socket = context.wrap_socket(server.socket, server_side=True)

    def stop(*_):
        threading.Thread(target=server.shutdown).start()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    print(f"arguments: {sys.argv[1:]}", flush=True)
    print(f"serving webhooks at https://{host}:{port}", flush=True)
    server.serve_forever()
    print("stopped", flush=True)


main()
