#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# The static/dynamic split (issue 17): the static acs-launch is linked from
# libacs-core.a, which cannot reference dlopen, and has its own command
# table; what it lacks (check, mcp, doctor, apply) is exec'd as
# acs-launch-full with the same arguments and the caller's umask, after its
# own parse of the command line.
. "$ACS_SRCDIR/tests/lib.sh"

FULL=$ACS_BUILDDIR/acs-launch-full
if [ ! -x "$FULL" ]; then
        skip "acs-launch is not static in this build (--disable-static-launcher or sanitizers): one binary"
        tap_plan
        exit
fi
if ! command -v nm >/dev/null 2>&1 || ! command -v readelf >/dev/null 2>&1; then
        fail "nm and readelf (binutils) are needed to check the static acs-launch"
        tap_plan
        exit
fi

# --- the static binary --------------------------------------------------------
elf=$(LC_ALL=C readelf -lW -dW "$ACS" 2>&1)
lacks "$elf" "program interpreter" "the static acs-launch has no program interpreter"
lacks "$elf" "(NEEDED)" "and needs no shared library"

syms=$(nm "$ACS" 2>&1)
# (a stripped binary would pass every lacks below: it must show its symbols)
contains "$syms" " T acs_run" "nm lists the static acs-launch's own symbols"
for s in acs_scan_source acs_proc_overmounts acs_mcp_main acs_mcp_http_main acs_doctor acs_cmd_check; do
        if printf '%s\n' "$syms" | grep -q " $s\$"; then
                fail "the static acs-launch carries $s (code that dlopens, or a command it hands over)"
        else
                ok "the static acs-launch does not carry $s"
        fi
done
# glibc's libc.a brings its own dlopen.o into every static program (libio's
# vtables.o and rtld_static_init.o reference __dlopen): what must not exist
# is a reference from our code, which is also what makes ld warn.
core=$ACS_BUILDDIR/src/libacs-core.a
if [ -r "$core" ] && [ -r "$ACS_BUILDDIR/src/main.o" ] && [ -r "$ACS_BUILDDIR/src/full.o" ]; then
        refs=$(nm -A "$core" "$ACS_BUILDDIR/src/main.o" "$ACS_BUILDDIR/src/full.o" 2>&1 |
                grep -E ' U (dlopen|dlmopen|dlsym|dlvsym)$')
        is "$refs" "" "no object the static acs-launch is linked from references dlopen"
        contains "$(nm -A "$ACS_BUILDDIR/src/libacs.a" 2>&1)" " U dlopen" \
                "libacs.a (acs-launch-full) does: nm sees such references"
else
        skip "the build tree's objects are not staged for this user (checked by the other half)"
        skip "the build tree's objects are not staged for this user (checked by the other half)"
fi

# --- hand-over: a stand-in acs-launch-full next to a copy records its call -----
mkdir "$TMP/bin"
cp "$ACS" "$TMP/bin/acs-launch"
cat >"$TMP/bin/acs-launch-full" <<EOF
#!/bin/sh
{ printf '%s\n' "\$@"; umask; } >"$TMP/handed"
exit 42
EOF
chmod 0755 "$TMP/bin" "$TMP/bin/acs-launch" "$TMP/bin/acs-launch-full"
S=$TMP/bin/acs-launch
handed() { cat "$TMP/handed" 2>/dev/null | tr '\n' ' '; }

# handed_over DESC WANT ARGS...: run the copy with umask 027
handed_over() {
        _desc=$1 _want=$2
        shift 2
        rm -f "$TMP/handed"
        (umask 027 && exec "$S" "$@") </dev/null >"$TMP/o" 2>"$TMP/e"
        _rc=$?
        is "$_rc" 42 "$_desc: exec'd acs-launch-full (its status)"
        is "$(handed)" "$_want" "$_desc: with the same arguments and the caller's umask"
}
handed_over "check" "check --profile pure-math - 0027 " check --profile pure-math -
handed_over "mcp" "mcp --allow-profile shell --max-concurrency 2 0027 " mcp --allow-profile shell --max-concurrency 2
handed_over "doctor" "doctor 0027 " doctor
handed_over "apply" "apply /nonexistent/kept --workspace /nonexistent/ws --json 0027 " apply /nonexistent/kept --workspace /nonexistent/ws --json

# not handed over: a usage error (the static one parses first), its own commands
not_handed() {
        _desc=$1 _want_rc=$2
        shift 2
        rm -f "$TMP/handed"
        "$S" "$@" </dev/null >"$TMP/o" 2>"$TMP/e"
        _rc=$?
        is "$_rc" "$_want_rc" "$_desc: exit $_want_rc"
        is "$(handed)" "" "$_desc: not handed to acs-launch-full"
}
not_handed "check with an unknown option" 125 check --no-such-option -
contains "$(cat "$TMP/e")" "--no-such-option" "the static acs-launch names the bad option itself"
not_handed "check --json with an unknown option" 125 check --json --no-such-option -
is "$(json_get .status <"$TMP/o")" error "and with --json prints one error report itself"
not_handed "version" 0 version
contains "$(cat "$TMP/o")" "acs-launch " "version is the static acs-launch's own"
not_handed "profiles" 0 profiles
not_handed "help check" 0 help check
not_handed "--dry-run" 0 --dry-run --profile pure-math -c 'print(1)'

# --- acs-launch-full: its own table, all commands ------------------------------
is "$("$FULL" version)" "$("$ACS" version)" "acs-launch-full runs version itself"
out=$(echo 'x = 1' | "$FULL" check - 2>&1)
is "$?" 0 "acs-launch-full runs check itself"

tap_plan
