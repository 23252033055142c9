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

from ._invoke import PathLike, Prepared, RunOptions, _write_files, check_argv, finish_check, find_launcher, rmtree
from .launcher import ApplyResult, Launcher, ProfileInfo, command_argv, run_command
from .report import CheckResult, Result
from .session import ServeClient, _connect


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

    async def profiles(self) -> "list[ProfileInfo]":
        """``acs-launch profiles`` (see :meth:`acs_launch.Launcher.profiles`)."""
        return await asyncio.to_thread(self._sync().profiles)

    async def profile(self, name: str) -> "dict[str, Any]":
        return await asyncio.to_thread(self._sync().profile, name)

    async def apply(self, kept: PathLike, workspace: PathLike, *, profile: Optional[str] = None) -> ApplyResult:
        """``acs-launch apply`` (see :meth:`acs_launch.Launcher.apply`)."""
        return await asyncio.to_thread(self._sync().apply, kept, workspace, profile=profile)

    def _sync(self) -> Launcher:
        return Launcher(self.path, **dataclasses.asdict(self.defaults))

    def session(self, *, server: Optional[PathLike] = None, **opts: Any) -> "AsyncSession":
        """``async with acs.session() as s: await s.run_code(...)``; see :mod:`acs_launch.session`."""
        return AsyncSession(self, server=server, **opts)


class AsyncSession:
    """asyncio variant of :class:`acs_launch.Session`: the same server choice and fallback."""

    def __init__(self, launcher: AsyncLauncher, *, server: Optional[PathLike] = None, **opts: Any) -> None:
        import os
        import tempfile
        import uuid
        self.launcher = launcher
        self.opts = opts
        self.id = uuid.uuid4().hex
        self._serve: Optional[ServeClient] = _connect(server)
        self._tmp: Optional[str] = None
        self.workspace: Optional[str] = None
        if self._serve is None:
            if "workspace" in opts or "files" in opts:
                raise ValueError("a session makes its own workspace: use put_files()")
            self._tmp = tempfile.mkdtemp(prefix="acs-py-session.")
            self.workspace = os.path.join(self._tmp, "workspace")
            os.mkdir(self.workspace, 0o755)

    @property
    def uses_server(self) -> bool:
        return self._serve is not None

    async def __aenter__(self) -> "AsyncSession":
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.close()

    async def _tool(self, tool: str, args: Any) -> Result:
        assert self._serve is not None
        args = {**args, "session": self.id}
        for k in ("timeout", "profile"):
            if self.opts.get(k) is not None and k not in args:
                args[k] = self.opts[k]
        # one request at a time on the connection: the client is synchronous
        return Result.from_report(await asyncio.to_thread(self._serve.call_tool, tool, args))

    async def run_code(self, code: str, **opts: Any) -> Result:
        if self._serve is not None:
            return await self._tool("execute_python", {"code": code, **opts})
        return await self.launcher.run(code, **{**self.opts, **opts, "workspace": self.workspace, "apply": True})

    execute_python = run_code

    async def execute_command(self, command: Union[str, Sequence[str]], **opts: Any) -> Result:
        if self._serve is not None:
            import shlex
            cmd = command if isinstance(command, str) else " ".join(shlex.quote(a) for a in command)
            return await self._tool("execute_command", {"command": cmd, **opts})
        return await self.launcher.exec(command, **{**self.opts, **opts, "workspace": self.workspace, "apply": True})

    def put_files(self, files: Any) -> None:
        if self.workspace is None:
            raise ValueError("put_files: the serve protocol has no file upload; write them with run_code")
        _write_files(self.workspace, files)

    async def close(self) -> None:
        if self._serve is not None:
            serve, self._serve = self._serve, None
            try:
                await asyncio.to_thread(serve.request, "tools/call",
                                        {"name": "close_session", "arguments": {"session": self.id}})
            except Exception:
                pass  # the server drops idle sessions itself
            finally:
                serve.close()
        if self._tmp:
            rmtree(self._tmp)
            self._tmp = None
