# SPDX-License-Identifier: LGPL-2.1-or-later
"""Sessions: several calls that share a workspace.

Two ways, chosen when the session opens:

* through ``acs-launch serve`` (a unix socket speaking MCP JSON-RPC, see
  acs-launch(1); path from ``server=`` or ``$ACS_SERVER``): the calls carry a
  ``session`` id, so the server keeps the interpreter's globals and the files
  between them, and ``close_session`` ends it.
* otherwise (no socket, or nothing answers on it) the fallback: every call
  is a fresh ``acs-launch`` run on a private temporary workspace with
  ``--apply``, so files persist between calls but globals do not.

``Session.uses_server`` says which one a session got.
"""

from __future__ import annotations

import itertools
import json
import os
import socket
import tempfile
import uuid
from typing import TYPE_CHECKING, Any, Dict, Optional, Sequence, Union

from ._invoke import PathLike, read_kept, rmtree
from .errors import LauncherError
from .report import Result

if TYPE_CHECKING:
    from .launcher import Launcher

#: MCP protocol version the client offers; the server may answer another
MCP_PROTOCOL = "2025-06-18"


class ServeClient:
    """MCP JSON-RPC 2.0 over a unix socket, newline-delimited (``acs-launch serve``)."""

    def __init__(self, path: str, connect_timeout: float = 10.0) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            # a socket that accepts but never answers must not hang the caller;
            # the runs themselves are bounded by the server's own timeouts
            self.sock.settimeout(connect_timeout)
            self.sock.connect(path)
            self._r = self.sock.makefile("rb")
            self._ids = itertools.count(1)
            self.request("initialize", {"protocolVersion": MCP_PROTOCOL, "capabilities": {},
                                        "clientInfo": {"name": "acs_launch", "version": "1"}})
            self._send({"jsonrpc": "2.0", "method": "notifications/initialized"})
            self.sock.settimeout(None)
        except BaseException:
            self.sock.close()
            raise

    def _send(self, msg: Dict[str, Any]) -> None:
        self.sock.sendall(json.dumps(msg).encode() + b"\n")

    def request(self, method: str, params: Dict[str, Any]) -> Any:
        rid = next(self._ids)
        self._send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        while True:
            line = self._r.readline()
            if not line:
                raise LauncherError(f"acs-launch serve closed the connection during {method}")
            msg = json.loads(line)
            if msg.get("id") != rid:
                continue  # a notification or a server request this client does not take
            if "error" in msg:
                raise LauncherError(f"acs-launch serve: {method}: {msg['error'].get('message')}")
            return msg.get("result")

    def call_tool(self, name: str, arguments: Dict[str, Any]) -> Dict[str, Any]:
        res = self.request("tools/call", {"name": name, "arguments": arguments}) or {}
        report = res.get("structuredContent")
        if not isinstance(report, dict):
            text = " ".join(c.get("text", "") for c in res.get("content", []) if isinstance(c, dict))
            raise LauncherError(f"acs-launch serve: {name}: {text or 'no report'}")
        return report

    def close(self) -> None:
        try:
            self._r.close()
        finally:
            self.sock.close()


def _connect(server: Optional[PathLike]) -> Optional[ServeClient]:
    path = os.fspath(server) if server is not None else os.environ.get("ACS_SERVER")
    if not path:
        return None
    try:
        return ServeClient(path)
    except (OSError, ValueError, LauncherError):
        if server is not None:
            raise  # asked for explicitly: say it, do not fall back silently
        return None  # $ACS_SERVER set but nothing answers: cold runs, as the CLI does


class Session:
    """``with launcher.session() as s: s.run_code(...)``; see the module's docstring."""

    def __init__(self, launcher: "Launcher", *, server: Optional[PathLike] = None, **opts: Any) -> None:
        self.launcher = launcher
        self.opts = opts
        self.id = uuid.uuid4().hex
        self._serve = _connect(server)
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

    def __enter__(self) -> "Session":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def _tool(self, tool: str, args: Dict[str, Any]) -> Result:
        assert self._serve is not None
        args = {**args, "session": self.id}
        for k in ("timeout", "profile"):
            if self.opts.get(k) is not None and k not in args:
                args[k] = self.opts[k]
        return Result.from_report(self._serve.call_tool(tool, args))

    def run_code(self, code: str, **opts: Any) -> Result:
        """Run Python in the session (``execute_python``)."""
        if self._serve is not None:
            return self._tool("execute_python", {"code": code, **opts})
        return self.launcher.run(code, **{**self.opts, **opts, "workspace": self.workspace, "apply": True})

    execute_python = run_code

    def execute_command(self, command: Union[str, Sequence[str]], **opts: Any) -> Result:
        """Run a command in the session (``execute_command``)."""
        if self._serve is not None:
            cmd = command if isinstance(command, str) else " ".join(_shquote(a) for a in command)
            return self._tool("execute_command", {"command": cmd, **opts})
        return self.launcher.exec(command, **{**self.opts, **opts, "workspace": self.workspace, "apply": True})

    def put_files(self, files: Dict[str, Union[bytes, str]]) -> None:
        """Put files into the session's workspace (fallback sessions)."""
        if self.workspace is None:
            raise LauncherError("put_files: the serve protocol has no file upload; write them with run_code")
        from ._invoke import _write_files
        _write_files(self.workspace, files)

    def files(self) -> Dict[str, bytes]:
        """The session workspace's regular files, path -> bytes (fallback sessions)."""
        if self.workspace is None:
            raise LauncherError("files: read them with run_code in a server session")
        out: Dict[str, bytes] = {}
        ws = self.workspace
        for dirpath, _d, names in os.walk(ws):
            for n in names:
                p = os.path.join(dirpath, n)
                if os.path.isfile(p) and not os.path.islink(p):
                    with open(p, "rb") as f:
                        out[os.path.relpath(p, ws)] = f.read()
        return dict(sorted(out.items()))

    def close(self) -> None:
        if self._serve is not None:
            try:
                self._serve.request("tools/call", {"name": "close_session", "arguments": {"session": self.id}})
            except (LauncherError, OSError):
                pass  # the server drops idle sessions itself (--session-idle)
            finally:
                self._serve.close()
                self._serve = None
        if self._tmp:
            rmtree(self._tmp)
            self._tmp = None


def _shquote(s: str) -> str:
    import shlex
    return shlex.quote(s)


__all__ = ["Session", "ServeClient", "read_kept"]
