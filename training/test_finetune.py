"""Unit tests for training/finetune.py's own logic, needing no ML package (the runs with real torch
are in test_finetune_torch.py and test_finetune_ddp.py): npm run test:python."""
from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fields  # noqa: E402
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
        self.assertEqual((args.epochs, args.batch_size, args.grad_accum, args.lr_scheduler,
                          args.gradient_checkpointing, args.save_steps, args.keep_checkpoints),
                         (None, 1, 1, "cosine", "auto", 0, 2))
        self.assertFalse(args.resume or args.plan)

    def test_method_and_evaluation(self):
        args = finetune.parse_args(["--data_file", "d", "--output_dir", "o", "--method", "full",
                                    "--max_steps", "5", "--eval_fraction", "0", "--export_base"])
        self.assertEqual((args.method, args.eval_fraction, args.eval_every, args.export_base),
                         ("full", 0.0, 1, True))
        self.assertEqual(args.lr, 2e-5)  # full fine-tuning's own default, from the table
        args = finetune.parse_args(["--data_file", "d", "--output_dir", "o", "--method", "full",
                                    "--lr", "1e-3"])
        self.assertEqual(args.lr, 1e-3)
        args = finetune.parse_args(["--data_file", "d", "--output_dir", "o", "--eval_every", "7"])
        self.assertEqual(args.eval_every, 7)
        args = finetune.parse_args(["--data_file", "d", "--output_dir", "o", "--epochs", "2"])
        self.assertEqual((args.epochs, args.eval_every), (2.0, None))  # known once data is read
        err = exits_with(self, lambda: finetune.parse_args(
            ["--data_file", "d", "--output_dir", "o", "--method", "qlora"]))
        self.assertIn("invalid choice: 'qlora'", err)
        for value in ("0.6", "-0.1"):
            err = exits_with(self, lambda: finetune.parse_args(
                ["--data_file", "d", "--output_dir", "o", "--eval_fraction", value]))
            self.assertIn(f"--eval_fraction must be between 0 and 0.5, got {value}", err)
        err = exits_with(self, lambda: finetune.parse_args(
            ["--data_file", "d", "--output_dir", "o", "--eval_every", "0"]))
        self.assertIn("--eval_every must be greater than 0", err)
        # The chat template travels as one argument: at most 30,000 characters (the table's).
        template = "{{ messages[0].content }}" + " " * (30_000 - 25)
        args = finetune.parse_args(["--data_file", "d", "--output_dir", "o",
                                    "--chat_template", template])
        self.assertEqual(args.chat_template, template)
        err = exits_with(self, lambda: finetune.parse_args(
            ["--data_file", "d", "--output_dir", "o", "--chat_template", template + "x"]))
        self.assertIn("--chat_template must be at most 30,000 characters", err)

    def test_no_web_export(self):
        args = finetune.parse_args(["--data_file", "d", "--output_dir", "o", "--no-web-export"])
        self.assertFalse(args.web_export)

    def test_out_of_range_values_name_the_range(self):
        for flag, value, allowed in (("--max_steps", "0", "between 1 and 100000000"),
                                     ("--repeat", "-1", "between 1 and 100000"),
                                     ("--lr", "0", "between 1e-08 and 1"),
                                     ("--lr", "-0.001", "between 1e-08 and 1"),
                                     ("--epochs", "0", "between 0.01 and 1000"),
                                     ("--grad_accum", "0", "between 1 and 1024"),
                                     ("--lora_dropout", "0.95", "between 0 and 0.9")):
            err = exits_with(self, lambda: finetune.parse_args(
                ["--data_file", "d", "--output_dir", "o", flag, value]))
            self.assertIn(f"{flag} must be {allowed}, got {value}", err)
        err = exits_with(self, lambda: finetune.parse_args(
            ["--data_file", "d", "--output_dir", "o", "--lr", "nan"]))
        self.assertIn("argument --lr: not a finite number: nan", err)
        err = exits_with(self, lambda: finetune.parse_args(
            ["--data_file", "d", "--output_dir", "o", "--keep_checkpoints", "0"]))
        self.assertIn("--keep_checkpoints must be at least 1", err)

    def test_help(self):  # a field's help with "10 %" once broke --help (argparse's % format)
        out = io.StringIO()
        with contextlib.redirect_stdout(out), self.assertRaises(SystemExit) as caught:
            finetune.parse_args(["--help"])
        self.assertEqual(caught.exception.code, 0)
        self.assertIn("about every 10 % of the steps", " ".join(out.getvalue().split()))

    def test_required_arguments(self):
        err = exits_with(self, lambda: finetune.parse_args(["--output_dir", "o"]))
        self.assertIn("--data_file", err)

    def test_export_packages_only_when_exporting(self):
        self.assertEqual(finetune.required_packages(False),
                         ("torch", "transformers", "peft", "trl", "datasets", "accelerate"))
        self.assertEqual(finetune.required_packages(True)[6:], ("onnx", "onnxruntime", "onnx_ir"))


class FieldTableTest(unittest.TestCase):
    """training-fields.json is the only place a training option's type, range and default are
    written: every field is a flag whose default is the table's."""

    def test_every_field_is_a_flag_with_the_tables_default(self):
        table = fields.load_fields()
        self.assertGreater(len(table), 10)
        for method in ("lora", "full"):
            args = finetune.parse_args(["--data_file", "d", "--output_dir", "o",
                                        "--method", method])
            for field in (f for f in table if f["name"] != "method"):
                with self.subTest(field=field["name"], method=method):
                    self.assertEqual(getattr(args, fields.dest(field)),
                                     fields.default_for(field, method))

    def test_a_field_added_to_the_table_is_a_flag(self):
        table = fields.load_fields() + [{
            "name": "new_option", "type": "int", "min": 2, "max": 9, "default": 4,
            "flag": "--new_option", "label": "New", "help": "", "group": "advanced"}]
        parser = argparse.ArgumentParser()
        fields.add_arguments(parser, table)
        args = fields.resolve(parser, parser.parse_args([]), table)
        self.assertEqual(args.new_option, 4)
        args = fields.resolve(parser, parser.parse_args(["--new_option", "7"]), table)
        self.assertEqual(args.new_option, 7)
        err = exits_with(self, lambda: fields.resolve(
            parser, parser.parse_args(["--new_option", "1"]), table))
        self.assertIn("--new_option must be between 2 and 9, got 1", err)

    def test_enum_and_bool(self):
        err = exits_with(self, lambda: finetune.parse_args(
            ["--data_file", "d", "--output_dir", "o", "--lr_scheduler", "step"]))
        self.assertIn("invalid choice: 'step'", err)
        args = finetune.parse_args(["--data_file", "d", "--output_dir", "o",
                                    "--gradient_checkpointing", "on", "--export_base"])
        self.assertEqual((args.gradient_checkpointing, args.export_base), ("on", True))


class TrainingChoicesTest(unittest.TestCase):
    def test_gradient_checkpointing_auto_from_one_billion_parameters(self):
        self.assertFalse(finetune.use_gradient_checkpointing("auto", 999_999_999))
        self.assertTrue(finetune.use_gradient_checkpointing("auto", 1_000_000_000))
        self.assertTrue(finetune.use_gradient_checkpointing("on", 10))
        self.assertFalse(finetune.use_gradient_checkpointing("off", 3_000_000_000))

    def test_steps_from_epochs(self):
        args = finetune.parse_args(["--data_file", "d", "--output_dir", "o", "--epochs", "3",
                                    "--batch_size", "2", "--grad_accum", "2"])
        self.assertEqual(finetune.steps_for(args, 10, 1), 8)  # ceil(3 × 10 / 4)
        self.assertEqual(finetune.steps_for(args, 10, 2), 4)  # ceil(3 × 10 / 8)
        args = finetune.parse_args(["--data_file", "d", "--output_dir", "o"])
        self.assertEqual(finetune.steps_for(args, 10, 2), 120)

    def test_last_checkpoint_is_the_newest_complete_one(self):
        with tempfile.TemporaryDirectory() as folder:
            self.assertIsNone(finetune.last_checkpoint(os.path.join(folder, "none")))
            self.assertIsNone(finetune.last_checkpoint(folder))
            for name, complete in (("checkpoint-2", True), ("checkpoint-10", True),
                                   ("checkpoint-12", False), ("checkpoint-x", True)):
                os.makedirs(os.path.join(folder, name))
                if complete:
                    open(os.path.join(folder, name, "trainer_state.json"), "w").close()
            os.makedirs(os.path.join(folder, ".partial", "checkpoint-14"))
            self.assertEqual(finetune.last_checkpoint(folder),
                             os.path.join(folder, "checkpoint-10"))


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
        self.assertEqual((dist.rank, dist.local_rank, dist.world_size), (5, 1, 8))

    def test_bad_environment(self):
        with self.assertRaises(ValueError):
            finetune.DistInfo({"RANK": "2", "WORLD_SIZE": "2"})

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
