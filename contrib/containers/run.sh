#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# acs-launch in a container, with the least the sandbox needs:
#   contrib/containers/run.sh [acs-launch arguments]     (default: doctor)
#   ENGINE=docker IMAGE=acs-launch contrib/containers/run.sh --json -- /job/job.py
# ACS_RUN_OPTS adds engine options (volumes), e.g. "-v $PWD/job:/job:ro".
# What each flag is for:
#   --user 65534:65534, --cap-drop=ALL, no-new-privileges, --read-only:
#       all work; the sandbox needs no capability and writes only to /tmp
#   seccomp=seccomp.json: the engine's default profile plus the 13 syscalls
#       of the sandbox's setup (unshare, clone with namespace flags, mount...)
#       instead of seccomp=unconfined, which throws all of it away
#   unmask=ALL (Podman) / systempaths=unconfined (Docker): the engine masks
#       parts of /proc with overmounts; the kernel then refuses the sandbox a
#       procfs of its own. The sandbox's /proc is its own pid namespace's.
#   apparmor=unconfined, only on hosts with AppArmor: the engine's default
#       AppArmor profile denies mount(2)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
ENGINE=${ENGINE:-podman}
IMAGE=${IMAGE:-localhost/acs-launch}
SECCOMP=${SECCOMP:-$here/seccomp.json}
[ -f "$SECCOMP" ] || SECCOMP=/usr/share/acs/containers/seccomp.json
case $ENGINE in
*docker*) unmask=systempaths=unconfined ;;
*) unmask=unmask=ALL ;;
esac
apparmor=
if [ "$(cat /sys/module/apparmor/parameters/enabled 2>/dev/null)" = Y ]; then
        apparmor="--security-opt apparmor=unconfined"
fi
# shellcheck disable=SC2086 # ACS_RUN_OPTS and apparmor are lists of options
# shellcheck disable=SC2086 # ENGINE may carry global options (podman --runtime runc)
exec $ENGINE run --rm -i \
        --user 65534:65534 --cap-drop=ALL --security-opt no-new-privileges \
        --read-only --tmpfs /tmp:rw,nosuid,nodev,size=256m \
        --security-opt "seccomp=$SECCOMP" --security-opt "$unmask" $apparmor \
        ${ACS_RUN_OPTS:-} "$IMAGE" "$@"
