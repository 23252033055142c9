# SPDX-License-Identifier: LGPL-2.1-or-later
"""``python3 -m acs_launch mcp [OPTIONS]``: exec ``acs-launch mcp`` with the
same arguments (for MCP client configurations that expect a Python module).
The launcher replaces this process: stdin, stdout, signals and the exit
status are acs-launch's own."""

from __future__ import annotations

import os
import sys
from typing import List, Optional

from ._invoke import find_launcher
from .errors import LauncherNotFound

USAGE = "usage: python3 -m acs_launch mcp [OPTIONS]   (runs acs-launch mcp; see acs-launch(1))\n"


def main(argv: Optional[List[str]] = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if not args or args[0] != "mcp":
        sys.stderr.write(USAGE)
        return 125 if args and args[0] not in ("-h", "--help") else (0 if args else 125)
    try:
        path = find_launcher()
    except LauncherNotFound as e:
        sys.stderr.write(f"acs_launch: {e}\n")
        return 125
    sys.stdout.flush()
    os.execv(path, [path, *args])
    return 125  # not reached


if __name__ == "__main__":
    sys.exit(main())
