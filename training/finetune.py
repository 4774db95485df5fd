#!/usr/bin/env python3
"""Reference fine-tuning script for the local training service.

LoRA fine-tuning of a causal language model (transformers + peft) on the app's dataset: a JSON
array of {"prompt", "completion"} entries. Each entry becomes the model's chat
template applied to a user prompt and an assistant completion; the loss covers the completion
only. Progress is printed as `step current/total` (the app reads the last `current/total`) and
each step's metrics as a JSON line `{"loss": …, "learning_rate": …, "epoch": …, "step": …}` (the
service draws the loss curve from them).

After training the adapter is saved to --output_dir, merged into the base model, and a
browser-ready copy is exported to <output_dir>/web/ in the layout transformers.js loads
(config.json, generation_config.json, tokenizer files, onnx/model.onnx, model_fp16.onnx,
model_q4.onnx, model_q4f16.onnx): Optimum's ONNX export, then ONNX Runtime's quantisation.
--no-web-export skips that step.

Safe under torchrun / accelerate (DDP): every rank trains on its LOCAL_RANK device on its shard of
the data; only rank 0 prints progress and metrics, and only rank 0 saves and exports.

    python3 training/finetune.py --base_model meta-llama/Llama-3.2-3B-Instruct \
        --data_file service-data/datasets/input_data.json --output_dir service-data/lora \
        --max_len 256 --repeat 30 --max_steps 120 --lr 2e-4

    torchrun --standalone --nproc_per_node=4 training/finetune.py …   # four GPUs, one machine

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
# Import names of the packages the browser export needs (pip names: optimum, onnx, onnxruntime).
EXPORT_REQUIRED = ("optimum", "onnx", "onnxruntime")

# transformers.js dtype → file name under onnx/ (the names transformers.js looks for).
VARIANT_FILES = {
    "fp32": "model.onnx",
    "fp16": "model_fp16.onnx",
    "q4": "model_q4.onnx",
    "q4f16": "model_q4f16.onnx",
}
EXPORT_VARIANTS = ("fp32", "fp16", "q4", "q4f16")
# What <output_dir>/web/ must hold besides onnx/ for the service to list it (GET /models).
WEB_REQUIRED = ("config.json", "tokenizer.json", "tokenizer_config.json")


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
    parser.add_argument("--no-web-export", dest="web_export", action="store_false",
                        help="skip merging and exporting the browser-ready copy to OUTPUT_DIR/web")
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


def variant_files(variants=EXPORT_VARIANTS) -> list[str]:
    """onnx/ file names, as transformers.js names its variants."""
    return [VARIANT_FILES[v] for v in variants]


def web_folder_problem(web_dir: str) -> str | None:
    """Why web_dir is not a complete browser-ready model (the service's rule), or None."""
    for name in WEB_REQUIRED:
        path = os.path.join(web_dir, name)
        if not (os.path.isfile(path) and os.path.getsize(path) > 0):
            return f"web/ lacks the tokenizer ({name})" if name.startswith("tokenizer") \
                else f"web/ lacks {name}"
    onnx_dir = os.path.join(web_dir, "onnx")
    if not any(os.path.isfile(os.path.join(onnx_dir, f)) for f in VARIANT_FILES.values()):
        return "web/ lacks the weights (no onnx/model*.onnx)"
    return None


def export_web(merged_dir: str, output_dir: str, say) -> str:
    """Merged model → <output_dir>/web/ (built in web.partial, renamed when complete)."""
    import shutil

    from onnxruntime.quantization.matmul_4bits_quantizer import MatMul4BitsQuantizer
    from onnxruntime.transformers.float16 import convert_float_to_float16
    from optimum.exporters.onnx import main_export
    import onnx

    web_dir = os.path.join(output_dir, "web")
    partial = web_dir + ".partial"
    shutil.rmtree(partial, ignore_errors=True)
    say("exporting to ONNX (Optimum)")
    main_export(merged_dir, output=partial, task="text-generation-with-past", opset=17)
    onnx_dir = os.path.join(partial, "onnx")
    os.makedirs(onnx_dir, exist_ok=True)
    for name in os.listdir(partial):  # Optimum writes model.onnx (+ model.onnx_data) at the top
        if name.startswith("model.onnx"):
            os.replace(os.path.join(partial, name), os.path.join(onnx_dir, name))
    fp32 = os.path.join(onnx_dir, VARIANT_FILES["fp32"])
    say("quantising: fp16, q4, q4f16 (ONNX Runtime)")
    fp16_model = convert_float_to_float16(onnx.load(fp32), keep_io_types=True,
                                          disable_shape_infer=True)
    onnx.save(fp16_model, os.path.join(onnx_dir, VARIANT_FILES["fp16"]))
    for variant, source in (("q4", onnx.load(fp32)), ("q4f16", fp16_model)):
        quantizer = MatMul4BitsQuantizer(source, block_size=32, is_symmetric=True)
        quantizer.process()
        onnx.save(quantizer.model.model, os.path.join(onnx_dir, VARIANT_FILES[variant]))
    for name in os.listdir(merged_dir):
        if name.startswith("tokenizer") or name in ("special_tokens_map.json",
                                                    "generation_config.json", "config.json"):
            shutil.copy2(os.path.join(merged_dir, name), os.path.join(partial, name))
    problem = web_folder_problem(partial)
    if problem:
        raise RuntimeError(f"browser export incomplete: {problem}")
    shutil.rmtree(web_dir, ignore_errors=True)
    os.replace(partial, web_dir)
    return web_dir


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        dist = DistInfo()
    except ValueError as error:
        fail(str(error))
    check_packages(args.web_export)
    entries = load_dataset(args.data_file)
    report = Reporter(dist)

    import torch
    from peft import LoraConfig, get_peft_model
    from transformers import AutoModelForCausalLM, AutoTokenizer

    random.seed(args.seed)
    torch.manual_seed(args.seed)
    cuda = torch.cuda.is_available()
    mps = bool(getattr(torch.backends, "mps", None) and torch.backends.mps.is_available())
    device = device_for(dist, cuda, mps)
    if cuda:
        torch.cuda.set_device(dist.local_rank)
    if dist.distributed:
        torch.distributed.init_process_group(backend="nccl" if cuda else "gloo")
    dtype = torch.bfloat16 if cuda and torch.cuda.is_bf16_supported() else (
        torch.float16 if device != "cpu" else torch.float32)
    report.say(f"loading {args.base_model} on {device} ({dtype}), "
               f"{dist.world_size} process{'es' if dist.distributed else ''}")

    tokenizer = AutoTokenizer.from_pretrained(args.base_model)
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    model = AutoModelForCausalLM.from_pretrained(args.base_model, torch_dtype=dtype).to(device)
    model = get_peft_model(model, LoraConfig(
        r=args.lora_r, lora_alpha=2 * args.lora_r, lora_dropout=0.05, bias="none",
        task_type="CAUSAL_LM",
        target_modules=["q_proj", "k_proj", "v_proj", "o_proj"],
    ))
    if dist.main:
        model.print_trainable_parameters()
    peft_model = model
    if dist.distributed:
        model = torch.nn.parallel.DistributedDataParallel(
            model, device_ids=[dist.local_rank] if cuda else None)

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

    examples = shard([encode(entry) for entry in entries] * args.repeat, dist)
    random.shuffle(examples)
    optimizer = torch.optim.AdamW((p for p in model.parameters() if p.requires_grad), lr=args.lr)
    scheduler = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda step: max(0.0, 1.0 - step / args.max_steps))

    model.train()
    step = 0
    cursor = 0
    total = args.max_steps
    report.step(0, total)
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
        report.step(step, total, loss.item(), scheduler.get_last_lr()[0],
                    epoch=step * args.batch_size * dist.world_size / len(entries) / args.repeat)

    if dist.distributed:
        torch.distributed.barrier()
    if dist.main:
        os.makedirs(args.output_dir, exist_ok=True)
        peft_model.save_pretrained(args.output_dir)
        tokenizer.save_pretrained(args.output_dir)
        report.say(f"saved LoRA adapter to {args.output_dir}")
        if args.web_export:
            merged_dir = os.path.join(args.output_dir, "merged")
            report.say("merging the adapter into the base model")
            merged = peft_model.merge_and_unload()
            merged.to(torch.float32).save_pretrained(merged_dir)
            tokenizer.save_pretrained(merged_dir)
            web_dir = export_web(merged_dir, args.output_dir, report.say)
            report.say(f"browser-ready model in {web_dir}")
    if dist.distributed:
        torch.distributed.barrier()
        torch.distributed.destroy_process_group()
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        sys.exit(130)
