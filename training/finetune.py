#!/usr/bin/env python3
"""Reference fine-tuning script for the local training service.

LoRA fine-tuning of a causal language model (transformers + peft) on the app's dataset: a JSON
array of {"prompt", "completion"} entries. Each entry becomes the model's chat
template applied to a user prompt and an assistant completion; the loss covers the completion
only. Progress is printed as `step current/total` (the app reads the last `current/total`).

    python3 training/finetune.py --base_model meta-llama/Llama-3.2-3B-Instruct \
        --data_file service-data/datasets/input_data.json --output_dir service-data/lora \
        --max_len 256 --repeat 30 --max_steps 120 --lr 2e-4

Exit codes: 0 done, 2 missing packages or bad input (the message says which), 1 other errors.
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import random
import sys
from typing import NoReturn

REQUIRED = ("torch", "transformers", "peft")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base_model", default="meta-llama/Llama-3.2-3B-Instruct",
                        help="Hub id or local folder of the model to adapt")
    parser.add_argument("--data_file", required=True,
                        help="JSON array of {prompt, completion} entries")
    parser.add_argument("--output_dir", required=True, help="where the LoRA adapter is saved")
    parser.add_argument("--max_len", type=int, default=256, help="tokens per example (truncated)")
    parser.add_argument("--repeat", type=int, default=30,
                        help="how many times the dataset is repeated (small datasets)")
    parser.add_argument("--max_steps", type=int, default=120, help="optimizer steps")
    parser.add_argument("--lr", type=float, default=2e-4, help="learning rate")
    parser.add_argument("--batch_size", type=int, default=1)
    parser.add_argument("--lora_r", type=int, default=16)
    parser.add_argument("--seed", type=int, default=42)
    args = parser.parse_args(argv)
    for name in ("max_len", "repeat", "max_steps", "batch_size", "lora_r"):
        if getattr(args, name) <= 0:
            parser.error(f"--{name} must be greater than 0")
    if not args.lr > 0:
        parser.error("--lr must be greater than 0")
    return args


def fail(message: str, code: int = 2) -> NoReturn:
    print(f"error: {message}", file=sys.stderr, flush=True)
    sys.exit(code)


def check_packages() -> None:
    """Fail fast (before any heavy import) when the training packages are not installed."""
    missing = [name for name in REQUIRED if importlib.util.find_spec(name) is None]
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


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    check_packages()
    entries = load_dataset(args.data_file)

    import torch
    from peft import LoraConfig, get_peft_model
    from transformers import AutoModelForCausalLM, AutoTokenizer

    random.seed(args.seed)
    torch.manual_seed(args.seed)
    device = "cuda" if torch.cuda.is_available() else (
        "mps" if getattr(torch.backends, "mps", None) and torch.backends.mps.is_available() else "cpu")
    dtype = torch.bfloat16 if device == "cuda" and torch.cuda.is_bf16_supported() else (
        torch.float16 if device != "cpu" else torch.float32)
    print(f"loading {args.base_model} on {device} ({dtype})", flush=True)

    tokenizer = AutoTokenizer.from_pretrained(args.base_model)
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    model = AutoModelForCausalLM.from_pretrained(args.base_model, torch_dtype=dtype).to(device)
    model = get_peft_model(model, LoraConfig(
        r=args.lora_r, lora_alpha=2 * args.lora_r, lora_dropout=0.05, bias="none",
        task_type="CAUSAL_LM",
        target_modules=["q_proj", "k_proj", "v_proj", "o_proj"],
    ))
    model.print_trainable_parameters()

    def encode(entry: dict[str, str]) -> tuple[list[int], list[int]]:
        """Token ids and labels; prompt tokens are masked (-100) so only the answer is learnt."""
        user = [{"role": "user", "content": entry["prompt"]}]
        if tokenizer.chat_template:
            prompt_text = tokenizer.apply_chat_template(user, tokenize=False,
                                                        add_generation_prompt=True)
            full_text = tokenizer.apply_chat_template(
                user + [{"role": "assistant", "content": entry["completion"]}], tokenize=False)
        else:
            prompt_text = f"Question: {entry['prompt']}\nAnswer: "
            full_text = prompt_text + entry["completion"] + (tokenizer.eos_token or "")
        prompt_ids = tokenizer(prompt_text, add_special_tokens=False)["input_ids"]
        ids = tokenizer(full_text, add_special_tokens=False)["input_ids"][: args.max_len]
        labels = [-100] * min(len(prompt_ids), len(ids)) + ids[len(prompt_ids):]
        return ids, labels[: len(ids)]

    examples = [encode(entry) for entry in entries] * args.repeat
    random.shuffle(examples)
    optimizer = torch.optim.AdamW((p for p in model.parameters() if p.requires_grad), lr=args.lr)
    scheduler = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda step: max(0.0, 1.0 - step / args.max_steps))

    model.train()
    step = 0
    cursor = 0
    total = args.max_steps
    print(f"step 0/{total}", flush=True)
    while step < total:
        batch = [examples[(cursor + i) % len(examples)] for i in range(args.batch_size)]
        cursor += args.batch_size
        width = max(len(ids) for ids, _ in batch)
        pad = tokenizer.pad_token_id
        input_ids = torch.tensor([ids + [pad] * (width - len(ids)) for ids, _ in batch], device=device)
        labels = torch.tensor([lab + [-100] * (width - len(lab)) for _, lab in batch], device=device)
        attention = torch.tensor([[1] * len(ids) + [0] * (width - len(ids)) for ids, _ in batch],
                                 device=device)
        loss = model(input_ids=input_ids, attention_mask=attention, labels=labels).loss
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        scheduler.step()
        optimizer.zero_grad(set_to_none=True)
        step += 1
        print(f"step {step}/{total} loss {loss.item():.4f} lr {scheduler.get_last_lr()[0]:.2e}",
              flush=True)

    os.makedirs(args.output_dir, exist_ok=True)
    model.save_pretrained(args.output_dir)
    tokenizer.save_pretrained(args.output_dir)
    print(f"saved LoRA adapter to {args.output_dir}", flush=True)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        sys.exit(130)
