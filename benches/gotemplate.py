"""Helm's side of benches/gotemplate.sh: builds one chart of every corpus snippet Helm renders
without error (and without random output), then times Helm rendering it.

usage: gotemplate.py CORPUS_DIR OUT_CHART_DIR ITERATIONS
"""

import glob
import json
import os
import shutil
import sys
import tempfile
import time

import helm_python as helm


def snippets(corpus):
    for path in sorted(glob.glob(os.path.join(corpus, "*.tmpl"))):
        name, body = None, []
        for line in open(path).read().split("\n"):
            if line.startswith("### "):
                if name is not None:
                    yield name, "\n".join(body)
                name, body = line[4:], []
            else:
                body.append(line)
        if name is not None:
            yield name, "\n".join(body)


def chart(dirname, values, templates):
    shutil.rmtree(dirname, ignore_errors=True)
    os.makedirs(os.path.join(dirname, "templates"))
    with open(os.path.join(dirname, "Chart.yaml"), "w") as f:
        f.write("apiVersion: v2\nname: c\nversion: 0.1.0\n")
    with open(os.path.join(dirname, "values.yaml"), "w") as f:
        f.write(json.dumps(values))
    for fname, text in templates.items():
        with open(os.path.join(dirname, "templates", fname), "w") as f:
            f.write(text)


def main():
    corpus, out, iterations = sys.argv[1], sys.argv[2], int(sys.argv[3])
    values = json.load(open(os.path.join(corpus, "values.json")))
    keep = {}
    with tempfile.TemporaryDirectory() as tmp:
        for i, (name, text) in enumerate(snippets(corpus)):
            if any(w in text for w in ("rand", "uuid", "shuffle", "now", "getHost")):
                continue
            one = os.path.join(tmp, str(i))
            chart(one, values, {"t.yaml": text})
            try:
                helm.Chart.load(one).render({}, name="r1", namespace="ns1")
            except helm.HelmError:
                continue
            keep["s%04d.yaml" % i] = text
    chart(out, values, keep)
    c = helm.Chart.load(out)
    c.render({}, name="r1", namespace="ns1")
    start = time.perf_counter()
    for _ in range(iterations):
        c.render({}, name="r1", namespace="ns1")
    per = (time.perf_counter() - start) / iterations
    print("helm: %d templates, %.3f ms per render" % (len(keep), per * 1000))


if __name__ == "__main__":
    main()
