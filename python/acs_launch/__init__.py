# SPDX-License-Identifier: LGPL-2.1-or-later
"""acs_launch: run model-written Python and commands in acs-launch's sandbox.

Standard library only; drives the ``acs-launch`` binary (``--json``), found
at ``launcher=PATH``, ``$ACS_LAUNCH`` or on PATH.

One-shot run::

    from acs_launch import Launcher                    # one-shot run
    r = Launcher(profile="pure-math", timeout=2).run("import math; print(math.factorial(20))")
    print(r.status, r.exit_code, r.stdout)             # Status.EXITED 0 2432902008176640000
    r = Launcher().run("import os")                    # refused by the scan: a result, not an exception
    print(r.is_safe, r.security_rejection_reason)      # False FORBIDDEN_IMPORT_DETECTED: os

Check (the scan alone)::

    from acs_launch import Launcher                    # check: the scan alone
    c = Launcher().check("x = 1\\neval('x')")
    print(c.is_safe)                                   # False
    for f in c.findings:
        print(f.rule, f.name, f.line, f.col)           # denied-builtin eval 2 0

Session (files kept between calls; globals too through ``acs-launch serve``)::

    from acs_launch import Launcher                    # session (fallback: files persist, globals do not)
    with Launcher().session() as s:
        s.run_code("open('n.txt', 'w').write('41')")
        print(s.run_code("print(int(open('n.txt').read()) + 1)").stdout)  # 42
        print(s.uses_server)                           # True when $ACS_SERVER names a running `acs-launch serve`

Workspace with apply::

    from acs_launch import Launcher, ApplyError        # workspace with apply
    try:
        r = Launcher().run("open('fix.txt', 'w').write('done')", workspace="./repo", apply=True)
        print(r.diff.added_files, r.apply["done"])     # ['fix.txt'] 1 (now in ./repo)
    except ApplyError as e: print(e, e.result.apply)   # a conflict: nothing silently lost

Files out (and in)::

    from acs_launch import Launcher                    # files in and out
    r = Launcher().run("open('out.csv', 'w').write(open('in.csv').read().upper())",
                       files={"in.csv": "a,b\\n"}, outputs=True)
    print(r.output_files)                              # {'out.csv': b'A,B\\n'}
    print(r.diff.added_files)                          # ['out.csv']

The seed documents' API: :class:`SandboxEngine`, :class:`CodeSandbox`,
:class:`SandboxConfig`, :class:`ASTSecurityScanner` (module
:mod:`acs_launch.seed`).  asyncio: :class:`acs_launch.aio.AsyncLauncher`.
``python3 -m acs_launch mcp`` runs ``acs-launch mcp``.
"""

from .aio import AsyncLauncher, AsyncSession
from .errors import ApplyError, LauncherError, LauncherNotFound, ProfileNotFound
from .launcher import ApplyResult, Launcher, ProfileInfo
from .report import CheckResult, Diff, FileChange, Finding, Result, Status, Stream, Verdict
from .seed import ASTSecurityScanner, CodeSandbox, EphemeralASTSandbox, Sandbox, SandboxConfig, SandboxEngine
from .session import Session
from ._invoke import RunOptions, find_launcher, read_kept

__version__ = "1"

__all__ = [
    "ASTSecurityScanner", "ApplyError", "ApplyResult", "AsyncLauncher", "AsyncSession", "CheckResult", "CodeSandbox",
    "Diff", "EphemeralASTSandbox", "FileChange", "Finding", "Launcher", "LauncherError",
    "LauncherNotFound", "ProfileInfo", "ProfileNotFound", "Result", "RunOptions", "Sandbox",
    "SandboxConfig", "SandboxEngine", "Session", "Status", "Stream", "Verdict", "find_launcher",
    "read_kept",
]
