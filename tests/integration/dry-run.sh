#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# --dry-run prints the plan the run would apply and creates nothing: no
# clone into namespaces, no mount, no directory, no cgroup, no report file;
# the program never runs. Each "nothing" check has a control: the same
# command without --dry-run, which does the thing.
. "$ACS_SRCDIR/tests/lib.sh"

mkdir -p "$TMP/ws"
chmod 0777 "$TMP/ws"

run_acs --dry-run -c 'print("ran" + "-marker")' a b
is "$RC" 0 "run --dry-run exits 0"
contains "$OUT" "mounts (in order):" "the plan lists the mount table"
contains "$OUT" "[4] <scan bootstrap>" "the scan bootstrap is named, not printed raw"
contains "$OUT" "  [5] print(\"ran\" + \"-marker\")" "the code is the bootstrap's argument"
lacks "$OUT$ERR" "ran-marker" "the program did not run"
run_acs -c 'print("ran" + "-marker")'
contains "$OUT" "ran-marker" "control: without --dry-run it prints its marker"

# the program never runs: a real run would write into the workspace
run_acs exec --dry-run -w "$TMP/ws" --apply -- sh -c 'echo x > /workspace/made'
is "$RC" 0 "exec --dry-run exits 0"
check "exec --dry-run writes nothing back" test ! -e "$TMP/ws/made"
contains "$OUT" "/workspace: overlay (upper diffed after the run) of $TMP/ws" "the plan names the workspace"
run_acs exec -w "$TMP/ws" --apply -- sh -c 'echo x > /workspace/made'
check "control: the same command without --dry-run writes it" test -e "$TMP/ws/made"

# no --report file
run_acs --dry-run --report "$TMP/report.json" -c 'pass'
check "--dry-run writes no --report file" test ! -e "$TMP/report.json"

# a bind source that is missing: the same error a run gives, exit 125
run_acs exec --dry-run --bind "$TMP/nowhere" /data -- true
is "$RC" 125 "a missing --bind source is an error in a dry run too"
contains "$ERR" "cannot bind '$TMP/nowhere'" "the error names the path"
run_acs exec --dry-run --json --bind "$TMP/nowhere" /data -- true
is "$(printf %s "$OUT" | json_get .status)" error "--json: the error is one JSON report"

# --json: one object, the same mount table
run_acs exec --dry-run --json --ro-bind "$TMP/ws" /data -- true
is "$RC" 0 "--dry-run --json exits 0"
is "$(printf %s "$OUT" | json_get .dry_run)" true "--dry-run --json prints one JSON object"
is "$(printf %s "$OUT" | json_get .argv.0)" true "with the argv"
contains "$(printf %s "$OUT" | json_get .mounts)" "/data <- $TMP/ws: read-only overlay" "and the mount table"

# The dry run cannot drift from the run: the mounts it plans appear in the
# sandbox's own mount table in the same order.
mkdir -p "$TMP/a" "$TMP/b"
echo f >"$TMP/f"
chmod -R a+rX "$TMP/a" "$TMP/b" "$TMP/f"
set -- --ro-bind "$TMP/a" /ra --bind "$TMP/b" /workspace/rb --ro-bind "$TMP/f" /rf --tmpfs /scratch
run_acs exec --dry-run "$@" -- true
planned=$(printf '%s\n' "$OUT" | awk '$2=="tmpfs"||$2=="workspace"||$2=="bind"{sub(/:$/,"",$3); print $3}')
run_acs exec "$@" -- cut -d' ' -f5 /proc/self/mountinfo
applied=$(printf '%s\n' "$OUT" | grep -Fx "$planned")
is "$(echo $applied)" "$(echo $planned)" "the sandbox's mounts are the dry run's, in its order"
contains "$(echo $planned)" "/scratch /dev/shm /workspace" "(the tmpfs entries, then the workspace"
contains "$(echo $planned)" "/ra /workspace/rb /rf" "then the binds in the command line's order)"
set --

# Nothing created, seen from the kernel's side: no namespace clone, no
# mount, no mkdir, no cgroup. strace must be able to trace its own child.
if strace -f -qq -o /dev/null true 2>/dev/null; then
        trace() { strace -f -qq -e trace=clone,clone3,unshare,mount,mkdir,mkdirat,open_tree,fsopen -o "$TMP/.trace" "$ACS" "$@" >/dev/null 2>&1; }
        trace --dry-run --memory 64M -w "$TMP/ws" -c 'pass'
        calls=$(grep -cE 'CLONE_NEW|unshare|mount\(|mkdir|open_tree|fsopen' "$TMP/.trace")
        is "$calls" 0 "--dry-run: no namespace, mount, directory or cgroup is created"
        [ "$calls" = 0 ] || diag "$(grep -E 'CLONE_NEW|unshare|mount\(|mkdir|open_tree|fsopen' "$TMP/.trace" | head -5)"
        trace --memory 64M -w "$TMP/ws" -c 'pass'
        check "control: a real run under the same trace clones into namespaces" grep -q CLONE_NEWUSER "$TMP/.trace"
else
        skip "strace cannot trace here: the syscall check"
        skip "strace cannot trace here: its control"
fi
tap_plan
