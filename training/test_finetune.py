"""Unit tests for training/finetune.py's own logic, needing no ML package:
python3 -m unittest discover -s training -p 'test_*.py' (run by npm test via test:python)."""
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
        self.assertEqual(finetune.required_packages(True)[3:], ("optimum", "onnx", "onnxruntime"))


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


class ExportLayoutTest(unittest.TestCase):
    def test_file_names_are_transformers_js_names(self):
        self.assertEqual(finetune.variant_files(),
                         ["model.onnx", "model_fp16.onnx", "model_q4.onnx", "model_q4f16.onnx"])

    def test_web_folder_rule_matches_the_service(self):
        with tempfile.TemporaryDirectory() as web:
            self.assertEqual(finetune.web_folder_problem(web), "web/ lacks config.json")
            for name in ("config.json", "tokenizer.json", "tokenizer_config.json"):
                with open(os.path.join(web, name), "w") as handle:
                    handle.write("{}")
            self.assertEqual(finetune.web_folder_problem(web),
                             "web/ lacks the weights (no onnx/model*.onnx)")
            os.makedirs(os.path.join(web, "onnx"))
            with open(os.path.join(web, "onnx", "model_q4f16.onnx"), "wb") as handle:
                handle.write(b"x")
            self.assertIsNone(finetune.web_folder_problem(web))
            os.unlink(os.path.join(web, "tokenizer.json"))
            self.assertEqual(finetune.web_folder_problem(web),
                             "web/ lacks the tokenizer (tokenizer.json)")


if __name__ == "__main__":
    unittest.main()
