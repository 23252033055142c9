# SPDX-License-Identifier: LGPL-2.1-or-later
"""The native client: every acs-launch subcommand a program needs, run
through ``acs-launch --json`` (one process per run) and returned typed."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import time
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Sequence, Union

from ._invoke import (EXIT_LAUNCHER, PathLike, Prepared, RunOptions, check_argv, finish_check,
                      find_launcher, launcher_error, parse_report)
from .report import CheckResult, Result


@dataclass(frozen=True)
class ProfileInfo:
    """One line of ``acs-launch profiles``."""

    name: str
    description: str
    path: str


@dataclass
class ApplyResult:
    """``acs-launch apply --json``: what a kept layer wrote back (acs-apply/1)."""

    report: Dict[str, Any]
    exit_code: int

    @property
    def ok(self) -> bool:
        """Everything was applied (no conflict, unsafe path or failure)."""
        return self.exit_code == 0

    @property
    def counts(self) -> Dict[str, int]:
        a = self.report.get("apply") or {}
        return {k: int(a.get(k, 0)) for k in ("done", "skipped", "protected", "conflicts", "unsafe", "failed")}


def command_argv(command: Union[str, Sequence[str]]) -> List[str]:
    """A string is a shell command line (``/bin/sh -c``), a sequence an argv."""
    if isinstance(command, str):
        return ["/bin/sh", "-c", command]
    return list(command)


def run_command(code: Optional[str], script: Optional[PathLike], args: Sequence[str]) -> List[str]:
    if (code is None) == (script is None):
        raise ValueError("give exactly one of code= and script=")
    if code is not None:
        return ["run", "-c", code, *args]
    return ["run", "--", os.fspath(script), *args]  # type: ignore[arg-type]


class Launcher:
    """Runs acs-launch.

    ``launcher``: the binary (default ``$ACS_LAUNCH``, then ``acs-launch`` on
    PATH; :class:`LauncherNotFound` when there is none).  Keyword arguments
    are defaults for every run (any :class:`RunOptions` field, e.g.
    ``profile="pure-math", timeout=2``); each call may override them.

    >>> from acs_launch import Launcher
    >>> r = Launcher().run(code="print(6 * 7)")
    >>> r.stdout, r.status, r.exit_code
    ('42\\n', <Status.EXITED: 'exited'>, 0)
    """

    def __init__(self, launcher: Optional[PathLike] = None, **defaults: Any) -> None:
        self.path = find_launcher(launcher)
        self.defaults = RunOptions(**defaults)

    def options(self, **overrides: Any) -> RunOptions:
        return dataclasses.replace(self.defaults, **overrides)

    def _run(self, command: Sequence[str], overrides: Dict[str, Any]) -> Result:
        prep = Prepared(self.path, self.options(**overrides), command)
        try:
            t0 = time.perf_counter()
            p = subprocess.run(prep.argv, input=prep.input if prep.input is not None else b"",
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            return prep.finish(p.returncode, p.stdout, p.stderr, (time.perf_counter() - t0) * 1000.0)
        finally:
            prep.cleanup()

    def run(self, code: Optional[str] = None, *, script: Optional[PathLike] = None,
            args: Sequence[str] = (), **opts: Any) -> Result:
        """Run Python: ``code`` (like ``python3 -c``) or a ``script`` file, scanned first."""
        return self._run(run_command(code, script, args), opts)

    def exec(self, command: Union[str, Sequence[str]], **opts: Any) -> Result:
        """Run a command (no Python scan; profile ``shell`` unless another is given)."""
        return self._run(["exec", "--", *command_argv(command)], opts)

    def check(self, code: Optional[str] = None, *, path: Optional[PathLike] = None,
              profile: Optional[str] = None) -> CheckResult:
        """The AST scan alone (``acs-launch check``); nothing runs."""
        if (code is None) == (path is None):
            raise ValueError("give exactly one of code= and path=")
        argv = check_argv(self.path, profile or self.defaults.profile, path)
        p = subprocess.run(argv, input=code.encode() if code is not None else b"",
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        return finish_check(p.returncode, p.stdout, p.stderr)

    def profiles(self) -> List[ProfileInfo]:
        """The profiles on the search path (``acs-launch profiles``)."""
        p = subprocess.run([self.path, "profiles"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           stdin=subprocess.DEVNULL)
        if p.returncode != 0:
            raise launcher_error(p.stderr.decode(errors="replace").strip(), None, p.returncode)
        out: List[ProfileInfo] = []
        for line in p.stdout.decode(errors="replace").splitlines()[1:]:
            words = line.split()
            if len(words) >= 2:
                desc = line[len(words[0]):].strip()
                desc = desc[: len(desc) - len(words[-1])].strip()
                out.append(ProfileInfo(words[0], desc, words[-1]))
        return out

    def profile(self, name: str) -> Dict[str, Any]:
        """The effective policy of one profile after inheritance (``profiles --show NAME --json``)."""
        p = subprocess.run([self.path, "profiles", "--show", name, "--json"], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
        if p.returncode != 0:
            raise launcher_error(p.stderr.decode(errors="replace").strip(), None, p.returncode)
        return dict(json.loads(p.stdout))

    def apply(self, kept: PathLike, workspace: PathLike, *, profile: Optional[str] = None) -> ApplyResult:
        """Write a layer kept with ``keep=DIR`` back into ``workspace`` (``acs-launch apply``).

        A conflict leaves ``ok`` False (exit status 1); a layer that is not
        the caller's alone or does not match its manifest raises LauncherError.
        """
        argv = [self.path, "apply", os.fspath(kept), "--workspace", os.fspath(workspace), "--json"]
        if profile or self.defaults.profile:
            argv += ["--profile", str(profile or self.defaults.profile)]
        p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
        if p.returncode == EXIT_LAUNCHER:
            msg = p.stderr.decode(errors="replace").strip()
            try:
                rep: Optional[Dict[str, Any]] = parse_report(p.returncode, p.stdout, p.stderr)
            except Exception:
                rep = None
            raise launcher_error(str((rep or {}).get("error") or msg or "acs-launch apply failed"), rep, p.returncode)
        return ApplyResult(parse_report(p.returncode, p.stdout, p.stderr), p.returncode)

    def session(self, *, server: Optional[PathLike] = None, **opts: Any) -> "Session":
        """A session: files (and, through ``acs-launch serve``, globals) kept across calls."""
        from .session import Session
        return Session(self, server=server, **opts)
