"""Unit tests for training/finetune.py's own logic, needing no ML package (the runs with real torch
are in test_finetune_torch.py and test_finetune_ddp.py): npm run test:python."""
from __future__ import annotations

import contextlib
import io
import json
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import finetune  # noqa: E402


def exits_with(test: unittest.TestCase, fn, code: int = 2) -> str:
    """Runs fn, expecting SystemExit(code); returns what it wrote to stderr."""
    err = io.StringIO()
    with contextlib.redirect_stderr(err), test.assertRaises(SystemExit) as caught:
        fn()
    test.assertEqual(caught.exception.code, code)
    return err.getvalue()


class ArgumentsTest(unittest.TestCase):
    def test_defaults_and_web_export_on(self):
        args = finetune.parse_args(["--data_file", "d.json", "--output_dir", "out"])
        self.assertEqual(args.base_model, "meta-llama/Llama-3.2-3B-Instruct")
        self.assertEqual((args.max_len, args.repeat, args.max_steps, args.lr),
                         (256, 30, 120, 2e-4))
        self.assertTrue(args.web_export)
        self.assertEqual((args.method, args.eval_fraction, args.eval_every, args.export_base),
                         ("lora", 0.1, 12, False))

    def test_method_and_evaluation(self):
        args = finetune.parse_args(["--data_file", "d", "--output_dir", "o", "--method", "full",
                                    "--max_steps", "5", "--eval_fraction", "0", "--export_base"])
        self.assertEqual((args.method, args.eval_fraction, args.eval_every, args.export_base),
                         ("full", 0.0, 1, True))
        args = finetune.parse_args(["--data_file", "d", "--output_dir", "o", "--eval_every", "7"])
        self.assertEqual(args.eval_every, 7)
        err = exits_with(self, lambda: finetune.parse_args(
            ["--data_file", "d", "--output_dir", "o", "--method", "qlora"]))
        self.assertIn("invalid choice: 'qlora'", err)
        for value in ("1", "-0.1"):
            err = exits_with(self, lambda: finetune.parse_args(
                ["--data_file", "d", "--output_dir", "o", "--eval_fraction", value]))
            self.assertIn("--eval_fraction must be at least 0 and less than 1", err)
        err = exits_with(self, lambda: finetune.parse_args(
            ["--data_file", "d", "--output_dir", "o", "--eval_every", "0"]))
        self.assertIn("--eval_every must be greater than 0", err)

    def test_no_web_export(self):
        args = finetune.parse_args(["--data_file", "d", "--output_dir", "o", "--no-web-export"])
        self.assertFalse(args.web_export)

    def test_rejects_non_positive_values(self):
        for flag, value in (("--max_steps", "0"), ("--repeat", "-1"), ("--lr", "0")):
            err = exits_with(self, lambda: finetune.parse_args(
                ["--data_file", "d", "--output_dir", "o", flag, value]))
            self.assertIn(f"{flag} must be greater than 0", err)

    def test_required_arguments(self):
        err = exits_with(self, lambda: finetune.parse_args(["--output_dir", "o"]))
        self.assertIn("--data_file", err)

    def test_export_packages_only_when_exporting(self):
        self.assertEqual(finetune.required_packages(False), ("torch", "transformers", "peft"))
        self.assertEqual(finetune.required_packages(True)[3:], ("onnx", "onnxruntime", "onnx_ir"))


class DatasetTest(unittest.TestCase):
    def write(self, content: str) -> str:
        handle = tempfile.NamedTemporaryFile("w", suffix=".json", delete=False)
        handle.write(content)
        handle.close()
        self.addCleanup(os.unlink, handle.name)
        return handle.name

    def test_valid(self):
        path = self.write(json.dumps([{"prompt": "q", "completion": "a", "extra": 1}]))
        self.assertEqual(finetune.load_dataset(path), [{"prompt": "q", "completion": "a"}])

    def test_bad_inputs(self):
        cases = [
            (None, "data file not found"),
            ("{not json", "data file is not valid JSON"),
            ("[]", "must be a non-empty JSON array"),
            ('{"prompt": "q"}', "must be a non-empty JSON array"),
            ('[{"prompt": "q"}]', "entry 0 must be an object with string 'prompt' and 'completion'"),
            ('[{"prompt": "q", "completion": 3}]', "entry 0 must be an object"),
        ]
        for content, message in cases:
            path = "/nonexistent/data.json" if content is None else self.write(content)
            err = exits_with(self, lambda: finetune.load_dataset(path))
            self.assertIn(message, err, content)


class SplitTest(unittest.TestCase):
    def test_sizes(self):
        # (entries, fraction) -> held out: round(n*f), at least 1 from 5 entries, one left to train.
        for (count, fraction), held in {(10, 0.1): 1, (20, 0.1): 2, (5, 0.1): 1, (4, 0.1): 0,
                                         (4, 0.2): 1, (3, 0.5): 2, (2, 0.9): 1, (1, 0.5): 0,
                                         (100, 0.0): 0, (6, 0.99): 5}.items():
            train, held_out = finetune.make_split(count, fraction, seed=1)
            self.assertEqual(len(held_out), held, (count, fraction))
            self.assertEqual(sorted(train + held_out), list(range(count)))

    def test_seeded(self):
        self.assertEqual(finetune.make_split(50, 0.2, 7), finetune.make_split(50, 0.2, 7))
        self.assertNotEqual(finetune.make_split(50, 0.2, 7)[1], finetune.make_split(50, 0.2, 8)[1])


class BaseModelPathTest(unittest.TestCase):
    def test_hub_ids_are_not_checked_here(self):
        self.assertEqual(finetune.check_base_model_path("meta-llama/Llama-3.2-3B-Instruct"),
                         "meta-llama/Llama-3.2-3B-Instruct")

    def test_home_folder_is_expanded(self):
        with tempfile.TemporaryDirectory(dir=os.path.expanduser("~")) as folder:
            with open(os.path.join(folder, "config.json"), "w") as handle:
                handle.write("{}")
            value = "~/" + os.path.basename(folder)
            self.assertEqual(finetune.check_base_model_path(value), folder)

    def test_missing_folder(self):
        for value in ("/nonexistent/model", "./no-such-model", "../no-such-model"):
            err = exits_with(self, lambda: finetune.check_base_model_path(value))
            self.assertEqual(err, f"error: base model folder not found: {value}\n")

    def test_a_file_is_not_a_folder(self):
        with tempfile.NamedTemporaryFile() as handle:
            err = exits_with(self, lambda: finetune.check_base_model_path(handle.name))
        self.assertIn("base model folder not found", err)

    def test_folder_without_config(self):
        with tempfile.TemporaryDirectory() as folder:
            err = exits_with(self, lambda: finetune.check_base_model_path(folder))
        self.assertEqual(err, f"error: {folder} is not a causal language model "
                              "(no config.json in the folder)\n")


class DistributedTest(unittest.TestCase):
    def test_alone(self):
        dist = finetune.DistInfo({})
        self.assertEqual((dist.rank, dist.local_rank, dist.world_size), (0, 0, 1))
        self.assertTrue(dist.main)
        self.assertFalse(dist.distributed)

    def test_torchrun_environment(self):
        dist = finetune.DistInfo({"RANK": "5", "LOCAL_RANK": "1", "WORLD_SIZE": "8"})
        self.assertFalse(dist.main)
        self.assertTrue(dist.distributed)
        self.assertEqual(finetune.device_for(dist, cuda=True), "cuda:1")
        self.assertEqual(finetune.device_for(dist, cuda=False, mps=True), "cpu")
        self.assertEqual(finetune.device_for(finetune.DistInfo({}), cuda=False, mps=True), "mps")

    def test_bad_environment(self):
        with self.assertRaises(ValueError):
            finetune.DistInfo({"RANK": "2", "WORLD_SIZE": "2"})

    def test_shards_cover_the_data_once(self):
        items = list(range(10))
        shards = [finetune.shard(items, finetune.DistInfo(
            {"RANK": str(r), "LOCAL_RANK": str(r), "WORLD_SIZE": "3"})) for r in range(3)]
        self.assertEqual(sorted(x for s in shards for x in s), items)

    def test_only_rank_zero_prints(self):
        outputs = []
        for rank in range(2):
            out = io.StringIO()
            dist = finetune.DistInfo({"RANK": str(rank), "LOCAL_RANK": str(rank),
                                      "WORLD_SIZE": "2"})
            report = finetune.Reporter(dist, out)
            report.step(3, 10, loss=1.23456789, learning_rate=1e-4, epoch=0.3)
            report.say("saved")
            outputs.append(out.getvalue())
        self.assertEqual(outputs[1], "")
        lines = outputs[0].splitlines()
        self.assertEqual(lines[0], "step 3/10")
        self.assertEqual(json.loads(lines[1]),
                         {"loss": 1.234568, "learning_rate": 1e-4, "epoch": 0.3, "step": 3})
        self.assertEqual(lines[2], "saved")

    def test_eval_line(self):
        out = io.StringIO()
        finetune.Reporter(finetune.DistInfo({}), out).eval(40, 1.23456789)
        self.assertEqual(out.getvalue(), '{"eval_loss": 1.234568, "step": 40}\n')


if __name__ == "__main__":
    unittest.main()
