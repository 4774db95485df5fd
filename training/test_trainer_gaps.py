"""What finetune.py and plan.py must agree on, and what the trainer does around training (torch on
the CPU, a tiny random-weight Llama): the precision and device the plan reports are the trainer's
on every kind of device (a stand-in device description: no GPU or Mac here); the learning rates a
run used follow the warm-up and the cosine; gradient checkpointing is on while training when
asked; a failed LoRA merge keeps the adapter and says why; the trained model is gone before the
export starts. npm run test:python."""
from __future__ import annotations

import contextlib
import gc
import io
import json
import math
import os
import weakref
import sys
import types
import unittest
from unittest import mock

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_support  # noqa: E402  (first: it sets the offline environment)
import finetune  # noqa: E402
import plan  # noqa: E402

try:
    import torch
except ImportError:  # pragma: no cover - the suite runs in the trainer's venv
    torch = None

TMP = ""
LLAMA = ""
GIB = 1024 ** 3
QA = test_support.HARBOUR_QA


def setUpModule():
    global TMP, LLAMA
    TMP, LLAMA = test_support.tiny_llama("trainer-gaps-test.", torch, trainer=True)


def tearDownModule():
    test_support.remove(TMP)


def stand_in_torch(kind: str, bf16_native: bool = False):
    """A torch module as describe_device reads it, for a device this machine does not have."""
    cuda = types.SimpleNamespace(
        is_available=lambda: kind == "cuda",
        get_device_name=lambda index: "NVIDIA H100 80GB HBM3",
        get_device_properties=lambda index: types.SimpleNamespace(total_memory=80 * GIB),
        is_bf16_supported=lambda including_emulation=True: bf16_native or including_emulation)
    mps = types.SimpleNamespace(is_available=lambda: kind == "mps")
    return types.SimpleNamespace(cuda=cuda, backends=types.SimpleNamespace(mps=mps),
                                 bfloat16=torch.bfloat16, float16=torch.float16,
                                 float32=torch.float32)


DEVICES = {"cuda with bf16": ("cuda", True), "cuda without bf16": ("cuda", False),
           "mps": ("mps", False), "cpu": ("cpu", False)}


def plan_on(fake, method: str = "lora") -> dict:
    """plan.run_plan on the tiny model as if the stand-in device were this machine's."""
    data = test_support.write_json(os.path.join(TMP, "plan.json"), QA)
    args = plan.field_defaults(method, base_model=LLAMA, data_file=data)
    said: list[str] = []
    describe = plan.describe_device
    with mock.patch.object(plan, "describe_device", lambda _torch: describe(fake)):
        code = plan.run_plan(args, said.append)
    assert code == 0, said
    return json.loads(said[0])["plan"]


class PrecisionTest(unittest.TestCase):
    def test_the_plan_reports_the_precision_the_trainer_uses_on_every_device(self):
        # Broke: the plan assumed fp16 on Apple MPS while the trainer trained in fp32 there.
        expected = {"cuda with bf16": "bf16", "cuda without bf16": "fp16", "mps": "fp32",
                    "cpu": "fp32"}
        for name, (kind, bf16) in DEVICES.items():
            for method in ("lora", "full"):
                with self.subTest(device=name, method=method):
                    fake = stand_in_torch(kind, bf16)
                    reported = plan_on(fake, method)
                    precision, flags, dtype = finetune.precision_settings(fake, method)
                    self.assertEqual(reported["precision"], precision)
                    self.assertEqual(precision, expected[name])
                    self.assertEqual(flags, {"bf16": precision == "bf16",
                                             "fp16": precision == "fp16"})
                    half = {"bf16": torch.bfloat16, "fp16": torch.float16}.get(precision)
                    self.assertEqual(dtype, torch.float32 if method == "full" or half is None
                                     else half)

    def test_the_plan_names_the_device_readably(self):
        # Broke: the panel said "… of the cpu" / "of the cuda".
        gpu = plan_on(stand_in_torch("cuda", True))
        self.assertEqual((gpu["device"], gpu["device_name"], gpu["device_memory_bytes"]),
                         ("cuda", "NVIDIA H100 80GB HBM3", 80 * GIB))
        cpu = plan_on(stand_in_torch("cpu"))
        self.assertEqual((cpu["device"], cpu["device_name"]),
                         ("cpu", "this computer's memory (CPU)"))
        self.assertEqual(plan_on(stand_in_torch("mps"))["device_name"],
                         "this Mac's memory (Apple MPS)")


def run(name: str, *argv: str, web_export: bool = False) -> tuple[int, str, str]:
    """finetune.main on the tiny model in this process, into TMP/<name>: (exit code, out, err)."""
    data = test_support.write_json(os.path.join(TMP, "qa.json"), QA)
    return test_support.call_main(finetune.main, [
        "--base_model", LLAMA, "--data_file", data,
        "--output_dir", test_support.fresh_dir(TMP, name), "--eval_fraction", "0",
        *(() if web_export else ("--no-web-export",)), *argv])


def loss_lines(out: str) -> list[dict]:
    return [json.loads(line) for line in out.splitlines() if line.startswith('{"loss"')]


class ScheduleTest(unittest.TestCase):
    def test_the_learning_rates_used_rise_over_the_warm_up_then_follow_the_cosine(self):
        total, lr, warmup_ratio = 10, 1e-3, 0.3
        code, out, err = run("schedule", "--max_steps", str(total), "--repeat", "5", "--lr",
                             str(lr), "--warmup_ratio", str(warmup_ratio), "--lr_scheduler",
                             "cosine")
        self.assertEqual(code, 0, err[-2000:])
        logged = {row["step"]: row["learning_rate"] for row in loss_lines(out)}
        self.assertEqual(sorted(logged), list(range(1, total + 1)))
        warmup = math.ceil(warmup_ratio * total)

        def scheduled(step: int) -> float:
            # transformers' get_cosine_schedule_with_warmup, at the step about to be taken.
            if step < warmup:
                return lr * step / warmup
            return lr * 0.5 * (1 + math.cos(math.pi * (step - warmup) / (total - warmup)))

        # The rate logged for step N is the one it ran at: the schedule after N - 1 steps.
        for step, rate in logged.items():
            self.assertAlmostEqual(rate, scheduled(step - 1), delta=lr * 1e-6, msg=f"step {step}")
        rising = [logged[s] for s in range(1, warmup + 2)]
        self.assertEqual(rising, sorted(set(rising)))
        self.assertAlmostEqual(max(logged.values()), lr, delta=lr * 1e-6)
        falling = [logged[s] for s in range(warmup + 1, total + 1)]
        self.assertEqual(falling, sorted(set(falling), reverse=True))


def watch_training(seen: dict):
    """A stand-in for finetune.make_progress_callback that adds, to the trainer's own callback,
    a record of each optimizer step: the model's is_gradient_checkpointing and how often the first
    decoder layer ran forward (a checkpointed layer runs again in the backward pass)."""
    original = finetune.make_progress_callback

    def make(*args, **kwargs):
        progress = original(*args, **kwargs)
        layer_calls = [0]
        step_begin, step_end, train_begin = (progress.on_step_begin, progress.on_step_end,
                                             progress.on_train_begin)

        def on_train_begin(args_, state, control, model=None, **rest):
            layer = next(m for name, m in model.named_modules() if name.endswith("layers.0"))
            # A pre-hook: torch's non-reentrant checkpoint stops a recomputation early, before
            # the layer's forward hooks would run.
            layer.register_forward_pre_hook(
                lambda *_: layer_calls.__setitem__(0, layer_calls[0] + 1))
            return train_begin(args_, state, control, model=model, **rest)

        def on_step_begin(args_, state, control, **rest):
            layer_calls[0] = 0
            return step_begin(args_, state, control, **rest)

        def on_step_end(args_, state, control, model=None, **rest):
            seen.setdefault("checkpointing", []).append(model.is_gradient_checkpointing)
            seen.setdefault("layer_calls", []).append(layer_calls[0])
            return step_end(args_, state, control, model=model, **rest)

        progress.on_train_begin, progress.on_step_begin, progress.on_step_end = (
            on_train_begin, on_step_begin, on_step_end)
        return progress

    return mock.patch.object(finetune, "make_progress_callback", make)


class GradientCheckpointingTest(unittest.TestCase):
    def train(self, setting: str) -> tuple[dict, str]:
        seen: dict = {}
        with watch_training(seen):
            code, out, err = run(f"checkpointing-{setting}", "--max_steps", "8", "--repeat", "4",
                                 "--lr", "2e-3", "--warmup_ratio", "0",
                                 "--gradient_checkpointing", setting)
        self.assertEqual(code, 0, err[-2000:])
        return seen, out

    def test_on_it_trains_with_the_layers_checkpointed(self):
        seen, out = self.train("on")
        self.assertEqual(seen["checkpointing"], [True] * 8)
        # Each step runs the layer forward twice: once, and again to rebuild its activations.
        self.assertEqual(seen["layer_calls"], [2] * 8)
        self.assertIn("gradient checkpointing", out)
        self.assertEqual([line for line in out.splitlines() if line.startswith("step ")][-1],
                         "step 8/8")
        losses = [row["loss"] for row in loss_lines(out)]
        self.assertEqual(len(losses), 8)
        self.assertLess(sum(losses[-2:]) / 2, sum(losses[:2]) / 2)

    def test_off_it_runs_each_layer_once(self):
        # The watch itself can tell the two apart (the test above cannot pass by accident).
        seen, _ = self.train("off")
        self.assertEqual(seen["checkpointing"], [False] * 8)
        self.assertEqual(seen["layer_calls"], [1] * 8)


class MergeFailureTest(unittest.TestCase):
    def test_a_failed_merge_keeps_the_adapter_and_says_why(self):
        from peft import LoraConfig, PeftModel, get_peft_model
        from transformers import AutoModelForCausalLM, AutoTokenizer

        out_dir = test_support.fresh_dir(TMP, "merge-fails")
        tokenizer = AutoTokenizer.from_pretrained(LLAMA)
        net = get_peft_model(AutoModelForCausalLM.from_pretrained(LLAMA),
                             LoraConfig(r=4, target_modules="all-linear", init_lora_weights=False))
        args = finetune.parse_args(["--data_file", "x.json", "--output_dir", out_dir,
                                    "--no-web-export"])

        def merge_fails(*_args, **_kwargs):
            raise RuntimeError("CPU out of memory while merging")

        said: list[str] = []
        err = io.StringIO()
        # PeftModel hands merge_and_unload to its LoRA model.
        with mock.patch.object(type(net.base_model), "merge_and_unload", merge_fails), \
                contextlib.redirect_stderr(err), self.assertRaises(SystemExit) as exited:
            finetune.save_outputs(args, net, tokenizer, said.append)
        self.assertEqual(exited.exception.code, 1)
        self.assertEqual(err.getvalue().strip(), (
            "error: merging the LoRA adapter into the base model failed (RuntimeError: CPU out of "
            f"memory while merging); the adapter is saved in {out_dir}"))
        self.assertIn(f"saved LoRA adapter to {out_dir}", said)
        self.assertFalse(os.path.exists(os.path.join(out_dir, "merged")))
        reloaded = PeftModel.from_pretrained(AutoModelForCausalLM.from_pretrained(LLAMA), out_dir)
        saved = {k: v for k, v in reloaded.state_dict().items() if "lora_" in k}
        trained = {k: v for k, v in net.state_dict().items() if "lora_" in k}
        self.assertEqual(saved.keys(), trained.keys())
        self.assertTrue(saved)
        for key, value in trained.items():
            self.assertTrue(torch.equal(saved[key], value), key)


class ReleaseBeforeExportTest(unittest.TestCase):
    def test_the_trained_model_is_gone_when_the_export_starts(self):
        refs: dict[str, weakref.ref] = {}
        at_export: dict[str, bool] = {}
        train, load_base = finetune.train, finetune.load_base

        def train_watched(*args, **kwargs):
            trainer = train(*args, **kwargs)
            refs["trainer"] = weakref.ref(trainer)
            refs["trained model"] = weakref.ref(trainer.model)
            return trainer

        def load_base_watched(*args, **kwargs):
            tokenizer, model = load_base(*args, **kwargs)
            refs["base model"] = weakref.ref(model)
            return tokenizer, model

        def export_started(args, merged_dir, say):
            gc.collect()
            at_export.update({name: ref() is None for name, ref in refs.items()})
            at_export["merged saved"] = os.path.isfile(os.path.join(merged_dir, "config.json"))

        with mock.patch.object(finetune, "train", train_watched), \
                mock.patch.object(finetune, "load_base", load_base_watched), \
                mock.patch.object(finetune, "export_outputs", export_started):
            code, _, err = run("release", "--max_steps", "2", "--repeat", "1", web_export=True)
        self.assertEqual(code, 0, err[-2000:])
        self.assertEqual(at_export, {"trainer": True, "trained model": True, "base model": True,
                                     "merged saved": True})


if __name__ == "__main__":
    unittest.main()
