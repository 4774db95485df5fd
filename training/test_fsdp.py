"""The FSDP launcher preset (training/launchers/fsdp.yaml) run as the service runs it:
`accelerate launch --config_file training/launchers/fsdp.yaml --num_processes 2 finetune.py …`.

Sharding needs GPUs: accelerate 1.15 turns an FSDP config into DistributedType.FSDP only from a
GPU-like distributed type (AcceleratorState; on the CPU it stays MULTI_CPU), so on a machine
without GPUs the two processes run as DDP. This test runs the preset as far as that goes: the
launch, two gloo processes training together (the printed loss is the mean of the ranks'), the
line saying that FSDP did not shard, and the saved model. npm run test:python."""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
PRESET = os.path.join(HERE, "launchers", "fsdp.yaml")
sys.path.insert(0, HERE)
import test_support  # noqa: E402  (first: it sets the offline environment)
import tiny_models  # noqa: E402

try:
    import torch
    import yaml
except ImportError:  # pragma: no cover - the suite runs in the trainer's venv
    torch = None

QA = [{"prompt": f"Which pier is number {i}?", "completion": f"Pier {i} is by the market."}
      for i in range(5)]


class FsdpPresetTest(unittest.TestCase):
    def setUp(self):
        if torch is None:
            self.skipTest("torch is not installed (run npm run trainer:setup)")
        self.tmp = tempfile.mkdtemp(prefix="finetune-fsdp-test.")
        self.addCleanup(shutil.rmtree, self.tmp, ignore_errors=True)

    def test_the_preset_shards_full_fine_tuning(self):
        with open(PRESET, encoding="utf-8") as handle:
            preset = yaml.safe_load(handle)
        self.assertEqual(preset["distributed_type"], "FSDP")
        self.assertEqual(preset["fsdp_config"]["fsdp_version"], 2)
        # rank 0 saves the whole model once training ends
        self.assertEqual(preset["fsdp_config"]["fsdp_state_dict_type"], "FULL_STATE_DICT")

    @unittest.skipIf(torch is not None and torch.cuda.device_count() >= 2,
                     "two GPUs: the CPU fallback is not what runs here")
    def test_two_cpu_processes(self):
        model = tiny_models.make_tiny_model("llama", os.path.join(self.tmp, "llama"))
        data = test_support.write_json(os.path.join(self.tmp, "qa.json"), QA)
        out_dir = os.path.join(self.tmp, "out")
        accelerate = os.path.join(os.path.dirname(sys.executable), "accelerate")
        env = dict(os.environ, OMP_NUM_THREADS="1", FINETUNE_PRINT_RANK_LOSS="1",
                   CUDA_VISIBLE_DEVICES="")
        # As the service runs it with service/README's TRAINING_LAUNCHER: in its base folder (the
        # repo), where the preset's relative path is read.
        proc = subprocess.run(
            [accelerate, "launch", "--config_file", "training/launchers/fsdp.yaml",
             "--num_processes", "2",
             os.path.join(HERE, "finetune.py"), "--base_model", model, "--data_file", data,
             "--output_dir", out_dir, "--method", "full", "--max_steps", "3", "--lr", "1e-3",
             "--no-web-export"],
            capture_output=True, text=True, env=env, timeout=300, check=False,
            cwd=os.path.dirname(HERE))
        self.assertEqual(proc.returncode, 0, proc.stderr[-3000:])
        lines = proc.stdout.splitlines()
        self.assertIn("FSDP shards the model across GPUs only: on the CPU the processes run as DDP",
                      lines)
        own: dict[int, dict[int, float]] = {}
        for rank, step, loss in re.findall(r"rank (\d) step (\d+) loss ([\d.]+)", proc.stderr):
            own.setdefault(int(step), {})[int(rank)] = float(loss)
        printed = {m["step"]: m["loss"] for m in map(json.loads, (
            line for line in lines if line.startswith('{"loss"')))}
        self.assertEqual(sorted(printed), [1, 2, 3])
        for step, loss in printed.items():
            self.assertEqual(sorted(own.get(step, {})), [0, 1], proc.stderr[-3000:])
            self.assertAlmostEqual(loss, (own[step][0] + own[step][1]) / 2, places=5)
        self.assertEqual(sum(line.startswith("saved the fine-tuned model") for line in lines), 1)
        self.assertTrue(os.path.isfile(os.path.join(out_dir, "merged", "model.safetensors")))


if __name__ == "__main__":
    unittest.main()
