"""What a training run will do, before it starts (finetune.py --plan): the entries trained on and
held out, their token lengths, the steps and epochs this means, the parameters, and an estimate
of peak memory against the device's. Loads only the config and the tokenizer (parameters are
counted on torch's meta device), so it answers in a second or two.

One JSON line on stdout: {"plan": {...}}; bad input: "error: ..." on stderr and exit code 2, with
the trainer's messages (train_data.DataError).
"""
from __future__ import annotations

import json
import math
import os
import sys

import train_data
from disk import free_bytes
from train_data import DataError

GIB = 1024 ** 3
# Gradient checkpointing "auto" turns on from this many parameters.
CHECKPOINTING_FROM = 1_000_000_000
# The training process's own memory on the CPU besides the model and its tensors (the Python
# interpreter, torch, transformers, TRL and their libraries, the tokenizer, allocator slack).
CPU_RUNTIME_BYTES = int(0.5 * GIB)
DTYPE_BYTES = {"fp32": 4, "bf16": 2, "fp16": 2}


def describe_device(torch) -> dict:
    """The device a run trains on, as finetune.py picks it: {"kind": "cuda" | "mps" | "cpu",
    "name": a readable name for the panel, "memory": its memory in bytes (the machine's RAM on the
    CPU and MPS; None when unknown), "bf16_native": whether it computes bf16 natively}. `torch` is
    the module (a stand-in in the tests)."""
    if torch.cuda.is_available():
        return {"kind": "cuda", "name": torch.cuda.get_device_name(0),
                "memory": int(torch.cuda.get_device_properties(0).total_memory),
                "bf16_native": bool(torch.cuda.is_bf16_supported(including_emulation=False))}
    mps = getattr(torch.backends, "mps", None)
    if mps is not None and mps.is_available():
        return {"kind": "mps", "name": "this Mac's memory (Apple MPS)", "memory": _ram(),
                "bf16_native": False}
    return {"kind": "cpu", "name": "this computer's memory (CPU)", "memory": _ram(),
            "bf16_native": False}


def _ram() -> int | None:
    try:
        import psutil

        return int(psutil.virtual_memory().total)
    except ImportError:
        return None


def resolve_precision(device: dict) -> str:
    """The precision a run computes in on the device (describe_device), for the trainer and the
    plan alike: native bf16 where the GPU has it, fp16 (with a gradient scaler) on other CUDA GPUs,
    fp32 on Apple MPS (the Trainer's mixed precision there is not used) and on the CPU."""
    if device["kind"] != "cuda":
        return "fp32"
    return "bf16" if device["bf16_native"] else "fp16"


def resolve_checkpointing(setting: str | bool | None, parameters: int) -> bool:
    """auto: on for bases of 1B parameters and more."""
    if setting in (True, "on"):
        return True
    if setting in (False, "off"):
        return False
    return parameters >= CHECKPOINTING_FROM


def count_parameters(config, lora_r: int) -> tuple[int, int]:
    """(parameters, LoRA trainable parameters at rank lora_r) from the config alone: the model is
    built on the meta device. LoRA covers every linear layer except the output layer (peft's
    all-linear): r × (in + out) each."""
    import torch
    from transformers import AutoModelForCausalLM

    with torch.device("meta"):
        model = AutoModelForCausalLM.from_config(config)
    parameters = sum(p.numel() for p in model.parameters())
    output = model.get_output_embeddings()
    lora = sum(lora_r * (m.in_features + m.out_features) for m in model.modules()
               if isinstance(m, torch.nn.Linear) and m is not output)
    return parameters, lora


def _text_config(config):
    return config.get_text_config() if hasattr(config, "get_text_config") else config


def estimate_memory(config, params: int, method: str, precision: str, batch: int, seq_len: int,
                    gradient_checkpointing: bool, lora_trainable: int, *,
                    device: str = "cpu", shards: int = 1) -> dict:
    """Peak training memory in bytes, by part.

    weights: LoRA keeps the frozen base at `precision`; full fine-tuning keeps fp32 master weights
    (plus, under bf16/fp16 autocast, the half-precision copies of the weights for the forward).
    gradients and optimizer: the trainable parameters' fp32 gradients and AdamW's two fp32 moments
    (LoRA: also the adapters' fp32 weights). activations: per layer and token, the tensors a
    decoder layer keeps for the backward pass (attention projections and output, the MLP's gate,
    up and product, norms, residuals; LoRA's dropout copies of each adapted input); with
    checkpointing only each layer's input plus one layer's activations; plus the logits at
    vocabulary size, kept in fp32 for the loss with their log-softmax and gradient.
    runtime: the process itself on the CPU (libraries), not counted on a GPU.
    shards > 1 (FSDP across that many GPUs, the launcher preset): each GPU holds 1/shards of the
    weights, gradients and optimizer state, plus what FSDP gathers whole: the root unit (embedding,
    an untied output head, the final norm), kept gathered through the step, and one decoder layer
    at a time, each with its fp32 gradient before it is reduced and scattered. Activations are
    per GPU, as without sharding."""
    c = _text_config(config)
    hidden = c.hidden_size
    inter = getattr(c, "intermediate_size", None) or 4 * hidden
    layers = c.num_hidden_layers
    heads = c.num_attention_heads
    kv_heads = getattr(c, "num_key_value_heads", None) or heads
    head_dim = getattr(c, "head_dim", None) or hidden // heads
    vocab = c.vocab_size
    act_bytes = DTYPE_BYTES[precision]
    tokens = batch * seq_len

    if method == "full":
        weight_bytes = params * 4 + (params * 2 if precision != "fp32" else 0)
        trainable = params
        gradients = trainable * 4
        optimizer = trainable * 8
    else:
        weight_bytes = params * act_bytes
        trainable = lora_trainable
        gradients = trainable * 4
        optimizer = trainable * (8 + 4)  # AdamW's moments and the adapters' fp32 weights

    q, kv = heads * head_dim, kv_heads * head_dim
    # Elements kept per token in one decoder layer.
    per_token = (
        4 * hidden          # the layer's input, its norm, the attention output, the residual sum
        + 2 * q + 2 * kv    # q, k, v and the rotated q, k
        + 2 * hidden        # the second norm's input and output
        + 4 * inter         # gate, up, act(gate), act(gate) × up
        + q                 # attention's output before o_proj
    )
    layer_bytes = per_token * act_bytes
    if method == "lora":
        # Each adapted linear layer keeps its input after dropout (and the dropout's 1-byte mask)
        # and its adapter's scaled output.
        inputs = 6 * hidden + inter
        outputs = q + 2 * kv + hidden + 2 * inter + hidden
        layer_bytes += inputs * (act_bytes + 1) + outputs * act_bytes
    layer_bytes *= tokens
    if gradient_checkpointing:
        layer_part = layers * hidden * act_bytes * tokens + layer_bytes
    else:
        layer_part = layers * layer_bytes
    logits = vocab * tokens * (act_bytes + 3 * 4)
    activations = layer_part + logits
    runtime = CPU_RUNTIME_BYTES if device == "cpu" else 0
    sharding = ""
    if shards > 1:
        root = vocab * hidden * (1 if getattr(c, "tie_word_embeddings", False) else 2) + hidden
        layer = max(0, params - root) // max(1, layers)
        gathered = (root + layer) * (4 + (4 if method == "full" else 0))
        weight_bytes = weight_bytes / shards + gathered
        gradients /= shards
        optimizer /= shards
        sharding = (f"; FSDP across {shards} GPUs (per GPU: 1/{shards} of the weights, gradients "
                    "and optimizer state, plus the embedding and one layer gathered)")
    total = weight_bytes + gradients + optimizer + activations + runtime
    return {
        "total_bytes": int(total), "weights": int(weight_bytes), "gradients": int(gradients),
        "optimizer": int(optimizer), "activations": int(activations), "runtime": int(runtime),
        "note": (f"{method}, {precision}, batch {batch} × {seq_len} tokens, gradient checkpointing "
                 f"{'on' if gradient_checkpointing else 'off'}; AdamW"
                 + (", the process's libraries included" if runtime else "") + sharding),
    }


def estimate_disk(params: int, lora_trainable: int, method: str, keep: int,
                  output_dir: str | None) -> dict:
    """Disk the run writes at its peak, in bytes, against what is free where it writes.

    checkpoint: each checkpoint-N holds the trainable weights in fp32 and AdamW's two fp32
    moments (full fine-tuning of a 1.24B model: about 15 GB; LoRA: its adapters). The trainer
    keeps `keep` of them and writes the next before removing the oldest, so keep + 1 are on the
    disk at once. result: the fine-tuned model in fp32 (full) or the adapter and the merged model
    in fp32 (LoRA), saved while the kept checkpoints are still there (they go when the run ends).
    The browser and GGUF exports come after and check their own room (they are skipped, with the
    reason, when it is short)."""
    trainable = params if method == "full" else lora_trainable
    checkpoint = trainable * (4 + 8)
    result = params * 4 + (lora_trainable * 4 if method == "lora" else 0)
    total = keep * checkpoint + max(checkpoint, result)
    free = free_bytes(output_dir) if output_dir else None
    return {"total_bytes": int(total), "checkpoint_bytes": int(checkpoint),
            "checkpoints_kept": keep, "result_bytes": int(result), "free_bytes": free,
            "fits": None if free is None else total <= free}


def percentile(values: list[int], share: float) -> int:
    """The nearest-rank percentile (share in 0..1) of non-empty values."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(share * len(ordered)) - 1)]


def _arg(args, name: str, default=None):
    value = getattr(args, name, None)
    return default if value is None else value


def make_plan(args) -> dict:
    """The plan's contents; DataError on bad input."""
    from transformers import AutoConfig, AutoTokenizer

    base = args.base_model
    # A Hub base at the revision the run will train (finetune.py refuses one for a local folder).
    revision = {"revision": args.base_revision} if _arg(args, "base_revision") else {}
    try:
        config = AutoConfig.from_pretrained(base, **revision)
        tokenizer = AutoTokenizer.from_pretrained(base, **revision)
    except (OSError, ValueError) as error:
        raise DataError(f"could not load base model {base}: {train_data.one_line(error)}") from None
    train_data.require_chat_template(tokenizer, _arg(args, "chat_template_file"), base,
                                     text=_arg(args, "chat_template"))
    entries = train_data.load_entries(args.data_file)
    max_len = int(args.max_len)
    rows, _ = train_data.encode_all(tokenizer, entries, sys.maxsize)
    lengths = {i: len(row["input_ids"]) for i, row in rows.items()}
    too_long = [i for i in sorted(lengths) if lengths[i] > max_len]
    if len(too_long) == len(entries):
        raise DataError(train_data.too_long_message(len(too_long), len(entries), max_len))
    usable = {i: rows[i] for i in lengths if lengths[i] <= max_len}
    train, held_out = train_data.split_encoded(usable, _arg(args, "eval_fraction", 0.1),
                                               _arg(args, "seed", 42))

    world = int(os.environ.get("WORLD_SIZE", "1") or 1)
    batch = int(_arg(args, "batch_size", 1))
    effective = batch * int(_arg(args, "grad_accum", 1)) * world
    epochs_arg = _arg(args, "epochs")
    if epochs_arg:
        steps = max(1, math.ceil(len(train) * float(epochs_arg) / effective))
    else:
        steps = int(args.max_steps)
    method = _arg(args, "method", "lora")
    parameters, lora = count_parameters(config, int(_arg(args, "lora_r", 16)))
    trainable = lora if method == "lora" else parameters
    import torch

    device = describe_device(torch)
    device_memory = device["memory"]
    precision = resolve_precision(device)
    checkpointing = resolve_checkpointing(_arg(args, "gradient_checkpointing", "auto"),
                                          parameters)
    longest_usable = max(lengths[i] for i in usable)
    # The launcher shards with FSDP (the service says so): across GPUs only; on the CPU accelerate
    # runs the processes as DDP, each holding everything.
    sharded = os.environ.get("TRAINING_SHARDED") == "fsdp"
    shards = world if sharded and device["kind"] == "cuda" else 1
    memory = estimate_memory(config, parameters, method, precision, batch, longest_usable,
                             checkpointing, lora, device=device["kind"], shards=shards)
    if sharded and shards == 1 and world > 1:
        memory["note"] += (f"; FSDP shards across GPUs only: on this {device['kind'].upper()} the "
                           f"{world} processes run as DDP, each holding everything")
    kept = [lengths[i] for i in usable]
    return {
        "entries": len(entries), "train": len(train), "held_out": len(held_out),
        "too_long": {"count": len(too_long), "indices": too_long,
                     **({"message": train_data.too_long_message(len(too_long), len(entries),
                                                                max_len)} if too_long else {})},
        "tokens": {"max": max(lengths.values()), "p95": percentile(list(lengths.values()), 0.95),
                   "over_max_len": len(too_long), "max_len": max_len,
                   "max_trained": max(kept)},
        "steps": steps, "epochs": round(steps * effective / len(train), 4),
        "effective_batch": effective, "world_size": world,
        "parameters": parameters, "trainable_parameters": trainable,
        "device": device["kind"], "device_name": device["name"],
        "device_memory_bytes": device_memory, "precision": precision,
        "gradient_checkpointing": checkpointing, "memory": memory,
        "fits": None if device_memory is None else memory["total_bytes"] <= device_memory,
        "disk": estimate_disk(parameters, lora, method, int(_arg(args, "keep_checkpoints", 2)),
                              _arg(args, "output_dir")),
    }


def run_plan(args, say) -> int:
    """Prints {"plan": {...}} as one line through `say` and returns 0; bad input: "error: ..." on
    stderr, 2."""
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    try:
        plan = make_plan(args)
    except DataError as error:
        print(f"error: {error}", file=sys.stderr, flush=True)
        return 2
    say(json.dumps({"plan": plan}, ensure_ascii=False))
    return 0



FIELDS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src", "shared",
                      "training-fields.json")


def field_defaults(method: str = "lora", **values) -> "argparse.Namespace":
    """A namespace holding every training option's default for the method
    (src/shared/training-fields.json), overridden by values: the args run_plan reads, for callers
    that do not parse the trainer's command line (the benchmark, the tests)."""
    import argparse

    with open(FIELDS, encoding="utf-8") as handle:
        fields = json.load(handle)["fields"]
    args = {}
    for field in fields:
        default = field.get("default")
        args[field["name"]] = default.get(method) if isinstance(default, dict) else default
    args.update({"method": method, "chat_template_file": None, **values})
    return argparse.Namespace(**args)
