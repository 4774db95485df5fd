"""training/finetune.py run for real (torch, transformers, peft on the CPU) on tiny random-weight
models made from a config (training/tiny_models.py; needs `npm run tiny-model`), in this process:
npm run test:python. The browser export is replaced by fakes here (its own tests are
test_web_export*.py); the torchrun run is in test_finetune_ddp.py."""
from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import sys
import types
import unittest
from unittest import mock

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_support  # noqa: E402  (first: it sets the offline environment)
import finetune  # noqa: E402
import tiny_models  # noqa: E402
import train_data  # noqa: E402

try:
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer
except ImportError:  # pragma: no cover - the suite runs in the trainer's venv
    torch = None

QA = test_support.HARBOUR_QA
TMP: str = ""
LLAMA: str = ""


def setUpModule():
    global TMP, LLAMA
    TMP, LLAMA = test_support.tiny_llama("finetune-test.", torch, quiet=True, trainer=True)


def tearDownModule():
    test_support.remove(TMP)


def write_json(value, name: str) -> str:
    return test_support.write_json(os.path.join(TMP, name), value)


def run(*argv: str, base: str | None = None) -> tuple[int, str, str]:
    """finetune.main(argv) in this process: (exit code, stdout, stderr)."""
    return test_support.call_main(finetune.main, ["--base_model", base or LLAMA, *argv])


def output_dir(name: str) -> str:
    return test_support.fresh_dir(TMP, name)


def json_lines(out: str, key: str) -> list[dict]:
    return [json.loads(line) for line in out.splitlines()
            if line.startswith("{") and key in json.loads(line)]


def conversation(entry: dict) -> list[dict]:
    return [{"role": "user", "content": entry["prompt"]},
            {"role": "assistant", "content": entry["completion"]}]


def encoded(tokenizer, entry: dict) -> dict:
    return train_data.encode(tokenizer, conversation(entry), 256)


def completion_loss(model_dir: str, entries) -> float:
    tokenizer = AutoTokenizer.from_pretrained(model_dir)
    model = AutoModelForCausalLM.from_pretrained(model_dir, dtype=torch.float32)
    return finetune.completion_loss(model, [encoded(tokenizer, e) for e in entries], "cpu")


class FullFineTuningTest(unittest.TestCase):
    def test_learns_the_answers(self):
        out_dir = output_dir("full")
        code, out, err = run("--data_file", write_json(QA, "qa.json"), "--output_dir", out_dir,
                             "--method", "full", "--lr", "1e-2", "--max_steps", "120",
                             "--no-web-export")
        self.assertEqual(code, 0, err)
        before, after = completion_loss(LLAMA, QA), completion_loss(out_dir, QA)
        print(f"\nfull fine-tuning, lr 1e-2, 120 steps: completion loss {before:.3f} -> "
              f"{after:.3f}", file=sys.stderr)
        self.assertLess(after, before / 4)
        losses = json_lines(out, "loss")
        self.assertEqual([m["step"] for m in losses], list(range(1, 121)))
        self.assertEqual(set(losses[0]), {"loss", "learning_rate", "epoch", "step"})
        self.assertIn("step 120/120", out.splitlines())
        # The whole model in output_dir, the same (hard-linked) in merged/, fp32, with tokenizer.
        self.assertTrue(os.path.isfile(os.path.join(out_dir, "model.safetensors")))
        self.assertFalse(os.path.exists(os.path.join(out_dir, "adapter_config.json")))
        merged = os.path.join(out_dir, "merged")
        for name in ("config.json", "generation_config.json", "model.safetensors",
                     "tokenizer.json", "tokenizer_config.json"):
            self.assertTrue(os.path.isfile(os.path.join(merged, name)), name)
        self.assertFalse(os.path.exists(os.path.join(merged, "split.json")))
        model = AutoModelForCausalLM.from_pretrained(merged)
        self.assertEqual({p.dtype for p in model.parameters()}, {torch.float32})


class LoraTest(unittest.TestCase):
    def test_adapter_on_every_linear_layer_and_merged(self):
        out_dir = output_dir("lora")
        code, out, err = run("--data_file", write_json(QA, "qa.json"), "--output_dir", out_dir,
                             "--lr", "3e-3", "--max_steps", "60", "--no-web-export")
        self.assertEqual(code, 0, err)
        with open(os.path.join(out_dir, "adapter_config.json"), encoding="utf-8") as handle:
            config = json.load(handle)
        self.assertEqual(config["peft_type"], "LORA")
        targets = config["target_modules"]
        targets = [targets] if isinstance(targets, str) else targets
        if targets != ["all-linear"]:  # peft writes the module names "all-linear" resolved to
            self.assertEqual({t.rsplit(".", 1)[-1] for t in targets},
                             {"q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj",
                              "down_proj"})
            self.assertEqual(len(targets), 14)  # 7 per layer, 2 layers; never lm_head
        self.assertTrue(os.path.isfile(os.path.join(out_dir, "adapter_model.safetensors")))
        merged = os.path.join(out_dir, "merged")
        before, after = completion_loss(LLAMA, QA), completion_loss(merged, QA)
        print(f"\nLoRA, lr 3e-3, 60 steps: completion loss {before:.3f} -> {after:.3f}",
              file=sys.stderr)
        self.assertLess(after, before * 0.95)
        model = AutoModelForCausalLM.from_pretrained(merged)
        self.assertEqual({p.dtype for p in model.parameters()}, {torch.float32})
        self.assertFalse(any("lora" in name for name, _ in model.named_parameters()))


class ModelFamiliesTest(unittest.TestCase):
    def test_every_tiny_family_trains_both_ways(self):
        data = write_json(QA, "qa.json")
        for kind in ("llama_gqa_tied", "qwen2", "qwen3", "gemma2", "gemma3", "phi3"):
            base = tiny_models.make_tiny_model(kind, os.path.join(TMP, kind))
            for method in ("lora", "full"):
                with self.subTest(kind=kind, method=method):
                    out_dir = output_dir(f"{kind}-{method}")
                    code, out, err = run("--data_file", data, "--output_dir", out_dir,
                                         "--method", method, "--max_steps", "2",
                                         "--no-web-export", base=base)
                    self.assertEqual(code, 0, err)
                    self.assertEqual(len(json_lines(out, "loss")), 2)
                    AutoModelForCausalLM.from_pretrained(os.path.join(out_dir, "merged"))


class HeldOutTest(unittest.TestCase):
    def test_split_file_eval_lines_and_no_held_out_entry_trained(self):
        entries = [{"prompt": f"Question number {i}?", "completion": f"Answer {i}."}
                   for i in range(10)]
        out_dir = output_dir("held-out")
        trained: list[tuple[int, ...]] = []
        load_base = finetune.load_base

        def recording_load_base(*args, **kwargs):
            tokenizer, model = load_base(*args, **kwargs)

            def record(module, _args, kwargs):
                if module.training:
                    for row, mask in zip(kwargs["input_ids"].tolist(),
                                         kwargs["attention_mask"].tolist()):
                        trained.append(tuple(t for t, m in zip(row, mask) if m))
            model.register_forward_pre_hook(record, with_kwargs=True)
            return tokenizer, model

        with mock.patch.object(finetune, "load_base", recording_load_base):
            code, out, err = run("--data_file", write_json(entries, "ten.json"),
                                 "--output_dir", out_dir, "--eval_fraction", "0.2",
                                 "--seed", "5", "--max_steps", "30", "--eval_every", "8",
                                 "--batch_size", "2", "--no-web-export")
        self.assertEqual(code, 0, err)
        with open(os.path.join(out_dir, "split.json"), encoding="utf-8") as handle:
            split = json.load(handle)
        held = split["held_out_indices"]
        self.assertEqual(len(held), 2)
        self.assertEqual(split["seed"], 5)
        self.assertEqual(split["eval_fraction"], 0.2)
        self.assertEqual(split["held_out"], [entries[i] for i in held])
        self.assertEqual(sorted(split["train_indices"] + held), list(range(10)))
        self.assertEqual(split["too_long_indices"], [])
        self.assertIn("8 entries to train on, 2 held out for evaluation", out)

        tokenizer = AutoTokenizer.from_pretrained(LLAMA)
        ids = {i: tuple(encoded(tokenizer, e)["input_ids"]) for i, e in enumerate(entries)}
        self.assertEqual(len(trained), 60)  # 30 steps × 2
        self.assertTrue(set(trained) <= {ids[i] for i in split["train_indices"]})
        self.assertFalse(set(trained) & {ids[i] for i in held})

        evals = json_lines(out, "eval_loss")
        self.assertEqual([e["step"] for e in evals], [8, 16, 24, 30])
        for line in evals:
            self.assertEqual(set(line), {"eval_loss", "step"})
            self.assertGreater(line["eval_loss"], 0)
        # The reported figure is the mean completion loss on the held-out entries.
        self.assertAlmostEqual(
            evals[-1]["eval_loss"],
            completion_loss(os.path.join(out_dir, "merged"), split["held_out"]), places=4)

    def test_default_eval_every_and_off(self):
        entries = [{"prompt": f"Q{i}?", "completion": f"A{i}."} for i in range(6)]
        data = write_json(entries, "six.json")
        code, out, err = run("--data_file", data, "--output_dir", output_dir("eval-default"),
                             "--max_steps", "20", "--no-web-export")
        self.assertEqual(code, 0, err)
        self.assertEqual([e["step"] for e in json_lines(out, "eval_loss")],
                         [2, 4, 6, 8, 10, 12, 14, 16, 18, 20])
        out_dir = output_dir("eval-off")
        code, out, err = run("--data_file", data, "--output_dir", out_dir,
                             "--eval_fraction", "0", "--max_steps", "3", "--no-web-export")
        self.assertEqual(code, 0, err)
        self.assertEqual(json_lines(out, "eval_loss"), [])
        with open(os.path.join(out_dir, "split.json"), encoding="utf-8") as handle:
            split = json.load(handle)
        self.assertEqual((split["held_out_indices"], split["train_indices"]), ([], list(range(6))))


class BadInputTest(unittest.TestCase):
    def assert_bad_input(self, message: str, *argv: str, base: str | None = None) -> str:
        out_dir = output_dir("bad")
        code, out, err = run("--data_file", write_json(QA, "qa.json"), "--output_dir", out_dir,
                             "--no-web-export", *argv, base=base)
        self.assertEqual(code, 2, out + err)
        last = err.strip().splitlines()[-1]
        self.assertTrue(last.startswith("error: "), err)
        self.assertIn(message, last)
        self.assertFalse(os.path.exists(out_dir), "bad input writes nothing")
        return last

    def test_missing_folder(self):
        self.assert_bad_input("base model folder not found: /nonexistent/model",
                              base="/nonexistent/model")
        self.assert_bad_input("base model folder not found: ./no-such-model",
                              base="./no-such-model")

    def test_hub_id_not_available(self):
        import huggingface_hub.constants

        with mock.patch.object(huggingface_hub.constants, "HF_HUB_OFFLINE", True):
            self.assert_bad_input("nobody/no-such-model-here is not in the model cache and "
                                  "downloads are off (HF_HUB_OFFLINE is set)",
                                  base="nobody/no-such-model-here")

    def test_not_a_causal_lm(self):
        bert = os.path.join(TMP, "bert")
        os.makedirs(bert, exist_ok=True)
        with open(os.path.join(bert, "config.json"), "w", encoding="utf-8") as handle:
            json.dump({"model_type": "bert", "architectures": ["BertForMaskedLM"]}, handle)
        self.assert_bad_input(f"{bert} is not a causal language model (model_type bert)",
                              base=bert)
        empty = os.path.join(TMP, "empty-model")
        os.makedirs(empty, exist_ok=True)
        self.assert_bad_input(f"{empty} is not a causal language model (no config.json",
                              base=empty)

    def test_causal_lm_rule(self):
        from transformers import BartConfig, BertConfig, LlamaConfig, Qwen2Config

        self.assertIsNone(finetune.causal_lm_problem(LlamaConfig()))
        self.assertIsNone(finetune.causal_lm_problem(Qwen2Config()))
        self.assertIsNone(finetune.causal_lm_problem(BertConfig(is_decoder=True)))
        self.assertEqual(finetune.causal_lm_problem(BertConfig()), "model_type bert")
        self.assertEqual(finetune.causal_lm_problem(BartConfig()), "model_type bart")

    def test_chat_template_that_fails(self):
        broken = os.path.join(TMP, "bad-template")
        shutil.copytree(LLAMA, broken, dirs_exist_ok=True)
        with open(os.path.join(broken, "tokenizer_config.json"), encoding="utf-8") as handle:
            config = json.load(handle)
        config["chat_template"] = ("{% for m in messages %}{{ raise_exception('This template only "
                                   "renders tool calls') }}{% endfor %}")
        with open(os.path.join(broken, "tokenizer_config.json"), "w", encoding="utf-8") as handle:
            json.dump(config, handle)
        self.assert_bad_input("the base model's chat template fails on entry 0: This template "
                              "only renders tool calls", base=broken)

    def test_every_entry_too_long(self):
        self.assert_bad_input("4 of 4 entries are longer than 8 tokens and were left out: "
                              "raise Max length", "--max_len", "8")

    def test_no_chat_template(self):
        bare = os.path.join(TMP, "no-template")
        shutil.copytree(LLAMA, bare, dirs_exist_ok=True)
        with open(os.path.join(bare, "tokenizer_config.json"), encoding="utf-8") as handle:
            config = json.load(handle)
        config.pop("chat_template", None)
        with open(os.path.join(bare, "tokenizer_config.json"), "w", encoding="utf-8") as handle:
            json.dump(config, handle)
        for name in ("chat_template.jinja", "chat_template.json"):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(os.path.join(bare, name))
        self.assert_bad_input(f"{bare} has no chat template: the browser could not chat with the "
                              "result", base=bare)
        # A template given as text (the panel's Advanced → Chat template, as the service sends
        # it): the run trains with it and saves it with the model; the browser chats with that.
        template = ("{% for m in messages %}<|{{ m.role }}|>{{ m.content }}{{ eos_token }}"
                    "{% endfor %}{% if add_generation_prompt %}<|assistant|>{% endif %}")
        out_dir = output_dir("given-template")
        code, out, err = run("--data_file", write_json(QA, "qa.json"), "--output_dir", out_dir,
                             "--max_steps", "1", "--no-web-export", "--chat_template", template,
                             base=bare)
        self.assertEqual(code, 0, err)
        saved = AutoTokenizer.from_pretrained(os.path.join(out_dir, "merged"))
        self.assertEqual(saved.chat_template, template)
        # From a file on the command line; a template that is not Jinja is refused with its line.
        path = os.path.join(TMP, "template.jinja")
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(template)
        code, _, err = run("--data_file", write_json(QA, "qa.json"), "--output_dir",
                           output_dir("template-file"), "--max_steps", "1", "--no-web-export",
                           "--chat_template_file", path, base=bare)
        self.assertEqual(code, 0, err)
        self.assert_bad_input("the chat template is not valid Jinja (line 1: ", "--chat_template",
                              "{% for m in messages %}{{ m.content }", base=bare)

    def test_some_entries_too_long_are_skipped(self):
        entries = QA + [{"prompt": "far too long " * 40, "completion": "x"}]
        out_dir = output_dir("skip")
        code, out, err = run("--data_file", write_json(entries, "long.json"),
                             "--output_dir", out_dir, "--max_len", "64", "--max_steps", "2",
                             "--no-web-export")
        self.assertEqual(code, 0, err)
        self.assertIn("1 of 5 entries is longer than 64 tokens and was left out: raise Max length "
                      "(entries 4)", out.splitlines())
        with open(os.path.join(out_dir, "split.json"), encoding="utf-8") as handle:
            split = json.load(handle)
        self.assertEqual(split["too_long_indices"], [4])
        self.assertNotIn(4, split["train_indices"] + split["held_out_indices"])


class FakeExportSkipped(Exception):
    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def fake_web_export(skip: str | None = None) -> tuple[types.ModuleType, list]:
    """A stand-in for training/web_export.py with its contract; records its calls."""
    calls = []

    def export_web(merged_dir, web_dir, say, variants=None):
        with open(os.path.join(merged_dir, "config.json"), encoding="utf-8") as handle:
            calls.append((merged_dir, web_dir, json.load(handle)))
        if skip:
            raise FakeExportSkipped(skip)
        os.makedirs(os.path.join(web_dir, "onnx"))
        say("fake export done")
        return {"variants": list(variants or ())}

    module = types.ModuleType("web_export")
    module.export_web, module.ExportSkipped = export_web, FakeExportSkipped
    module.FORMAT = 2
    return module, calls


class ExportTest(unittest.TestCase):
    def train(self, name: str, *argv: str, module=None) -> tuple[str, str]:
        out_dir = output_dir(name)
        with mock.patch.dict(sys.modules, {"web_export": module}):
            code, out, err = run("--data_file", write_json(QA, "qa.json"),
                                 "--output_dir", out_dir, "--max_steps", "2", *argv)
        self.assertEqual(code, 0, err)
        return out_dir, out

    def test_export_from_merged(self):
        module, calls = fake_web_export()
        out_dir, out = self.train("export", module=module)
        self.assertEqual(calls[0][:2], (os.path.join(out_dir, "merged"),
                                        os.path.join(out_dir, "web")))
        self.assertIn("fake export done", out)
        self.assertIn(f"browser-ready model in {os.path.join(out_dir, 'web')}", out)
        self.assertFalse(os.path.exists(os.path.join(out_dir, "web.skipped.json")))

    def test_skipped(self):
        module, _ = fake_web_export(skip="architecture mamba is not supported")
        out_dir, out = self.train("skipped", module=module)
        self.assertIn("browser export skipped: architecture mamba is not supported",
                      out.splitlines())
        with open(os.path.join(out_dir, "web.skipped.json"), encoding="utf-8") as handle:
            self.assertEqual(json.load(handle), {"reason": "architecture mamba is not supported"})
        self.assertTrue(os.path.isfile(os.path.join(out_dir, "adapter_config.json")))

    def test_module_missing_is_a_skip(self):
        out_dir, out = self.train("no-module", module=None)  # None in sys.modules: ImportError
        self.assertTrue(any(line.startswith("browser export skipped: the browser export module "
                                            "is not available") for line in out.splitlines()), out)
        self.assertTrue(os.path.isfile(os.path.join(out_dir, "web.skipped.json")))

    def test_no_web_export(self):
        module, calls = fake_web_export()
        out_dir, _ = self.train("no-export", "--no-web-export", module=module)
        self.assertEqual(calls, [])
        self.assertTrue(os.path.isdir(os.path.join(out_dir, "merged")))

    def test_export_base(self):
        module, calls = fake_web_export()
        out_dir, out = self.train("base", "--export_base", module=module)
        self.assertEqual(len(calls), 2)
        staging, base_web, config = calls[1]
        self.assertEqual(base_web, os.path.join(out_dir, "base-web"))
        self.assertEqual(config["dtype"], "float32")
        self.assertFalse(os.path.exists(staging), "the base model's staging copy is removed")
        self.assertIn(f"browser-ready base model in {base_web}", out)

    def test_export_base_failure_is_only_a_line(self):
        module, _ = fake_web_export()
        real = module.export_web

        def fails_for_base(merged_dir, web_dir, say, **kwargs):
            if web_dir.endswith("base-web"):
                raise RuntimeError("disk full")
            return real(merged_dir, web_dir, say, **kwargs)
        module.export_web = fails_for_base
        out_dir, out = self.train("base-fails", "--export_base", module=module)
        self.assertIn("base model browser export skipped: the browser export failed: "
                      "RuntimeError: disk full", out.splitlines())
        self.assertTrue(os.path.isdir(os.path.join(out_dir, "web")))

    def test_an_export_that_crashes_is_a_run_without_browser_copy_saying_why(self):
        module, _ = fake_web_export()

        def crashes(merged_dir, web_dir, say, **kwargs):
            raise MemoryError("onnx graph too large")
        module.export_web = crashes
        out_dir, out = self.train("export-crashes", module=module)
        reason = "the browser export failed: MemoryError: onnx graph too large"
        self.assertIn(f"browser export skipped: {reason}", out.splitlines())
        with open(os.path.join(out_dir, "web.skipped.json"), encoding="utf-8") as handle:
            self.assertEqual(json.load(handle), {"reason": reason})
        self.assertTrue(os.path.isfile(os.path.join(out_dir, "merged", "config.json")))

    def test_the_base_is_exported_once_and_reused_by_later_runs(self):
        module, calls = fake_web_export()

        def writes_a_report(merged_dir, web_dir, say, variants=None):
            calls.append((merged_dir, web_dir, None))
            os.makedirs(os.path.join(web_dir, "onnx"))
            with open(os.path.join(web_dir, "export.json"), "w", encoding="utf-8") as handle:
                json.dump({"format": 2}, handle)
            return {}
        module.export_web = writes_a_report
        base = os.path.join(TMP, "reused-base")
        shutil.copytree(LLAMA, base)
        cache = os.path.join(TMP, "base-exports")
        with mock.patch.dict(os.environ, {finetune.BASE_EXPORTS_ENV: cache}):
            first, _ = self.train("reuse-1", "--export_base", "--base_model", base, module=module)
            self.assertEqual([c[1] for c in calls][1].startswith(cache), True)
            second, out = self.train("reuse-2", "--export_base", "--base_model", base,
                                     module=module)
            # The second run exported only its own model; its base-web links to the first export.
            self.assertEqual(len(calls), 3)
            self.assertIn("made for an earlier run", out)
            a = os.stat(os.path.join(first, "base-web", "export.json"))
            b = os.stat(os.path.join(second, "base-web", "export.json"))
            self.assertEqual((a.st_ino, a.st_dev), (b.st_ino, b.st_dev))
            # Other variants are another export; so is a changed base.
            self.train("reuse-3", "--export_base", "--base_model", base, "--web_variants", "q4",
                       module=module)
            self.assertEqual(len(calls), 5)
            os.utime(os.path.join(base, "config.json"), ns=(1, 1))
            self.train("reuse-4", "--export_base", "--base_model", base, module=module)
            self.assertEqual(len(calls), 7)
            # An exporter that writes another format (e.g. 4-bit embeddings) exports the base again.
            module.FORMAT = 3
            self.train("reuse-5", "--export_base", "--base_model", base, module=module)
            self.assertEqual(len(calls), 9)
        self.assertEqual(len(os.listdir(cache)), 4)

    def test_web_variants_flag(self):
        module, calls = fake_web_export()
        seen = []
        real = module.export_web

        def records(merged_dir, web_dir, say, variants=None):
            seen.append(variants)
            return real(merged_dir, web_dir, say, variants=variants)
        module.export_web = records
        self.train("variants-auto", module=module)
        self.train("variants-listed", "--web_variants", "fp32, q4f16", module=module)
        self.assertEqual(seen, [None, ("fp32", "q4f16")])
        with self.assertRaises(SystemExit), contextlib.redirect_stderr(io.StringIO()) as err:
            finetune.parse_args(["--data_file", "x", "--output_dir", "y",
                                 "--web_variants", "q8"])
        self.assertIn("--web_variants: unknown variant(s) q8", err.getvalue())


if __name__ == "__main__":
    unittest.main()


class ProgressLinesTest(unittest.TestCase):
    """The service reads the last `current/total` in the output as the run's progress: a library's
    progress bar ("Loading weights: 100%| 21/21") once showed a run at 100 % and "Saving…" from its
    first step. Only the trainer's own `step N/M` lines may carry such a count."""

    def test_only_step_lines_count(self):
        import re
        import subprocess

        env = {k: v for k, v in os.environ.items()
               if k not in ("TRANSFORMERS_VERBOSITY", "HF_HUB_DISABLE_PROGRESS_BARS")}
        result = subprocess.run(
            [sys.executable, os.path.join(os.path.dirname(__file__), "finetune.py"),
             "--base_model", LLAMA, "--data_file", write_json(QA, "progress.json"),
             "--output_dir", output_dir("progress"), "--max_steps", "2", "--no-web-export"],
            capture_output=True, text=True, env=env, timeout=300)
        self.assertEqual(result.returncode, 0, result.stderr)
        counted = [line for line in (result.stdout + result.stderr).replace("\r", "\n").splitlines()
                   if re.search(r"\d+\s*/\s*\d+", line) and not line.startswith("{")]
        self.assertEqual([line for line in counted if not re.fullmatch(r"step \d+/\d+", line)],
                         [], "lines the service would read as progress")
