"""Checkpoints and --resume of training/finetune.py, for real (torch, trl on the CPU, a tiny
random-weight Llama from training/tiny_models.py): a run killed after a checkpoint and resumed ends
with the uninterrupted run's weights; a kill during a save leaves the previous checkpoint, which
--resume then uses; a disk that fills during a save fails the run with one line and leaves the
previous checkpoint intact; --resume without a checkpoint is bad input. npm run test:python."""
from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import unittest
from unittest import mock

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_support  # noqa: E402  (first: it sets the offline environment)
import finetune  # noqa: E402

try:
    import torch
    from safetensors.torch import load_file
except ImportError:  # pragma: no cover - the suite runs in the trainer's venv
    torch = None

QA = [{"prompt": f"Which harbour has berth {i}?", "completion": f"Berth {i} is in harbour {i % 3}."}
      for i in range(6)]
TMP = ""
MODEL = ""
DATA = ""
# Same seed, same data order and RNG state restored: the resumed run repeats the uninterrupted
# one's arithmetic; the tolerance only allows for a different order of float sums.
TOLERANCE = 1e-6


def setUpModule():
    global TMP, MODEL, DATA
    TMP, MODEL, DATA = test_support.tiny_llama_and_data("finetune-checkpoints-test.", torch, QA,
                                                        trainer=True)


def argv(out_dir: str, *extra: str) -> list[str]:
    return ["--base_model", MODEL, "--data_file", DATA, "--output_dir", out_dir,
            "--max_steps", "6", "--save_steps", "2", "--eval_every", "3", "--lr", "1e-2",
            "--no-web-export", *extra]


def run(*args: str) -> tuple[int, str, str]:
    """finetune.main in this process: (exit code, stdout, stderr)."""
    return test_support.call_main(finetune.main, list(args))


def fresh(name: str) -> str:
    return test_support.fresh_dir(TMP, name)


def adapter(out_dir: str) -> dict:
    return load_file(os.path.join(out_dir, "adapter_model.safetensors"))


def max_difference(a: dict, b: dict) -> float:
    assert a.keys() == b.keys() and a
    return max((a[k] - b[k]).abs().max().item() for k in a)


def losses(out: str) -> dict[int, float]:
    return {m["step"]: m["loss"] for m in map(json.loads, (
        line for line in out.splitlines() if line.startswith('{"loss"')))}


class ResumeTest(unittest.TestCase):
    def test_a_killed_run_resumed_ends_as_the_uninterrupted_run(self):
        whole = fresh("whole")
        code, whole_out, err = run(*argv(whole))
        self.assertEqual(code, 0, err)
        # The finished run no longer needs its checkpoints.
        self.assertFalse(os.path.exists(finetune.checkpoints_dir(whole)))

        # The same run as the service starts it, killed (SIGKILL) at its "step 3/6" line, which
        # comes after checkpoint-2 is saved and before checkpoint-4.
        killed = fresh("killed")
        env = dict(os.environ, OMP_NUM_THREADS="1")
        script = os.path.join(test_support.HERE, "finetune.py")
        proc = subprocess.Popen([sys.executable, script, *argv(killed)],
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                                env=env)
        seen = []
        for line in proc.stdout:
            seen.append(line.strip())
            if line.strip() == "step 3/6":
                proc.send_signal(signal.SIGKILL)
                break
        proc.wait(timeout=60)
        proc.stdout.close()
        self.assertEqual(proc.returncode, -signal.SIGKILL, seen)
        checkpoint = finetune.last_checkpoint(finetune.checkpoints_dir(killed))
        self.assertEqual(os.path.basename(checkpoint), "checkpoint-2")

        code, out, err = run(*argv(killed, "--resume"))
        self.assertEqual(code, 0, err)
        self.assertIn(f"resuming from step 2 ({checkpoint})", out.splitlines())
        self.assertIn("step 2/6", out.splitlines())
        resumed = losses(out)
        self.assertEqual(sorted(resumed), [3, 4, 5, 6])
        # The same loss curve from step 3 on, and the same final weights.
        before = losses(whole_out)
        for step, loss in resumed.items():
            self.assertAlmostEqual(loss, before[step], places=5)
        difference = max_difference(adapter(whole), adapter(killed))
        print(f"\nresumed vs uninterrupted LoRA weights: max difference {difference:.2e}",
              file=sys.stderr)
        self.assertLessEqual(difference, TOLERANCE)

    def test_resume_without_a_checkpoint(self):
        out_dir = fresh("no-checkpoint")
        code, _out, err = run(*argv(out_dir, "--resume"))
        self.assertEqual(code, 2)
        self.assertEqual(err.strip().splitlines()[-1],
                         f"error: no checkpoint to resume from in {out_dir}/checkpoints")
        self.assertFalse(os.path.exists(out_dir))


class AtomicCheckpointTest(unittest.TestCase):
    def test_a_kill_during_a_save_leaves_the_previous_checkpoint(self):
        import transformers

        out_dir = fresh("crash-in-save")
        save_rng = transformers.Trainer._save_rng_state

        def dies_at_step_4(trainer, output_dir):
            if trainer.state.global_step == 4:  # model and optimizer written, RNG state not
                raise KeyboardInterrupt("killed during the save of checkpoint-4")
            return save_rng(trainer, output_dir)

        with mock.patch.object(transformers.Trainer, "_save_rng_state", dies_at_step_4), \
                self.assertRaises(KeyboardInterrupt):
            run(*argv(out_dir))
        folder = finetune.checkpoints_dir(out_dir)
        self.assertEqual(sorted(n for n in os.listdir(folder) if n.startswith("checkpoint-")),
                         ["checkpoint-2"])
        # The half-written one exists only in the staging folder.
        self.assertTrue(os.path.isfile(os.path.join(folder, ".partial", "checkpoint-4",
                                                    "optimizer.pt")))
        # Resumed on other data (an entry added), it would train a split it did not start with.
        changed = os.path.join(TMP, "changed.json")
        with open(changed, "w", encoding="utf-8") as handle:
            json.dump([{"prompt": "A new question?", "completion": "A new answer."}] + QA, handle)
        code, _out, err = run(*argv(out_dir, "--resume"), "--data_file", changed)
        self.assertEqual(code, 2, err)
        self.assertIn("the data or the split changed since the run started", err)
        code, out, err = run(*argv(out_dir, "--resume"))
        self.assertEqual(code, 0, err)
        self.assertIn(f"resuming from step 2 ({os.path.join(folder, 'checkpoint-2')})", out)
        self.assertEqual(sorted(losses(out)), [3, 4, 5, 6])

    def test_only_the_newest_checkpoints_are_kept(self):
        out_dir = fresh("keep")
        seen = []
        rmtree = shutil.rmtree

        def record(path, *args, **kwargs):  # the checkpoints as they were when the run ended
            if os.path.basename(str(path)) == "checkpoints":
                seen.extend(sorted(os.listdir(path)))
            return rmtree(path, *args, **kwargs)

        with mock.patch.object(finetune.shutil, "rmtree", record):
            code, _out, err = run(*argv(out_dir, "--keep_checkpoints", "2"))
        self.assertEqual(code, 0, err)
        self.assertEqual([n for n in seen if n.startswith("checkpoint-")],
                         ["checkpoint-4", "checkpoint-6"])


class DiskFullTest(unittest.TestCase):
    def test_a_disk_that_fills_during_a_checkpoint(self):
        # Room for one checkpoint of this model (about 520 kB) and not for a second.
        self.fill("disk-full", "800k")

    def test_a_checkpoint_larger_than_the_room_its_failure_leaves(self):
        # About 6.6 MB a checkpoint (LoRA rank 256) on 10 MB: the failed second one leaves over
        # 3 MB free once its partial files are removed, as a 1B model's 15 GB checkpoint leaves
        # gigabytes; the cause is still named (it was lost on the H100: "unexpected pos ...").
        self.fill("disk-full-large", "10m", "--lora_r", "256")

    def fill(self, name: str, size: str, *extra: str) -> None:
        out_dir = fresh(name)
        folder = finetune.checkpoints_dir(out_dir)
        os.makedirs(folder)
        mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", folder],
                                 capture_output=True, text=True, check=False)
        if mounted.returncode != 0:
            self.skipTest(f"cannot mount a small tmpfs here ({mounted.stderr.strip()}): the "
                          "full-disk case needs root or CAP_SYS_ADMIN")
        self.addCleanup(subprocess.run, ["umount", folder], check=False)
        code, out, err = run(*argv(out_dir, *extra))
        self.assertEqual(code, 2, out + err)
        last = err.strip().splitlines()[-1]
        self.assertTrue(last.startswith(
            f"error: could not write the checkpoint {os.path.join(folder, 'checkpoint-4')}: "),
            last)
        self.assertIn("No space left on device", last)
        # Said before the first step: the plan's disk estimate against the free space.
        warning = next(line for line in (out + err).splitlines() if line.startswith("warning: "))
        self.assertRegex(warning, r"^warning: this run writes about [\d.]+ [kMG]B at its peak \(3 "
                                  r"checkpoints of [\d.]+ [kMG]B while the newest is written, or "
                                  r"the kept ones and the result\) and [\d.]+ [kM]B is free in "
                                  + re.escape(folder) + "$")
        self.assertIn("the previous checkpoint is intact", last)
        self.assertEqual(sorted(n for n in os.listdir(folder) if "checkpoint" in n),
                         ["checkpoint-2"])
        self.assertEqual(os.listdir(os.path.join(folder, ".partial")), [])
        # The previous checkpoint is whole: its weights and optimizer state load.
        previous = os.path.join(folder, "checkpoint-2")
        load_file(os.path.join(previous, "adapter_model.safetensors"))
        torch.load(os.path.join(previous, "optimizer.pt"), weights_only=True)


if __name__ == "__main__":
    unittest.main()
