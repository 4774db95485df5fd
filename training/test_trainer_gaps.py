"""What finetune.py and plan.py must agree on, and what the trainer does around training (torch on
the CPU, a tiny random-weight Llama): the precision and device the plan reports are the trainer's
on every kind of device (a stand-in device description: no GPU or Mac here); the learning rates a
run used follow the warm-up and the cosine; gradient checkpointing is on while training when
asked; a failed LoRA merge keeps the adapter and says why; the trained model is gone before the
export starts. npm run test:python."""
from __future__ import annotations

import contextlib
import io
import json
import os
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
QA = [
    {"prompt": "What colour is the harbour gate?", "completion": "The gate is painted blue."},
    {"prompt": "Who keeps the lighthouse?", "completion": "Old Marta keeps it."},
    {"prompt": "When does the ferry leave?", "completion": "At seven every morning."},
    {"prompt": "What is the island called?", "completion": "It is called Skarvholm."},
]


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


if __name__ == "__main__":
    unittest.main()
