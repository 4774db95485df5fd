"""What the trainer's tests share: the offline environment (set on import, so import this module
before anything that loads transformers), a test module's temporary folder with a tiny
random-weight Llama (tiny_models.py), JSON files written into it, an entry point such as
finetune.main called in this process with its output captured, and the suite's runner
(`python training/test_support.py`, which npm run test:python runs: every module in its own
process, as many at a time as there are cores)."""
from __future__ import annotations

import contextlib
import gc
import importlib
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


def tiny_llama(prefix: str, torch, *, threads: int | None = 1, quiet: bool = False,
               trainer: bool = False) -> tuple[str, str]:
    """A module's set-up: skips the module when `torch` (the module's own import) is None, else
    makes a temporary folder named `prefix…` with a tiny Llama in `<folder>/llama`; returns
    (folder, model). `threads` caps torch's threads (tiny models: more threads only fight the
    machine's other jobs); `quiet` turns off transformers' progress bars; `trainer`: the module
    runs finetune.main in this process, so the libraries it loads are imported before the
    libraries' objects are frozen (freeze_imports)."""
    if torch is None:
        raise unittest.SkipTest(NO_TORCH)
    if threads:
        torch.set_num_threads(threads)
    if quiet:
        from transformers.utils import logging as transformers_logging

        transformers_logging.disable_progress_bar()
    import tiny_models

    freeze_imports("transformers", *(("peft", "trl", "datasets", "accelerate") if trainer else ()))
    folder = tempfile.mkdtemp(prefix=prefix)
    return folder, tiny_models.make_tiny_model("llama", os.path.join(folder, "llama"))


def tiny_llama_and_data(prefix: str, torch, entries: list[dict], **options) -> tuple[str, str, str]:
    """A module's whole set-up: tiny_llama (the same `options`) and `entries` written as
    `<folder>/qa.json`; returns (folder, model, data file). The folder goes when the module's
    tests are done (a module cleanup: the module needs no tearDownModule)."""
    folder, model = tiny_llama(prefix, torch, **options)
    unittest.addModuleCleanup(remove, folder)
    return folder, model, write_json(os.path.join(folder, "qa.json"), entries)


def freeze_imports(*modules: str) -> None:
    """Imports `modules` and moves every object alive now (the libraries' modules, classes and
    functions: hundreds of thousands) out of the garbage collector's sight (gc.freeze). The
    trainer and the export call gc.collect() after each run and variant; without this, each call
    walks all of those objects again, which is much of a tiny run's time. Objects made later are
    collected as before."""
    for name in modules:
        module = importlib.import_module(name)
        # Both load their trainers lazily, on first use: load them now.
        getattr(module, {"trl": "SFTTrainer", "transformers": "Trainer"}.get(name, "__name__"))
    gc.collect()
    gc.freeze()


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


# The modules that take longest, started first so that the others fill the gaps beside them.
LONGEST_FIRST = ("test_web_export", "test_onnx_fused", "test_finetune_torch", "test_hub_download",
                 "test_onnx_fused_phi3", "test_gguf_export", "test_checkpoints", "test_fsdp", "test_finetune_ddp",
                 "test_plan")


def run_suite(workers: int) -> int:
    """Every test_*.py module here, each in its own `python -m unittest` process, `workers` at a
    time (the tests run torch on one thread; the modules share no files). Each module's output is
    printed whole when it ends; the exit code is 1 when any module failed."""
    import re
    import subprocess
    import time
    from concurrent.futures import ThreadPoolExecutor, as_completed

    names = sorted(name[:-3] for name in os.listdir(HERE) if name.startswith("test_")
                   and name.endswith(".py") and name != "test_support.py")
    names.sort(key=lambda name: LONGEST_FIRST.index(name) if name in LONGEST_FIRST
               else len(LONGEST_FIRST))

    def run(name: str) -> tuple[str, int, str, float]:
        started = time.monotonic()
        proc = subprocess.run([sys.executable, "-m", "unittest", name], cwd=HERE, text=True,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, check=False)
        return name, proc.returncode, proc.stdout, time.monotonic() - started

    failed, tests = [], 0
    started = time.monotonic()
    with ThreadPoolExecutor(max_workers=workers) as pool:
        for future in as_completed([pool.submit(run, name) for name in names]):
            name, code, output, seconds = future.result()
            print(f"=== {name}: {'ok' if code == 0 else f'FAILED (exit {code})'} "
                  f"in {seconds:.0f} s\n{output}", flush=True)
            tests += sum(int(n) for n in re.findall(r"^Ran (\d+) tests? in ", output, re.M))
            if code != 0:
                failed.append(name)
    print(f"{tests} tests in {len(names)} modules, {time.monotonic() - started:.0f} s, "
          f"{workers} at a time: "
          + (f"FAILED: {', '.join(failed)}" if failed else "all passed"))
    return 1 if failed else 0


if __name__ == "__main__":
    # npm run test:python: as many modules at a time as this process may use cores, up to 4 (the
    # DDP and FSDP modules start two training processes each); TEST_WORKERS=N sets the number.
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    sys.exit(run_suite(int(os.environ.get("TEST_WORKERS", "0")) or min(cores or 1, 4)))
