#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Profiles from the command line: `acs-launch profiles`, the search path,
# and the messages for a missing or broken profile.
. "$ACS_SRCDIR/tests/lib.sh"

run_acs profiles
is "$RC" 0 "profiles exits 0"
for name in default pure-math shell unsafe-python data; do
        line=$(printf '%s\n' "$OUT" | grep "^$name ")
        contains "$line" "$ACS_PROFILE_PATH/$name.ini" "profiles lists $name with its path"
done
contains "$(printf '%s\n' "$OUT" | grep '^pure-math ')" "Pure computation" \
        "profiles shows the description"

# The first directory on the path wins; later ones are still searched.
mkdir -p "$TMP/first" "$TMP/xdg/acs/profiles"
printf '[profile]\ndescription = Shadowing default\n' >"$TMP/first/default.ini"
printf '[profile]\ndescription = Mine\ninherit = pure-math\n[limits]\ntimeout = 2\n' \
        >"$TMP/xdg/acs/profiles/mine.ini"
printf '[profile]\ndescription = x\n[limits]\ntimout = 2\n' >"$TMP/first/typo.ini"
export XDG_CONFIG_HOME="$TMP/xdg"
ACS_PROFILE_PATH="$TMP/first:$ACS_PROFILE_PATH" run_acs profiles
line=$(printf '%s\n' "$OUT" | grep '^default ')
contains "$line" "Shadowing default" "a profile early on the path shadows a later one"
contains "$line" "$TMP/first/default.ini" "  and its path is shown"
is "$(printf '%s\n' "$OUT" | grep -c '^default ')" 1 "each name is listed once"
contains "$(printf '%s\n' "$OUT" | grep '^mine ')" "Mine" "\$XDG_CONFIG_HOME/acs/profiles is searched"
contains "$(printf '%s\n' "$OUT" | grep '^typo ')" "typo.ini:4: [limits] timout: unknown key; did you mean 'timeout'?" \
        "a broken profile is listed with its error"

# Missing and broken profiles stop the run with 125 and say why.
ACS_PROFILE_PATH="$TMP/first" run_acs --profile no-such -c 'print(1)'
is "$RC" 125 "a missing profile -> 125"
contains "$ERR" "profile 'no-such' not found; searched $TMP/first/no-such.ini" \
        "a missing profile names the files searched"
contains "$ERR" "$TMP/xdg/acs/profiles/no-such.ini" "  including the XDG directory"

ACS_PROFILE_PATH="$TMP/first" run_acs --profile typo -c 'print(1)'
is "$RC" 125 "a misspelt key -> 125"
contains "$ERR" "typo.ini:4: [limits] timout: unknown key; did you mean 'timeout'?" \
        "a misspelt key gets file:line and a suggestion"

printf '[profile]\ninherit = loop-b\n' >"$TMP/first/loop-a.ini"
printf '[profile]\ninherit = loop-a\n' >"$TMP/first/loop-b.ini"
ACS_PROFILE_PATH="$TMP/first" run_acs --profile loop-a -c 'print(1)'
is "$RC" 125 "an inherit loop -> 125"
contains "$ERR" "loop $TMP/first/loop-a.ini -> $TMP/first/loop-b.ini -> $TMP/first/loop-a.ini" \
        "an inherit loop is shown"

run_acs --profile "$TMP/first/typo.ini" -c 'print(1)'
is "$RC" 125 "a profile given by path is read from that path"
contains "$ERR" "$TMP/first/typo.ini:4:" "  and named in the message"

# profiles --show NAME [--json]: the effective policy after inheritance
unset XDG_CONFIG_HOME
run_acs profiles --show pure-math
is "$RC" 0 "profiles --show exits 0"
contains "$OUT" "[scan]" "  shows the sections"
contains "$OUT" "deny_attributes = __subclasses__" "  with the inherited deny_attributes"
contains "$OUT" "timeout = 5" "  and the inherited limits"
lacks "$OUT" "inherit =" "  inheritance already resolved"
printf '%s\n' "$OUT" >"$TMP/shown.ini"
run_acs check --profile "$TMP/shown.ini" "$ACS_SRCDIR/examples/primes.py"
is "$RC" 0 "  the text is itself a usable profile"
run_acs profiles --show data --json
is "$RC" 0 "profiles --show --json exits 0"
is "$(printf %s "$OUT" | json_get .schema)" "acs-profile/1" "  JSON schema acs-profile/1"
contains "$(printf %s "$OUT" | json_get .scan.allow_imports)" '"numpy.*"' "  data's allow_imports include numpy and its submodules"
contains "$(printf %s "$OUT" | json_get .scan.allow_imports)" '"pathlib"' "  and default's file modules"
is "$(printf %s "$OUT" | json_get .python.flags)" '["-I"]' "  its python flags"
is "$(printf %s "$OUT" | json_get .limits.memory)" 2147483648 "  sizes in bytes"
run_acs profiles --show no-such-profile
is "$RC" 125 "profiles --show of a missing profile -> 125"
contains "$ERR" "no-such-profile" "  named in the message"
run_acs profiles --json
is "$RC" 125 "profiles --json without --show -> 125"
contains "$ERR" "--json goes with --show NAME" "  the message says what --json needs"

tap_plan
