"""training/finetune.py under DDP on the CPU (gloo): a real `torchrun --standalone
--nproc_per_node=2` run (TRL's SFTTrainer through accelerate): rank 0 alone prints and saves, the
printed loss is the mean of the ranks' own. Tiny random-weight model from training/tiny_models.py:
npm run test:python."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import test_support  # noqa: E402  (first: it sets the offline environment)
import finetune  # noqa: E402

try:
    import torch
except ImportError:  # pragma: no cover - the suite runs in the trainer's venv
    torch = None

QA = [*test_support.HARBOUR_QA,
      {"prompt": "How many boats are moored?", "completion": "Twelve small boats."}]
TMP = ""
MODEL = ""
DATA = ""


def setUpModule():
    global TMP, MODEL, DATA
    TMP, MODEL, DATA = test_support.tiny_llama_and_data("finetune-ddp-test.", torch, QA,
                                                        quiet=True)


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
        self.assertEqual(sum(line.startswith("merged model in") for line in lines), 1)
        self.assertEqual(sum(line.startswith("2 entries to train on")
                             or line.startswith("4 entries to train on") for line in lines), 1)
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
        # epoch: examples seen (1 per process per step) over the 4 training entries.
        epochs = [m["epoch"] for m in map(json.loads, (
            line for line in lines if line.startswith('{"loss"')))]
        self.assertEqual(epochs, [0.5, 1.0, 1.5, 2.0])
        self.assertFalse(os.path.exists(os.path.join(out_dir, "checkpoints")))
        evals = [json.loads(line) for line in lines if line.startswith('{"eval_loss"')]
        self.assertEqual([e["step"] for e in evals], [2, 4])
        for name in ("split.json", "adapter_config.json", "adapter_model.safetensors",
                     "merged/model.safetensors", "merged/config.json"):
            self.assertTrue(os.path.isfile(os.path.join(out_dir, name)), name)


if __name__ == "__main__":
    unittest.main()
