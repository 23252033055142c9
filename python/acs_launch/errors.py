# SPDX-License-Identifier: LGPL-2.1-or-later
"""Exceptions for failures of acs-launch itself.

The sandboxed program's own failures (a non-zero exit, a timeout, a signal,
a refusal by the security scan) are never exceptions: they are in the
:class:`~acs_launch.Result`.  These exceptions say that the launcher could
not do what was asked (exit status 125, or no launcher at all).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Dict, Optional

if TYPE_CHECKING:
    from .report import Result


class LauncherError(Exception):
    """acs-launch failed (exit status 125): usage, profile, setup, apply.

    ``message`` is the launcher's own explanation (the report's ``error``,
    else its stderr); ``report`` the JSON report when there was one;
    ``exit_code`` the launcher's exit status (None when it never ran).
    """

    def __init__(self, message: str, *, report: Optional[Dict[str, Any]] = None,
                 exit_code: Optional[int] = None) -> None:
        super().__init__(message)
        self.message = message
        self.report = report
        self.exit_code = exit_code


class LauncherNotFound(LauncherError):
    """No acs-launch binary: not at the given path, $ACS_LAUNCH or on PATH."""


class ProfileNotFound(LauncherError):
    """The profile named is on none of the profile search path's directories."""


class ApplyError(LauncherError):
    """--apply could not write every change back (conflict, unsafe path, failure).

    The program did run: ``result`` holds its output and the report, whose
    ``apply`` member lists what was and was not written back.
    """

    def __init__(self, message: str, *, result: "Result") -> None:
        super().__init__(message, report=result.report, exit_code=result.exit_code)
        self.result = result
