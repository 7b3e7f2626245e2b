#!/usr/bin/env python3
# Lines of a generated Rust project that a user owns outside tests, per file and in all: the
# figure issue #34 ("small enough to own") is judged by.
# Usage: scripts/generated-lines.py PROJECT/src
# Counts every line but `#[cfg(test)]` items: a `#[cfg(test)] mod x {` block counts as running
# to the end of its file (tests come last in our files), a `#[cfg(test)] mod x;` line is skipped
# with its attribute, and files only tests compile (reconcile/testing.rs) are left out.
import os
import sys


def owned_lines(path):
    lines = open(path, encoding="utf-8").read().split("\n")
    if lines and lines[-1] == "":
        lines = lines[:-1]
    count = 0
    i = 0
    while i < len(lines):
        if lines[i].strip() == "#[cfg(test)]":
            if i + 1 < len(lines) and lines[i + 1].rstrip().endswith("{"):
                break
            i += 2
            continue
        count += 1
        i += 1
    return count


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: scripts/generated-lines.py PROJECT/src")
    root = sys.argv[1]
    rows = []
    for directory, _, files in os.walk(root):
        for name in files:
            if name.endswith(".rs") and name != "testing.rs":
                path = os.path.join(directory, name)
                rows.append((owned_lines(path), os.path.relpath(path, root)))
    for count, path in sorted(rows, reverse=True):
        print(f"{count:5d} {path}")
    print(f"{sum(count for count, _ in rows):5d} total")


main()
