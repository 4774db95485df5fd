"""What the trainer's tests share: the offline environment (set on import, so import this module
before anything that loads transformers), a test module's temporary folder with a tiny
random-weight Llama (tiny_models.py), JSON files written into it, and an entry point such as
finetune.main called in this process with its output captured."""
from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import sys
import tempfile
import unittest
from typing import Callable

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # no test may reach the network
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

# Four short questions and answers about one made-up harbour: data a tiny model trains on in seconds.
HARBOUR_QA = [
    {"prompt": "What colour is the harbour gate?", "completion": "The gate is painted blue."},
    {"prompt": "Who keeps the lighthouse?", "completion": "Old Marta keeps it."},
    {"prompt": "When does the ferry leave?", "completion": "At seven every morning."},
    {"prompt": "What is the island called?", "completion": "It is called Skarvholm."},
]

NO_TORCH = "torch is not installed (run npm run trainer:setup)"


def tiny_llama(prefix: str, torch, *, threads: int | None = 1,
               quiet: bool = False) -> tuple[str, str]:
    """A module's set-up: skips the module when `torch` (the module's own import) is None, else
    makes a temporary folder named `prefix…` with a tiny Llama in `<folder>/llama`; returns
    (folder, model). `threads` caps torch's threads (tiny models: more threads only fight the
    machine's other jobs); `quiet` turns off transformers' progress bars."""
    if torch is None:
        raise unittest.SkipTest(NO_TORCH)
    if threads:
        torch.set_num_threads(threads)
    if quiet:
        from transformers.utils import logging as transformers_logging

        transformers_logging.disable_progress_bar()
    import tiny_models

    folder = tempfile.mkdtemp(prefix=prefix)
    return folder, tiny_models.make_tiny_model("llama", os.path.join(folder, "llama"))


def remove(folder: str) -> None:
    """A module's tear-down: its temporary folder goes (nothing when set-up never made one)."""
    if folder:
        shutil.rmtree(folder, ignore_errors=True)


def write_json(path: str, value) -> str:
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(value, handle)
    return path


def fresh_dir(parent: str, name: str) -> str:
    """`parent/name`, with whatever an earlier test left there removed."""
    path = os.path.join(parent, name)
    shutil.rmtree(path, ignore_errors=True)
    return path


def call_main(main: Callable[[list[str]], int], argv: list[str]) -> tuple[int, str, str]:
    """`main(argv)` in this process: (exit code, stdout, stderr); a SystemExit gives its code."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(list(argv))
        except SystemExit as exit_:
            code = exit_.code
    return code, out.getvalue(), err.getvalue()
