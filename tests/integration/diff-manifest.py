# SPDX-License-Identifier: LGPL-2.1-or-later
"""Print a tree's manifest, one line per entry, sorted, to compare trees.

  diff-manifest.py git DIR    what a git patch can carry: regular files (content
                              hash, 644/755) and symlinks (target); no dirs, no
                              special files
  diff-manifest.py full DIR   everything: dirs with modes, files with exact
                              modes, symlinks, special files by type
  diff-manifest.py json FILE LIST PATH FIELD   print a field of one entry of
                              the diff's JSON (PATH as the JSON string value)
  diff-manifest.py expect LOWER MERGED UMASK   the full manifest apply should
                              leave, from the full manifests before and after
                              the run: modes never widened, no special files,
                              no symlink leading out (acs-launch(1), THE
                              WORKSPACE; an oracle written apart from the C)
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


def parse(path):
    """{path bytes: (type, rest)} of a full manifest."""
    import ast
    out = {}
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            # the path is a bytes literal: find where it ends
            for i in range(3, len(line) + 1):
                if line[i - 1] in "'\"" and i < len(line) and line[i] == " ":
                    try:
                        name = ast.literal_eval(line[:i])
                        break
                    except (SyntaxError, ValueError):
                        continue
            rest = line[i + 1:].split(" ", 1)
            out[name] = (rest[0], rest[1] if len(rest) > 1 else "")
    return out


def leaves(path, target):
    if not target or target.startswith(b"/"):
        return True
    depth, named = path.count(b"/"), False
    for c in target.split(b"/"):
        if c == b"..":
            if named or depth == 0:
                return True
            depth -= 1
        elif c not in (b"", b"."):
            named = True
    return False


def expect(lower_path, merged_path, umask):
    lower, merged = parse(lower_path), parse(merged_path)
    um = int(umask, 8)
    lines = []
    for name, (t, rest) in merged.items():
        old = lower.get(name)
        if (t, rest) == old:
            lines.append((name, t, rest))
            continue
        if t == "special" or (t == "symlink" and leaves(name, ast_bytes(rest))):
            if old:
                lines.append((name,) + old)
            continue
        if t == "file":
            s, h = rest.split(" ", 1)
            s = int(s, 8)
            if old and old[0] == "file":
                o = int(old[1].split(" ", 1)[0], 8)
                m = (o & 0o600) | (s & 0o100) | (o & s & 0o77)
            else:
                m = (0o755 if s & 0o100 else 0o644) & ~um & s
            rest = "%o %s" % (m, h)
        elif t == "dir":
            s = int(rest, 8)
            if old and old[0] == "dir":
                o = int(old[1], 8)
                m = (o & 0o7700) | (o & s & 0o77)
            else:
                m = (0o755 & ~um & s) | 0o700
            rest = "%o" % m
        lines.append((name, t, rest))
    for name, t, rest in sorted(lines):
        print("%r %s %s" % (name, t, rest))


def ast_bytes(s):
    import ast
    return ast.literal_eval(s)


if __name__ == "__main__":
    if sys.argv[1] == "flatten":
        flatten(sys.argv[2])
    elif sys.argv[1] == "expect":
        expect(*sys.argv[2:5])
    elif sys.argv[1] == "json":
        json_field(*sys.argv[2:6])
    else:
        manifest(sys.argv[1], sys.argv[2])
