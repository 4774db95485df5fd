"""What training/finetune.py hands TRL's SFTTrainer, checked on the batches the model receives
(torch on the CPU, a tiny random-weight Llama from training/tiny_models.py): the loss covers the
completion tokens only, and gradient accumulation matches the larger batch. npm run test:python."""
from __future__ import annotations

import json
import os
import sys
import unittest
from unittest import mock

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_support  # noqa: E402  (first: it sets the offline environment)
import finetune  # noqa: E402
import train_data  # noqa: E402

try:
    import torch
    from safetensors.torch import load_file
    from transformers import AutoTokenizer
except ImportError:  # pragma: no cover - the suite runs in the trainer's venv
    torch = None

# The harbour questions with answers of different lengths: the batches are padded, and a loss
# normalised over tokens weighs the entries differently from one averaged per entry.
QA = [{**entry, **change} for entry, change in zip(test_support.HARBOUR_QA, (
    {},
    {"prompt": "Who keeps the lighthouse on the northern cape?", "completion": "Old Marta."},
    {"completion": "At seven every morning, weekdays."},
    {"completion": "Skarvholm."},
), strict=True)]
TMP = ""
LLAMA = ""


def setUpModule():
    global TMP, LLAMA
    TMP, LLAMA = test_support.tiny_llama("finetune-sft-test.", torch, trainer=True)


def tearDownModule():
    test_support.remove(TMP)


def run(*argv: str) -> tuple[int, str, str]:
    return test_support.call_main(finetune.main, ["--base_model", LLAMA, "--no-web-export", *argv])


def data_file(name: str) -> str:
    return test_support.write_json(os.path.join(TMP, name), QA)


def rows() -> dict[tuple[int, ...], list[int]]:
    """Each entry's token ids → its completion mask, as train_data encodes it."""
    tokenizer = AutoTokenizer.from_pretrained(LLAMA)
    encoded = [train_data.encode(tokenizer, [{"role": "user", "content": e["prompt"]},
                                             {"role": "assistant", "content": e["completion"]}],
                                 256) for e in QA]
    return {tuple(r["input_ids"]): r["completion_mask"] for r in encoded}


class LossMaskTest(unittest.TestCase):
    def test_only_completion_tokens_are_in_the_loss(self):
        batches = []
        load_base = finetune.load_base

        def recording_load_base(*args, **kwargs):
            tokenizer, model = load_base(*args, **kwargs)

            def record(module, _args, kwargs):
                if module.training:
                    batches.append((kwargs["input_ids"].tolist(), kwargs["labels"].tolist(),
                                    kwargs["attention_mask"].tolist()))
            model.register_forward_pre_hook(record, with_kwargs=True)
            return tokenizer, model

        with mock.patch.object(finetune, "load_base", recording_load_base):
            code, _out, err = run("--data_file", data_file("mask.json"),
                                  "--output_dir", os.path.join(TMP, "mask"), "--max_steps", "4",
                                  "--batch_size", "2", "--eval_fraction", "0", "--repeat", "2")
        self.assertEqual(code, 0, err)
        self.assertEqual(len(batches), 4)
        masks = rows()
        checked = 0
        for ids_batch, labels_batch, attention_batch in batches:
            for ids, labels, attention in zip(ids_batch, labels_batch, attention_batch):
                length = sum(attention)
                mask = masks[tuple(ids[:length])]
                # Prompt tokens (mask 0) and padding are -100; every completion token is its id.
                self.assertEqual(labels[:length],
                                 [t if m else -100 for t, m in zip(ids[:length], mask)])
                self.assertEqual(set(labels[length:]) - {-100}, set())
                self.assertGreater(mask.count(0), 5)  # there is a prompt to leave out
                checked += 1
        self.assertEqual(checked, 8)


class AccumulationTest(unittest.TestCase):
    def test_batch_4_equals_batch_1_accumulated_4_times(self):
        """One optimizer step over the same 4 entries: a batch of 4, or 4 batches of 1 with
        gradient accumulation 4 (the loss normalised over all their tokens), give the same
        weights."""
        data = data_file("accumulate.json")
        common = ("--data_file", data, "--method", "full", "--max_steps", "1", "--repeat", "1",
                  "--eval_fraction", "0", "--warmup_ratio", "0", "--lr", "1e-3")
        out_a, out_b = os.path.join(TMP, "batch4"), os.path.join(TMP, "accumulate4")
        code, out, err = run(*common, "--output_dir", out_a, "--batch_size", "4")
        self.assertEqual(code, 0, err)
        loss_a = json.loads(next(l for l in out.splitlines() if l.startswith('{"loss"')))["loss"]
        code, out, err = run(*common, "--output_dir", out_b, "--batch_size", "1",
                             "--grad_accum", "4")
        self.assertEqual(code, 0, err)
        loss_b = json.loads(next(l for l in out.splitlines() if l.startswith('{"loss"')))["loss"]
        self.assertIn("1 optimizer steps of 4 examples", out)
        self.assertAlmostEqual(loss_a, loss_b, places=5)
        base = load_file(os.path.join(LLAMA, "model.safetensors"))
        a = load_file(os.path.join(out_a, "model.safetensors"))
        b = load_file(os.path.join(out_b, "model.safetensors"))
        moved = max((a[k] - base[k]).abs().max().item() for k in base)
        difference = max((a[k] - b[k]).abs().max().item() for k in a)
        print(f"\nbatch 4 vs 1 × accumulation 4: weights moved up to {moved:.1e}, differ by up "
              f"to {difference:.1e}", file=sys.stderr)
        self.assertGreater(moved, 5e-4)  # the step did move the weights (AdamW: about lr)
        self.assertLess(difference, 1e-5)



class EpochsTest(unittest.TestCase):
    def test_epochs_instead_of_max_steps(self):
        code, out, err = run("--data_file", data_file("epochs.json"),
                             "--output_dir", os.path.join(TMP, "epochs"), "--epochs", "2",
                             "--batch_size", "2", "--eval_fraction", "0")
        self.assertEqual(code, 0, err)
        lines = out.splitlines()
        self.assertIn("step 4/4", lines)  # 2 passes over 4 entries, 2 per step
        self.assertNotIn("step 5/4", lines)
        epochs = [json.loads(l)["epoch"] for l in lines if l.startswith('{"loss"')]
        self.assertEqual(epochs, [0.5, 1.0, 1.5, 2.0])


if __name__ == "__main__":
    unittest.main()
