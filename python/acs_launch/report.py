# SPDX-License-Identifier: LGPL-2.1-or-later
"""Typed views of acs-launch's JSON report (doc/report.schema.json, acs-report/1).

Every object keeps the raw JSON it was made from (``report`` on a
:class:`Result`), so nothing the launcher says is lost when this module
does not name it yet.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any, Dict, List, Mapping, Optional


class Status(str, enum.Enum):
    """The report's ``status``: what happened, from kernel evidence only."""

    EXITED = "exited"
    TIMEOUT = "timeout"
    SIGNALED = "signaled"
    MEMORY = "memory"
    CPU = "cpu"
    REJECTED = "rejected"
    ERROR = "error"


class Verdict(str, enum.Enum):
    """The scan's ``verdict``."""

    PASS = "pass"
    REJECT = "reject"
    WARN = "warn"
    SKIPPED = "skipped"


@dataclass(frozen=True)
class Finding:
    """One thing the AST scan objected to (``scan.findings[]``)."""

    rule: str
    name: str
    line: int
    col: int
    message: str

    @classmethod
    def from_json(cls, j: Mapping[str, Any]) -> "Finding":
        return cls(rule=str(j.get("rule", "")), name=str(j.get("name", "")),
                   line=int(j.get("line", 0)), col=int(j.get("col", 0)),
                   message=str(j.get("message", "")))

    @property
    def code(self) -> str:
        """The seed documents' spelling of the rule: ``FORBIDDEN_IMPORT_DETECTED``."""
        return _SEED_CODES.get(self.rule, self.rule.upper().replace("-", "_"))


_SEED_CODES = {
    "forbidden-import": "FORBIDDEN_IMPORT_DETECTED",
    "denied-builtin": "FORBIDDEN_BUILTIN_DETECTED",
    "denied-attribute": "FORBIDDEN_ATTRIBUTE_DETECTED",
}


@dataclass(frozen=True)
class Stream:
    """``stdout`` or ``stderr`` of the report: the text, clipped to the token budget."""

    text: str = ""
    bytes: int = 0
    tokens: int = 0
    truncated: bool = False
    omitted_bytes: int = 0

    @classmethod
    def from_json(cls, j: Optional[Mapping[str, Any]]) -> "Stream":
        if not j:
            return cls()
        return cls(text=str(j.get("text", "")), bytes=int(j.get("bytes", 0)),
                   tokens=int(j.get("tokens", 0)), truncated=bool(j.get("truncated", False)),
                   omitted_bytes=int(j.get("omitted_bytes", 0)))


@dataclass(frozen=True)
class FileChange:
    """One entry of ``files.added`` / ``modified`` / ``deleted``; ``raw`` has all its keys."""

    path: str
    type: str
    size: Optional[int] = None
    sha256: Optional[str] = None
    raw: Mapping[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_json(cls, j: Mapping[str, Any]) -> "FileChange":
        size = j.get("size")
        return cls(path=str(j.get("path", "")), type=str(j.get("type", "file")),
                   size=int(size) if size is not None else None,
                   sha256=j.get("sha256"), raw=dict(j))


@dataclass(frozen=True)
class Diff:
    """The workspace changes (``files``), with the seed documents' names too."""

    added: List[FileChange] = field(default_factory=list)
    modified: List[FileChange] = field(default_factory=list)
    deleted: List[FileChange] = field(default_factory=list)
    patch: Optional[str] = None
    truncated: bool = False

    @classmethod
    def from_json(cls, j: Optional[Mapping[str, Any]]) -> "Diff":
        if not j:
            return cls()
        return cls(added=[FileChange.from_json(e) for e in j.get("added", [])],
                   modified=[FileChange.from_json(e) for e in j.get("modified", [])],
                   deleted=[FileChange.from_json(e) for e in j.get("deleted", [])],
                   patch=j.get("patch"), truncated=bool(j.get("truncated", False)))

    @property
    def added_files(self) -> List[str]:
        return [e.path for e in self.added]

    @property
    def modified_files(self) -> List[str]:
        return [e.path for e in self.modified]

    @property
    def deleted_files(self) -> List[str]:
        return [e.path for e in self.deleted]


@dataclass
class Result:
    """The outcome of one run: the report, typed.  Never raised, always returned.

    ``execution_time_ms`` is the whole call as the caller waited for it
    (scan, sandbox setup, the program, the diff); the report's ``usage``
    and ``timings`` split it up.
    ``exit_code`` is acs-launch's exit status (the program's own for
    ``Status.EXITED``; 124 timeout, 126 rejected, 128+N signal).
    ``output_files`` holds the files the run added or modified in
    /workspace (path -> bytes) when the run asked for them (``outputs=True``).
    """

    report: Dict[str, Any]
    status: Status
    exit_code: int
    stdout: str
    stderr: str
    diff: Diff
    findings: List[Finding]
    verdict: Verdict
    execution_time_ms: float
    output_files: Dict[str, bytes] = field(default_factory=dict)

    @classmethod
    def from_report(cls, report: Dict[str, Any], elapsed_ms: float = 0.0) -> "Result":
        scan = report.get("scan") or {}
        return cls(report=report, status=Status(report["status"]),
                   exit_code=int(report.get("exit_code", 0)),
                   stdout=Stream.from_json(report.get("stdout")).text,
                   stderr=Stream.from_json(report.get("stderr")).text,
                   diff=Diff.from_json(report.get("files")),
                   findings=[Finding.from_json(f) for f in scan.get("findings", [])],
                   verdict=Verdict(scan.get("verdict", "skipped")),
                   execution_time_ms=elapsed_ms)

    @property
    def ok(self) -> bool:
        """The program ran and exited with status 0."""
        return self.status is Status.EXITED and self.exit_code == 0

    @property
    def is_safe(self) -> bool:
        """False when the scan refused the code (nothing ran)."""
        return self.status is not Status.REJECTED

    @property
    def security_rejection_reason(self) -> Optional[str]:
        """``FORBIDDEN_IMPORT_DETECTED: os`` for a refused run; None otherwise."""
        if self.status is not Status.REJECTED or not self.findings:
            return None
        f = self.findings[0]
        return f"{f.code}: {f.name}"

    @property
    def stdout_stream(self) -> Stream:
        return Stream.from_json(self.report.get("stdout"))

    @property
    def stderr_stream(self) -> Stream:
        return Stream.from_json(self.report.get("stderr"))

    @property
    def signal(self) -> Optional[int]:
        s = self.report.get("signal")
        return int(s) if s is not None else None

    @property
    def apply(self) -> Optional[Any]:
        """The report's ``apply`` member (with ``apply=True``), else None."""
        return self.report.get("apply")


@dataclass
class CheckResult:
    """The outcome of ``check``: the scan alone, nothing ran."""

    report: Dict[str, Any]
    verdict: Verdict
    findings: List[Finding]

    @classmethod
    def from_report(cls, report: Dict[str, Any]) -> "CheckResult":
        scan = report.get("scan") or report
        return cls(report=report, verdict=Verdict(scan.get("verdict", "pass")),
                   findings=[Finding.from_json(f) for f in scan.get("findings", [])])

    @property
    def is_safe(self) -> bool:
        return self.verdict is not Verdict.REJECT

    @property
    def security_rejection_reason(self) -> Optional[str]:
        if self.is_safe or not self.findings:
            return None
        return f"{self.findings[0].code}: {self.findings[0].name}"
