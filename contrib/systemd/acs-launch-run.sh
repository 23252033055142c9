#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Run one sandbox under a transient systemd unit, so the service manager
# accounts for it and caps the whole unit; Delegate=yes hands the unit's
# cgroup to acs-launch, which then gives the run its own cgroup with the
# profile's memory.max and pids.max (see acs-launch(1), Limits):
#   contrib/systemd/acs-launch-run.sh --profile pure-math -- job.py
# As a user: systemd-run --user; as root: the system manager.
set -eu
scope=--user
[ "$(id -u)" -eq 0 ] && scope=
exec systemd-run $scope --scope --quiet --collect \
        -p Delegate=yes -p MemoryMax=512M -p TasksMax=64 -p CPUQuota=100% \
        -- acs-launch "$@"
