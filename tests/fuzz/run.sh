#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# `make fuzz`: builds the libFuzzer targets (tests/fuzz/fuzz-*.c) with clang,
# ASan and UBSan over the library's own sources, then runs each for
# FUZZ_SECONDS from its checked-in seed corpus (tests/fuzz/corpus/NAME, and
# tests/data/scan for the scan; new
# inputs go to the build tree, the seeds are never touched). A crash, leak,
# UB report or timeout fails the run; its input is left as
# tests/fuzz/out/crash-NAME-* (turn it into a unit test and fix it).
#
# Environment (set by mk/fuzz.am): CLANG, srcdir, FUZZ_SECONDS, FUZZ_CPPFLAGS,
# FUZZ_LIBS, LIBACS_SOURCES, SCAN_SOURCES, PYTHON_CFLAGS, PYTHON_LIBS.
# Arguments: the targets to build and run (fuzz-profile ...).
set -u
: "${srcdir:?}" "${FUZZ_SECONDS:?}"
if [ -z "${CLANG:-}" ]; then
        echo "make fuzz: no clang with libFuzzer was found by configure:" >&2
        echo "  apt-get install clang libclang-rt-dev, then rerun ./configure" >&2
        exit 1
fi
out=tests/fuzz/out
obj=$out/obj
mkdir -p "$obj/lib" "$obj/scan" || exit 1
# a changed header (or configuration) rebuilds everything; a changed .c its object
if [ -n "$(find "$srcdir/src" src config.h "$srcdir/tests/fuzz/run.sh" -newer "$obj/.stamp" \
        \( -name '*.h' -o -name run.sh \) 2>/dev/null | head -n 1)" ] || [ ! -f "$obj/.stamp" ]; then
        rm -f "$obj"/lib/*.o "$obj"/scan/*.o
fi
touch "$obj/.stamp"
# make passes the -D...=\"...\" string macros escaped for a shell: unescape
# them, as these flags are split into words, not parsed by a shell again
FUZZ_CPPFLAGS=$(printf '%s\n' "$FUZZ_CPPFLAGS" | sed 's/\\"/"/g')
san="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
# -Wno-missing-field-initializers: clang (unlike gcc) warns inside
# libseccomp's SCMP_A0() macros
cflags="-g -O1 -Wall -Wextra -Werror -Wno-unused-parameter -Wno-missing-field-initializers $san $FUZZ_CPPFLAGS"
export LSAN_OPTIONS="suppressions=$srcdir/tests/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"

# compile DIR EXTRA-FLAGS SOURCES...: one object per .c that is older than its source
compile() {
        _d=$1 _x=$2
        shift 2
        for _s in "$@"; do
                case $_s in *.c) ;; *) continue ;; esac
                _o=$_d/$(echo "$_s" | tr / _).o
                # shellcheck disable=SC3013 # -nt: dash and bash have it
                [ -f "$_o" ] && [ "$_o" -nt "$srcdir/$_s" ] && continue
                echo "$_o $srcdir/$_s"
        done | xargs -r -n 2 -P "$(nproc)" sh -c '
                echo "  FUZZCC   $2"
                $CLANG $0 -fsanitize=fuzzer-no-link -c -o "$1" "$2"' "$cflags $_x"
}
compile "$obj/lib" "" $LIBACS_SOURCES || exit 1
compile "$obj/scan" "$PYTHON_CFLAGS -fvisibility=hidden" $SCAN_SOURCES || exit 1
for o in "$obj"/lib/*.o "$obj"/scan/*.o; do
        case $o in *.o) [ -f "$o" ] || { echo "make fuzz: $o was not built" >&2; exit 1; } ;; esac
done
rm -f "$out/libacs-fuzz.a" && ar rcs "$out/libacs-fuzz.a" "$obj"/lib/*.o || exit 1

status=0
for t in "$@"; do
        extra='' libs=''
        case $t in fuzz-scan) extra=$(ls "$obj"/scan/*.o) libs=$PYTHON_LIBS ;; esac
        echo "  FUZZLD   $out/$t"
        # shellcheck disable=SC2086
        $CLANG $cflags -fsanitize=fuzzer -o "$out/$t" "$srcdir/tests/fuzz/$t.c" $extra \
                "$out/libacs-fuzz.a" $FUZZ_LIBS $libs || exit 1
done
for t in "$@"; do
        seeds=$srcdir/tests/fuzz/corpus/${t#fuzz-}
        work=$out/corpus/${t#fuzz-}
        more=
        case $t in fuzz-scan) more="$srcdir/tests/data/scan/accept $srcdir/tests/data/scan/reject" ;; esac
        mkdir -p "$work"
        if [ ! -d "$seeds" ]; then
                echo "make fuzz: $t has no seed corpus ($seeds)" >&2
                status=1
                continue
        fi
        echo "  FUZZ     $t: ${FUZZ_SECONDS}s from $(ls "$seeds" | wc -l) seeds"
        if "$out/$t" -max_total_time="$FUZZ_SECONDS" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
                -artifact_prefix="$out/crash-$t-" "$work" "$seeds" $more >"$out/$t.log" 2>&1; then
                grep -E '^stat::number_of_executed_units|^#[0-9]+.*DONE' "$out/$t.log" | tail -n 2 | sed 's/^/    /'
        else
                status=1
                echo "FAIL: $t (log: $out/$t.log)" >&2
                grep -E 'ERROR|runtime error|SUMMARY|Test unit written' "$out/$t.log" | head -n 8 >&2
        fi
done
exit $status
