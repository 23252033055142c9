# SPDX-License-Identifier: LGPL-2.1-or-later
"""Print a tree's manifest, one line per entry, sorted, to compare trees.

  diff-manifest.py git DIR    what a git patch can carry: regular files (content
                              hash, 644/755) and symlinks (target); no dirs, no
                              special files
  diff-manifest.py full DIR   everything: dirs with modes, files with exact
                              modes, symlinks, special files by type
  diff-manifest.py json FILE LIST PATH FIELD   print a field of one entry of
                              the diff's JSON (PATH as the JSON string value)
Names are printed with repr() of their bytes, so newlines and bad bytes are kept.
"""
import hashlib
import json
import os
import stat
import sys


def manifest(kind, top):
    top = os.fsencode(top)
    lines = []
    for root, dirs, files in os.walk(top):
        for name in dirs + files:
            full = os.path.join(root, name)
            rel = os.path.relpath(full, top)
            st = os.lstat(full)
            m = st.st_mode
            if stat.S_ISDIR(m):
                if kind == "full":
                    lines.append("%r dir %o" % (rel, m & 0o7777))
            elif stat.S_ISLNK(m):
                lines.append("%r symlink %r" % (rel, os.readlink(full)))
            elif stat.S_ISREG(m):
                with open(full, "rb") as f:
                    h = hashlib.sha256(f.read()).hexdigest()
                mode = (m & 0o7777) if kind == "full" else (0o755 if m & 0o100 else 0o644)
                lines.append("%r file %o %s" % (rel, mode, h))
            elif kind == "full":
                lines.append("%r special %o" % (rel, stat.S_IFMT(m)))
    for line in sorted(lines):
        print(line)


def flatten(path):
    """One line per entry field: LIST TAB PATH TAB FIELD TAB VALUE, with
    newlines in paths written as a backslash and n (for shell lookups)."""
    with open(path) as f:
        data = json.load(f)
    for lst in ("added", "modified", "deleted"):
        for e in data.get(lst, []):
            p = e["path"].replace("\n", "\\n")
            for k, v in e.items():
                v = json.dumps(v) if isinstance(v, (bool, dict, list)) else v
                print("%s\t%s\t%s\t%s" % (lst, p, k, v))


def json_field(path, lst, want, field):
    with open(path) as f:
        data = json.load(f)
    for e in data.get(lst, []):
        if e.get("path") == want:
            v = e.get(field)
            print("null" if v is None else json.dumps(v) if isinstance(v, (bool, dict, list)) else v)
            return
    print("absent")


if __name__ == "__main__":
    if sys.argv[1] == "flatten":
        flatten(sys.argv[2])
    elif sys.argv[1] == "json":
        json_field(*sys.argv[2:6])
    else:
        manifest(sys.argv[1], sys.argv[2])
