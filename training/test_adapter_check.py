"""training/adapter_check.py: a real LoRA run (torch on the CPU, a tiny random-weight Llama) checks
its adapter with PEFT against merged/ and says so; the same adapter with its weights changed on
disk after the merge fails the check with its figure; an adapter PEFT cannot load fails with the
error; a failed check leaves the run standing. npm run test:python."""
from __future__ import annotations

import json
import os
import shutil
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_support  # noqa: E402  (first: it sets the offline environment)
import adapter_check  # noqa: E402
import finetune  # noqa: E402

try:
    import torch
    from safetensors.torch import load_file, save_file
except ImportError:  # pragma: no cover - the suite runs in the trainer's venv
    torch = None

TMP = LLAMA = DATA_FILE = ""


def setUpModule():
    global TMP, LLAMA, DATA_FILE
    TMP, LLAMA, DATA_FILE = test_support.tiny_llama_and_data("adapter-check-test.", torch,
                                                            test_support.HARBOUR_QA, trainer=True)


def read_report(out: str) -> dict:
    with open(os.path.join(out, adapter_check.REPORT), encoding="utf-8") as handle:
        return json.load(handle)


class AdapterCheckTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.out = os.path.join(TMP, "lora")
        code, cls.stdout, stderr = test_support.call_main(finetune.main, [
            "--base_model", LLAMA, "--data_file", DATA_FILE, "--output_dir", cls.out,
            "--max_len", "64", "--max_steps", "2", "--eval_fraction", "0", "--no-web-export"])
        assert code == 0, cls.stdout[-3000:] + stderr[-3000:]

    def copy(self, name: str) -> str:
        """A copy of the run's folder (the adapter and merged/) to change."""
        dest = test_support.fresh_dir(TMP, name)
        shutil.copytree(self.out, dest)
        return dest

    def test_the_run_checks_its_adapter_with_peft_and_says_so(self):
        report = read_report(self.out)
        self.assertTrue(report["ok"], report)
        self.assertEqual(report["merged_dtype"], "float32")
        self.assertLessEqual(report["max_logit_difference"], report["tolerance"])
        self.assertGreater(report["tokens"], 5)
        import peft
        self.assertEqual(report["peft_version"], peft.__version__)
        self.assertIn(f"adapter checked with PEFT {peft.__version__}: logits match merged/",
                      self.stdout)
        # Logged before the card, which carries it.
        with open(os.path.join(self.out, "merged", "README.md"), encoding="utf-8") as handle:
            card = handle.read()
        self.assertIn("### LoRA adapter (PEFT)\n\n- Loaded with PEFT", card)

    def test_an_adapter_changed_on_disk_after_the_merge_fails_with_its_figure(self):
        out = self.copy("changed")
        path = os.path.join(out, "adapter_model.safetensors")
        weights = load_file(path)
        generator = torch.Generator().manual_seed(0)
        for name in [key for key in weights if "lora_B" in key][:2]:
            weights[name] = weights[name] + 0.05 * torch.randn(weights[name].shape,
                                                               generator=generator)
        save_file(weights, path, metadata={"format": "pt"})
        report = adapter_check.check_adapter(LLAMA, out, os.path.join(out, "merged"))
        self.assertFalse(report["ok"])
        self.assertEqual(report, read_report(out))
        self.assertGreater(report["max_logit_difference"], report["tolerance"])
        self.assertIn(f"differ from merged/'s by up to {report['max_logit_difference']:.3g} "
                      f"(tolerance {report['tolerance']:.3g})", report["reason"])
        # The unchanged adapter passes the same check (the failure is the change, not the copy).
        self.assertTrue(adapter_check.check_adapter(LLAMA, self.out,
                                                    os.path.join(self.out, "merged"))["ok"])

    def test_an_adapter_peft_cannot_load_fails_with_the_error(self):
        out = self.copy("unloadable")
        with open(os.path.join(out, "adapter_model.safetensors"), "wb") as handle:
            handle.write(b"not safetensors")
        report = adapter_check.check_adapter(LLAMA, out, os.path.join(out, "merged"))
        self.assertFalse(report["ok"])
        self.assertIsNone(report["max_logit_difference"])
        self.assertRegex(report["reason"], r"^PEFT could not load or run the adapter \(\w+")

    def test_a_failed_check_leaves_the_run_standing_and_logs_why(self):
        out = self.copy("failing-run")
        os.remove(os.path.join(out, "adapter_config.json"))
        args = finetune.parse_args(["--base_model", LLAMA, "--data_file", DATA_FILE,
                                    "--output_dir", out])
        said: list[str] = []
        finetune.adapter_check_output(args, os.path.join(out, "merged"), said.append)
        self.assertEqual(len(said), 1)
        self.assertTrue(said[0].startswith("adapter check failed: PEFT could not load"), said)
        self.assertFalse(read_report(out)["ok"])


if __name__ == "__main__":
    unittest.main()
