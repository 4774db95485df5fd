"""A cancel that no `except Exception` can swallow.

The service cancels a run with SIGTERM; finetune.py turns it into KeyboardInterrupt so that
half-written folders are removed on the way out. A signal can land anywhere, though: inside a C
extension's import, pybind11 re-raises it as ``ImportError: initialization failed``, which the
export's per-step handlers would report as a failed step and go on. So the handler also records
the request here, and every handler that turns an error into a note calls `check()` first.
"""
from __future__ import annotations

import signal
from typing import NoReturn

requested: int | None = None  # the signal number, once a cancel arrived


def _terminate(signum, _frame) -> NoReturn:
    global requested
    requested = signum
    raise KeyboardInterrupt(f"signal {signum}")


def install() -> None:
    """SIGTERM unwinds like Ctrl+C (call once, in the main thread)."""
    signal.signal(signal.SIGTERM, _terminate)


def check() -> None:
    """Raises KeyboardInterrupt when a cancel arrived, whatever exception it turned into."""
    if requested is not None:
        raise KeyboardInterrupt(f"signal {requested}")
