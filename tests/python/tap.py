# SPDX-License-Identifier: LGPL-2.1-or-later
"""A TAP producer for the Python tests: ``@test`` functions, each one ``ok``
line (an exception or a failed ``check`` makes it ``not ok`` with the reason
as diagnostics)."""

import sys
import traceback
from typing import Any, Callable, List

_tests: List[Callable[[], None]] = []


class Failed(AssertionError):
    pass


def test(fn: Callable[[], None]) -> Callable[[], None]:
    _tests.append(fn)
    return fn


def check(cond: Any, what: str) -> None:
    if not cond:
        raise Failed(what)


def eq(got: Any, want: Any, what: str) -> None:
    if got != want:
        raise Failed(f"{what}: got {got!r}, want {want!r}")


def raises(exc: type, fn: Callable[[], Any], what: str) -> BaseException:
    try:
        fn()
    except exc as e:  # noqa: B902
        return e
    except BaseException as e:
        raise Failed(f"{what}: raised {type(e).__name__}: {e}, want {exc.__name__}") from e
    raise Failed(f"{what}: nothing raised, want {exc.__name__}")


def main() -> int:
    n = failed = 0
    for fn in _tests:
        n += 1
        desc = (fn.__doc__ or fn.__name__).strip().splitlines()[0]
        try:
            fn()
            print(f"ok {n} - {desc}", flush=True)
        except BaseException as e:  # a test's failure is a line, never the end of the run
            failed += 1
            print(f"not ok {n} - {desc}", flush=True)
            for line in "".join(traceback.format_exception(type(e), e, e.__traceback__)).splitlines()[-12:]:
                print(f"# {line}"[:400], flush=True)
    print(f"1..{n}", flush=True)
    sys.stdout.flush()
    return 1 if failed else 0
