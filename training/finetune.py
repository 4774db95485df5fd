#!/usr/bin/env python3
"""Fine-tuning script for the local training service.

LoRA (every linear layer, peft) or full fine-tuning of a causal language model, trained by TRL's
SFTTrainer on the app's dataset (a JSON array or JSONL of {"prompt", "completion"} entries, or
{"messages": [...]} conversations; training/train_data.py). Each entry is the base model's own chat
template applied to the conversation, tokenized as the browser sends it; the loss covers the
assistant's tokens only; an entry longer than --max_len is left out, never cut. A held-out share
of the entries (--eval_fraction, chosen with --seed, listed in <output_dir>/split.json) is never
trained on; its mean completion loss is printed every --eval_every steps and at the end.

The training options (their types, ranges and defaults) are the table src/shared/training-fields.json
(training/fields.py), shared with the service and the panel.

Output lines (rank 0 only; the service reads them):
    step 3/120
    {"loss": 2.345678, "learning_rate": 0.0002, "epoch": 0.0333, "step": 3}
    {"eval_loss": 2.456789, "step": 12}
    browser export skipped: <reason>

Checkpoints: every --save_steps steps (0: about every 10 % of the run) into
<output_dir>/checkpoints/checkpoint-N, each written whole before it appears (a kill or a full disk
during a save leaves the previous one), the newest --keep_checkpoints kept; --resume continues a
failed or cancelled run from the newest with the same steps, schedule and split. They are removed
once the run has saved its result. Before the first step, a `warning: this run writes about …`
line when the kept checkpoints and the next (or the result) will not fit the free space
(plan.estimate_disk); a checkpoint that cannot be written stops the run naming a full disk.

After training: LoRA saves the adapter to --output_dir, full fine-tuning the whole model; the
merged model (at the precision it was trained in, or fp32 with --merged_fp32; Hugging Face layout,
with tokenizer and generation config; LoRA merges on the CPU) goes to
<output_dir>/merged/, and training/web_export.py exports a browser-ready copy to <output_dir>/web/
(--no-web-export skips that; when it publishes nothing — an architecture it lacks, too little disk,
no variant passing its check — <output_dir>/web.skipped.json holds the reason and the figures). --export_base also exports the untouched base model to <output_dir>/base-web/ (once per base when
TRAINING_BASE_EXPORTS names a folder to keep them in: later runs of the same base link to it).
--gguf Q8_0|F16|both writes GGUF files of merged/ to <output_dir>/gguf/ (training/gguf_export.py,
each checked in llama.cpp; <output_dir>/gguf.skipped.json says why when none is kept).
Last, training/model_card.py writes the model card <output_dir>/merged/README.md (the base, the
method, the run's fields, the split, the final losses, the exports' checks); a card that cannot be
written is said in the log and the run stands.
The trained model is released before the export starts.

Safe under torchrun / accelerate launch (DDP; FSDP with training/accelerate/fsdp.yaml): every rank
trains on its share of the data; the printed loss is the mean over the ranks; only rank 0 prints
and writes the result.

    python3 training/finetune.py --base_model meta-llama/Llama-3.2-3B-Instruct \
        --data_file service-data/datasets/input_data.json --output_dir service-data/lora \
        --max_len 256 --repeat 30 --max_steps 120 --lr 2e-4

    torchrun --standalone --nproc_per_node=4 training/finetune.py …   # four GPUs, one machine

Exit codes: 0 done, 2 missing packages or bad input (the message says which), 1 other errors.
"""
from __future__ import annotations

import argparse
import errno
import gc
import importlib.util
import json
import math
import os
import random
import shutil
import sys
from typing import NoReturn

import cancel
import fields
from disk import existing_parent, free_bytes, size_text

REQUIRED = ("torch", "transformers", "peft", "trl", "datasets", "accelerate")
# Import names of the packages the browser export needs (pip names are the same).
# onnx_ir: ONNX Runtime 1.30's 4-bit quantiser imports it without depending on it.
EXPORT_REQUIRED = ("onnx", "onnxruntime", "onnx_ir")
# Set to 1 to make every rank also print its own loss to stderr (`rank R step N loss X`): the test
# that the printed loss is the mean over the ranks reads it.
RANK_LOSS_ENV = "FINETUNE_PRINT_RANK_LOSS"
# Where base exports are kept and reused across runs (export_base); unset: one per run.
BASE_EXPORTS_ENV = "TRAINING_BASE_EXPORTS"


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base_model", default="meta-llama/Llama-3.2-3B-Instruct",
                        help="Hub id or local folder of the model to adapt")
    parser.add_argument("--data_file", required=True,
                        help="JSON array of {prompt, completion}, JSONL of the same, or "
                             "{messages: [...]} entries")
    parser.add_argument("--output_dir", required=True,
                        help="where the adapter (LoRA) or the model (full) is saved")
    # The training options (method, lengths, steps, learning rate, batch, LoRA, schedule, split,
    # seed, checkpointing): src/shared/training-fields.json, shared with the service and panel.
    fields.add_arguments(parser)
    parser.add_argument("--eval_every", type=int, default=None,
                        help="steps between held-out evaluations (default max(1, steps // 10))")
    parser.add_argument("--no-web-export", dest="web_export", action="store_false",
                        help="skip the browser-ready export to OUTPUT_DIR/web")
    parser.add_argument("--merged_fp32", action="store_true",
                        help="save merged/ in float32 (default: the precision it was trained in)")
    parser.add_argument("--web_variants", default="auto",
                        help="browser variants to export: auto (q4f16 and q4, and fp16 / fp32 when "
                             "a browser can hold them) or a comma-separated list of fp32, fp16, q4, "
                             "q4f16")
    parser.add_argument("--resume", action="store_true",
                        help="continue from the newest complete checkpoint in OUTPUT_DIR/checkpoints")
    parser.add_argument("--keep_checkpoints", type=int, default=2,
                        help="how many of the newest checkpoints are kept")
    parser.add_argument("--chat_template_file", metavar="FILE", default=None,
                        help="--chat_template read from a file (a Jinja chat template)")
    parser.add_argument("--plan", action="store_true",
                        help="say what the run would do (entries, lengths, steps, memory) and exit")
    args = parser.parse_args(argv)
    fields.resolve(parser, args)
    if args.web_variants == "auto":
        args.web_variants = None
    else:
        names = tuple(v.strip() for v in args.web_variants.split(",") if v.strip())
        unknown = [v for v in names if v not in ("fp32", "fp16", "q4", "q4f16")]
        if unknown or not names:
            parser.error(f"--web_variants: unknown variant(s) {', '.join(unknown) or '(none)'}; "
                         "use auto or a list of fp32, fp16, q4, q4f16")
        args.web_variants = names
    if args.keep_checkpoints < 1:
        parser.error("--keep_checkpoints must be at least 1")
    if args.eval_every is not None and args.eval_every <= 0:
        parser.error("--eval_every must be greater than 0")
    if args.eval_every is None and args.epochs is None:
        args.eval_every = max(1, args.max_steps // 10)
    return args


def fail(message: str, code: int = 2) -> NoReturn:
    print(f"error: {message}", file=sys.stderr, flush=True)
    sys.exit(code)


def required_packages(web_export: bool) -> tuple[str, ...]:
    return REQUIRED + (EXPORT_REQUIRED if web_export else ())


def check_packages(web_export: bool = True) -> None:
    """Fail fast (before any heavy import) when the training packages are not installed."""
    missing = [name for name in required_packages(web_export)
               if importlib.util.find_spec(name) is None]
    if missing:
        fail(
            f"Missing Python packages: {', '.join(missing)}. "
            f"Install them with: {os.path.basename(sys.executable)} -m pip install -r "
            "training/requirements.txt (interpreter: " + sys.executable + ")"
        )


def looks_like_path(value: str) -> bool:
    return value.startswith(("/", "./", "../", "~")) or os.path.exists(value)


def check_base_model_path(base_model: str) -> str:
    """A local base model must be a folder with a config.json (checked before any heavy import);
    anything else is taken for a Hub id. Returns the value to load (`~` expanded)."""
    if not looks_like_path(base_model):
        return base_model
    folder = os.path.expanduser(base_model)
    if not os.path.isdir(folder):
        fail(f"base model folder not found: {base_model}")
    if not os.path.isfile(os.path.join(folder, "config.json")):
        fail(f"{base_model} is not a causal language model (no config.json in the folder)")
    return folder


def causal_lm_problem(config) -> str | None:
    """Why a model config is not a decoder-only causal LM this script can train, or None."""
    from transformers.models.auto.modeling_auto import (
        MODEL_FOR_CAUSAL_LM_MAPPING_NAMES, MODEL_FOR_MASKED_LM_MAPPING_NAMES)

    kind = getattr(config, "model_type", None)
    # Encoders such as BERT have a "causal" class too, usable only when configured as a decoder.
    encoder = kind in MODEL_FOR_MASKED_LM_MAPPING_NAMES and not getattr(config, "is_decoder", False)
    if (kind not in MODEL_FOR_CAUSAL_LM_MAPPING_NAMES or encoder
            or getattr(config, "is_encoder_decoder", False)):
        return f"model_type {kind}"
    return None


class DistInfo:
    """This process's place under torchrun/accelerate (RANK, LOCAL_RANK, WORLD_SIZE)."""

    def __init__(self, env: dict[str, str] | None = None) -> None:
        env = dict(os.environ if env is None else env)
        self.rank = int(env.get("RANK", "0"))
        self.local_rank = int(env.get("LOCAL_RANK", "0"))
        self.world_size = int(env.get("WORLD_SIZE", "1"))
        if self.world_size < 1 or not 0 <= self.rank < self.world_size or self.local_rank < 0:
            raise ValueError(f"bad distributed environment: RANK={self.rank} "
                             f"LOCAL_RANK={self.local_rank} WORLD_SIZE={self.world_size}")

    @property
    def distributed(self) -> bool:
        return self.world_size > 1

    @property
    def main(self) -> bool:
        return self.rank == 0


class Reporter:
    """Progress and metric lines, printed by rank 0 only (the service reads them)."""

    def __init__(self, dist: DistInfo, out=None) -> None:
        self.dist = dist
        self.out = out

    def say(self, text: str) -> None:
        if self.dist.main:
            print(text, file=self.out or sys.stdout, flush=True)

    def step(self, step: int, total: int, loss: float | None = None,
             learning_rate: float | None = None, epoch: float | None = None) -> None:
        self.say(f"step {step}/{total}")
        if loss is not None:
            metrics = {"loss": round(loss, 6), "learning_rate": learning_rate,
                       "epoch": None if epoch is None else round(epoch, 4), "step": step}
            self.say(json.dumps({k: v for k, v in metrics.items() if v is not None}))

    def eval(self, step: int, loss: float) -> None:
        self.say(json.dumps({"eval_loss": round(loss, 6), "step": step}))


def load_entries(path: str) -> list[list[dict]]:
    """The data file's conversations (train_data.load_entries); a bad file is bad input."""
    import train_data

    try:
        return train_data.load_entries(path)
    except train_data.DataError as error:
        fail(str(error))
    except FileNotFoundError:
        fail(f"data file not found: {path}")
    except OSError as error:
        fail(f"could not read data file {path}: {one_line(error)}")


def encode_all(tokenizer, entries, max_len: int, say) -> tuple[dict[int, dict], list[int]]:
    """train_data.encode_all (prompt ids + completion ids, completion_mask 1 on the tokens learnt;
    entries longer than max_len left out whole, never cut), saying how many were left out; a
    template that fails or no entry left is bad input."""
    import train_data

    try:
        encoded, too_long = train_data.encode_all(tokenizer, entries, max_len)
    except train_data.DataError as error:
        fail(str(error))
    if too_long:
        shown = ", ".join(map(str, too_long[:20])) + (" …" if len(too_long) > 20 else "")
        say(f"{train_data.too_long_message(len(too_long), len(entries), max_len)} "
            f"(entries {shown})")
    return encoded, too_long


def as_prompt_completion(messages: list[dict]) -> dict[str, str]:
    """A conversation as the {prompt, completion} pair the Compare view asks: the last assistant
    turn and the user turn before it."""
    last = max(i for i, m in enumerate(messages) if m.get("role") == "assistant")
    prompt = next((m["content"] for m in reversed(messages[:last]) if m.get("role") == "user"), "")
    return {"prompt": prompt, "completion": messages[last]["content"]}


def split_record(args, entries, train: list[int], held_out: list[int],
                 too_long: list[int]) -> dict:
    return {"seed": args.seed, "eval_fraction": args.eval_fraction,
            "held_out_indices": held_out,
            "held_out": [as_prompt_completion(entries[i]) for i in held_out],
            "held_out_messages": [entries[i] for i in held_out],
            "train_indices": train, "too_long_indices": too_long}


def write_split(path: str, split: dict) -> None:
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(split, handle, ensure_ascii=False, indent=1)
        handle.write("\n")


def check_resumed_split(path: str, split: dict) -> None:
    """A resumed run trains on the split it started with: a data file or option that changed it
    since is bad input."""
    try:
        with open(path, encoding="utf-8") as handle:
            before = json.load(handle)
    except (OSError, ValueError):
        return  # no record to compare with (an older run): the checkpoint alone decides
    keys = ("seed", "held_out_indices", "train_indices", "too_long_indices")
    if any(before.get(k) != split[k] for k in keys if k in before):
        fail(f"the data or the split changed since the run started ({path} differs): start a new "
             "run instead of resuming")


def load_base(args, dtype, say):
    """Tokenizer and model of --base_model; unloadable or non-causal models, and a base without a
    chat template (unless --chat_template or --chat_template_file gives one), are bad input."""
    from transformers import AutoConfig, AutoModelForCausalLM, AutoTokenizer

    try:
        config = AutoConfig.from_pretrained(args.base_model)
    except (OSError, ValueError) as error:
        fail(f"could not load base model {args.base_model}: {one_line(error)}")
    problem = causal_lm_problem(config)
    if problem:
        fail(f"{args.base_model} is not a causal language model ({problem}): choose a "
             "decoder-only model such as Llama, Qwen2, Gemma or Phi")
    try:
        tokenizer = AutoTokenizer.from_pretrained(args.base_model)
    except (OSError, ValueError) as error:
        fail(f"could not load base model {args.base_model}: {one_line(error)}")
    import train_data

    try:
        train_data.require_chat_template(tokenizer, args.chat_template_file, args.base_model,
                                         text=args.chat_template)
    except train_data.DataError as error:
        fail(str(error))
    try:
        # Gemma 2's logit soft-capping exists only in eager attention (the default SDPA path
        # drops it): train the model the export (eager, checked against merged/) will run.
        extra = {"attn_implementation": "eager"} if config.model_type == "gemma2" else {}
        model = AutoModelForCausalLM.from_pretrained(args.base_model, dtype=dtype, **extra)
    except (OSError, ValueError) as error:
        fail(f"could not load base model {args.base_model}: {one_line(error)}")
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    return tokenizer, model


def one_line(error: BaseException) -> str:
    return " ".join(str(error).split()) or type(error).__name__


def completion_loss(net, rows, device) -> float:
    """Mean over the rows ({input_ids, completion_mask}) of each one's loss on its mask==1 tokens
    (dropout off, no gradients): the figure the held-out evaluation reports."""
    import torch

    was_training = net.training
    net.eval()
    total = 0.0
    with torch.no_grad():
        for row in rows:
            labels = [t if m else -100 for t, m in zip(row["input_ids"], row["completion_mask"])]
            total += net(input_ids=torch.tensor([row["input_ids"]], device=device),
                         labels=torch.tensor([labels], device=device), use_cache=False).loss.item()
    net.train(was_training)
    return total / len(rows)


def link_or_copy(src: str, dest: str) -> None:
    try:
        os.link(src, dest)
    except OSError:
        shutil.copy2(src, dest)


def save_outputs(args, net, tokenizer, say) -> str:
    """Adapter (LoRA) or model (full) into output_dir, and the merged model into merged/: at the
    precision it was trained in (LoRA: the base's; full: float32), or float32 with --merged_fp32.
    LoRA's merge runs on the CPU, after the adapter is saved: a merge that fails exits (code 1)
    naming the error and the adapter's folder, with merged/ removed."""
    import torch

    merged_dir = os.path.join(args.output_dir, "merged")
    if args.method == "lora":
        net.save_pretrained(args.output_dir)
        tokenizer.save_pretrained(args.output_dir)
        say(f"saved LoRA adapter to {args.output_dir}")
        say("merging the adapter into the base model (on the CPU)")
        try:
            merged = net.to("cpu").merge_and_unload()
            if args.merged_fp32:
                merged = merged.to(torch.float32)
            merged.save_pretrained(merged_dir)
            tokenizer.save_pretrained(merged_dir)
        except Exception as error:  # noqa: BLE001 - the adapter is saved; the run says why
            cancel.check()
            shutil.rmtree(merged_dir, ignore_errors=True)
            fail(f"merging the LoRA adapter into the base model failed ({type(error).__name__}: "
                 f"{one_line(error)[:300]}); the adapter is saved in {args.output_dir}", code=1)
    else:
        net.to(torch.float32).save_pretrained(args.output_dir)
        tokenizer.save_pretrained(args.output_dir)
        say(f"saved the fine-tuned model to {args.output_dir}")
        # merged/ is the same model: hard links, not a second copy on disk.
        os.makedirs(merged_dir, exist_ok=True)
        for name in os.listdir(args.output_dir):
            path = os.path.join(args.output_dir, name)
            if os.path.isfile(path) and name != "split.json":
                link_or_copy(path, os.path.join(merged_dir, name))
    say(f"merged model in {merged_dir}")
    return merged_dir


def browser_export(merged_dir: str, web_dir: str, say, variants=None) -> tuple[str | None, dict | None]:
    """export_web(merged_dir → web_dir): (None, None) when it published, else the reason and the
    figures of the variants it tried (None when it tried none)."""
    try:
        import web_export
    except ImportError as error:
        cancel.check()
        return f"the browser export module is not available ({one_line(error)})", None
    try:
        web_export.export_web(merged_dir, web_dir, say, variants=variants)
    except web_export.ExportSkipped as skipped:
        return str(getattr(skipped, "reason", None) or skipped), getattr(skipped, "report", None)
    except Exception as error:  # noqa: BLE001 - the trained model is saved; the run says why
        cancel.check()
        return f"the browser export failed: {type(error).__name__}: {one_line(error)[:300]}", None
    return None, None


def export_outputs(args, merged_dir: str, say) -> None:
    reason, figures = browser_export(merged_dir, os.path.join(args.output_dir, "web"), say,
                                     args.web_variants)
    if reason is None:
        say(f"browser-ready model in {os.path.join(args.output_dir, 'web')}")
    else:
        say(f"browser export skipped: {reason}")
        with open(os.path.join(args.output_dir, "web.skipped.json"), "w",
                  encoding="utf-8") as handle:
            json.dump({"reason": reason, **({"export": figures} if figures else {})}, handle,
                      ensure_ascii=False, indent=1)
            handle.write("\n")
    if args.export_base:
        export_base(args, say)


GGUF_TYPES = {"Q8_0": ("Q8_0",), "F16": ("F16",), "both": ("F16", "Q8_0")}


def gguf_outputs(args, merged_dir: str, say) -> None:
    """GGUF files of merged/ into <output_dir>/gguf (gguf_export.py), each checked in llama.cpp;
    when none can be written or none passes, <output_dir>/gguf.skipped.json says why (the run and
    its other outputs stand)."""
    folder = os.path.join(args.output_dir, "gguf")
    try:
        import gguf_export

        report = gguf_export.export_gguf(merged_dir, folder, say, types=GGUF_TYPES[args.gguf])
    except Exception as error:  # noqa: BLE001 - the trained model is saved; the run says why
        cancel.check()
        reason = str(error) if type(error).__name__ == "GgufSkipped" else (
            f"the GGUF export failed: {type(error).__name__}: {one_line(error)[:300]}")
        say(f"GGUF skipped: {reason}")
        with open(os.path.join(args.output_dir, "gguf.skipped.json"), "w",
                  encoding="utf-8") as handle:
            json.dump({"reason": reason}, handle, ensure_ascii=False, indent=1)
            handle.write("\n")
        return
    say(f"GGUF for llama.cpp ({', '.join(report['published'])}) in {folder}")


def adapter_check_output(args, merged_dir: str, say) -> None:
    """The adapter loaded by PEFT over the base and compared with merged/ (adapter_check.py,
    <output_dir>/adapter.check.json); a failed check leaves the run standing, and the service
    then does not offer the adapter."""
    import adapter_check

    report = adapter_check.check_adapter(args.base_model, args.output_dir, merged_dir)
    cancel.check()
    if report["ok"]:
        say(f"adapter checked with PEFT {report['peft_version']}: logits match merged/ (max "
            f"difference {report['max_logit_difference']:.3g}, tolerance "
            f"{report['tolerance']:.3g}, {report['tokens']} tokens)")
    else:
        say(f"adapter check failed: {report['reason']}")


def model_card_output(args, merged_dir: str, history: list[dict], say) -> None:
    """merged/README.md (model_card.py), written after the exports whose checks it carries; a card
    that cannot be written leaves the trained run and its exports as they are."""
    try:
        import model_card

        path = model_card.write_model_card(args, merged_dir, history)
    except Exception as error:  # noqa: BLE001 - the trained model is saved; the run says why
        cancel.check()
        say(f"model card not written: {type(error).__name__}: {one_line(error)[:300]}")
        return
    say(f"model card in {path}")


def base_identity(base_model: str, variants) -> dict:
    """What makes two base exports the same: the base (a local folder: its files' names, sizes and
    modification times; a Hub id: the revision it resolved to), the variants asked for and the
    export's format."""
    import web_export

    identity = {"variants": list(variants) if variants else "auto",
                "export_format": web_export.FORMAT}
    if os.path.isdir(base_model):
        folder = os.path.realpath(base_model)
        identity["base_model"] = folder
        identity["files"] = sorted(
            [name, st.st_size, st.st_mtime_ns] for name in os.listdir(folder)
            if os.path.isfile(path := os.path.join(folder, name)) and (st := os.stat(path)))
    else:
        from transformers import AutoConfig

        identity["base_model"] = base_model
        identity["revision"] = getattr(AutoConfig.from_pretrained(base_model), "_commit_hash", None)
    return identity


def link_tree(src: str, dest: str) -> None:
    """dest as a copy of src made of hard links (no second copy on disk where links work)."""
    shutil.rmtree(dest, ignore_errors=True)
    shutil.copytree(src, dest, copy_function=link_or_copy)


def export_base(args, say) -> None:
    """The untouched base model to <output_dir>/base-web; failures only print a line.

    With TRAINING_BASE_EXPORTS set (the service sets it to its data folder's base-exports/), each
    base is exported once per identity (base_identity) into <that folder>/<key>/web and later runs
    of the same base link to it instead of exporting again."""
    import hashlib
    import tempfile

    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    base_web = os.path.join(args.output_dir, "base-web")
    target, entry = base_web, None
    try:
        cache_root = os.environ.get(BASE_EXPORTS_ENV)
        if cache_root:
            identity = base_identity(args.base_model, args.web_variants)
            key = hashlib.sha256(json.dumps(identity, sort_keys=True).encode()).hexdigest()[:16]
            entry = os.path.join(cache_root, key)
            target = os.path.join(entry, "web")
            if os.path.isfile(os.path.join(target, "export.json")):
                link_tree(target, base_web)
                say(f"browser-ready base model in {base_web} (the export of {args.base_model} "
                    f"made for an earlier run, {target})")
                return
    except Exception as error:  # noqa: BLE001 - the cache is an optimisation; export as before
        cancel.check()
        say(f"base model export cache unavailable ({type(error).__name__}: {one_line(error)})")
        target, entry = base_web, None
    staging = tempfile.mkdtemp(prefix="base-model.", dir=args.output_dir)
    try:
        say(f"exporting the base model {args.base_model} for comparison")
        AutoModelForCausalLM.from_pretrained(args.base_model, dtype=torch.float32) \
            .save_pretrained(staging)
        AutoTokenizer.from_pretrained(args.base_model).save_pretrained(staging)
        reason, _ = browser_export(staging, target, say, args.web_variants)
        if reason:
            say(f"base model browser export skipped: {reason}")
            return
        if entry:
            with open(os.path.join(entry, "base.json"), "w", encoding="utf-8") as handle:
                json.dump(identity, handle, indent=1)
            link_tree(target, base_web)
        say(f"browser-ready base model in {base_web}")
    except Exception as error:  # noqa: BLE001 - the trained model is saved; this is a bonus
        cancel.check()
        say(f"base model browser export failed: {type(error).__name__}: {one_line(error)}")
    finally:
        shutil.rmtree(staging, ignore_errors=True)


CHECKPOINT_PREFIX = "checkpoint-"
PARTIAL_DIR = ".partial"


def checkpoints_dir(output_dir: str) -> str:
    return os.path.join(output_dir, "checkpoints")


def last_checkpoint(folder: str) -> str | None:
    """The newest complete checkpoint in folder: checkpoint-N folders appear only once written
    whole (make_trainer_class), so the one with the highest N."""
    if not os.path.isdir(folder):
        return None
    steps = [int(name[len(CHECKPOINT_PREFIX):]) for name in os.listdir(folder)
             if name.startswith(CHECKPOINT_PREFIX) and name[len(CHECKPOINT_PREFIX):].isdigit()
             and os.path.isfile(os.path.join(folder, name, "trainer_state.json"))]
    return os.path.join(folder, f"{CHECKPOINT_PREFIX}{max(steps)}") if steps else None


class CheckpointError(Exception):
    """A checkpoint could not be written (the previous one is intact)."""

    def __init__(self, folder: str, error: BaseException, full: bool = False) -> None:
        """full: the disk was found full when the write failed (before its partial files were
        removed, which frees what they took: a 1B model's checkpoint is about 15 GB)."""
        text = one_line(error)
        if ("No space left on device" not in text
                and (full or getattr(error, "errno", None) == errno.ENOSPC)):
            text = f"No space left on device ({text})"
        super().__init__(f"could not write the checkpoint {folder}: {text}; the previous "
                         "checkpoint is intact")


def disk_full(folder: str) -> bool:
    """Whether the filesystem holding folder has (next to) no space left: torch.save reports a
    full disk only as a failed write."""
    free = free_bytes(folder)
    return free is not None and free < 1 << 20


def fsync_dir(folder: str) -> None:
    descriptor = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def fsync_tree(folder: str) -> None:
    """Every file under folder, and folder itself, on the disk (before it is renamed into place)."""
    for root, _dirs, names in os.walk(folder):
        for name in names:
            with open(os.path.join(root, name), "rb") as handle:
                os.fsync(handle.fileno())
    fsync_dir(folder)


def make_trainer_class():
    """trl.SFTTrainer with checkpoints written atomically (into <checkpoints>/.partial/, synced,
    then renamed into place; the oldest beyond save_total_limit removed only after that), and each
    rank's own loss of the optimizer step kept for FINETUNE_PRINT_RANK_LOSS."""
    from transformers.trainer_utils import rotate_checkpoints
    from trl import SFTTrainer

    class Trainer(SFTTrainer):
        rank_loss = 0.0
        _staging = False

        def training_step(self, model, inputs, num_items_in_batch=None):
            loss = super().training_step(model, inputs, num_items_in_batch)
            self.rank_loss += float(loss)
            return loss

        def _get_output_dir(self, trial):
            run_dir = super()._get_output_dir(trial)
            return os.path.join(run_dir, PARTIAL_DIR) if self._staging else run_dir

        def _save_checkpoint(self, model, trial):
            run_dir = self._get_output_dir(trial)
            name = f"{CHECKPOINT_PREFIX}{self.state.global_step}"
            staging = os.path.join(run_dir, PARTIAL_DIR, name)
            final = os.path.join(run_dir, name)
            if self.args.should_save:  # a save a kill interrupted
                shutil.rmtree(staging, ignore_errors=True)
            self.accelerator.wait_for_everyone()  # before any rank writes its files there
            self._staging = True
            try:
                os.makedirs(staging, exist_ok=True)
                super()._save_checkpoint(model, trial)
                self.accelerator.wait_for_everyone()  # every rank's RNG state is in staging
                if self.args.should_save:
                    fsync_tree(staging)
                    shutil.rmtree(final, ignore_errors=True)
                    os.replace(staging, final)
                    fsync_dir(run_dir)
            except Exception as error:
                full = disk_full(staging)  # asked before the partial files are removed
                if self.args.should_save:
                    shutil.rmtree(staging, ignore_errors=True)
                raise CheckpointError(final, error, full) from error
            finally:
                self._staging = False
            if self.args.should_save:
                rotate_checkpoints(output_dir=run_dir, save_total_limit=self.args.save_total_limit,
                                   use_mtime=False)

    return Trainer


def make_progress_callback(report: "Reporter", dist: DistInfo, examples_per_step: int,
                           train_entries: int):
    """The lines the service reads (rank 0): `step N/M` and the loss line after every optimizer
    step, the held-out line after every evaluation. epoch = examples seen / training entries."""
    from transformers import TrainerCallback

    print_rank_loss = os.environ.get(RANK_LOSS_ENV) == "1"

    class Progress(TrainerCallback):
        trainer = None

        def on_train_begin(self, args, state, control, **kwargs):
            report.say(f"step {state.global_step}/{state.max_steps}")

        def on_step_end(self, args, state, control, **kwargs):
            if state.global_step >= state.max_steps and state.global_step % state.save_steps:
                # No checkpoint of the finished run (the Trainer's default): its result is saved
                # next, and a checkpoint of a large model is many gigabytes written for nothing.
                control.should_save = False
            if self.trainer is not None:
                if print_rank_loss:
                    print(f"rank {dist.rank} step {state.global_step} loss "
                          f"{self.trainer.rank_loss:.9f}", file=sys.stderr, flush=True)
                self.trainer.rank_loss = 0.0

        def on_log(self, args, state, control, logs=None, **kwargs):
            logs = logs or {}
            if "loss" in logs:
                report.step(state.global_step, state.max_steps, float(logs["loss"]),
                            logs.get("learning_rate"),
                            epoch=state.global_step * examples_per_step / train_entries)
            if "eval_loss" in logs:
                report.eval(state.global_step, float(logs["eval_loss"]))

    return Progress()


def mixed_precision(precision: str) -> dict[str, bool]:
    """SFTConfig's flags for the run's precision (plan.resolve_precision: the plan reports the
    same): bf16 or fp16 autocast on a GPU, neither (fp32) on MPS and the CPU."""
    return {"bf16": precision == "bf16", "fp16": precision == "fp16"}


def precision_settings(torch, method: str) -> tuple[str, dict[str, bool], object]:
    """(precision, SFTConfig's mixed-precision flags, the dtype the base is loaded in) on the
    device this process trains on (plan.describe_device). Full fine-tuning keeps fp32 weights
    (AdamW on half-precision weights loses the small updates; the GPU computes in bf16/fp16 under
    autocast); LoRA keeps the frozen base in the GPU's half precision."""
    import plan

    precision = plan.resolve_precision(plan.describe_device(torch))
    half = {"bf16": torch.bfloat16, "fp16": torch.float16}.get(precision)
    dtype = torch.float32 if method == "full" or half is None else half
    return precision, mixed_precision(precision), dtype


def fsdp_launch() -> bool:
    """Started by `accelerate launch` with an FSDP config (training/launchers/fsdp.yaml)."""
    return os.environ.get("ACCELERATE_USE_FSDP", "").lower() in ("1", "true")


def mps_available(torch) -> bool:
    return bool(getattr(torch.backends, "mps", None) and torch.backends.mps.is_available())


def use_gradient_checkpointing(choice: str, parameters: int) -> bool:
    return choice == "on" or (choice == "auto" and parameters >= 1_000_000_000)


def steps_for(args, train_entries: int, world_size: int) -> int:
    """Optimizer steps of the run: --max_steps, or with --epochs the passes over the training
    entries (each step takes batch × accumulation × processes examples)."""
    if args.epochs is None:
        return args.max_steps
    per_step = args.batch_size * args.grad_accum * world_size
    return max(1, math.ceil(args.epochs * train_entries / per_step))


def train(args, dist: DistInfo, report: Reporter, tokenizer, model, train_rows: list[dict],
          held_rows: list[dict], train_entries: int, resume_from: str | None,
          precision_flags: dict[str, bool]):
    """Trains with trl.SFTTrainer; returns the trainer (its .model is the trained, unwrapped
    model)."""
    import torch
    from datasets import Dataset
    from transformers import PrinterCallback
    from trl import SFTConfig

    total = steps_for(args, train_entries, dist.world_size)
    eval_every = args.eval_every or max(1, total // 10)
    save_steps = args.save_steps or max(1, math.ceil(total / 10))
    checkpointing = use_gradient_checkpointing(args.gradient_checkpointing, model.num_parameters())
    if args.epochs is None:
        # Repeat × the training entries, shuffled with the seed; the run takes max_steps batches
        # from it (the sampler passes over it again if it runs out).
        train_rows = train_rows * args.repeat
        random.Random(args.seed).shuffle(train_rows)
    config = SFTConfig(
        output_dir=checkpoints_dir(args.output_dir),
        per_device_train_batch_size=args.batch_size,
        per_device_eval_batch_size=1,  # the held-out figure: the mean of each entry's loss
        gradient_accumulation_steps=args.grad_accum,
        learning_rate=args.lr,
        lr_scheduler_type=args.lr_scheduler,
        warmup_steps=math.ceil(args.warmup_ratio * total),
        max_grad_norm=1.0,
        max_steps=total if args.epochs is None else -1,
        num_train_epochs=args.epochs or 1.0,
        seed=args.seed,
        data_seed=args.seed,
        gradient_checkpointing=checkpointing,
        **precision_flags,
        report_to="none",
        logging_steps=1,
        save_strategy="steps",
        save_steps=save_steps,
        save_total_limit=args.keep_checkpoints,
        eval_strategy="steps" if held_rows else "no",
        eval_steps=eval_every if held_rows else None,
        disable_tqdm=True,
        completion_only_loss=True,  # the rows are tokenized: the mask is ours, not the format's
        max_length=None,  # the rows already fit max_len (longer entries were left out)
        dataset_num_proc=None,
        remove_unused_columns=True,
        include_num_input_tokens_seen="no",
        dataloader_pin_memory=torch.cuda.is_available(),
        # Without a GPU: the CPU (gloo between processes); MPS only for a single process.
        use_cpu=not torch.cuda.is_available() and (dist.distributed or not mps_available(torch)),
    )
    peft_config = None
    if args.method == "lora":
        from peft import LoraConfig

        peft_config = LoraConfig(r=args.lora_r, lora_alpha=args.lora_alpha,
                                 lora_dropout=args.lora_dropout, bias="none",
                                 task_type="CAUSAL_LM", target_modules="all-linear")
    if fsdp_launch() and not torch.cuda.is_available():
        # accelerate 1.15 turns an FSDP config into sharding only on GPUs (AcceleratorState keeps
        # MULTI_CPU on the CPU): every process then holds the whole model.
        report.say("FSDP shards the model across GPUs only: on the CPU the processes run as DDP")
    trainer = make_trainer_class()(
        model=model, args=config, processing_class=tokenizer,
        train_dataset=Dataset.from_list(train_rows),
        eval_dataset=Dataset.from_list(held_rows) if held_rows else None,
        peft_config=peft_config)
    progress = make_progress_callback(
        report, dist, args.batch_size * args.grad_accum * dist.world_size, train_entries)
    progress.trainer = trainer
    trainer.add_callback(progress)
    # Its printed dicts are not the service's lines (the loss line above is).
    trainer.remove_callback(PrinterCallback)
    if args.method == "lora" and dist.main:
        trainer.model.print_trainable_parameters()
    report.say(f"{total} optimizer steps of {args.batch_size * args.grad_accum * dist.world_size} "
               f"examples, checkpoint every {save_steps} steps"
               + (", gradient checkpointing" if checkpointing else ""))
    if dist.main:
        warn_disk(report, args, trainer.model)
    if resume_from:
        report.say(f"resuming from step {resume_step(resume_from)} ({resume_from})")
    trainer.train(resume_from_checkpoint=resume_from)
    return trainer


def warn_disk(report: "Reporter", args, model) -> None:
    """A warning line when the run's checkpoints and result will not fit the free space where it
    saves (plan.estimate_disk, as the plan shows it before the start): the run still goes on, and a
    checkpoint that cannot be written stops it saying "No space left on device"."""
    import plan

    trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
    every = sum(p.numel() for p in model.parameters())
    lora = args.method == "lora"
    where = checkpoints_dir(args.output_dir)  # the bulk; its parent until the first is written
    need = plan.estimate_disk(every - trainable if lora else every, trainable, args.method,
                              args.keep_checkpoints, where)
    if need["fits"] is False:
        report.say(f"warning: this run writes about {size_text(need['total_bytes'])} at its peak "
                   f"({args.keep_checkpoints + 1} checkpoints of "
                   f"{size_text(need['checkpoint_bytes'])} while the newest is written, or the "
                   f"kept ones and the result) and {size_text(need['free_bytes'])} is free in "
                   f"{existing_parent(where)}")


def reload_trained(args):
    """The model (full) or base + adapter (LoRA) that an FSDP run saved to output_dir, on the CPU."""
    import torch

    if args.method == "lora":
        from peft import AutoPeftModelForCausalLM

        return AutoPeftModelForCausalLM.from_pretrained(args.output_dir)
    from transformers import AutoModelForCausalLM

    return AutoModelForCausalLM.from_pretrained(args.output_dir, dtype=torch.float32)


def resume_step(checkpoint: str) -> int:
    with open(os.path.join(checkpoint, "trainer_state.json"), encoding="utf-8") as handle:
        return int(json.load(handle)["global_step"])


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        dist = DistInfo()
    except ValueError as error:
        fail(str(error))
    check_packages(args.web_export)
    args.base_model = check_base_model_path(args.base_model)
    if args.base_revision and looks_like_path(args.base_model):
        fail(f"--base_revision ({args.base_revision}) is for a Hub id, and {args.base_model} is a "
             "local folder: leave the revision empty")
    report = Reporter(dist)
    # Library progress bars ("Loading weights: 100%| 21/21") would read as this run's progress: the
    # service takes the last `current/total` it sees. Only the `step N/M` lines say where we are.
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    os.environ.setdefault("HF_DATASETS_DISABLE_PROGRESS_BARS", "1")
    if args.plan:
        import plan

        return plan.run_plan(args, report.say)
    entries = load_entries(args.data_file)
    resume_from = None
    if args.resume:
        resume_from = last_checkpoint(checkpoints_dir(args.output_dir))
        if resume_from is None:
            fail(f"no checkpoint to resume from in {checkpoints_dir(args.output_dir)}")
    if not looks_like_path(args.base_model):
        # A Hub id: the download is a step of its own, with its progress lines, its access
        # check and its disk check, before anything is loaded (hub_download.py). It returns the
        # cache's snapshot of the revision asked for (--base_revision, else main), so the config,
        # tokenizer and model below, and the base export, all load that commit's files.
        import hub_download

        try:
            args.base_model = hub_download.fetch_base(args.base_model, report.say,
                                                      revision=args.base_revision or None,
                                                      main=dist.main)
        except hub_download.HubError as error:
            fail(str(error))

    import datasets
    import torch
    import train_data
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()

    datasets.disable_progress_bars()
    random.seed(args.seed)
    torch.manual_seed(args.seed)
    cuda = torch.cuda.is_available()
    precision, precision_flags, dtype = precision_settings(torch, args.method)
    device = f"cuda:{dist.local_rank}" if cuda else "cpu"
    report.say(f"loading {args.base_model} on {device} ({dtype}, {precision} compute), "
               f"{args.method} fine-tuning, "
               f"{dist.world_size} process{'es' if dist.distributed else ''}")
    tokenizer, model = load_base(args, dtype, report.say)
    encoded, too_long = encode_all(tokenizer, entries, args.max_len, report.say)
    train_idx, held_idx = train_data.split_encoded(encoded, args.eval_fraction, args.seed)
    split = split_record(args, entries, train_idx, held_idx, too_long)
    split_path = os.path.join(args.output_dir, "split.json")
    if resume_from:
        check_resumed_split(split_path, split)
    if dist.main:
        os.makedirs(args.output_dir, exist_ok=True)
        write_split(split_path, split)
    report.say(f"{len(train_idx)} entries to train on, {len(held_idx)} held out for evaluation"
               + (f", {len(too_long)} too long" if too_long else ""))
    model.config.use_cache = False
    try:
        trainer = train(args, dist, report, tokenizer, model, [encoded[i] for i in train_idx],
                        [encoded[i] for i in held_idx], len(train_idx), resume_from,
                        precision_flags)
    except CheckpointError as error:
        fail(str(error))
    net = trainer.model
    history = trainer.state.log_history  # the model card's losses
    sharded = trainer.is_fsdp_enabled
    if sharded:
        # Each process holds a shard: all take part in gathering the whole weights (the preset's
        # FULL_STATE_DICT), rank 0 writes them; it reloads them on the CPU below.
        trainer.save_model(args.output_dir)
    if torch.distributed.is_available() and torch.distributed.is_initialized():
        # The other ranks are done: rank 0 saves and exports alone (no collective timeout).
        torch.distributed.barrier()
        torch.distributed.destroy_process_group()
    if dist.main:
        if sharded:
            net = reload_trained(args)
        merged_dir = save_outputs(args, net, tokenizer, report.say)
    # The trained model is released before the export, which loads merged/ on its own: the run's
    # peak memory is the larger of training's and the export's, not their sum.
    trainer.accelerator.free_memory()
    del trainer, model, net
    gc.collect()
    if cuda:
        torch.cuda.empty_cache()
    if dist.main:
        # The run is complete: the checkpoints (optimizer state: twice the trainable weights and
        # more) are no longer needed to resume it.
        shutil.rmtree(checkpoints_dir(args.output_dir), ignore_errors=True)
    if dist.main and args.method == "lora":
        adapter_check_output(args, merged_dir, report.say)
    if dist.main and args.web_export:
        export_outputs(args, merged_dir, report.say)
    if dist.main and args.gguf != "none":
        gguf_outputs(args, merged_dir, report.say)
    if dist.main:
        model_card_output(args, merged_dir, history, report.say)
    return 0


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    # SIGTERM (the service's cancel) unwinds like Ctrl+C, so that half-written folders are
    # removed (the export builds in web.partial/ and removes it on any exception).
    cancel.install()
    try:
        code = main()
        cancel.check()  # a cancel that an import turned into another error still exits 130
        sys.exit(code)
    except KeyboardInterrupt:
        sys.exit(130)
