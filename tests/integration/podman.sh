#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# acs-launch in rootful Podman with the shipped seccomp profile
# (contrib/containers/seccomp.json, not unconfined) and the flags of
# contrib/containers/run.sh: non-root, --cap-drop=ALL, no-new-privileges,
# read-only root. The image is built with contrib/containers/Containerfile
# on a base imported from the host's own files (tests/containers/host-rootfs.sh):
# no image registry is reachable from the test machines. Then each container
# setting that breaks the sandbox is taken away in turn, and doctor or the
# run must name the flag that fixes it.
. "$ACS_SRCDIR/tests/lib.sh"

done_() { echo "1..$_tap_n"; exit 0; }
if [ "$(id -u)" -ne 0 ]; then
        skip "rootful Podman needs root (this run is as $(id -un))"
        done_
fi
if ! command -v podman >/dev/null 2>&1; then
        skip "podman is not installed (bootstrap.sh installs Debian's podman)"
        done_
fi
# Podman's mounts (layers, /dev/shm) stay in a mount namespace of their own:
# tests running beside this one count the host's mount table.
pm="unshare --mount --propagation private podman"
tag=$$
base=localhost/acs-test-base:$tag
image=localhost/acs-launch-test:$tag
cleanup() {
        $pm rmi -f "$image" "$base" >/dev/null 2>&1
        rm_tmp
}
trap cleanup EXIT

# Containers may not raise rlimits past the caller's (CI's root may lack
# CAP_SYS_RESOURCE), while Podman's defaults ask for more.
lim="--ulimit nofile=1024:$(ulimit -Hn) --ulimit nproc=4096:4096"
if ! sh "$ACS_SRCDIR/tests/containers/host-rootfs.sh" >"$TMP/base.tar" ||
        ! $pm import -q "$TMP/base.tar" "$base" >/dev/null 2>"$TMP/import.err"; then
        fail "a base image from the host's files"
        diag "$(cat "$TMP/import.err" 2>/dev/null)"
        done_
fi
rm -f "$TMP/base.tar"
# crun refuses cgroup v1/hybrid hosts; runc (Debian's) runs there
engine=$pm
# shellcheck disable=SC2086
if ! $pm run --rm $lim "$base" /bin/sh -c true >"$TMP/probe.err" 2>&1; then
        # shellcheck disable=SC2086
        if command -v runc >/dev/null 2>&1 && $pm --runtime runc run --rm $lim "$base" /bin/sh -c true >/dev/null 2>&1; then
                engine="$pm --runtime runc"
                diag "the default OCI runtime cannot start containers here ($(head -c 200 "$TMP/probe.err")); using runc"
        else
                skip "Podman cannot start a container on this host: $(head -c 300 "$TMP/probe.err")"
                done_
        fi
fi

# The image: the Containerfile over an installed tree (binaries, profiles).
mkdir -p "$TMP/ctx/root/usr/local/bin" "$TMP/ctx/root/usr/local/share/acs"
cp "$ACS" "$TMP/ctx/root/usr/local/bin/acs-launch"
[ -x "$ACS_BUILDDIR/acs-launch-full" ] && cp "$ACS_BUILDDIR/acs-launch-full" "$TMP/ctx/root/usr/local/bin/"
cp -r "$ACS_SRCDIR/profiles" "$TMP/ctx/root/usr/local/share/acs/profiles"
# the scan modules (the run's Python scan), where ACS_SCAN_MODULE_DIR points
mkdir -p "$TMP/ctx/root/usr/local/lib/acs-launch"
cp "$ACS_BUILDDIR"/.libs/acs-scan*.so "$TMP/ctx/root/usr/local/lib/acs-launch/" 2>/dev/null
chmod -R a+rX "$TMP/ctx"
# shellcheck disable=SC2086
if $engine build -q --pull=never $lim --build-arg "BASE=$base" -t "$image" \
        -f "$ACS_SRCDIR/contrib/containers/Containerfile" "$TMP/ctx" >"$TMP/build.out" 2>&1; then
        ok "the Containerfile builds an image"
else
        fail "the Containerfile builds an image"
        diag "$(tail -n 20 "$TMP/build.out")"
        done_
fi

mkdir -p "$TMP/job"
printf 'import math\nprint(math.factorial(10))\n' >"$TMP/job/job.py"
chmod -R a+rX "$TMP/job"
opts="$lim -v $TMP/job:/job:ro -e ACS_PROFILE_PATH=/usr/local/share/acs/profiles -e ACS_SCAN_MODULE_DIR=/usr/local/lib/acs-launch"
run_c() { # the recipe: contrib/containers/run.sh
        OUT=$(ENGINE=$engine IMAGE=$image ACS_RUN_OPTS=$opts sh "$ACS_SRCDIR/contrib/containers/run.sh" "$@" 2>&1)
        RC=$?
}
# the recipe's flags less some, plus others: raw podman run
strict="--user 65534:65534 --cap-drop=ALL --security-opt no-new-privileges --read-only"
raw_c() { # podman-run-options -- image args
        # shellcheck disable=SC2086
        OUT=$($engine run --rm -i $strict $opts "$@" 2>&1)
        RC=$?
}

# 1. The recipe works.
run_c doctor
is "$RC" 0 "doctor passes inside the container (run.sh: shipped seccomp profile, unmask=ALL)"
contains "$OUT" "all essential checks passed" "doctor: all essential checks passed"
contains "$OUT" "[ ok ] hostname in a UTS namespace" "doctor: sethostname works in the sandbox's UTS namespace"
[ "$RC" = 0 ] || diag "$OUT"

run_c --json --profile pure-math -- /job/job.py
is "$RC" 0 "acs-launch --json runs a job in the container"
status=$(printf '%s' "$OUT" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["status"], d["exit_code"], d["stdout"]["text"].strip())' 2>&1)
is "$status" "exited 0 3628800" "the report says the job exited 0 with its output"

run_c exec -- /bin/sh -c 'cat /proc/sys/kernel/hostname'
is "$RC" 0 "exec runs a command in the container"
contains "$OUT" "sandbox" "the sandbox has its own hostname"

# the container really is confined: filtered, no capabilities, no new privileges
raw_c --security-opt "seccomp=$ACS_SRCDIR/contrib/containers/seccomp.json" --security-opt unmask=ALL \
        --entrypoint /bin/cat "$image" /proc/self/status
contains "$OUT" "$(printf 'Seccomp:\t2')" "the container runs under a seccomp filter (not unconfined)"
contains "$OUT" "$(printf 'NoNewPrivs:\t1')" "the container has no_new_privs"
contains "$OUT" "$(printf 'CapEff:\t0000000000000000')" "the container has no capabilities"

# 2. Podman's own default seccomp profile: sethostname is denied.
raw_c --security-opt unmask=ALL "$image" doctor
is "$RC" 1 "doctor fails under Podman's default seccomp profile"
contains "$OUT" "[FAIL] hostname in a UTS namespace: sethostname failed" "doctor: the sethostname check fails"
contains "$OUT" "--security-opt seccomp=" "doctor names the seccomp flag"
contains "$OUT" "/acs/containers/seccomp.json" "doctor names the shipped profile"
raw_c --security-opt unmask=ALL "$image" --profile pure-math -- /job/job.py
is "$RC" 125 "a run under Podman's default seccomp profile exits 125"
contains "$OUT" "sethostname" "the run's error names sethostname"
contains "$OUT" "--security-opt seccomp=" "the run's error names the seccomp flag"

# 3. Docker's default profile (ours less what we add): no user namespaces.
python3 - "$ACS_SRCDIR/contrib/containers/seccomp.json" "$TMP/docker-default.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["syscalls"] = [s for s in d["syscalls"] if not s.get("comment", "").startswith("acs-launch:")]
# Docker's own rules: clone without namespace flags, clone3 answers ENOSYS
d["syscalls"].append({"names": ["clone"], "action": "SCMP_ACT_ALLOW",
                      "args": [{"index": 0, "value": 2114060288, "op": "SCMP_CMP_MASKED_EQ"}]})
d["syscalls"].append({"names": ["clone3"], "action": "SCMP_ACT_ERRNO", "errnoRet": 38})
json.dump(d, open(sys.argv[2], "w"))
PY
raw_c --security-opt "seccomp=$TMP/docker-default.json" --security-opt unmask=ALL "$image" doctor
is "$RC" 1 "doctor fails under Docker's default seccomp profile"
contains "$OUT" "[FAIL] user namespaces:" "doctor: the user namespace check fails"
contains "$OUT" "denied (Operation not permitted) by a container's seccomp filter" "doctor says a seccomp filter denies it"
contains "$OUT" "/acs/containers/seccomp.json" "doctor names the shipped profile"
raw_c --security-opt "seccomp=$TMP/docker-default.json" --security-opt unmask=ALL "$image" --profile pure-math -- /job/job.py
is "$RC" 125 "a run under Docker's default seccomp profile exits 125"
contains "$OUT" "--security-opt seccomp=" "the run's error names the seccomp flag"

# 4. A masked /proc (Podman's default without unmask=ALL).
raw_c --security-opt "seccomp=$ACS_SRCDIR/contrib/containers/seccomp.json" "$image" doctor
is "$RC" 1 "doctor fails with a masked /proc"
contains "$OUT" "[FAIL] procfs in a user namespace" "doctor: the procfs check fails"
contains "$OUT" "--security-opt unmask=ALL" "doctor names Podman's unmask flag"
contains "$OUT" "systempaths=unconfined" "doctor names Docker's flag"
done_
