#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Run one sandbox under a transient systemd unit, so the service manager
# accounts for it and can cap it with cgroup limits on top of acs-launch's own:
#   contrib/systemd/acs-launch-run.sh --profile pure-math -- job.py
# As a user: systemd-run --user; as root: the system manager.
set -eu
scope=--user
[ "$(id -u)" -eq 0 ] && scope=
exec systemd-run $scope --scope --quiet --collect \
        -p MemoryMax=512M -p TasksMax=64 -p CPUQuota=100% \
        -- acs-launch "$@"
