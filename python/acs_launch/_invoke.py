# SPDX-License-Identifier: LGPL-2.1-or-later
"""What the synchronous and the asyncio clients share: finding the binary,
building the command line, preparing files in and out, reading the answer.
No process is started here."""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

from .errors import ApplyError, LauncherError, LauncherNotFound, ProfileNotFound
from .report import CheckResult, Result, Status

PathLike = Union[str, "os.PathLike[str]"]
FileContent = Union[bytes, str, "os.PathLike[str]"]

#: exit status of acs-launch when it failed itself (acs-launch(1), EXIT STATUS)
EXIT_LAUNCHER = 125


def find_launcher(path: Optional[PathLike] = None) -> str:
    """The acs-launch to run: ``path``, else ``$ACS_LAUNCH``, else ``acs-launch`` on PATH.

    Raises :class:`LauncherNotFound` naming where it looked.
    """
    if path is not None:
        p = os.fspath(path)
        if os.path.isfile(p) and os.access(p, os.X_OK):
            return p
        raise LauncherNotFound(f"acs-launch not found: {p!r} is not an executable file")
    env = os.environ.get("ACS_LAUNCH")
    if env:
        if os.path.isfile(env) and os.access(env, os.X_OK):
            return env
        raise LauncherNotFound(f"acs-launch not found: $ACS_LAUNCH={env!r} is not an executable file")
    found = shutil.which("acs-launch")
    if found:
        return found
    raise LauncherNotFound("acs-launch not found: not on PATH and $ACS_LAUNCH is not set "
                           "(install it, or pass launcher='/path/to/acs-launch')")


def _size(v: Union[int, str]) -> str:
    return str(v)


def _num(v: Union[int, float, str]) -> str:
    # "2.0" and "2" both mean two seconds to the launcher; never "2e-05"
    if isinstance(v, float):
        return repr(v) if "e" not in repr(v) else f"{v:.6f}"
    return str(v)


@dataclass
class RunOptions:
    """Every knob of a run, named as on the command line (acs-launch(1), OPTIONS).

    ``files``: files to put in /workspace before the run (path -> bytes, str or
    a host path to copy); they go into a fresh temporary workspace, so they
    cannot be combined with ``workspace``.  ``outputs``: read the files the
    run added or modified into ``Result.output_files`` (through a temporary
    ``--keep`` layer, whose layout is documented in acs-launch(1), KEPT
    LAYERS).  ``stdin``: bytes or text the program reads (``--stdin pipe``);
    None gives it /dev/null.  ``patch``: True puts the git-style patch in
    ``Result.diff.patch``; a path also writes it there.
    """

    profile: Optional[str] = None
    workspace: Optional[PathLike] = None
    timeout: Optional[float] = None
    memory: Optional[Union[int, str]] = None
    cpu: Optional[float] = None
    max_tokens: Optional[int] = None
    net: Optional[str] = None
    processes: Optional[int] = None
    open_files: Optional[int] = None
    file_size: Optional[Union[int, str]] = None
    ro_bind: Sequence[Tuple[PathLike, str]] = ()
    bind: Sequence[Tuple[PathLike, str]] = ()
    tmpfs: Sequence[str] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    unsetenv: Sequence[str] = ()
    chdir: Optional[str] = None
    apply: bool = False
    patch: Union[bool, PathLike] = False
    keep: Optional[PathLike] = None
    stdin: Optional[Union[bytes, str]] = None
    files: Mapping[str, FileContent] = field(default_factory=dict)
    outputs: bool = False
    venv: Optional[PathLike] = None
    extra_args: Sequence[str] = ()

    def argv(self) -> List[str]:
        a: List[str] = []

        def opt(name: str, value: Any, conv: Any = str) -> None:
            if value is not None:
                a.extend([name, conv(value)])

        opt("--profile", self.profile)
        opt("--workspace", os.fspath(self.workspace) if self.workspace is not None else None)
        opt("--timeout", self.timeout, _num)
        opt("--memory", self.memory, _size)
        opt("--cpu", self.cpu, _num)
        opt("--max-tokens", self.max_tokens)
        opt("--net", self.net)
        opt("--processes", self.processes)
        opt("--open-files", self.open_files)
        opt("--file-size", self.file_size, _size)
        opt("--venv", os.fspath(self.venv) if self.venv is not None else None)
        for src, dest in self.ro_bind:
            a.extend(["--ro-bind", os.fspath(src), dest])
        for src, dest in self.bind:
            a.extend(["--bind", os.fspath(src), dest])
        for d in self.tmpfs:
            a.extend(["--tmpfs", d])
        for k, v in self.env.items():
            a.extend(["--setenv", k, v])
        for k in self.unsetenv:
            a.extend(["--unsetenv", k])
        opt("--chdir", self.chdir)
        if self.apply:
            a.append("--apply")
        if self.patch not in (False, None) and self.patch is not True:
            a.extend(["--patch", os.fspath(self.patch)])  # type: ignore[arg-type]
        opt("--keep", os.fspath(self.keep) if self.keep is not None else None)
        a.extend(["--stdin", "pipe" if self.stdin is not None else "null"])
        a.extend(self.extra_args)
        return a


class Prepared:
    """One invocation's argv, stdin bytes and temporary directories.

    ``finish()`` turns the launcher's answer into a Result (or raises) and
    ``cleanup()`` removes what was made for the run; both the sync and the
    async client call them.
    """

    def __init__(self, launcher: str, opts: RunOptions, command: Sequence[str]) -> None:
        if opts.files and opts.workspace is not None:
            raise ValueError("files= copies into a fresh workspace: it cannot be used with workspace=")
        if opts.outputs and opts.keep is not None:
            raise ValueError("outputs= keeps the layer itself: it cannot be used with keep=")
        self._tmp: Optional[str] = None
        self._keep: Optional[str] = None
        self._patch: Optional[str] = None
        self.opts = opts
        try:
            eff = opts
            if opts.files or opts.outputs or opts.patch is True:
                tmp = self._tmp = tempfile.mkdtemp(prefix="acs-py.")
                eff = _replace(opts)
                if opts.files:
                    eff.workspace = os.path.join(tmp, "workspace")
                    os.mkdir(eff.workspace, 0o755)
                    _write_files(eff.workspace, opts.files)
                if opts.outputs:
                    # the launcher creates the keep directory itself and refuses one that exists
                    eff.keep = self._keep = os.path.join(tmp, "kept")
                if opts.patch is True:
                    # the report's patch stops at 4 MiB (patch_omitted); the file is whole
                    eff.patch = self._patch = os.path.join(tmp, "changes.patch")
            self.argv = [launcher, *command[:1], *eff.argv(), "--json", *command[1:]]
        except BaseException:
            self.cleanup()
            raise
        s = opts.stdin
        self.input: Optional[bytes] = s.encode() if isinstance(s, str) else s

    def finish(self, rc: int, out: bytes, err: bytes, elapsed_ms: float = 0.0) -> Result:
        report = parse_report(rc, out, err)
        res = Result.from_report(report, elapsed_ms)
        if self._patch and os.path.exists(self._patch):
            with open(self._patch, encoding="utf-8", errors="surrogateescape") as f:
                res.diff = _with_patch(res.diff, f.read())
        if self._keep and os.path.isdir(self._keep):
            res.output_files = read_kept(self._keep)
        if res.status is Status.ERROR and rc == EXIT_LAUNCHER:
            msg = str(report.get("error") or err.decode(errors="replace").strip() or "acs-launch failed")
            if "apply" in report:
                raise ApplyError(msg, result=res)
            raise launcher_error(msg, report, rc)
        return res

    def cleanup(self) -> None:
        if self._tmp:
            rmtree(self._tmp)
            self._tmp = None


def _replace(opts: RunOptions) -> RunOptions:
    import dataclasses
    return dataclasses.replace(opts)


def _with_patch(d: Any, patch: str) -> Any:
    import dataclasses
    return dataclasses.replace(d, patch=patch)


def _write_files(root: str, files: Mapping[str, FileContent]) -> None:
    for rel, content in files.items():
        parts = Path(rel).parts
        if not parts or Path(rel).is_absolute() or ".." in parts:
            raise ValueError(f"files: {rel!r} must be a relative path inside the workspace, without '..'")
        dest = os.path.join(root, *parts)
        os.makedirs(os.path.dirname(dest), mode=0o755, exist_ok=True)
        if isinstance(content, (bytes, bytearray)):
            with open(dest, "wb") as f:
                f.write(content)
        elif isinstance(content, str):
            with open(dest, "w", encoding="utf-8") as f:
                f.write(content)
        else:
            shutil.copyfile(os.fspath(content), dest)
        os.chmod(dest, 0o644)


def read_kept(keep_dir: PathLike) -> Dict[str, bytes]:
    """The added and modified regular files of a ``--keep`` layer (its ``tree/``), path -> bytes."""
    tree = os.path.join(os.fspath(keep_dir), "tree")
    out: Dict[str, bytes] = {}
    for dirpath, _dirs, names in os.walk(tree):
        for n in names:
            p = os.path.join(dirpath, n)
            st = os.lstat(p)
            if stat.S_ISREG(st.st_mode):
                with open(p, "rb") as f:
                    out[os.path.relpath(p, tree)] = f.read()
    return dict(sorted(out.items()))


def rmtree(path: str) -> None:
    # an overlay's work directory can be left mode 000: make it removable first
    for dirpath, dirs, _names in os.walk(path):
        for d in dirs:
            p = os.path.join(dirpath, d)
            if not os.path.islink(p):
                try:
                    os.chmod(p, 0o700)
                except OSError:
                    pass
    shutil.rmtree(path, ignore_errors=True)


_PROFILE_RE = re.compile(r"profile\b.*\bnot found|no profile|unknown profile", re.I)


def launcher_error(msg: str, report: Optional[Dict[str, Any]], rc: Optional[int]) -> LauncherError:
    if _PROFILE_RE.search(msg):
        return ProfileNotFound(msg, report=report, exit_code=rc)
    return LauncherError(msg, report=report, exit_code=rc)


def parse_report(rc: int, out: bytes, err: bytes) -> Dict[str, Any]:
    """The one JSON report ``--json`` prints; LauncherError when there is none."""
    text = out.decode("utf-8", errors="surrogateescape").strip()
    try:
        report = json.loads(text)
    except ValueError:
        msg = err.decode(errors="replace").strip() or f"acs-launch exited {rc} without a JSON report"
        raise launcher_error(msg, None, rc) from None
    if not isinstance(report, dict):
        raise LauncherError(f"acs-launch printed JSON that is not a report: {text[:200]!r}", exit_code=rc)
    return report


def check_argv(launcher: str, profile: Optional[str], path: Optional[PathLike]) -> List[str]:
    a = [launcher, "check", "--json"]
    if profile:
        a += ["--profile", profile]
    a.append(os.fspath(path) if path is not None else "-")
    return a


def finish_check(rc: int, out: bytes, err: bytes) -> CheckResult:
    report = parse_report(rc, out, err)
    if report.get("status") == "error" or rc == EXIT_LAUNCHER:
        msg = str(report.get("error") or err.decode(errors="replace").strip() or "acs-launch check failed")
        raise launcher_error(msg, report, rc)
    return CheckResult.from_report(report)
