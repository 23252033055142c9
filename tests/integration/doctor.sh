#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# `acs-launch doctor`: the host checklist. tests/both-users.sh runs this as root
# and as nobody; user namespaces, overlayfs in a user namespace and seccomp work
# for both on the CI machines, so every essential check must pass.
. "$ACS_SRCDIR/tests/lib.sh"

run_acs doctor
is "$RC" 0 "doctor exits 0 when every essential check passes"
contains "$OUT" "acs-launch doctor: kernel " "header names the kernel"
for item in "user namespaces" "overlayfs in a user namespace" "seccomp" "pidfd" "procfs in a user namespace" \
        "default profile" "cgroup v2 delegation" "Landlock"; do
        if printf '%s\n' "$OUT" | grep -Eq "^\[( ok |FAIL|warn)\] $item: "; then
                ok "checklist line: $item"
        else
                fail "checklist line: $item"
                diag "$OUT"
        fi
done
for item in "user namespaces" "overlayfs in a user namespace" "seccomp" "pidfd" "procfs in a user namespace" \
        "default profile"; do
        if printf '%s\n' "$OUT" | grep -q "^\[ ok \] $item: "; then
                ok "essential check passes: $item"
        else
                fail "essential check passes: $item"
                diag "$(printf '%s\n' "$OUT" | grep "$item")"
        fi
done
contains "$OUT" "whiteouts and opaque directories work" "overlay probe replaced a lower directory"
lacks "$OUT" "[FAIL]" "no check failed"
contains "$OUT" "all essential checks passed" "summary line"

# Every miss names a remedy on the next line.
missing=$(printf '%s\n' "$OUT" | awk '/^\[warn\]|^\[FAIL\]/ { want = 1; line = $0; next }
        want && !/^ +fix: / { print line } { want = 0 }
        END { if (want) print line }')
is "$missing" "" "every warning or failure is followed by a fix"

# cgroup: either a delegated v2 subtree, or an honest "limits use rlimits" with the remedy.
cg=$(printf '%s\n' "$OUT" | grep -A1 "cgroup v2 delegation: ")
case $cg in
*"not available: limits use rlimits"*)
        contains "$cg" "Delegate=yes" "cgroup miss names the systemd-run remedy" ;;
*"partly: each run gets its own cgroup"*)
        contains "$cg" "stay rlimits" "cgroup without memory/pids controllers says rlimits stay" ;;
*"[ ok ]"*) ok "cgroup v2 delegation available" ;;
*) fail "cgroup line says neither available nor rlimits"; diag "$cg" ;;
esac

# A missing default profile is an essential failure (exit 1) that says what was searched.
mkdir "$TMP/empty"
env -u XDG_CONFIG_HOME HOME="$TMP/empty" ACS_PROFILE_PATH="$TMP/empty" "$ACS" doctor \
        >"$TMP/d.out" 2>&1 </dev/null
rc=$?
d=$(cat "$TMP/d.out")
if printf '%s\n' "$d" | grep -q '^\[ ok \] default profile: '; then
        # an installed or uninstalled build finds the shipped profiles anyway
        skip "missing default profile: an installed or uninstalled build finds the shipped profiles"
else
        is "$rc" 1 "doctor exits 1 when an essential check fails"
        contains "$d" "[FAIL] default profile: profile 'default' not found; searched $TMP/empty/default.ini" \
                "missing default profile names what was searched"
fi

# A host with user namespaces disabled, simulated in a user namespace of our own
# (user.max_user_namespaces is per user namespace): doctor fails with the exact
# sysctl, and a run stops with 125 and the same explanation.
if unshare -Ur sh -c 'echo 0 >/proc/sys/user/max_user_namespaces' 2>/dev/null; then
        unshare -Ur sh -c 'echo 0 >/proc/sys/user/max_user_namespaces && exec "$0" doctor' \
                "$ACS" >"$TMP/n.out" 2>&1 </dev/null
        rc=$?
        n=$(cat "$TMP/n.out")
        is "$rc" 1 "doctor exits 1 when user namespaces are disabled"
        contains "$n" "[FAIL] user namespaces: unshare failed: user namespaces are disabled: user.max_user_namespaces=0" \
                "doctor names the sysctl in the way"
        contains "$n" "       fix: run \`sudo sysctl -w user.max_user_namespaces=15000\`" \
                "doctor gives the exact command"
        unshare -Ur sh -c 'echo 0 >/proc/sys/user/max_user_namespaces && exec "$0" -c "print(1)"' \
                "$ACS" >"$TMP/r.out" 2>"$TMP/r.err" </dev/null
        rc=$?
        is "$rc" 125 "a run on such a host -> 125"
        contains "$(cat "$TMP/r.err")" "cannot create the sandbox's user namespace: user namespaces are disabled: user.max_user_namespaces=0; run \`sudo sysctl -w user.max_user_namespaces=15000\`" \
                "a run on such a host says which sysctl and how to fix it"
else
        skip "cannot simulate disabled user namespaces here (unshare -Ur failed)"
fi

tap_plan
