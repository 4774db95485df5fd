"""Disk helpers the trainer, its plan and its exports share: the free space where a path that may
not exist yet would be written, and byte counts as people read them."""
from __future__ import annotations

import os
import shutil


def existing_parent(path: str) -> str:
    """path itself when it is a folder, else the nearest folder above it that exists."""
    path = os.path.abspath(path)
    while not os.path.isdir(path) and os.path.dirname(path) != path:
        path = os.path.dirname(path)
    return path


def free_bytes(path: str) -> int | None:
    """Free bytes on the filesystem that would hold path; None when it cannot be read."""
    try:
        return shutil.disk_usage(existing_parent(path)).free
    except OSError:
        return None


def size_text(count: float) -> str:
    """"14.8 GB", "6.7 MB", "532.0 kB" (decimal units)."""
    for unit, scale in (("GB", 1e9), ("MB", 1e6)):
        if count >= scale / 10:
            return f"{count / scale:.1f} {unit}"
    return f"{count / 1e3:.1f} kB"
