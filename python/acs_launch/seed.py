# SPDX-License-Identifier: LGPL-2.1-or-later
"""The API the seed documents promised (agent-code-sandbox), on the real sandbox.

``SandboxEngine``, ``CodeSandbox`` + ``SandboxConfig``, ``ASTSecurityScanner``,
``EphemeralASTSandbox`` and an E2B-style ``Sandbox`` return the native
:class:`~acs_launch.Result`, which has the seed's attribute names
(``stdout``, ``stderr``, ``is_safe``, ``security_rejection_reason``,
``diff.added_files`` / ``modified_files`` / ``deleted_files``,
``execution_time_ms``) and the whole JSON report as ``report``.

Differences from the seeds, on purpose: the code runs in a kernel sandbox,
not an in-process ``exec``; a refused run's ``stderr`` holds the scan's
findings (``SecurityViolationError: ...``) since nothing ran to write one;
``allow_network=True`` is refused (acs-launch gives at most a loopback
network: use ``net="loopback"`` on the native API).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional, Sequence, Union

from ._invoke import PathLike
from .launcher import Launcher
from .report import CheckResult, Result, Status

UNSAFE_PROFILE = "unsafe-python"


@dataclass
class SandboxConfig:
    """Limits of a :class:`CodeSandbox`; None keeps the profile's value."""

    timeout_seconds: Optional[float] = None
    max_output_tokens: Optional[int] = None
    allow_network: bool = False
    profile: Optional[str] = None
    memory: Optional[Union[int, str]] = None

    def options(self) -> dict:
        if self.allow_network:
            raise ValueError("allow_network=True: acs-launch gives a sandbox no outside network "
                             "(the most is a loopback interface: Launcher(net='loopback'))")
        o: dict = {}
        if self.timeout_seconds is not None:
            o["timeout"] = self.timeout_seconds
        if self.max_output_tokens is not None:
            o["max_tokens"] = self.max_output_tokens
        if self.profile is not None:
            o["profile"] = self.profile
        if self.memory is not None:
            o["memory"] = self.memory
        return o


def _seed_result(r: Result) -> Result:
    if r.status is Status.REJECTED and not r.stderr:
        r.stderr = "".join(f"SecurityViolationError: {f.message} (line {f.line})\n" for f in r.findings)
    return r


class SandboxEngine:
    """``SandboxEngine().execute_python(code, timeout=3.0)``: one fresh sandbox per call."""

    def __init__(self, config: Optional[SandboxConfig] = None, *, launcher: Optional[PathLike] = None,
                 **options: Any) -> None:
        self.config = config or SandboxConfig()
        self.launcher = Launcher(launcher, **{**self.config.options(), **options})

    def execute_python(self, code: str, timeout: Optional[float] = None,
                       allow_unsafe_ast: bool = False, **options: Any) -> Result:
        """Scan, then run ``code``; ``allow_unsafe_ast`` runs it with the scan off
        (profile ``unsafe-python``: the kernel layer alone)."""
        if timeout is not None:
            options["timeout"] = timeout
        if allow_unsafe_ast:
            options["profile"] = UNSAFE_PROFILE
        return _seed_result(self.launcher.run(code, **options))

    def execute_command(self, command: Union[str, Sequence[str]], timeout: Optional[float] = None,
                        **options: Any) -> Result:
        """Run a shell command line (``/bin/sh -c``) under the ``shell`` profile."""
        if timeout is not None:
            options["timeout"] = timeout
        options.setdefault("profile", "shell")
        return self.launcher.exec(command, **options)

    def inspect_code_security(self, code: str) -> CheckResult:
        """The scan alone; nothing runs."""
        return self.launcher.check(code)


class CodeSandbox(SandboxEngine):
    """``CodeSandbox(config=SandboxConfig(timeout_seconds=5.0, max_output_tokens=800))``."""


class ASTSecurityScanner:
    """The AST scan alone (``acs-launch check``), with the profile's rules."""

    def __init__(self, profile: Optional[str] = None, *, launcher: Optional[PathLike] = None) -> None:
        self.launcher = Launcher(launcher, profile=profile)

    def scan(self, code: str) -> CheckResult:
        return self.launcher.check(code)

    inspect = scan

    def is_safe(self, code: str) -> bool:
        return self.scan(code).is_safe


class EphemeralASTSandbox:
    """``EphemeralASTSandbox.execute(code)`` of the seed article's quickstart."""

    @classmethod
    def execute(cls, code_str: str) -> Result:
        return SandboxEngine().execute_python(code_str)


class Sandbox:
    """E2B-style: ``with Sandbox() as sbx: sbx.run_code("x = 1"); sbx.run_code("print(x)")``.

    A session (see :mod:`acs_launch.session`): globals persist only through
    ``acs-launch serve``; in the fallback, files persist and globals do not.
    """

    def __init__(self, *, launcher: Optional[PathLike] = None, server: Optional[PathLike] = None,
                 **options: Any) -> None:
        self._session = Launcher(launcher).session(server=server, **options)

    def run_code(self, code: str, **options: Any) -> Result:
        return _seed_result(self._session.run_code(code, **options))

    def close(self) -> None:
        self._session.close()

    kill = close

    def __enter__(self) -> "Sandbox":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
