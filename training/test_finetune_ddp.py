"""training/finetune.py under DDP on the CPU (gloo): a real `torchrun --standalone
--nproc_per_node=2` run, and rank 1 run alone with the collectives stubbed to show it writes and
prints nothing. Tiny random-weight model from training/tiny_models.py: npm run test:python."""
from __future__ import annotations

import contextlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest
from unittest import mock

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import finetune  # noqa: E402
import tiny_models  # noqa: E402

try:
    import torch
except ImportError:  # pragma: no cover - the suite runs in the trainer's venv
    torch = None

QA = [
    {"prompt": "What colour is the harbour gate?", "completion": "The gate is painted blue."},
    {"prompt": "Who keeps the lighthouse?", "completion": "Old Marta keeps it."},
    {"prompt": "When does the ferry leave?", "completion": "At seven every morning."},
    {"prompt": "What is the island called?", "completion": "It is called Skarvholm."},
    {"prompt": "How many boats are moored?", "completion": "Twelve small boats."},
]
TMP = ""
MODEL = ""
DATA = ""


def setUpModule():
    global TMP, MODEL, DATA
    if torch is None:
        raise unittest.SkipTest("torch is not installed (run npm run trainer:setup)")
    torch.set_num_threads(1)
    from transformers.utils import logging as transformers_logging

    transformers_logging.disable_progress_bar()
    TMP = tempfile.mkdtemp(prefix="finetune-ddp-test.")
    MODEL = tiny_models.make_tiny_model("llama", os.path.join(TMP, "llama"))
    DATA = os.path.join(TMP, "qa.json")
    with open(DATA, "w", encoding="utf-8") as handle:
        json.dump(QA, handle)


def tearDownModule():
    if TMP:
        shutil.rmtree(TMP, ignore_errors=True)


class TorchrunTest(unittest.TestCase):
    def test_two_cpu_processes(self):
        out_dir = os.path.join(TMP, "ddp")
        torchrun = os.path.join(os.path.dirname(sys.executable), "torchrun")
        env = dict(os.environ, OMP_NUM_THREADS="1", FINETUNE_PRINT_RANK_LOSS="1")
        proc = subprocess.run(
            [torchrun, "--standalone", "--nproc_per_node=2", os.path.join(HERE, "finetune.py"),
             "--base_model", MODEL, "--data_file", DATA, "--output_dir", out_dir,
             "--max_steps", "4", "--eval_every", "2", "--lr", "1e-3", "--no-web-export"],
            capture_output=True, text=True, env=env, timeout=300, check=False)
        self.assertEqual(proc.returncode, 0, proc.stderr[-3000:])
        lines = proc.stdout.splitlines()
        # Rank 0 alone prints: every progress line once.
        for step in range(5):
            self.assertEqual(lines.count(f"step {step}/4"), 1, proc.stdout)
        self.assertEqual(sum(line.startswith("saved LoRA adapter") for line in lines), 1)
        # The printed loss is the mean of the ranks' own losses.
        own: dict[int, dict[int, float]] = {}
        # (not anchored: the other process's progress bars may share a line on the common pipe)
        for rank, step, loss in re.findall(r"rank (\d) step (\d+) loss ([\d.]+)", proc.stderr):
            own.setdefault(int(step), {})[int(rank)] = float(loss)
        printed = {m["step"]: m["loss"] for m in map(json.loads, (
            line for line in lines if line.startswith('{"loss"')))}
        self.assertEqual(sorted(printed), [1, 2, 3, 4])
        for step, loss in printed.items():
            self.assertEqual(sorted(own.get(step, {})), [0, 1], proc.stderr[-3000:])
            self.assertAlmostEqual(loss, (own[step][0] + own[step][1]) / 2, places=5)
        # The ranks saw different examples (else any rank's loss would pass for the mean).
        self.assertTrue(any(abs(o[0] - o[1]) > 1e-3 for o in own.values()), own)
        evals = [json.loads(line) for line in lines if line.startswith('{"eval_loss"')]
        self.assertEqual([e["step"] for e in evals], [2, 4])
        for name in ("split.json", "adapter_config.json", "adapter_model.safetensors",
                     "merged/model.safetensors", "merged/config.json"):
            self.assertTrue(os.path.isfile(os.path.join(out_dir, name)), name)


class NoDDP:
    """Stands in for DistributedDataParallel: the model itself (a type, as isinstance needs)."""

    def __new__(cls, model, **_):
        return model


class RankOneTest(unittest.TestCase):
    """Rank 1 of 2 run alone (collectives stubbed): it trains but neither prints nor writes."""

    def run_as(self, rank: int) -> tuple[int, str, str]:
        out_dir = os.path.join(TMP, f"rank{rank}")
        out, err = io.StringIO(), io.StringIO()
        dist = torch.distributed
        with mock.patch.dict(os.environ, {"RANK": str(rank), "LOCAL_RANK": str(rank),
                                          "WORLD_SIZE": "2"}), \
                mock.patch.object(dist, "init_process_group"), \
                mock.patch.object(dist, "all_reduce"), mock.patch.object(dist, "barrier"), \
                mock.patch.object(dist, "destroy_process_group"), \
                mock.patch.object(torch.nn.parallel, "DistributedDataParallel", NoDDP), \
                contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = finetune.main(["--base_model", MODEL, "--data_file", DATA,
                                  "--output_dir", out_dir, "--max_steps", "2"])
        return code, out_dir, out.getvalue()

    def test_rank_one_writes_nothing(self):
        code, out_dir, out = self.run_as(1)
        self.assertEqual(code, 0)
        self.assertEqual(out, "")
        self.assertFalse(os.path.exists(out_dir))

    def test_rank_zero_writes(self):  # the same stubs, rank 0: the check above can fail
        with mock.patch.dict(sys.modules, {"web_export": None}):
            code, out_dir, out = self.run_as(0)
        self.assertEqual(code, 0)
        self.assertIn("step 2/2", out)
        self.assertTrue(os.path.isfile(os.path.join(out_dir, "split.json")))
        self.assertTrue(os.path.isfile(os.path.join(out_dir, "web.skipped.json")))


if __name__ == "__main__":
    unittest.main()
