"""The model card of a run's merged model: `<output_dir>/merged/README.md`, in the Hugging Face form
(YAML front matter that the Hub reads, written by huggingface_hub's ModelCardData, then Markdown),
written by finetune.py once the exports are done so that it carries their checks.

    write_model_card(args, merged_dir, log_history) -> path of the card
    python training/model_card.py --rewrite OUTPUT_DIR   (after a later export: the service's
                                                          POST /runs/{id}/exports)

write_model_card also keeps what the card is made from that only the run knows (its options and
its log history) in <output_dir>/model_card.json; --rewrite reads it back with the reports on disk
now. A run from before that record cannot be rewritten (exit 1, saying so; its card is kept).

What it says, and where each part comes from:
- the base: a Hub id (the base was fetched into the Hugging Face cache: the snapshot folder names
  the repository and the commit) in the front matter's `base_model`, or "a local model" named by
  its folder's name only; the license only when the base's own card (README.md in its folder,
  which hub_download.py fetches with a Hub base) gives one;
- the method (LoRA's rank, alpha and dropout, or full fine-tuning) and every field of
  src/shared/training-fields.json as the run resolved it (training/fields.py);
- the data: entries, the train / held-out split, its seed and the entries left out as too long
  (`<output_dir>/split.json`);
- the results: the last logged training loss and the last held-out loss, from the trainer's log
  history (the numbers the run printed, rounded as it prints them);
- the export's checks: the adapter's with PEFT (`adapter.check.json`, LoRA), the browser
  variants (`web/export.json` or `web.skipped.json`) and the GGUF files (`gguf/export.json`,
  `gguf.skipped.json`), each with its check's figures; a report that is missing or not in the
  trainer's form makes that check "unknown", naming the file and why;
- Compare's scores, when one was saved for this run's model (`<output_dir>/compare.json`, which
  the service writes from the app's PUT /runs/{id}/evaluation, src/shared/training-api.ts
  RunEvaluationSchema, then runs --rewrite): the questions and their source, the settings, each
  model's mean ROUGE-L F1 and which was closer to the reference, measured in the browser; a file
  not in that form makes the section "unknown", naming the file and why;
- how to use it: transformers, and Ollama / llama.cpp when the run wrote a Modelfile.

No absolute path of this machine is written: a card is meant to be published, and the folders'
names are the user's. The answers Compare wrote stay in the browser: the card has the figures only.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import sys
from importlib import metadata

import fields
from hub_download import human

CARD = "README.md"
# The run's options and log history beside merged/, read back by `--rewrite`.
RECORD = "model_card.json"
# A path of this machine inside a reason or failure message (`/home/…/run/merged`): shown as its
# last part. Not after a word character, a dot or a colon (figures such as 7/7, URLs).
LOCAL_PATH = re.compile(r"(?<![\w.:/~-])/[^\s/'\"`]+(?:/[^\s/'\"`]+)*")
VERSIONS = ("transformers", "peft", "trl", "torch")


def no_local_paths(text: str) -> str:
    return LOCAL_PATH.sub(lambda match: match.group(0).rstrip("/").rsplit("/", 1)[-1], str(text))


def hub_base(base_model: str) -> tuple[str | None, str | None]:
    """(repo id, commit) when base_model is a snapshot in the Hugging Face cache
    (`…/models--org--name/snapshots/<commit>`, huggingface_hub's layout), else (None, None)."""
    snapshot = os.path.normpath(base_model)
    snapshots, commit = os.path.split(snapshot)
    repo_folder, name = os.path.split(snapshots)
    prefix, _, repo = os.path.basename(repo_folder).partition("--")
    if name != "snapshots" or prefix != "models" or not repo:
        return None, None
    return repo.replace("--", "/"), commit


def base_card_license(base_model: str) -> dict:
    """license (with license_name and license_link for "other") from the base's own card, when its
    folder has one that says; else {}."""
    from huggingface_hub import ModelCard

    path = os.path.join(base_model, CARD)
    if not os.path.isfile(path):
        return {}
    try:
        data = ModelCard.load(path, ignore_metadata_errors=True).data
    except (OSError, ValueError):
        return {}
    found = {key: getattr(data, key, None) for key in ("license", "license_name", "license_link")}
    return {key: value for key, value in found.items() if value} if found["license"] else {}


def read_report(folder: str, name: str) -> tuple[dict | None, str | None]:
    """(the JSON report, None), or (None, why it cannot be used) naming the file."""
    path = os.path.join(folder, name)
    try:
        with open(path, encoding="utf-8") as handle:
            report = json.load(handle)
    except FileNotFoundError:
        return None, f"{name} is missing"
    except (OSError, ValueError) as error:
        return None, f"{name} could not be read ({type(error).__name__}: {no_local_paths(error)})"
    if not isinstance(report, dict):
        return None, f"{name} is not a JSON object"
    return report, None


def training_figures(log_history: list[dict]) -> dict:
    """The last training loss and the last held-out loss the run logged, with their steps."""
    losses = [e for e in log_history if isinstance(e.get("loss"), (int, float))]
    evals = [e for e in log_history if isinstance(e.get("eval_loss"), (int, float))]
    figures: dict = {"steps": max((int(e.get("step") or 0) for e in log_history), default=0)}
    if losses:
        figures.update(loss=round(float(losses[-1]["loss"]), 6), loss_step=losses[-1].get("step"))
    if evals:
        figures.update(eval_loss=round(float(evals[-1]["eval_loss"]), 6),
                       eval_step=evals[-1].get("step"))
    return figures


def _value(field: dict, value) -> str:
    if value is None or value == "":
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if field["type"] == "template":
        # Many lines of Jinja do not fit a table cell; the model's files carry the template itself.
        return f"given ({len(value):,} characters), saved with the model as its chat template"
    shown = f"{value:g}" if isinstance(value, float) else str(value)
    return f"{shown} {field['unit']}" if field.get("unit") else shown


def _options(args) -> list[str]:
    rows = ["| Option | Flag | Value |", "| --- | --- | --- |"]
    for field in fields.load_fields():
        value = _value(field, getattr(args, fields.dest(field), None))
        if field["name"].startswith("lora_") and args.method != "lora":
            value += " (LoRA only: not used)"
        rows.append(f"| {field['label']} | `{field['flag']}` | {value} |")
    return rows


def _method(args) -> str:
    if args.method == "lora":
        return (f"LoRA on every linear layer (rank {args.lora_r}, alpha {args.lora_alpha}, "
                f"dropout {args.lora_dropout:g}), merged into the base's weights")
    return "full fine-tuning (every weight trained)"


def _data(output_dir: str) -> list[str]:
    split, problem = read_report(output_dir, "split.json")
    if problem:
        return [f"The split is unknown: {problem}."]
    train, held = len(split["train_indices"]), len(split["held_out_indices"])
    too_long = len(split.get("too_long_indices") or [])
    lines = [f"- {train + held + too_long} entries: {train} trained on, {held} held out for "
             f"evaluation and never trained on (held-out share {split['eval_fraction']:g}, seed "
             f"{split['seed']})"]
    if too_long:
        lines.append(f"- {too_long} left out as longer than the maximum length")
    return lines


def _results(figures: dict) -> list[str]:
    lines = [f"- Final training loss: {figures['loss']} (step {figures['loss_step']} of "
             f"{figures['steps']})" if "loss" in figures else "- Final training loss: none logged"]
    if "eval_loss" in figures:
        lines.append(f"- Held-out loss: {figures['eval_loss']} (step {figures['eval_step']}; the "
                     "mean loss of the held-out entries' answers)")
    else:
        lines.append("- Held-out loss: none (no held-out evaluation ran)")
    return lines


def _check(entry: dict, runtime: str) -> str:
    """One file's check in words."""
    figures = (f"max logit difference {entry['max_abs_diff']:.3g} (tolerance "
               f"{entry['tolerance']['max_abs_diff']:.3g}), {entry['tokens_agreed']} of "
               f"{entry['tokens_compared']} clear-margin tokens agree")
    verdict = "passed" if entry["passed"] else f"failed ({no_local_paths(entry['failure'])})"
    return f"{runtime} against PyTorch: {verdict}; {figures}"


def _file_line(name: str, entry: dict, runtime: str) -> str:
    if "max_abs_diff" not in entry:  # it never ran (the conversion or the runtime failed)
        return f"- {name}: left out ({no_local_paths(entry.get('failure'))})"
    kept = "published" if entry.get("published") else "left out"
    return f"- {name}: {kept}, {human(entry['bytes'])}; {_check(entry, runtime)}"


def _browser(args, output_dir: str) -> list[str]:
    if not args.web_export:
        return ["Not asked for (`--no-web-export`)."]
    report, problem = read_report(os.path.join(output_dir, "web"), "export.json")
    lines = []
    if problem:
        skipped, skip_problem = read_report(output_dir, "web.skipped.json")
        if skip_problem:
            return [f"The browser export's check is unknown: web/{problem}, and "
                    f"{skip_problem}."]
        lines.append(f"Not published: {no_local_paths(skipped['reason'])}")
        report = skipped.get("export") or {}
    for variant, entry in (report.get("variants") or {}).items():
        lines.append(_file_line(variant, entry, "ONNX Runtime"))
    return lines


def _gguf(args, output_dir: str) -> list[str]:
    folder = os.path.join(output_dir, "gguf")
    asked_after = any(os.path.exists(path) for path in (
        os.path.join(folder, "export.json"), os.path.join(output_dir, "gguf.skipped.json")))
    if args.gguf == "none" and not asked_after:  # none asked for, nor written since the run
        return ["Not asked for (`--gguf`)."]
    report, problem = read_report(folder, "export.json")
    skipped, _ = read_report(output_dir, "gguf.skipped.json")
    lines = [f"Not published: {no_local_paths(skipped['reason'])}"] if skipped else []
    if problem:
        # No export.json beside a skip is the skip's own case (the model could not be written).
        known = skipped and not os.path.exists(os.path.join(folder, "export.json"))
        return lines if known else lines + [f"The GGUF check is unknown: gguf/{problem}."]
    for type_name, entry in report["files"].items():
        lines.append(_file_line(f"{entry['file']} ({type_name})", entry, "llama.cpp"))
    if report.get("modelfile"):
        stop = ", ".join(f"`{s}`" for s in report["modelfile"].get("stop", []))
        lines.append(f"- Ollama Modelfile: FROM {report['modelfile'].get('from')}, stop {stop}")
    elif report.get("modelfile_skipped"):
        why = no_local_paths(report["modelfile_skipped"])
        lines.append(f"- Ollama Modelfile: left out ({why})")
    if report.get("longrope"):  # Phi 3.5 mini's rope: what llama.cpp does past the short context
        lines.append(f"- {no_local_paths(report['longrope']['note'])}")
    return lines


def _adapter(output_dir: str) -> list[str]:
    report, problem = read_report(output_dir, "adapter.check.json")
    if problem:
        return [f"The adapter's check is unknown: {problem}."]
    if not report["ok"]:
        return [f"- Failed: {no_local_paths(report['reason'])} (the adapter is not offered)"]
    return [f"- Loaded with PEFT {report['peft_version']} over the base: its logits match this "
            f"model's on the {report['tokens']}-token reference prompt (max difference "
            f"{report['max_logit_difference']:.3g}, tolerance {report['tolerance']:.3g})"]


COMPARE = "compare.json"
_MODEL_FIELDS = {"id": str, "label": str, "role": str}
_FIGURES = ("answered", "mean_rouge_l", "tokens_per_second")
_SETTINGS = ("temperature", "top_p", "max_new_tokens", "repetition_penalty",
             "system_prompt_chars")
_NUMBER = (int, float)


def _compare_problem(report: dict) -> str | None:
    """The first field of compare.json not in the app's form (RunEvaluationSchema), or None."""
    def number(value, nullable=False):
        return (value is None and nullable) or (
            isinstance(value, _NUMBER) and not isinstance(value, bool))

    checks = [(f"{side}.{key}", isinstance((report.get(side) or {}).get(key), kind))
              for side in ("a", "b") for key, kind in _MODEL_FIELDS.items()]
    checks += [(f"{side}.role", (report.get(side) or {}).get("role") in ("fine-tuned", "base",
                                                                         "other"))
               for side in ("a", "b")]
    source = report.get("source") or {}
    checks += [("source.kind", source.get("kind") in ("held-out", "dataset", "pasted")),
               ("questions", isinstance(report.get("questions"), int)
                and report["questions"] >= 1),
               ("saved_at", isinstance(report.get("saved_at"), str))]
    settings = report.get("settings") or {}
    checks += [(f"settings.{key}", number(settings.get(key))) for key in _SETTINGS]
    summary = report.get("summary") or {}
    checks += [(f"summary.{side}.{key}", number((summary.get(side) or {}).get(key),
                                                nullable=key != "answered"))
               for side in ("a", "b") for key in _FIGURES]
    checks += [(f"summary.{key}", isinstance(summary.get(key), int))
               for key in ("compared", "a_closer", "b_closer", "ties")]
    checks.append(("a.role / b.role (neither is \"fine-tuned\", this run's model)",
                   "fine-tuned" in ((report.get("a") or {}).get("role"),
                                    (report.get("b") or {}).get("role"))))
    return next((field for field, ok in checks if not ok), None)


def _settings_text(settings: dict) -> str:
    parts = [f"temperature {settings['temperature']:g}" + (
        " (greedy)" if settings["temperature"] == 0 else f", top p {settings['top_p']:g}")]
    parts.append(f"up to {settings['max_new_tokens']} new tokens")
    if settings["repetition_penalty"] != 1:
        parts.append(f"repetition penalty {settings['repetition_penalty']:g}")
    chars = settings["system_prompt_chars"]
    parts.append(f"a system prompt of {chars:,} characters" if chars else "no system prompt")
    return ", ".join(parts)


def _source_text(report: dict) -> str:
    count, source = report["questions"], report["source"]
    run = f"run `{source.get('run_id')}`"
    return {"held-out": f"{count} held-out entries of {run} (never trained on)",
            "dataset": f"{count} entries of {run}'s data file (those trained on included)",
            "pasted": f"{count} questions pasted by the user"}[source["kind"]]


def _compare(output_dir: str) -> list[str]:
    """Compare's section from compare.json (the app's summary of one saved comparison)."""
    report, problem = read_report(output_dir, COMPARE)
    if not problem:
        field = _compare_problem(report)
        problem = field and f"{COMPARE} is not in the app's form ({field} is missing or wrong)"
    if problem:
        return [f"Compare's scores are unknown: {problem}."]
    summary = report["summary"]
    this = "a" if report["a"]["role"] == "fine-tuned" else "b"
    other = "b" if this == "a" else "a"
    other_name = "base" if report[other]["role"] == "base" else "other model"

    def model_line(side: str, name: str) -> str:
        model, figures = report[side], summary[side]
        mean = figures["mean_rouge_l"]
        speed = figures["tokens_per_second"]
        dtype = f", {model['dtype']}" if model.get("dtype") else ""
        return (f"- {name} ({no_local_paths(model['label'])}{dtype}): mean ROUGE-L F1 "
                f"{'—' if mean is None else f'{mean:.3f}'} over {figures['answered']} answers"
                f"{'' if speed is None else f', {speed:.1f} tokens/s'}")

    return [
        f"Measured in the browser on the user's device (the app's Compare view, saved "
        f"{report['saved_at'][:10]}): both models answered the same questions with the same "
        "settings, each answer scored against the reference answer with ROUGE-L F1 (word "
        "overlap from 0 to 1, not correctness).", "",
        f"- Questions: {_source_text(report)}",
        f"- Settings: {_settings_text(report['settings'])}",
        model_line(this, "This model"),
        model_line(other, other_name.capitalize()),
        f"- Closer to the reference: this model {summary[f'{this}_closer']}, {other_name} "
        f"{summary[f'{other}_closer']}, ties {summary['ties']} (of {summary['compared']} "
        "questions scored for both)",
    ]


def _section(title: str, render, *params) -> list[str]:
    """A section read from the run's reports; a report in another form than the trainer's makes it
    unknown, saying so."""
    try:
        body = render(*params)
    except (KeyError, TypeError, ValueError, AttributeError) as error:
        body = [f"Unknown: a report is not in the trainer's form "
                f"({type(error).__name__}: {no_local_paths(error)})."]
    return [title, "", *body, ""]


def _compare_section(output_dir: str) -> list[str]:
    """"## Compare" when a comparison was saved for the run (none: no section)."""
    if not os.path.exists(os.path.join(output_dir, COMPARE)):
        return []
    return _section("## Compare", _compare, output_dir)


USAGE = '''```python
from transformers import AutoModelForCausalLM, AutoTokenizer

model_id = "."  # this folder, or the Hub id it is published under
tokenizer = AutoTokenizer.from_pretrained(model_id)
model = AutoModelForCausalLM.from_pretrained(model_id)
messages = [{"role": "user", "content": "Hello!"}]
inputs = tokenizer.apply_chat_template(messages, add_generation_prompt=True,
                                       return_tensors="pt", return_dict=True)
output = model.generate(**inputs, max_new_tokens=64)
print(tokenizer.decode(output[0][inputs["input_ids"].shape[1]:], skip_special_tokens=True))
```'''


def _usage(output_dir: str) -> list[str]:
    lines = ["With transformers:", "", USAGE, ""]
    folder = os.path.join(output_dir, "gguf")
    report, _ = read_report(folder, "export.json")
    files = (report or {}).get("files")
    published = [entry.get("file") for entry in (files.values() if isinstance(files, dict) else ())
                 if isinstance(entry, dict) and entry.get("published")]
    if not published:
        return lines
    commands = [f"llama-cli -m {published[-1]}"]
    if os.path.isfile(os.path.join(folder, "Modelfile")):
        commands = ["ollama create NAME -f Modelfile", "ollama run NAME", *commands]
    return lines + [f"With llama.cpp{', Ollama' if len(commands) > 1 else ''} or LM Studio: the "
                    "run's `gguf/` folder (beside this one) holds the GGUF files that passed "
                    f"llama.cpp's check ({', '.join(published)}). In that folder:", "", "```sh",
                    *commands, "```", ""]


def _version(name: str) -> str | None:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def card_text(args, merged_dir: str, log_history: list[dict]) -> str:
    from huggingface_hub import ModelCardData

    output_dir = os.path.dirname(os.path.abspath(merged_dir))
    repo, commit = hub_base(args.base_model)
    local = os.path.basename(os.path.normpath(args.base_model))
    method_tag = "lora" if args.method == "lora" else "full-fine-tuning"
    data = ModelCardData(base_model=repo, library_name="transformers",
                         pipeline_tag="text-generation", tags=["trl", "sft", method_tag],
                         **base_card_license(args.base_model))
    config, _ = read_report(merged_dir, "config.json")
    config = config or {}
    if repo:
        base = f"[{repo}](https://huggingface.co/{repo}) at commit `{commit}`"
    else:
        base = f"a local model (folder `{local}`), not named on the Hub"
    versions = ", ".join(f"{name} {version}" for name in VERSIONS
                         if (version := _version(name)))
    lines = [
        "---", data.to_yaml(), "---", "",
        f"# {(repo or local).rsplit('/', 1)[-1]} fine-tuned ({method_tag})", "",
        f"A causal language model ({', '.join(config.get('architectures') or ['?'])}, weights in "
        f"{config.get('dtype') or config.get('torch_dtype') or 'an unknown precision'}) fine-tuned "
        "with TRL's SFTTrainer on conversations (the loss on the assistant's replies only).", "",
        "## Model", "", f"- Base model: {base}", f"- Method: {_method(args)}", "",
        "## Training", "", *_options(args), "", f"Libraries: {versions}.", "",
        *_section("## Data", _data, output_dir),
        "## Results", "", *_results(training_figures(log_history)), "",
        *_compare_section(output_dir),
        "## Export checks", "",
        *(_section("### LoRA adapter (PEFT)", _adapter, output_dir) if args.method == "lora"
          else []),
        *_section("### Browser (transformers.js, ONNX)", _browser, args, output_dir),
        *_section("### GGUF (llama.cpp, Ollama)", _gguf, args, output_dir),
        "## How to use", "", *_usage(output_dir),
    ]
    return "\n".join(lines).rstrip() + "\n"


def _replace(path: str, text: str) -> None:
    """path written whole, then renamed into place: a full run's merged/ files are hard links of
    the output folder's, and a link is replaced, never written through."""
    partial = path + ".partial"
    try:
        with open(partial, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(partial, path)
    finally:
        if os.path.exists(partial):
            os.remove(partial)


def write_model_card(args, merged_dir: str, log_history: list[dict]) -> str:
    """merged_dir/README.md, and what it was made from (the run's options and its log history)
    in <output_dir>/model_card.json, so that an export made after the run can rewrite it."""
    output_dir = os.path.dirname(os.path.abspath(merged_dir))
    _replace(os.path.join(output_dir, RECORD),
             json.dumps({"args": vars(args), "log_history": log_history}, indent=1, default=str))
    path = os.path.join(merged_dir, CARD)
    _replace(path, card_text(args, merged_dir, log_history))
    return path


def rewrite(output_dir: str) -> str:
    """merged/README.md made again from <output_dir>/model_card.json and the reports on disk now
    (e.g. after POST /runs/{id}/exports wrote GGUF); a ValueError names what is missing."""
    record, problem = read_report(output_dir, RECORD)
    if problem:
        raise ValueError(f"the model card cannot be rewritten: {problem} (a run from before the "
                         "card kept its record)")
    merged_dir = os.path.join(output_dir, "merged")
    if not os.path.isdir(merged_dir):
        raise ValueError(f"the model card cannot be rewritten: {merged_dir} does not exist")
    args = argparse.Namespace(**record["args"])
    path = os.path.join(merged_dir, CARD)
    _replace(path, card_text(args, merged_dir, record["log_history"]))
    return path


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description="Rewrite a finished run's model card.")
    parser.add_argument("--rewrite", metavar="OUTPUT_DIR", required=True,
                        help="the run's output folder (merged/README.md is rewritten)")
    options = parser.parse_args(argv)
    try:
        print(f"model card in {rewrite(options.rewrite)}")
    except (ValueError, KeyError, TypeError, OSError) as error:
        print(f"model card not rewritten: {no_local_paths(error)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    sys.exit(main(sys.argv[1:]))
