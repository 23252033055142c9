#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Set up a fresh Debian 12 machine (as root) and build acs-launch in place.
#   ./bootstrap.sh            install build and test dependencies, configure, make
#   ./bootstrap.sh --no-deps  only configure and make
set -eu
cd "$(dirname "$0")"

if [ "${1:-}" != "--no-deps" ]; then
        if [ "$(id -u)" -ne 0 ]; then
                echo "bootstrap.sh: installing packages needs root (or run with --no-deps)" >&2
                exit 1
        fi
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq
        # build: compiler, autotools, and one -dev package per library configure checks
        # tests: util-linux (setpriv), git (git apply), python3-jsonschema (report schema),
        #        nodejs + npm (the MCP SDK client), bubblewrap + hyperfine (bench/),
        #        python3-numpy/-pandas/-matplotlib (profile data), python3-pytest (the
        #        test-suite recipe), python3-venv ([python] venv)
        # host recipes: systemd (systemd-analyze verify), apparmor (apparmor_parser),
        #        podman + runc (a run in a container; runc where crun refuses cgroup v1),
        #        debhelper + fakeroot + lintian (make deb)
        # fuzz:  clang + libclang-rt-dev (libFuzzer, ASan, UBSan runtimes: make fuzz;
        #        only a Recommends of clang, so named here)
        apt-get install -y -qq --no-install-recommends \
                build-essential autoconf automake libtool pkg-config \
                libcap-dev libseccomp-dev libmount-dev libinih-dev python3-dev \
                libjson-c-dev nettle-dev \
                python3 util-linux git python3-jsonschema time procps iproute2 \
                bubblewrap hyperfine ca-certificates \
                python3-numpy python3-pandas python3-matplotlib python3-pytest python3-venv \
                systemd apparmor podman runc debhelper fakeroot lintian \
                clang libclang-rt-dev >/dev/null
        # acs-init for aarch64 too (tests/unit/test-init runs it under qemu): on amd64 hosts
        [ "$(dpkg --print-architecture)" != amd64 ] ||
                apt-get install -y -qq --no-install-recommends gcc-aarch64-linux-gnu qemu-user >/dev/null
        command -v node >/dev/null 2>&1 || apt-get install -y -qq --no-install-recommends nodejs >/dev/null
        command -v npm >/dev/null 2>&1 || apt-get install -y -qq --no-install-recommends npm >/dev/null
fi

[ -x configure ] || autoreconf -fi
[ -f Makefile ] || ./configure --prefix=/usr/local --sysconfdir=/etc
make -j"$(nproc)"
