#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Installed packages (issue 13): profile `data` runs numpy/pandas/matplotlib
# code from Debian's packages, a matplotlib PNG lands in the diff, denied
# members are refused in the run as in `check`, and [python] venv / --venv
# uses a virtual environment read-only.
. "$ACS_SRCDIR/tests/lib.sh"
PY=/usr/bin/python3

if $PY -c 'import numpy, matplotlib' 2>/dev/null; then
        mkdir "$TMP/ws"
        cat >"$TMP/plot.py" <<'PY'
import numpy as np
import matplotlib
import matplotlib.pyplot as plt
x = np.linspace(0, 2, 5)
print(float((x ** 2).sum()))
plt.plot(x, x ** 2)
plt.savefig("plot.png")
PY
        run_acs --profile data -w "$TMP/ws" --json -- "$TMP/plot.py"
        is "$RC" 0 "data: numpy and matplotlib code runs"
        is "$(printf %s "$OUT" | json_get .stdout.text)" "7.5" "  numpy computes"
        is "$(printf %s "$OUT" | json_get .files.added.0.path)" "plot.png" "  the PNG is in files.added"
        run_acs --profile data -w "$TMP/ws" --apply -- "$TMP/plot.py"
        is "$(head -c 4 "$TMP/ws/plot.png" 2>/dev/null | od -An -c | tr -d ' ')" '211PNG' "  and --apply writes a PNG back"
else
        skip "python3-numpy or python3-matplotlib not installed (bootstrap.sh installs them)"
fi
if $PY -c 'import pandas' 2>/dev/null; then
        run_acs --profile data -c 'import pandas as pd
print(pd.DataFrame({"a": [1, 2, 3]}).a.sum())'
        is "$RC/$OUT" "0/6" "data: pandas runs"
else
        skip "python3-pandas not installed"
fi

# denied members: refused before anything runs, in the run and in check alike
for code in 'import numpy as np
np.ctypeslib.load_library("libc", "/lib")' 'import pandas
pandas.read_pickle("x.pkl")' 'from numpy import *' 'import os'; do
        { echo 'print("RAN")'; printf '%s\n' "$code"; } >"$TMP/deny.py"
        run_acs --profile data --json -- "$TMP/deny.py"
        run_findings=$(printf %s "$OUT" | json_get .scan.findings.0.name)
        is "$RC" 126 "data refuses: $(printf %s "$code" | tr '\n' ';')"
        lacks "$OUT" '"RAN' "  nothing of it ran"
        run_acs check --profile data --json "$TMP/deny.py"
        is "$(printf %s "$OUT" | json_get .scan.findings.0.name)" "$run_findings" "  check names the same ($run_findings)"
done

# [python] venv / --venv: a virtual environment, read-only, its packages importable
if $PY -m venv --without-pip "$TMP/venv" 2>/dev/null; then
        site=$(echo "$TMP"/venv/lib/python3*/site-packages)
        printf 'VALUE = 41\n' >"$site/venvmod.py"
        printf '[profile]\ninherit = data\n[scan]\nallow_imports += venvmod\n[python]\nvenv = %s\n' "$TMP/venv" >"$TMP/venv.ini"
        run_acs --profile "$TMP/venv.ini" -c 'import venvmod
print(venvmod.VALUE + 1, venvmod.__file__)'
        is "$RC/$OUT" "0/42 $site/venvmod.py" "[python] venv: its site-packages are importable"
        printf '[profile]\ninherit = data\n[scan]\nallow_imports += venvmod\n' >"$TMP/plain.ini"
        run_acs --profile "$TMP/plain.ini" --venv "$TMP/venv" -c 'import venvmod
value = venvmod.VALUE'
        is "$RC" 0 "--venv DIR does the same from the command line"
        run_acs --profile "$TMP/plain.ini" --venv "$TMP/venv" --json -c 'import venvmod
open(venvmod.__file__, "a")'
        contains "$(printf %s "$OUT" | json_get .stderr.text)" "Read-only file system" "  the venv is read-only in the sandbox"
        run_acs --profile default --venv "$TMP/venv" -c 'print(1)'
        is "$RC" 125 "--venv with a -S profile is an error (exit 125)"
        contains "$ERR" "-S" "  that names -S"
        run_acs --profile data --venv "$TMP/ws" -c 'print(1)'
        is "$RC" 125 "--venv on a directory without pyvenv.cfg is an error"
        contains "$ERR" "pyvenv.cfg" "  that names pyvenv.cfg"
else
        skip "python3 -m venv unavailable (bootstrap.sh installs python3-venv)"
fi

tap_plan
