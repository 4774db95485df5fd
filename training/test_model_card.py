"""training/model_card.py: the model card `merged/README.md` of real trainer runs (torch on the
CPU, a tiny random-weight Llama, the browser export and a GGUF checked by real llama.cpp: `npm run
llama:setup`) read back — its front matter as YAML, its losses, split and export checks equal to
what the run logged and wrote —; a card that cannot be written leaves the run standing; reports
that are missing or malformed make their check "unknown" in the card. npm run test:python."""
from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import re
import shutil
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_support  # noqa: E402  (first: it sets the offline environment)
import fields  # noqa: E402
import finetune  # noqa: E402
import gguf_export  # noqa: E402
import model_card  # noqa: E402
from hub_download import human  # noqa: E402

try:
    import torch
    import yaml
except ImportError:  # pragma: no cover - the suite runs in the trainer's venv
    torch = None

# The harbour questions twice, and one entry longer than the run's --max_len (left out).
DATA = test_support.HARBOUR_QA * 2 + [{"prompt": "Tell the whole story of the harbour.",
                                       "completion": " ".join(["The harbour is old."] * 60)}]
TMP = LLAMA = DATA_FILE = ""
RUNS: dict[str, tuple[str, str]] = {}  # name -> (output folder, stdout)


def setUpModule():
    global TMP, LLAMA, DATA_FILE
    TMP, LLAMA, DATA_FILE = test_support.tiny_llama_and_data("model-card-test.", torch, DATA,
                                                            trainer=True)
    problem = gguf_export.runtime_problem()
    if problem:
        raise RuntimeError(problem)


def run(name: str, *argv: str) -> tuple[str, str]:
    """A trainer run into TMP/name (once per module): (output folder, stdout)."""
    if name not in RUNS:
        out = os.path.join(TMP, name)
        code, stdout, stderr = test_support.call_main(finetune.main, [
            "--base_model", LLAMA, "--data_file", DATA_FILE, "--output_dir", out,
            "--max_len", "64", *argv])
        assert code == 0, stdout[-3000:] + stderr[-3000:]
        RUNS[name] = out, stdout
    return RUNS[name]


def lora_run() -> tuple[str, str]:
    return run("lora", "--max_steps", "3", "--eval_fraction", "0.25", "--web_variants", "q4",
               "--gguf", "Q8_0")


def read(path: str) -> str:
    with open(path, encoding="utf-8") as handle:
        return handle.read()


def read_json(path: str):
    return json.loads(read(path))


def split_card(text: str) -> tuple[dict, str]:
    """(the front matter parsed as YAML, the Markdown after it)."""
    match = re.fullmatch(r"---\n(.*?)\n---\n(.*)", text, re.S)
    assert match, text[:300]
    return yaml.safe_load(match.group(1)), match.group(2)


def logged(stdout: str, key: str) -> float:
    """The last value of `key` in the run's metric lines."""
    values = [json.loads(line)[key] for line in stdout.splitlines()
              if line.startswith("{") and f'"{key}"' in line]
    return values[-1]


def card_args(**changes) -> argparse.Namespace:
    args = finetune.parse_args(["--base_model", LLAMA, "--data_file", DATA_FILE, "--output_dir",
                                os.path.join(TMP, "lora"), "--gguf", "Q8_0"])
    return argparse.Namespace(**{**vars(args), **changes})


class LoraRunTest(unittest.TestCase):
    def setUp(self):
        self.out, self.stdout = lora_run()
        self.merged = os.path.join(self.out, "merged")
        self.meta, self.body = split_card(read(os.path.join(self.merged, "README.md")))

    def test_the_front_matter_names_the_library_the_task_and_the_method(self):
        self.assertIn(f"model card in {os.path.join(self.merged, 'README.md')}", self.stdout)
        self.assertEqual(self.meta, {"library_name": "transformers",
                                     "pipeline_tag": "text-generation",
                                     "tags": ["trl", "sft", "lora"]})  # no base_model: a folder
        self.assertIn("- Base model: a local model (folder `llama`), not named on the Hub",
                      self.body)
        self.assertIn("- Method: LoRA on every linear layer (rank 16, alpha 32, dropout 0.05), "
                      "merged into the base's weights", self.body)
        self.assertNotIn(TMP, self.body)  # no folder of this machine in a card to publish
        self.assertNotIn("/tmp", self.body)

    def test_every_field_of_the_run_is_listed_as_the_trainer_resolved_it(self):
        for field in fields.load_fields():
            self.assertRegex(self.body, rf"\| {re.escape(field['label'])} \| "
                                        rf"`{re.escape(field['flag'])}` \| .+ \|")
        for row in ("| Max steps | `--max_steps` | 3 steps |",
                    "| Learning rate | `--lr` | 0.0002 |",
                    "| Max length | `--max_len` | 64 tokens |", "| Epochs | `--epochs` | — |",
                    "| GGUF for llama.cpp and Ollama | `--gguf` | Q8_0 |"):
            self.assertIn(row, self.body)

    def test_the_losses_are_the_ones_the_run_logged(self):
        loss = float(re.search(r"- Final training loss: ([\d.]+) \(step 3 of 3\)", self.body)[1])
        held = float(re.search(r"- Held-out loss: ([\d.]+) \(step 3;", self.body)[1])
        self.assertEqual(loss, logged(self.stdout, "loss"))
        self.assertEqual(held, logged(self.stdout, "eval_loss"))

    def test_the_data_is_split_jsons(self):
        split = read_json(os.path.join(self.out, "split.json"))
        train, held = len(split["train_indices"]), len(split["held_out_indices"])
        self.assertEqual((train, held, split["too_long_indices"]), (6, 2, [8]))
        self.assertIn(f"- 9 entries: {train} trained on, {held} held out for evaluation and never "
                      "trained on (held-out share 0.25, seed 42)", self.body)
        self.assertIn("- 1 left out as longer than the maximum length", self.body)

    def test_the_export_checks_are_the_web_and_gguf_reports(self):
        web = read_json(os.path.join(self.out, "web", "export.json"))["variants"]["q4"]
        self.assertIn(f"- q4: published, {human(web['bytes'])}; ONNX Runtime against PyTorch: "
                      f"passed; max logit difference {web['max_abs_diff']:.3g} (tolerance "
                      f"{web['tolerance']['max_abs_diff']:.3g}), {web['tokens_agreed']} of "
                      f"{web['tokens_compared']} clear-margin tokens agree", self.body)
        gguf = read_json(os.path.join(self.out, "gguf", "export.json"))
        q8 = gguf["files"]["Q8_0"]
        self.assertIn(f"- lora-Q8_0.gguf (Q8_0): published, {human(q8['bytes'])}; llama.cpp "
                      f"against PyTorch: passed; max logit difference {q8['max_abs_diff']:.3g} "
                      f"(tolerance {q8['tolerance']['max_abs_diff']:.3g}), {q8['tokens_agreed']} "
                      f"of {q8['tokens_compared']} clear-margin tokens agree", self.body)
        self.assertIn("- Ollama Modelfile: FROM lora-Q8_0.gguf, stop `<|eot_id|>`", self.body)
        self.assertIn("ollama create NAME -f Modelfile\nollama run NAME\nllama-cli -m "
                      "lora-Q8_0.gguf\n", self.body)

    def test_the_transformers_snippet_runs_in_the_folder(self):
        code = re.search(r"```python\n(.*?)```", self.body, re.S)[1]
        printed = io.StringIO()
        with contextlib.chdir(self.merged), contextlib.redirect_stdout(printed):
            exec(compile(code, "README.md", "exec"), {})  # noqa: S102 - the card's own snippet
        self.assertTrue(printed.getvalue().endswith("\n"))


class FullRunTest(unittest.TestCase):
    def test_a_full_run_has_its_card_and_says_what_was_not_asked_for(self):
        out, stdout = run("full", "--method", "full", "--max_steps", "2", "--eval_fraction", "0",
                          "--no-web-export")
        path = os.path.join(out, "merged", "README.md")
        meta, body = split_card(read(path))
        self.assertEqual(meta["tags"], ["trl", "sft", "full-fine-tuning"])
        self.assertIn("- Method: full fine-tuning (every weight trained)", body)
        self.assertIn("| LoRA rank | `--lora_r` | 16 (LoRA only: not used) |", body)
        self.assertIn(f"- Final training loss: {logged(stdout, 'loss')} (step 2 of 2)", body)
        self.assertIn("- Held-out loss: none (no held-out evaluation ran)", body)
        self.assertIn("- 9 entries: 8 trained on, 0 held out", body)
        self.assertIn("### Browser (transformers.js, ONNX)\n\nNot asked for (`--no-web-export`).",
                      body)
        self.assertIn("### GGUF (llama.cpp, Ollama)\n\nNot asked for (`--gguf`).", body)
        self.assertNotIn("ollama create", body)
        # merged/ is made of hard links to the run's files: the card is a file of its own.
        self.assertEqual(os.stat(path).st_nlink, 1)
        self.assertFalse(os.path.exists(os.path.join(out, "README.md")))


class CardNotWrittenTest(unittest.TestCase):
    def test_a_card_that_cannot_be_written_leaves_the_run_standing(self):
        # merged/README.md taken by a folder before the run: the card cannot be put there.
        out = os.path.join(TMP, "blocked")
        os.makedirs(os.path.join(out, "merged", "README.md", "kept"))
        out, stdout = run("blocked", "--max_steps", "1", "--eval_fraction", "0", "--no-web-export")
        self.assertIn("model card not written: IsADirectoryError", stdout)
        merged = os.path.join(out, "merged")
        self.assertTrue(os.path.isfile(os.path.join(merged, "model.safetensors")))
        self.assertEqual(os.listdir(os.path.join(merged, "README.md")), ["kept"])
        self.assertFalse(os.path.exists(os.path.join(merged, "README.md.partial")))


class ReportsTest(unittest.TestCase):
    """The card of a run whose reports are edited: a copy of the LoRA run's folder."""

    def setUp(self):
        source, _ = lora_run()
        self.out = test_support.fresh_dir(TMP, "edited")
        shutil.copytree(source, self.out, ignore=shutil.ignore_patterns("*.gguf", "*.onnx*",
                                                                        "*.safetensors"))
        self.merged = os.path.join(self.out, "merged")

    def card(self, **changes) -> tuple[dict, str]:
        text = model_card.card_text(card_args(**changes), self.merged, [])
        self.assertNotIn(TMP, text)
        return split_card(text)

    def gguf_section(self, body: str) -> str:
        return body.split("### GGUF (llama.cpp, Ollama)\n\n")[1].split("\n## ")[0]

    def test_a_missing_or_malformed_gguf_report_makes_the_check_unknown(self):
        path = os.path.join(self.out, "gguf", "export.json")
        os.remove(path)
        self.assertEqual(self.gguf_section(self.card()[1]),
                         "The GGUF check is unknown: gguf/export.json is missing.\n")
        with open(path, "w", encoding="utf-8") as handle:
            handle.write('{"files": ')
        self.assertIn("The GGUF check is unknown: gguf/export.json could not be read "
                      "(JSONDecodeError: Expecting value: line 1 column 11",
                      self.gguf_section(self.card()[1]))
        test_support.write_json(path, {"files": ["lora-Q8_0.gguf"]})
        _, body = self.card()
        self.assertIn("Unknown: a report is not in the trainer's form (AttributeError:",
                      self.gguf_section(body))
        self.assertNotIn("llama-cli", body)

    def test_a_gguf_skip_and_a_failed_file_are_said_with_their_reasons(self):
        export = read_json(os.path.join(self.out, "gguf", "export.json"))
        failed = dict(export["files"]["Q8_0"], file="lora-F16.gguf", type="F16", passed=False,
                      published=False, failure="step 3: token 5 != PyTorch's 7 (margin 0.9)")
        export["files"] = {"F16": failed, "Q8_0": export["files"]["Q8_0"]}
        test_support.write_json(os.path.join(self.out, "gguf", "export.json"), export)
        section = self.gguf_section(self.card()[1])
        self.assertIn("- lora-F16.gguf (F16): left out, ", section)
        self.assertIn("llama.cpp against PyTorch: failed (step 3: token 5 != PyTorch's 7 (margin "
                      "0.9))", section)
        self.assertIn("- lora-Q8_0.gguf (Q8_0): published, ", section)

        shutil.rmtree(os.path.join(self.out, "gguf"))
        runtime = os.path.join(TMP, "somewhere", ".llama-runtime")
        test_support.write_json(os.path.join(self.out, "gguf.skipped.json"), {
            "reason": f"llama.cpp's runtime is not installed in {runtime}: run `npm run "
                      "llama:setup`"})
        _, body = self.card()
        self.assertEqual(self.gguf_section(body), "Not published: llama.cpp's runtime is not "
                         "installed in .llama-runtime: run `npm run llama:setup`\n")
        self.assertNotIn("ollama create", body)

    def test_a_longrope_models_note_is_in_the_gguf_section(self):
        path = os.path.join(self.out, "gguf", "export.json")
        export = read_json(path)
        self.assertNotIn("long rope", self.gguf_section(self.card()[1]))
        note = gguf_export.LONGROPE_NOTE.format(original=4096)
        test_support.write_json(path, dict(export, longrope={"original_context": 4096,
                                                             "note": note}))
        self.assertIn(f"- {note}\n", self.gguf_section(self.card()[1]))

    def test_a_browser_skip_or_no_report_at_all(self):
        shutil.rmtree(os.path.join(self.out, "web"))
        _, body = self.card()
        self.assertIn("The browser export's check is unknown: web/export.json is missing, and "
                      "web.skipped.json is missing.", body)
        test_support.write_json(os.path.join(self.out, "web.skipped.json"), {
            "reason": "the browser export handles model types llama, qwen2, and this one is 'x'"})
        self.assertIn("\n\nNot published: the browser export handles model types llama, qwen2, "
                      "and this one is 'x'\n", self.card()[1])

    def test_a_base_from_the_hub_cache_is_named_by_its_id_and_carries_its_license(self):
        commit = "0123456789abcdef0123456789abcdef01234567"
        snapshot = os.path.join(TMP, "hub", "models--meta-llama--Llama-3.2-1B-Instruct",
                                "snapshots", commit)
        os.makedirs(snapshot, exist_ok=True)
        meta, body = self.card(base_model=snapshot)
        self.assertEqual(meta["base_model"], "meta-llama/Llama-3.2-1B-Instruct")
        self.assertNotIn("license", meta)  # the base's card says none: none is made up
        self.assertIn("- Base model: [meta-llama/Llama-3.2-1B-Instruct](https://huggingface.co/"
                      f"meta-llama/Llama-3.2-1B-Instruct) at commit `{commit}`", body)
        self.assertIn("# Llama-3.2-1B-Instruct fine-tuned (lora)", body)
        with open(os.path.join(snapshot, "README.md"), "w", encoding="utf-8") as handle:
            handle.write("---\nlicense: other\nlicense_name: llama3.2\nlicense_link: "
                         "https://huggingface.co/meta-llama/Llama-3.2-1B/blob/main/LICENSE.txt\n"
                         "---\n# Llama 3.2\n")
        meta, _ = self.card(base_model=snapshot)
        self.assertEqual((meta["license"], meta["license_name"]), ("other", "llama3.2"))
        self.assertTrue(meta["license_link"].endswith("/LICENSE.txt"))

    def test_a_missing_split_makes_the_data_unknown(self):
        os.remove(os.path.join(self.out, "split.json"))
        self.assertIn("## Data\n\nThe split is unknown: split.json is missing.", self.card()[1])

    def test_rewrite_makes_the_card_again_from_the_runs_record_and_the_reports_now(self):
        card = os.path.join(self.merged, "README.md")
        before = read(card)
        # A GGUF export asked again after the run, that published nothing this time.
        shutil.rmtree(os.path.join(self.out, "gguf"))
        test_support.write_json(os.path.join(self.out, "gguf.skipped.json"),
                                {"reason": "too little disk: 2.0 GB needed, 1.0 GB free"})
        code, stdout, _ = test_support.call_main(model_card.main, ["--rewrite", self.out])
        self.assertEqual(code, 0)
        self.assertEqual(stdout.strip(), f"model card in {card}")
        meta, body = split_card(read(card))
        self.assertEqual(self.gguf_section(body),
                         "Not published: too little disk: 2.0 GB needed, 1.0 GB free\n")
        # What only the run knew (its options, its losses) is read back from its record.
        old_meta, old_body = split_card(before)
        self.assertEqual(meta, old_meta)
        self.assertEqual(body.split("## Export checks")[0], old_body.split("## Export checks")[0])
        self.assertIn("### LoRA adapter (PEFT)\n\n- Loaded with PEFT", body)

        os.remove(os.path.join(self.out, model_card.RECORD))
        code, _, stderr = test_support.call_main(model_card.main, ["--rewrite", self.out])
        self.assertEqual(code, 1)
        self.assertIn("model card not rewritten: the model card cannot be rewritten: "
                      "model_card.json is missing", stderr)
        self.assertEqual(read(card).split("## Export checks")[1],
                         body.split("## Export checks")[1])  # the card is left as it was


def compare_report(**changes) -> dict:
    """A compare.json as the service writes it from the app's PUT /runs/{id}/evaluation."""
    report = {
        "a": {"id": "onnx-community/Qwen2.5-0.5B-Instruct", "label": "Qwen2.5 0.5B Instruct",
              "role": "base", "dtype": "q4f16"},
        "b": {"id": "trained/lora", "label": "lora (fine-tuned)", "role": "fine-tuned",
              "dtype": "fp32"},
        "source": {"kind": "held-out", "run_id": "run-1"},
        "questions": 4,
        "settings": {"temperature": 0, "top_p": 1, "max_new_tokens": 64,
                     "repetition_penalty": 1, "system_prompt_chars": 0},
        "summary": {"a": {"answered": 4, "mean_rouge_l": 0.21, "tokens_per_second": 31.5},
                    "b": {"answered": 4, "mean_rouge_l": 0.6425, "tokens_per_second": 12.25},
                    "compared": 4, "a_closer": 1, "b_closer": 2, "ties": 1},
        "saved_at": "2026-11-27T10:00:00.000Z",
    }
    report.update(changes)
    return report


class CompareTest(unittest.TestCase):
    """Compare's scores (compare.json) in the card of the edited copy of the LoRA run."""

    setUp = ReportsTest.setUp
    card = ReportsTest.card

    def compare_section(self) -> str:
        body = self.card()[1]
        self.assertIn("\n## Compare\n", body)
        return body.split("## Compare\n\n")[1].split("\n## ")[0]

    def test_no_compare_json_no_section(self):
        self.assertNotIn("## Compare", self.card()[1])

    def test_the_scores_the_app_sent_are_the_cards_compare_section(self):
        test_support.write_json(os.path.join(self.out, "compare.json"), compare_report())
        self.assertEqual(self.compare_section(), (
            "Measured in the browser on the user's device (the app's Compare view, saved "
            "2026-11-27): both models answered the same questions with the same settings, each "
            "answer scored against the reference answer with ROUGE-L F1 (word overlap from 0 to "
            "1, not correctness).\n\n"
            "- Questions: 4 held-out entries of run `run-1` (never trained on)\n"
            "- Settings: temperature 0 (greedy), up to 64 new tokens, no system prompt\n"
            "- This model (lora (fine-tuned), fp32): mean ROUGE-L F1 0.642 over 4 answers, "
            "12.2 tokens/s\n"
            "- Base (Qwen2.5 0.5B Instruct, q4f16): mean ROUGE-L F1 0.210 over 4 answers, "
            "31.5 tokens/s\n"
            "- Closer to the reference: this model 2, base 1, ties 1 (of 4 questions scored for "
            "both)\n"))
        # Between the losses and the export checks.
        body = self.card()[1]
        self.assertLess(body.index("## Results"), body.index("## Compare"))
        self.assertLess(body.index("## Compare"), body.index("## Export checks"))

    def test_fine_tuned_as_a_another_model_pasted_questions_and_sampling(self):
        report = compare_report(source={"kind": "pasted", "run_id": None}, questions=3)
        report["a"], report["b"] = dict(report["b"], dtype=None), dict(report["a"], role="other")
        report["settings"].update(temperature=0.7, top_p=0.9, repetition_penalty=1.1,
                                  system_prompt_chars=1234)
        report["summary"].update(a={"answered": 3, "mean_rouge_l": None,
                                    "tokens_per_second": None}, compared=0, a_closer=0,
                                 b_closer=0, ties=0)
        test_support.write_json(os.path.join(self.out, "compare.json"), report)
        section = self.compare_section()
        self.assertIn("- Questions: 3 questions pasted by the user\n", section)
        self.assertIn("- Settings: temperature 0.7, top p 0.9, up to 64 new tokens, repetition "
                      "penalty 1.1, a system prompt of 1,234 characters\n", section)
        self.assertIn("- This model (lora (fine-tuned)): mean ROUGE-L F1 — over 3 answers\n",
                      section)
        self.assertIn("- Other model (Qwen2.5 0.5B Instruct, q4f16): ", section)
        self.assertIn("- Closer to the reference: this model 0, other model 0, ties 0 (of 0 ",
                      section)

    def test_a_compare_json_not_in_the_apps_form_makes_the_scores_unknown(self):
        path = os.path.join(self.out, "compare.json")
        with open(path, "w", encoding="utf-8") as handle:
            handle.write('{"a": ')
        self.assertEqual(self.compare_section(), (
            "Compare's scores are unknown: compare.json could not be read (JSONDecodeError: "
            "Expecting value: line 1 column 7 (char 6)).\n"))
        test_support.write_json(path, [1, 2])
        self.assertEqual(self.compare_section(),
                         "Compare's scores are unknown: compare.json is not a JSON object.\n")
        for change, field in [
                ({"questions": 0}, "questions"),
                ({"source": {"kind": "guessed"}}, "source.kind"),
                ({"saved_at": None}, "saved_at"),
                ({"settings": {"temperature": "0"}}, "settings.temperature"),
                ({"summary": dict(compare_report()["summary"], ties=None)}, "summary.ties"),
                ({"b": dict(compare_report()["b"], role="base")},
                 'a.role / b.role (neither is "fine-tuned", this run\'s model)')]:
            test_support.write_json(path, compare_report(**change))
            self.assertEqual(self.compare_section(), (
                f"Compare's scores are unknown: compare.json is not in the app's form ({field} "
                "is missing or wrong).\n"), field)
        report = compare_report()
        report["summary"]["b"]["mean_rouge_l"] = True
        test_support.write_json(path, report)
        self.assertIn("(summary.b.mean_rouge_l is missing or wrong)", self.compare_section())

    def test_rewrite_reads_the_newest_compare_json(self):
        card = os.path.join(self.merged, "README.md")
        path = os.path.join(self.out, "compare.json")
        test_support.write_json(path, compare_report())
        self.assertEqual(test_support.call_main(model_card.main, ["--rewrite", self.out])[0], 0)
        self.assertIn("this model 2, base 1, ties 1", read(card))
        report = compare_report()
        report["summary"].update(a_closer=0, b_closer=4, ties=0)
        test_support.write_json(path, report)
        self.assertEqual(test_support.call_main(model_card.main, ["--rewrite", self.out])[0], 0)
        text = read(card)
        self.assertIn("this model 4, base 0, ties 0", text)
        self.assertEqual(text.count("## Compare"), 1)


class PureTest(unittest.TestCase):
    def test_local_paths_are_cut_to_their_last_part_and_figures_and_urls_kept(self):
        self.assertEqual(model_card.no_local_paths(
            "not installed in /home/ann/projects/x/.llama-runtime: 7/7 agree, see "
            "https://huggingface.co/a/b and /srv/run/merged/"),
            "not installed in .llama-runtime: 7/7 agree, see https://huggingface.co/a/b and "
            "merged/")

    def test_the_hub_id_comes_from_the_caches_layout_only(self):
        self.assertEqual(model_card.hub_base("/c/hub/models--Qwen--Qwen2.5-0.5B/snapshots/abc/"),
                         ("Qwen/Qwen2.5-0.5B", "abc"))
        self.assertEqual(model_card.hub_base("/c/hub/datasets--a--b/snapshots/abc"), (None, None))
        self.assertEqual(model_card.hub_base("/models/llama"), (None, None))

    def test_a_chat_template_is_named_in_one_cell_not_written_out(self):
        field = next(f for f in fields.load_fields() if f["name"] == "chat_template")
        template = "{% for m in messages %}\n{{ m.content }} | x\n{% endfor %}"
        self.assertEqual(model_card._value(field, template),
                         f"given ({len(template)} characters), saved with the model as its chat "
                         "template")
        self.assertEqual(model_card._value(field, ""), "—")

    def test_the_figures_are_the_last_logged(self):
        history = [{"loss": 2.5, "step": 1}, {"eval_loss": 2.7, "step": 1},
                   {"loss": 2.1234567, "step": 2}, {"train_runtime": 1.0, "train_loss": 2.3,
                                                    "step": 2}]
        self.assertEqual(model_card.training_figures(history),
                         {"steps": 2, "loss": 2.123457, "loss_step": 2, "eval_loss": 2.7,
                          "eval_step": 1})
        self.assertEqual(model_card.training_figures([]), {"steps": 0})


if __name__ == "__main__":
    unittest.main()
