#!/usr/bin/env python3
"""Fine-tuning script for the local training service.

LoRA (every linear layer, peft) or full fine-tuning of a causal language model (transformers) on
the app's dataset: a JSON array of {"prompt", "completion"} entries. Each entry becomes the model's
chat template applied to a user prompt and an assistant completion; the loss covers the completion
only. A held-out share of the entries (--eval_fraction, chosen with --seed, listed in
<output_dir>/split.json) is never trained on; its mean completion loss is printed every
--eval_every steps and at the end.

Output lines (rank 0 only; the service reads them):
    step 3/120
    {"loss": 2.345678, "learning_rate": 0.0002, "epoch": 0.0333, "step": 3}
    {"eval_loss": 2.456789, "step": 12}
    browser export skipped: <reason>

After training: LoRA saves the adapter to --output_dir, full fine-tuning the whole model; the
merged model (at the precision it was trained in, or fp32 with --merged_fp32; Hugging Face layout,
with tokenizer and generation config; LoRA merges on the CPU) goes to
<output_dir>/merged/, and training/web_export.py exports a browser-ready copy to <output_dir>/web/
(--no-web-export skips that; when it publishes nothing — an architecture it lacks, too little disk,
no variant passing its check — <output_dir>/web.skipped.json holds the reason and the figures). --export_base also exports the untouched base model to <output_dir>/base-web/ (once per base when
TRAINING_BASE_EXPORTS names a folder to keep them in: later runs of the same base link to it).

Safe under torchrun / accelerate (DDP): every rank trains on its LOCAL_RANK device on its shard of
the data; the printed loss is the mean over the ranks; only rank 0 prints and writes files.

    python3 training/finetune.py --base_model meta-llama/Llama-3.2-3B-Instruct \
        --data_file service-data/datasets/input_data.json --output_dir service-data/lora \
        --max_len 256 --repeat 30 --max_steps 120 --lr 2e-4

    torchrun --standalone --nproc_per_node=4 training/finetune.py …   # four GPUs, one machine

Exit codes: 0 done, 2 missing packages or bad input (the message says which), 1 other errors.
"""
from __future__ import annotations

import argparse
import gc
import importlib.util
import json
import os
import random
import shutil
import signal
import sys
from typing import NoReturn

REQUIRED = ("torch", "transformers", "peft")
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
                        help="JSON array of {prompt, completion} entries")
    parser.add_argument("--output_dir", required=True,
                        help="where the adapter (LoRA) or the model (full) is saved")
    parser.add_argument("--method", choices=("lora", "full"), default="lora",
                        help="lora: adapters on every linear layer; full: train all weights")
    parser.add_argument("--max_len", type=int, default=256, help="tokens per example (truncated)")
    parser.add_argument("--repeat", type=int, default=30,
                        help="how many times the dataset is repeated (small datasets)")
    parser.add_argument("--max_steps", type=int, default=120, help="optimizer steps")
    parser.add_argument("--lr", type=float, default=2e-4, help="learning rate")
    parser.add_argument("--batch_size", type=int, default=1, help="examples per step per process")
    parser.add_argument("--lora_r", type=int, default=16)
    parser.add_argument("--seed", type=int, default=42,
                        help="seeds the held-out choice, the shuffling and the weights' init")
    parser.add_argument("--eval_fraction", type=float, default=0.1,
                        help="share of the entries held out for evaluation (0 turns it off)")
    parser.add_argument("--eval_every", type=int, default=None,
                        help="steps between held-out evaluations (default max(1, max_steps // 10))")
    parser.add_argument("--no-web-export", dest="web_export", action="store_false",
                        help="skip the browser-ready export to OUTPUT_DIR/web")
    parser.add_argument("--export_base", action="store_true",
                        help="also export the untouched base model to OUTPUT_DIR/base-web")
    parser.add_argument("--merged_fp32", action="store_true",
                        help="save merged/ in float32 (default: the precision it was trained in)")
    parser.add_argument("--web_variants", default="auto",
                        help="browser variants to export: auto (q4f16 and q4, and fp16 / fp32 when "
                             "a browser can hold them) or a comma-separated list of fp32, fp16, q4, "
                             "q4f16")
    args = parser.parse_args(argv)
    for name in ("max_len", "repeat", "max_steps", "batch_size", "lora_r"):
        if getattr(args, name) <= 0:
            parser.error(f"--{name} must be greater than 0")
    if not args.lr > 0:
        parser.error("--lr must be greater than 0")
    if not 0 <= args.eval_fraction < 1:
        parser.error("--eval_fraction must be at least 0 and less than 1")
    if args.web_variants == "auto":
        args.web_variants = None
    else:
        names = tuple(v.strip() for v in args.web_variants.split(",") if v.strip())
        unknown = [v for v in names if v not in ("fp32", "fp16", "q4", "q4f16")]
        if unknown or not names:
            parser.error(f"--web_variants: unknown variant(s) {', '.join(unknown) or '(none)'}; "
                         "use auto or a list of fp32, fp16, q4, q4f16")
        args.web_variants = names
    if args.eval_every is None:
        args.eval_every = max(1, args.max_steps // 10)
    elif args.eval_every <= 0:
        parser.error("--eval_every must be greater than 0")
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


def load_dataset(path: str) -> list[dict[str, str]]:
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
    except FileNotFoundError:
        fail(f"data file not found: {path}")
    except json.JSONDecodeError as error:
        fail(f"data file is not valid JSON: {path}: {error}")
    if not isinstance(data, list) or not data:
        fail("data file must be a non-empty JSON array of {prompt, completion} entries")
    entries = []
    for index, entry in enumerate(data):
        if not (isinstance(entry, dict) and isinstance(entry.get("prompt"), str)
                and isinstance(entry.get("completion"), str)):
            fail(f"entry {index} must be an object with string 'prompt' and 'completion'")
        entries.append({"prompt": entry["prompt"], "completion": entry["completion"]})
    return entries


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


def make_split(count: int, fraction: float, seed: int) -> tuple[list[int], list[int]]:
    """(train, held_out) positions among `count` entries: round(count × fraction) held out, at least
    one once there are 5 or more entries (none when fraction is 0), and always one left to train."""
    if fraction <= 0 or count < 2:
        held = 0
    else:
        held = round(count * fraction)
        if count >= 5:
            held = max(1, held)
        held = min(held, count - 1)
    held_out = sorted(random.Random(seed).sample(range(count), held))
    chosen = set(held_out)
    return [i for i in range(count) if i not in chosen], held_out


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


def device_for(dist: DistInfo, cuda: bool, mps: bool = False) -> str:
    """Every rank uses its LOCAL_RANK's GPU; without CUDA, MPS or the CPU."""
    if cuda:
        return f"cuda:{dist.local_rank}"
    return "mps" if mps and not dist.distributed else "cpu"


def shard(items: list, dist: DistInfo) -> list:
    """This rank's share of the examples (every rank gets at least one)."""
    mine = items[dist.rank::dist.world_size]
    return mine or items[:1]


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


def encode(tokenizer, entry: dict[str, str], max_len: int) -> tuple[list[int], list[int]] | None:
    """Token ids and labels (prompt tokens masked with -100, so only the answer is learnt),
    truncated to max_len; None when the prompt alone fills max_len (no answer token left)."""
    user = [{"role": "user", "content": entry["prompt"]}]
    if tokenizer.chat_template:
        prompt_text = tokenizer.apply_chat_template(user, tokenize=False,
                                                    add_generation_prompt=True)
        full_text = tokenizer.apply_chat_template(
            user + [{"role": "assistant", "content": entry["completion"]}], tokenize=False)
    else:
        prompt_text = f"Question: {entry['prompt']}\nAnswer: "
        full_text = prompt_text + entry["completion"] + (tokenizer.eos_token or "")
    prompt_len = len(tokenizer(prompt_text, add_special_tokens=False)["input_ids"])
    ids = tokenizer(full_text, add_special_tokens=False)["input_ids"][:max_len]
    if prompt_len >= len(ids):
        return None
    return ids, [-100] * prompt_len + ids[prompt_len:]


def encode_all(tokenizer, entries, max_len: int, say) -> dict[int, tuple[list[int], list[int]]]:
    """Encoded entries by their index in the data file; entries with no room for an answer token
    are skipped with a warning, and none left is bad input, as is a chat template that fails."""
    encoded = {}
    for index, entry in enumerate(entries):
        try:
            example = encode(tokenizer, entry, max_len)
        except Exception as error:  # noqa: BLE001 - jinja2's TemplateError, raise_exception(), …
            fail(f"the base model's chat template fails on entry {index}: {one_line(error)}")
        if example is None:
            say(f"warning: entry {index} is longer than max_len ({max_len} tokens) once templated "
                "(the prompt alone fills it): skipped")
        else:
            encoded[index] = example
    if not encoded:
        fail(f"every entry is longer than max_len ({max_len} tokens) once templated (the prompt "
             "alone fills it, leaving no answer token): raise --max_len or shorten the entries")
    return encoded


def write_split(path: str, args, entries, train: list[int], held_out: list[int],
                skipped: list[int]) -> None:
    split = {"seed": args.seed, "eval_fraction": args.eval_fraction,
             "held_out_indices": held_out, "held_out": [entries[i] for i in held_out],
             "train_indices": train, "skipped_indices": skipped}
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(split, handle, ensure_ascii=False, indent=1)
        handle.write("\n")


def load_base(args, dtype, say):
    """Tokenizer and model of --base_model; unloadable or non-causal models are bad input."""
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


def completion_loss(net, examples, device) -> float:
    """Mean over the examples of each one's completion loss (dropout off, no gradients)."""
    import torch

    was_training = net.training
    net.eval()
    total = 0.0
    with torch.no_grad():
        for ids, labels in examples:
            total += net(input_ids=torch.tensor([ids], device=device),
                         labels=torch.tensor([labels], device=device), use_cache=False).loss.item()
    net.train(was_training)
    return total / len(examples)


def link_or_copy(src: str, dest: str) -> None:
    try:
        os.link(src, dest)
    except OSError:
        shutil.copy2(src, dest)


def save_outputs(args, net, tokenizer, say) -> str:
    """Adapter (LoRA) or model (full) into output_dir, and the merged model into merged/: at the
    precision it was trained in (LoRA: the base's; full: float32), or float32 with --merged_fp32.
    LoRA's merge runs on the CPU, after the adapter is saved, so a merge that fails loses nothing."""
    import torch

    merged_dir = os.path.join(args.output_dir, "merged")
    if args.method == "lora":
        net.save_pretrained(args.output_dir)
        tokenizer.save_pretrained(args.output_dir)
        say(f"saved LoRA adapter to {args.output_dir}")
        say("merging the adapter into the base model (on the CPU)")
        merged = net.to("cpu").merge_and_unload()
        if args.merged_fp32:
            merged = merged.to(torch.float32)
        merged.save_pretrained(merged_dir)
        tokenizer.save_pretrained(merged_dir)
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
        return f"the browser export module is not available ({one_line(error)})", None
    try:
        web_export.export_web(merged_dir, web_dir, say, variants=variants)
    except web_export.ExportSkipped as skipped:
        return str(getattr(skipped, "reason", None) or skipped), getattr(skipped, "report", None)
    except Exception as error:  # noqa: BLE001 - the trained model is saved; the run says why
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
        say(f"base model browser export failed: {type(error).__name__}: {one_line(error)}")
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        dist = DistInfo()
    except ValueError as error:
        fail(str(error))
    check_packages(args.web_export)
    entries = load_dataset(args.data_file)
    args.base_model = check_base_model_path(args.base_model)
    report = Reporter(dist)
    # Library progress bars ("Loading weights: 100%| 21/21") would read as this run's progress: the
    # service takes the last `current/total` it sees. Only the `step N/M` lines say where we are.
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")

    import torch
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()

    random.seed(args.seed)
    torch.manual_seed(args.seed)
    cuda = torch.cuda.is_available()
    mps = bool(getattr(torch.backends, "mps", None) and torch.backends.mps.is_available())
    device = device_for(dist, cuda, mps)
    if cuda:
        torch.cuda.set_device(dist.local_rank)
    # Full fine-tuning keeps fp32 weights (AdamW on half-precision weights loses the small
    # updates; CUDA computes in bf16 under autocast). LoRA keeps the frozen base in half precision.
    half = torch.bfloat16 if cuda and torch.cuda.is_bf16_supported() else torch.float16
    dtype = torch.float32 if args.method == "full" or device == "cpu" else half
    autocast = cuda and args.method == "full" and torch.cuda.is_bf16_supported()
    report.say(f"loading {args.base_model} on {device} ({dtype}), {args.method} fine-tuning, "
               f"{dist.world_size} process{'es' if dist.distributed else ''}")
    tokenizer, model = load_base(args, dtype, report.say)
    encoded = encode_all(tokenizer, entries, args.max_len, report.say)
    usable = sorted(encoded)
    train_pos, held_pos = make_split(len(usable), args.eval_fraction, args.seed)
    train_idx = [usable[i] for i in train_pos]
    held_idx = [usable[i] for i in held_pos]
    skipped = [i for i in range(len(entries)) if i not in encoded]
    if dist.main:
        os.makedirs(args.output_dir, exist_ok=True)
        write_split(os.path.join(args.output_dir, "split.json"), args, entries, train_idx,
                    held_idx, skipped)
    report.say(f"{len(train_idx)} entries to train on, {len(held_idx)} held out for evaluation"
               + (f", {len(skipped)} skipped" if skipped else ""))

    if dist.distributed:
        torch.distributed.init_process_group(backend="nccl" if cuda else "gloo")
    model.to(device)
    model.config.use_cache = False
    if args.method == "lora":
        from peft import LoraConfig, get_peft_model

        model = get_peft_model(model, LoraConfig(
            r=args.lora_r, lora_alpha=2 * args.lora_r, lora_dropout=0.05, bias="none",
            task_type="CAUSAL_LM", target_modules="all-linear"))
        if dist.main:
            model.print_trainable_parameters()
    net = model  # the unwrapped model: evaluation and saving
    if dist.distributed:
        model = torch.nn.parallel.DistributedDataParallel(
            model, device_ids=[dist.local_rank] if cuda else None)

    # Every rank shuffles the same way (same seed), then takes its own shard.
    examples = [encoded[i] for i in train_idx] * args.repeat
    random.Random(args.seed).shuffle(examples)
    examples = shard(examples, dist)
    held_examples = [encoded[i] for i in held_idx]
    optimizer = torch.optim.AdamW((p for p in model.parameters() if p.requires_grad), lr=args.lr)
    scheduler = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda step: max(0.0, 1.0 - step / args.max_steps))
    print_rank_loss = os.environ.get(RANK_LOSS_ENV) == "1"

    model.train()
    step = 0
    cursor = 0
    total = args.max_steps
    pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0  # masked anyway
    report.step(0, total)
    while step < total:
        batch = [examples[(cursor + i) % len(examples)] for i in range(args.batch_size)]
        cursor += args.batch_size
        width = max(len(ids) for ids, _ in batch)
        input_ids = torch.tensor([ids + [pad] * (width - len(ids)) for ids, _ in batch],
                                 device=device)
        labels = torch.tensor([lab + [-100] * (width - len(lab)) for _, lab in batch],
                              device=device)
        attention = torch.tensor([[1] * len(ids) + [0] * (width - len(ids)) for ids, _ in batch],
                                 device=device)
        with torch.autocast(device_type="cuda", dtype=torch.bfloat16, enabled=autocast):
            loss = model(input_ids=input_ids, attention_mask=attention, labels=labels,
                         use_cache=False).loss
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        scheduler.step()
        optimizer.zero_grad(set_to_none=True)
        step += 1
        logged = loss.detach().float()
        if print_rank_loss:
            print(f"rank {dist.rank} step {step} loss {logged.item():.9f}", file=sys.stderr,
                  flush=True)
        if dist.distributed:
            torch.distributed.all_reduce(logged, op=torch.distributed.ReduceOp.SUM)
            logged /= dist.world_size
        report.step(step, total, logged.item(), scheduler.get_last_lr()[0],
                    epoch=step * args.batch_size * dist.world_size / len(train_idx) / args.repeat)
        if held_examples and dist.main and (step % args.eval_every == 0 or step == total):
            report.eval(step, completion_loss(net, held_examples, device))

    if dist.distributed:
        # The other ranks are done: rank 0 saves and exports alone (no collective timeout).
        torch.distributed.barrier()
        torch.distributed.destroy_process_group()
    if dist.main:
        merged_dir = save_outputs(args, net, tokenizer, report.say)
    # The trained model is released before the export, which loads merged/ on its own: the run's
    # peak memory is the larger of training's and the export's, not their sum.
    del model, net, optimizer, scheduler, examples, held_examples
    gc.collect()
    if cuda:
        torch.cuda.empty_cache()
    if dist.main and args.web_export:
        export_outputs(args, merged_dir, report.say)
    return 0


def _terminate(signum, _frame) -> NoReturn:
    """SIGTERM (the service's cancel) unwinds like Ctrl+C, so that half-written folders are
    removed (the export builds in web.partial/ and removes it on any exception)."""
    raise KeyboardInterrupt(f"signal {signum}")


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    signal.signal(signal.SIGTERM, _terminate)
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        sys.exit(130)
