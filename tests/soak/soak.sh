#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# `make soak`: SOAK_RUNS (default 10,000) mixed runs of the built acs-launch
# per user -- as the current user and, when that is root, again as nobody
# (ACS_TEST_USER) through setpriv, as tests/both-users.sh does -- each
# checked by tests/soak/soak.py for processes, mounts, cgroups, fds and
# temporary files left behind and for launcher RSS that grows. Not part of
# `make check` (it takes a while); exits non-zero when anything leaked.
#
# Each half runs in a mount namespace of its own with empty /tmp, /var/tmp
# and /dev/shm (so a temporary file left behind is ours, not another
# process's) and, as root on a host with cgroup v2, in a delegated cgroup
# (as systemd's Delegate=yes makes one) so that runs create and must remove
# their own cgroups. The binaries are staged first: a rebuild during the
# soak does not change what it measures.
set -u
: "${ACS_BUILDDIR:?}" "${ACS_SRCDIR:?}"
RUNS=${SOAK_RUNS:-10000}
user=${ACS_TEST_USER:-nobody}
# SOAK_USERS: which halves run as root (default both; e.g. "root")
halves=${SOAK_USERS:-root $user}
PY=/usr/bin/python3

# not under /tmp: each half gets an empty /tmp of its own
stage=$(mktemp -d "$ACS_BUILDDIR/soak-stage.XXXXXX") || exit 1
CGS=
cleanup() {
        for d in $CGS; do
                for r in "$d"/acs-run-* "$d"/acs-launcher; do
                        [ -d "$r" ] || continue
                        echo 1 >"$r/cgroup.kill" 2>/dev/null
                        while read -r p; do echo "$p" >"$d/cgroup.procs" 2>/dev/null; done <"$r/cgroup.procs"
                        rmdir "$r" 2>/dev/null
                done
                while read -r p; do echo "$p" >"$MNT/cgroup.procs" 2>/dev/null; done <"$d/cgroup.procs"
                rmdir "$d" 2>/dev/null
        done
        chmod -R u+rwx "$stage" 2>/dev/null
        rm -rf "$stage"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

chmod 0755 "$stage"
mkdir -p "$stage/build" "$stage/src"
cp -p "$ACS_BUILDDIR/acs-launch" "$stage/build/" || exit 1
if [ -x "$ACS_BUILDDIR/acs-launch-full" ]; then cp -p "$ACS_BUILDDIR/acs-launch-full" "$stage/build/" || exit 1; fi
if [ -d "$ACS_BUILDDIR/.libs" ]; then cp -a "$ACS_BUILDDIR/.libs" "$stage/build/" || exit 1; fi
cp -a "$ACS_SRCDIR/profiles" "$ACS_SRCDIR/tests/soak/soak.py" "$stage/src/" || exit 1
chmod -R a+rX "$stage"

MNT=
for m in /sys/fs/cgroup /sys/fs/cgroup/unified; do
        if [ "$(stat -fc %T "$m" 2>/dev/null)" = cgroup2fs ]; then
                MNT=$m
                break
        fi
done

# cgroup_for OWNER: CG, a delegated cgroup for one half (empty: none). The
# driver and so every launcher live in it, and runs create CG/acs-run-*.
cgroup_for() {
        CG=
        [ "$(id -u)" -eq 0 ] && [ -n "$MNT" ] || return 0
        mkdir "$MNT/acs-soak-$$-$1" 2>/dev/null || return 0
        CG=$MNT/acs-soak-$$-$1
        CGS="$CGS $CG"
        if [ "$1" = root ]; then
                $PY -c 'import os, sys; os.setxattr(sys.argv[1], "trusted.delegate", b"1")' "$CG"
        else
                chown -R "$1" "$CG"
        fi
}

# half LABEL CGROUP [setpriv ARGS...]: one driver run; its status
half() {
        label=$1 cg=$2
        shift 2
        work=$stage/work-$label
        mkdir -p "$work" && chmod 0777 "$work"
        echo "# [$label] $RUNS runs${cg:+, delegated cgroup $cg}"
        # own mount namespace with empty temp dirs (root makes it, then drops)
        # shellcheck disable=SC2016
        set -- unshare -m --propagation private sh -c '
                for d in /tmp /var/tmp /dev/shm; do mount -t tmpfs -o mode=1777 soak-tmp "$d" || exit 1; done
                cg=$1; shift
                [ -z "$cg" ] || echo $$ >"$cg/cgroup.procs" || exit 1
                exec "$@"' sh "$cg" "$@" env -i PATH=/usr/bin:/bin HOME=/ \
                ACS_PROFILE_PATH="$stage/src/profiles" ACS_SCAN_MODULE_DIR="$stage/build/.libs" \
                $PY "$stage/src/soak.py" --acs "$stage/build/acs-launch" --runs "$RUNS" --label "$label" \
                --work "$work" ${cg:+--cgroup "$cg"} ${SOAK_RSS_SLACK:+--rss-slack "$SOAK_RSS_SLACK"}
        "$@"
}

start=$(date +%s)
if [ "$(id -u)" -ne 0 ]; then
        echo "# not root: the soak runs as $(id -un) only, without private temp dirs or a delegated cgroup"
        env ACS_PROFILE_PATH="$stage/src/profiles" ACS_SCAN_MODULE_DIR="$stage/build/.libs" \
                $PY "$stage/src/soak.py" --acs "$stage/build/acs-launch" --runs "$RUNS" --label "$(id -un)" \
                --work "$stage" --temp-dirs ""
        exit $?
fi
st=0 st2=0
case " $halves " in *" root "*)
        cgroup_for root
        half root "$CG"
        st=$? ;;
esac
case " $halves " in *" $user "*)
        if ! uid=$(id -u "$user" 2>/dev/null) || [ "$uid" -eq 0 ] || ! command -v setpriv >/dev/null 2>&1; then
                echo "not ok - [$user] half not run: no unprivileged user '$user' or no setpriv"
                exit 1
        fi
        cgroup_for "$user"
        half "$user" "$CG" setpriv --reuid="$uid" --regid="$(id -g "$user")" --clear-groups
        st2=$? ;;
esac
echo "# soak ($halves): $(($(date +%s) - start)) s"
[ $st -eq 0 ] && [ $st2 -eq 0 ]
