#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Writes to stdout a tar of a minimal Debian-like root filesystem taken from
# this host: /bin/sh, python3 and its standard library, the libraries they
# and acs-launch-full load, ld.so.cache, passwd/group. The container test
# imports it as its base image, since no registry of images is reachable
# from the test machines (only Debian's package archive).
#   tests/containers/host-rootfs.sh > base.tar
set -eu
py=$(readlink -f /usr/bin/python3)
pyver=$(basename "$py")
list=$(mktemp)
trap 'rm -f "$list"' EXIT
{
        {
                for f in /usr/bin/dash /usr/bin/env /usr/bin/cat "$py" /usr/bin/python3; do echo "$f"; done
                # what they and acs-launch-full link and dlopen (libmount for doctor)
                for f in /usr/bin/dash /usr/bin/env /usr/bin/cat "$py" \
                        "$(ldconfig -p | sed -n 's/.*=> \(.*libmount\.so\.1\)$/\1/p' | head -n1)"; do
                        echo "$f"
                        ldd "$f" 2>/dev/null | sed -n 's/.*=> \(\/[^ ]*\) .*/\1/p; s/^[[:space:]]*\(\/[^ ]*\) (.*/\1/p'
                done
                echo /etc/ld.so.cache
                [ -f /etc/ssl/certs/ca-certificates.crt ] && echo /etc/ssl/certs/ca-certificates.crt
        } | while read -r f; do
                [ -n "$f" ] || continue
                # follow symlinks in the directory part (/lib -> /usr/lib), keep the name
                d=$(readlink -f "$(dirname "$f")")
                echo "${d#/}/$(basename "$f")"
                if [ -L "$f" ]; then t=$(readlink -f "$f"); echo "${t#/}"; fi
        done
        # the standard library, less tests, GUI and installers
        find "/usr/lib/$pyver" -path "/usr/lib/$pyver/test" -prune -o -path "*/dist-packages" -prune \
                -o -path "*/idlelib" -prune -o -path "*/tkinter" -prune -o -path "*/ensurepip" -prune \
                -o -path "*/lib2to3" -prune -o \( -type f -o -type l \) -print | sed 's|^/||'
} | sort -u >"$list"
root=$(mktemp -d)
trap 'rm -f "$list"; rm -rf "$root"' EXIT
mkdir -p "$root/etc" "$root/tmp" "$root/proc" "$root/sys" "$root/dev" "$root/run" "$root/usr/bin" "$root/var/tmp"
chmod 1777 "$root/tmp" "$root/var/tmp"
# merged /usr, as Debian 12
ln -s usr/bin "$root/bin"
ln -s usr/lib "$root/lib"
[ -d /usr/lib64 ] && ln -s usr/lib64 "$root/lib64"
ln -s usr/sbin "$root/sbin"
ln -s dash "$root/usr/bin/sh"
printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n' >"$root/etc/passwd"
printf 'root:x:0:\nnogroup:x:65534:\n' >"$root/etc/group"
tar -C / -cf - --no-recursion -T "$list" | tar -C "$root" -xf -
tar -C "$root" --numeric-owner -cf - .
