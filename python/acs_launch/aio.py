# SPDX-License-Identifier: LGPL-2.1-or-later
"""The asyncio client: the same calls as :class:`acs_launch.Launcher`, each
an ``asyncio`` subprocess, so many runs can be awaited at once.

    async with AsyncLauncher(profile="pure-math") as acs:   # or plain construction
        results = await asyncio.gather(*(acs.run(code=c) for c in codes))

Cancelling a call kills its acs-launch (SIGKILL to the launcher; its
sandbox dies with it, the launcher's pid namespace ends) and removes the
call's temporary directories.
"""

from __future__ import annotations

import asyncio
import dataclasses
import time
from typing import Any, Optional, Sequence, Union

from ._invoke import PathLike, Prepared, RunOptions, check_argv, finish_check, find_launcher
from .launcher import command_argv, run_command
from .report import CheckResult, Result


class AsyncLauncher:
    """asyncio variant of :class:`~acs_launch.Launcher` (run, exec, check)."""

    def __init__(self, launcher: Optional[PathLike] = None, **defaults: Any) -> None:
        self.path = find_launcher(launcher)
        self.defaults = RunOptions(**defaults)

    async def __aenter__(self) -> "AsyncLauncher":
        return self

    async def __aexit__(self, *exc: Any) -> None:
        return None

    async def _communicate(self, argv: Sequence[str], data: Optional[bytes]) -> "tuple[int, bytes, bytes]":
        p = await asyncio.create_subprocess_exec(*argv, stdin=asyncio.subprocess.PIPE,
                                                 stdout=asyncio.subprocess.PIPE,
                                                 stderr=asyncio.subprocess.PIPE)
        try:
            out, err = await p.communicate(data or b"")
        except BaseException:
            if p.returncode is None:
                p.kill()
                await p.wait()
            raise
        assert p.returncode is not None
        return p.returncode, out, err

    async def _run(self, command: Sequence[str], overrides: Any) -> Result:
        prep = Prepared(self.path, dataclasses.replace(self.defaults, **overrides), command)
        try:
            t0 = time.perf_counter()
            rc, out, err = await self._communicate(prep.argv, prep.input)
            return prep.finish(rc, out, err, (time.perf_counter() - t0) * 1000.0)
        finally:
            prep.cleanup()

    async def run(self, code: Optional[str] = None, *, script: Optional[PathLike] = None,
                  args: Sequence[str] = (), **opts: Any) -> Result:
        return await self._run(run_command(code, script, args), opts)

    async def exec(self, command: Union[str, Sequence[str]], **opts: Any) -> Result:
        return await self._run(["exec", "--", *command_argv(command)], opts)

    async def check(self, code: Optional[str] = None, *, path: Optional[PathLike] = None,
                    profile: Optional[str] = None) -> CheckResult:
        if (code is None) == (path is None):
            raise ValueError("give exactly one of code= and path=")
        argv = check_argv(self.path, profile or self.defaults.profile, path)
        rc, out, err = await self._communicate(argv, code.encode() if code is not None else None)
        return finish_check(rc, out, err)
