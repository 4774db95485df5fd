"""Browser export of a merged causal LM for transformers.js, without Optimum, checked before publishing.

    export_web(merged_dir, web_dir, say, variants=None, graph="auto", chunk_bytes=1 GiB) -> report

merged_dir is a Hugging Face folder (config, safetensors weights in any precision, tokenizer,
generation config). Every file's inputs and outputs are exactly the ones transformers.js feeds and
reads (`input_ids`, `attention_mask`, `position_ids`, `past_key_values.{i}.key|value` → `logits`,
`present.{i}.key|value`). Two ways to build the graph:
- fused (Llama, Qwen2 and the other families training/onnx_fused.py knows): written directly from
  the safetensors weights, one tensor at a time, with ONNX Runtime's fused decoder operators
  (GroupQueryAttention, RotaryEmbedding, MatMulNBits, SimplifiedLayerNormalization and its Skip
  variant), each variant built from the weights on its own;
- eager (the rest): torch.onnx.export (TorchScript, `dynamo=False`) of the eager model, then ONNX
  Runtime's converters to fp16 and to 4-bit MatMulNBits (block size 32, symmetric: transformers.js's
  own conversion settings).
Either way the weights are external data in chunks of at most 1 GiB (training/onnx_files.py says
why), counted in config.json's `transformers.js_config.use_external_data_format`.

Which variants (BROWSER_RULE): q4f16 and q4 always, fp16 and fp32 while their files total at most
4 GiB, or exactly the ones asked for. Before anything is written the disk is checked against an
estimate of what the export needs (refused with both figures).

What transformers.js 4.x feeds (src/models/modeling_utils.js, decoder_forward / addPastKeyValues):
int64 `input_ids`, `attention_mask` (past + new tokens) and, because the session declares it,
`position_ids` = cumsum(mask) - 1 (1 where masked). For the first step it builds the empty past
from the session's own input metadata: the dtype the file declares, and the declared shape with the
symbol `batch_size` set to the batch, every other symbol set to 0 and numbers kept. So the batch axis
must be called `batch_size` and the kv-head and head-dim axes must be fixed numbers; afterwards it
feeds back the `present.*` outputs as `past_key_values.*`, so each present must have its past's
dtype. Here fp32 and q4 files take and return float32 caches; fp16 and q4f16 files take float16 past
and return float16 present (half the cache memory), and every file returns float32 logits.

Each variant is built, checked and published on its own: checked with ONNX Runtime (Python)
against the merged PyTorch model on a chat-templated prompt, fed exactly as transformers.js feeds it
(a prefill from the empty past, then one decode step per PyTorch greedy token, each fed the cache
the previous step returned; see RULE). A variant that fails is left out with its figures; when none
passes, ExportSkipped carries the reason and the figures. The PyTorch model is released once its
reference is taken, so the export holds at most one variant in memory. export.json also carries
the reference (prompt ids, PyTorch's greedy tokens and margins) that the page replays on the
user's GPU. Everything is built in `web_dir + ".partial"` and renamed to web_dir only when
complete; any exception (a cancel's SIGTERM included, see finetune.py) removes it.
"""
from __future__ import annotations

import inspect
import json
import logging
import os
import shutil
import time
import warnings
from typing import Callable

import cancel
import onnx_files
from disk import existing_parent, size_text
from model_folder import checked_config, read_json

SUPPORTED = ("llama", "qwen2", "qwen3", "gemma2", "gemma3_text", "phi3")
VARIANTS = ("fp32", "fp16", "q4", "q4f16")
# transformers.js's file names (DEFAULT_DTYPE_SUFFIX_MAPPING): onnx/model{suffix}.onnx.
FILE_NAMES = {"fp32": "model.onnx", "fp16": "model_fp16.onnx", "q4": "model_q4.onnx",
              "q4f16": "model_q4f16.onnx"}
OPSET = 17
Q4_BLOCK_SIZE = 32
# export.json's format (2: chunked external data, per-variant publishing, the replay reference;
# 3: q4/q4f16 with the embedding table in 4 bits). Part of a base export's identity: a base
# exported in an older format is exported again.
FORMAT = 3
# The order variants are built, checked and published in: what browsers load first.
PUBLISH_ORDER = ("q4f16", "q4", "fp16", "fp32")
# BROWSER_RULE: a variant goes into the default export when a browser tab can hold it.
BROWSER_MAX_BYTES = 4 << 30
BROWSER_RULE = (
    "q4f16 and q4 are always exported; fp16 and fp32 only when their files total at most 4 GiB "
    "(a tab's WebAssembly memory is at most 4 GiB, and ONNX Runtime Web's CPU fallback holds the "
    "weights there), unless asked for by name")
CHUNK_BYTES = onnx_files.CHUNK_BYTES
# Logits tolerance per variant: max |ONNX - PyTorch| <= ATOL * max(1, max |PyTorch logit|).
ATOL = {"fp32": 1e-4, "fp16": 2e-2, "q4": 0.3, "q4f16": 0.3}
# Tokens are compared where PyTorch's top-1 lead over the runner-up is at least
# CLEAR * max(1, max |PyTorch logit|); smaller leads are near-ties (recorded, not compared).
CLEAR = {"fp32": 1e-4, "fp16": 2e-2, "q4": 0.1, "q4f16": 0.1}
MIN_DECODE_STEPS = 16       # decode steps always run
MIN_TOKENS_COMPARED = 16    # clear-margin steps wanted for the token comparison
MAX_DECODE_STEPS = 48       # decoding stops here even when fewer clear steps were found
# ONNX Runtime's intra-op threads for the checks (0: its default, one per core). Tests on a shared
# machine set 1: spinning worker threads there cost far more than they bring for tiny models.
ORT_THREADS = 0
CHECK_PROMPT = "In one sentence, what is the capital of France and why is it famous?"
RULE = (
    "Reference: the merged PyTorch model (fp32, eager attention), greedy, on the chat-templated prompt. Each ONNX file "
    "runs in ONNX Runtime fed as transformers.js feeds it (empty past from the file's input "
    "metadata, position_ids = cumsum(attention_mask) - 1): a prefill, then one decode step per "
    "PyTorch greedy token, each fed the cache the previous step returned (at least "
    f"{MIN_DECODE_STEPS} decode steps, up to {MAX_DECODE_STEPS} until {MIN_TOKENS_COMPARED} "
    "clear-margin steps are seen). Logits: max |ONNX - PyTorch| over the vocabulary (prefill: "
    "every prompt position; decode: the new position) <= tolerance = atol * max(1, max |PyTorch "
    "logit|) at every step. Tokens: at every step where PyTorch's top-1 logit leads the runner-up "
    "by at least clear * max(1, max |PyTorch logit|) (a clear margin), the ONNX argmax equals "
    "PyTorch's; steps below "
    "that margin are near-ties, recorded but not compared. When fewer than "
    f"{MIN_TOKENS_COMPARED} clear steps exist, the token comparison is recorded as inconclusive "
    "and the logits check alone decides."
)


class ExportSkipped(Exception):
    """The browser export was not made; `reason` is one sentence saying why, `report` the figures
    of the variants that were tried (None when none was)."""

    def __init__(self, reason: str, report: dict | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.report = report


class _VariantFailed(Exception):
    pass


def _versions() -> dict:
    import onnx
    import onnxruntime
    import torch
    import transformers
    return {"torch": torch.__version__, "transformers": transformers.__version__,
            "onnx": onnx.__version__, "onnxruntime": onnxruntime.__version__}


def _write_json(path: str, data: dict) -> None:
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(data, handle, indent=2, ensure_ascii=False)
        handle.write("\n")


def supported_problem(config: dict) -> str | None:
    """None when config.json describes a supported decoder-only family, else the reason."""
    model_type = config.get("model_type")
    if model_type in SUPPORTED:
        return None
    arch = ", ".join(config.get("architectures") or []) or "no architectures listed"
    return (f"the browser export supports decoder-only {', '.join(SUPPORTED)} models, and this one "
            f"is model_type {model_type!r} ({arch})")


# ---------------------------------------------------------------- the wrapped model and its export

def _io_names(num_layers: int) -> tuple[list[str], list[str]]:
    past = [f"past_key_values.{i}.{kind}" for i in range(num_layers) for kind in ("key", "value")]
    present = [f"present.{i}.{kind}" for i in range(num_layers) for kind in ("key", "value")]
    return ["input_ids", "attention_mask", "position_ids", *past], ["logits", *present]


def _wrapper(model, num_layers: int):
    import torch
    from transformers import DynamicCache

    class TransformersJsDecoder(torch.nn.Module):
        """transformers.js's decoder signature around a Hugging Face causal LM.

        The past tensors become a DynamicCache of full layers (no sliding-window truncation: the
        sliding window of Gemma2's local layers is applied by the attention mask, so present stays
        past + new, which is what transformers.js's growing attention_mask expects)."""

        def __init__(self, inner) -> None:
            super().__init__()
            self.inner = inner

        def forward(self, input_ids, attention_mask, position_ids, *past):
            cache = DynamicCache(ddp_cache_data=[(past[2 * i], past[2 * i + 1])
                                                 for i in range(num_layers)])
            out = self.inner(input_ids=input_ids, attention_mask=attention_mask,
                             position_ids=position_ids, past_key_values=cache, use_cache=True,
                             return_dict=True)
            present = []
            for layer in out.past_key_values.layers:
                present += [layer.keys, layer.values]
            return (out.logits, *present)

    return TransformersJsDecoder(model)


class _TracedLongRope:
    """Makes a longrope rotary embedding traceable: transformers picks the short or the long
    frequencies with a Python `if` on max(position_ids) + 1 (which the tracer would fix at the
    traced length); here the choice is a torch.where in the graph, per call as transformers
    makes it. Undone on exit."""

    def __init__(self, model) -> None:
        self.model = model
        self.patched: list = []

    def __enter__(self):
        import torch
        from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS

        for module in self.model.modules():
            if getattr(module, "rope_type", None) != "longrope" or not hasattr(
                    module, "original_inv_freq"):
                continue
            # The undecorated forward (under no_grad and dynamic_rope_update, whose `if` it skips).
            forward = inspect.unwrap(type(module).forward)
            if forward is type(module).forward:
                continue
            limit = module.config.rope_parameters["original_max_position_embeddings"]
            short = module.original_inv_freq.detach().clone()
            long, _ = ROPE_INIT_FUNCTIONS["longrope"](module.config, short.device,
                                                       seq_len=limit + 1)

            def traced(x, position_ids, _m=module, _f=forward, _s=short, _l=long, _n=limit):
                beyond = (position_ids.max() + 1) > _n
                _m.inv_freq = torch.where(beyond, _l.to(_s.dtype), _s)
                return _f(_m, x, position_ids)

            self.patched.append((module, module.inv_freq))
            module.forward = traced
        return self

    def __exit__(self, *exc) -> None:
        for module, inv_freq in self.patched:
            del module.forward
            module.inv_freq = inv_freq


def _kv_shape(config) -> tuple[int, int]:
    heads = getattr(config, "num_key_value_heads", None) or config.num_attention_heads
    head_dim = getattr(config, "head_dim", None) or config.hidden_size // config.num_attention_heads
    return heads, head_dim


def _export_torch(model, work_dir: str) -> str:
    """torch.onnx.export (TorchScript) of the wrapped model with transformers.js's io names/axes,
    into work_dir/model.onnx with its weights in chunks (save_chunked, streamed tensor by tensor);
    the path."""
    import torch

    config = model.config
    layers = config.num_hidden_layers
    heads, head_dim = _kv_shape(config)
    inputs, outputs = _io_names(layers)
    # Trace with batch 2, 5 new tokens and 3 past ones, so no size is 0 or 1 (which the tracer
    # could fold into a constant); the checks run other sizes (1 new token, empty past).
    batch, new, past_len = 2, 5, 3
    example = [torch.randint(0, config.vocab_size, (batch, new)),
               torch.ones(batch, past_len + new, dtype=torch.long),
               torch.arange(past_len, past_len + new).unsqueeze(0).expand(batch, new).contiguous()]
    example += [torch.zeros(batch, heads, past_len, head_dim) for _ in range(2 * layers)]
    axes = {"input_ids": {0: "batch_size", 1: "sequence_length"},
            "attention_mask": {0: "batch_size", 1: "total_sequence_length"},
            "position_ids": {0: "batch_size", 1: "sequence_length"},
            "logits": {0: "batch_size", 1: "sequence_length"}}
    for name in inputs[3:]:
        axes[name] = {0: "batch_size", 2: "past_sequence_length"}
    for name in outputs[1:]:
        axes[name] = {0: "batch_size", 2: "total_sequence_length"}
    raw_dir = os.path.join(work_dir, "torch-export")
    os.makedirs(raw_dir, exist_ok=True)
    raw = os.path.join(raw_dir, "model.onnx")
    with warnings.catch_warnings(), torch.no_grad(), _TracedLongRope(model):
        warnings.simplefilter("ignore")
        torch.onnx.export(_wrapper(model, layers), tuple(example), raw, input_names=inputs,
                          output_names=outputs, dynamic_axes=axes, opset_version=OPSET,
                          do_constant_folding=True, dynamo=False)
    import onnx
    # The graph without its weights (the exporter writes them beside it past 2 GiB); save_chunked
    # copies them into chunks one tensor at a time.
    proto = onnx.load(raw, load_external_data=False)
    path = os.path.join(work_dir, FILE_NAMES["fp32"])
    onnx_files.save_chunked(proto, path, source_dir=raw_dir, chunk_bytes=CHUNK_BYTES)
    del proto
    shutil.rmtree(raw_dir, ignore_errors=True)
    return path


def _load(path: str):
    import onnx
    return onnx.load(path)  # with its external data, if any


def _to_fp16(proto):
    """fp16 weights and activations; float16 past/present (transformers.js feeds what the file
    declares), float32 logits."""
    import onnx
    from onnxruntime.transformers.float16 import convert_float_to_float16

    # Its INFO lines dump whole graph nodes into the run's log.
    logging.getLogger("onnxruntime.transformers.float16").setLevel(logging.WARNING)

    big = onnx_files.tensor_bytes(proto) >= onnx.checker.MAXIMUM_PROTOBUF
    # Two parts stay float32, as in the PyTorch code (which upcasts both):
    # - the rotary embedding: its angles (position x frequency) reach the context length, where
    #   float16 keeps few bits after the point (at position 2,048 its step is 2 radians);
    # - the RMS norms: the mean of x^2 overflows float16 once |x| > 256 (real models have such
    #   outliers) and loses precision for small x (on the tiny test models this alone made the
    #   fp16 logits 30-100x further from PyTorch's).
    # The converter casts their inputs to float32 and their outputs back to float16.
    blocked = [node.name for node in proto.graph.node
               if "rotary_emb" in node.name or "norm" in node.name.lower()]
    converted = convert_float_to_float16(proto, keep_io_types=["logits"], disable_shape_infer=big,
                                         node_block_list=blocked)
    # The converter inserts the same Cast twice where a blocked node reads one tensor twice
    # (cat(freqs, freqs)); ONNX Runtime refuses duplicate node names, and the copies are identical.
    seen, keep = set(), []
    for node in converted.graph.node:
        key = node.SerializeToString()
        if key not in seen:
            seen.add(key)
            keep.append(node)
    if len(keep) != len(converted.graph.node):
        del converted.graph.node[:]
        converted.graph.node.extend(keep)
    return converted


def _to_q4(proto):
    """4-bit MatMulNBits, block 32, symmetric: transformers.js's quantize.py settings."""
    from onnxruntime.quantization.matmul_nbits_quantizer import MatMulNBitsQuantizer

    logging.getLogger("onnxruntime.quantization.matmul_nbits_quantizer").setLevel(logging.WARNING)
    quantizer = MatMulNBitsQuantizer(proto, bits=4, block_size=Q4_BLOCK_SIZE, is_symmetric=True,
                                     accuracy_level=None)
    quantizer.process()
    return quantizer.model.model


# ----------------------------------------------------------------------------- the reference run

def _prompt_ids(tokenizer) -> list[int]:
    messages = [{"role": "user", "content": CHECK_PROMPT}]
    if getattr(tokenizer, "chat_template", None):
        out = tokenizer.apply_chat_template(messages, add_generation_prompt=True, tokenize=True,
                                            return_dict=True)
        return list(out["input_ids"])
    return list(tokenizer(CHECK_PROMPT)["input_ids"])


def reference_run(model, prompt: list[int], max_steps: int = MAX_DECODE_STEPS) -> dict:
    """PyTorch greedy from the prompt with the model's own cache: per-step logits (prefill: every
    prompt position), tokens and top-1 margins."""
    import torch

    with torch.no_grad():
        out = model(input_ids=torch.tensor([prompt]), use_cache=True)
        logits = [out.logits[0].float().numpy()]
        cache = out.past_key_values
        tokens, margins = [], []
        for step in range(max_steps + 1):
            last = out.logits[0, -1].float()
            top = torch.topk(last, 2)
            tokens.append(int(top.indices[0]))
            margins.append(float(top.values[0] - top.values[1]))
            if step == max_steps:
                break
            out = model(input_ids=torch.tensor([[tokens[-1]]]), past_key_values=cache,
                        use_cache=True)
            cache = out.past_key_values
            logits.append(out.logits[0, -1:].float().numpy())
    return {"prompt": prompt, "logits": logits, "tokens": tokens, "margins": margins}


# ------------------------------------------------------------------- feeding like transformers.js

def io_contract(session, num_layers: int) -> dict:
    """The file's io as transformers.js sees it; raises _VariantFailed where it could not run it."""
    inputs = {i.name: (i.type, list(i.shape)) for i in session.get_inputs()}
    outputs = {o.name: (o.type, list(o.shape)) for o in session.get_outputs()}
    want_in, want_out = _io_names(num_layers)
    if sorted(inputs) != sorted(want_in) or sorted(outputs) != sorted(want_out):
        raise _VariantFailed(f"io names {sorted(inputs)} -> {sorted(outputs)} are not "
                             "transformers.js's")
    for name in ("input_ids", "attention_mask", "position_ids"):
        if inputs[name][0] != "tensor(int64)":
            raise _VariantFailed(f"{name} is {inputs[name][0]}, transformers.js feeds int64")
    if outputs["logits"][0] not in ("tensor(float)", "tensor(float16)"):
        raise _VariantFailed(f"logits are {outputs['logits'][0]}")
    for past_name, present_name in zip(want_in[3:], want_out[1:]):
        dtype, shape = inputs[past_name]
        if dtype not in ("tensor(float)", "tensor(float16)"):
            raise _VariantFailed(f"{past_name} is {dtype}")
        if outputs[present_name][0] != dtype:
            raise _VariantFailed(f"{present_name} is {outputs[present_name][0]} but "
                                 f"{past_name} is {dtype}: transformers.js feeds one back as the "
                                 "other")
        if len(shape) != 4 or shape[0] != "batch_size" or not all(
                isinstance(d, int) for d in (shape[1], shape[3])) or isinstance(shape[2], int):
            raise _VariantFailed(f"{past_name} has shape {shape}; transformers.js needs "
                                 "[batch_size, <kv heads>, <past symbol>, <head dim>]")
    past_type = inputs[want_in[3]][0] if num_layers else "tensor(float)"
    plain = {"tensor(float)": "float32", "tensor(float16)": "float16"}
    return {"past_dtype": plain[past_type], "logits_dtype": plain[outputs["logits"][0]],
            "past_shape": inputs[want_in[3]][1] if num_layers else None}


def empty_past(session, batch: int) -> dict:
    """What addPastKeyValues builds: the declared dtype and shape, batch_size -> batch, other
    symbols -> 0."""
    import numpy as np

    dtypes = {"tensor(float)": np.float32, "tensor(float16)": np.float16}
    feeds = {}
    for meta in session.get_inputs():
        if meta.name.startswith("past_key_values."):
            shape = [d if isinstance(d, int) else (batch if d == "batch_size" else 0)
                     for d in meta.shape]
            feeds[meta.name] = np.zeros(shape, dtype=dtypes[meta.type])
    return feeds


def position_ids(mask, new: int):
    """create_position_ids: cumsum(mask) - 1, 1 where masked, the last `new` columns."""
    import numpy as np

    pos = np.cumsum(mask, axis=-1) - 1
    pos[mask == 0] = 1
    return pos[:, -new:].astype(np.int64)


def check_variant(path: str, reference: dict, num_layers: int, variant: str) -> dict:
    """Runs `path` as transformers.js would against the PyTorch reference; the figures (RULE)."""
    import numpy as np
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = ORT_THREADS
    session = ort.InferenceSession(path, options, providers=["CPUExecutionProvider"])
    result = {"tolerance": None, "steps": [], "passed": False, "failure": None}
    try:
        result["io"] = io_contract(session, num_layers)
    except _VariantFailed as error:
        result["failure"] = str(error)
        return result
    outputs = [o.name for o in session.get_outputs()]
    scale = max(1.0, max(float(np.abs(lg).max()) for lg in reference["logits"]))
    tol = ATOL[variant] * scale
    clear_margin = CLEAR[variant] * scale
    result["tolerance"] = {"atol": ATOL[variant], "clear": CLEAR[variant], "logit_scale": scale,
                           "max_abs_diff": tol, "clear_margin": clear_margin}
    prompt, tokens, margins = reference["prompt"], reference["tokens"], reference["margins"]
    ids = np.array([prompt], dtype=np.int64)
    mask = np.ones((1, len(prompt)), dtype=np.int64)
    feeds = {"input_ids": ids, "attention_mask": mask, "position_ids": position_ids(mask, len(prompt)),
             **empty_past(session, 1)}
    compared = agreed = 0
    failures = []
    steps_run = 0
    for step, ref_logits in enumerate(reference["logits"]):
        got = session.run(None, feeds)
        named = dict(zip(outputs, got))
        logits = named["logits"][0].astype(np.float32)
        if step > 0:
            logits = logits[-1:]
        diff = float(np.abs(logits - ref_logits).max()) if np.isfinite(logits).all() else float("inf")
        token = int(np.argmax(logits[-1]))
        margin = margins[step]
        clear = margin >= clear_margin
        agree = token == tokens[step]
        if clear:
            compared += 1
            agreed += int(agree)
        result["steps"].append({"step": step, "kind": "prefill" if step == 0 else "decode",
                                "max_abs_diff": diff, "pytorch_token": tokens[step],
                                "onnx_token": token, "pytorch_margin": round(margin, 6),
                                "compared": clear, "agree": agree})
        if diff > tol:
            failures.append(f"step {step}: logits differ by {diff:.3g} > {tol:.3g}")
        if clear and not agree:
            failures.append(f"step {step}: token {token} != PyTorch's {tokens[step]} "
                            f"(margin {margin:.3g})")
        steps_run = step
        if step >= MIN_DECODE_STEPS and compared >= MIN_TOKENS_COMPARED:
            break
        if step == len(reference["logits"]) - 1:
            break
        mask = np.ones((1, mask.shape[1] + 1), dtype=np.int64)
        feeds = {"input_ids": np.array([[tokens[step]]], dtype=np.int64), "attention_mask": mask,
                 "position_ids": position_ids(mask, 1)}
        for out_name, value in named.items():
            if out_name.startswith("present."):
                feeds["past_key_values." + out_name[len("present."):]] = value
    result["decode_steps"] = steps_run
    result["max_abs_diff"] = max(s["max_abs_diff"] for s in result["steps"])
    result["tokens_compared"] = compared
    result["tokens_agreed"] = agreed
    result["tokens"] = ("inconclusive" if compared < MIN_TOKENS_COMPARED else
                        "agree" if agreed == compared else "disagree")
    result["greedy_pytorch"] = tokens[1:steps_run + 1]
    if failures:
        result["failure"] = "; ".join(failures[:3]) + (
            f" (+{len(failures) - 3} more)" if len(failures) > 3 else "")
    else:
        result["passed"] = True
    return result


# --------------------------------------------------------------------------------- the folder

def _copy_model_files(merged_dir: str, dest: str) -> None:
    for name in sorted(os.listdir(merged_dir)):
        src = os.path.join(merged_dir, name)
        if not os.path.isfile(src) or name.endswith((".safetensors", ".bin", ".pt", ".pth")):
            continue
        if name == "model.safetensors.index.json" or name.startswith("."):
            continue
        if name.endswith((".json", ".jinja", ".model", ".txt", ".tiktoken")):
            shutil.copy2(src, os.path.join(dest, name))
    # transformers 5 saves the chat template as chat_template.jinja; transformers.js's tokenizer
    # reads it from tokenizer_config.json only.
    template = os.path.join(dest, "chat_template.jinja")
    tok_config = os.path.join(dest, "tokenizer_config.json")
    if os.path.isfile(template) and os.path.isfile(tok_config):
        data = read_json(tok_config)
        if not data.get("chat_template"):
            with open(template, encoding="utf-8") as handle:
                data["chat_template"] = handle.read()
            _write_json(tok_config, data)


def _notes(config: dict) -> list[str]:
    notes = []
    rope = config.get("rope_scaling") or config.get("rope_parameters") or {}
    kind = str(rope.get("rope_type", rope.get("type", ""))) if isinstance(rope, dict) else ""
    if kind == "dynamic":
        # transformers recomputes these frequencies under a Python `if` on the sequence length,
        # which the tracer fixes at the traced (short) length. (longrope's `if` is replaced by a
        # graph op while exporting: _TracedLongRope.)
        limit = (rope.get("original_max_position_embeddings")
                 or config.get("original_max_position_embeddings")
                 or config.get("max_position_embeddings"))
        notes.append(f"{kind} rope: the ONNX files use the short-context frequencies, right up to "
                     f"{limit} positions; past that they differ from PyTorch (the checks run "
                     "well inside it)")
    return notes


# ------------------------------------------------------------------- sizes, disk and variants

def weight_stats(merged_dir: str) -> dict:
    """Parameter counts read from the safetensors headers (no weight is loaded): all of them, the
    embedding table's, the untied lm_head's (0 when tied), those in 1-D tensors (norms, biases),
    and the weights' bytes on disk."""
    from safetensors import safe_open

    index = os.path.join(merged_dir, "model.safetensors.index.json")
    if os.path.isfile(index):
        files = sorted(set(read_json(index)["weight_map"].values()))
    else:
        files = sorted(n for n in os.listdir(merged_dir) if n.endswith(".safetensors"))
    if not files:
        raise ExportSkipped(f"{merged_dir} has no safetensors weights to read")
    total = embed = head = vectors = disk = columns = 0
    for name in files:
        path = os.path.join(merged_dir, name)
        disk += os.path.getsize(path)
        with safe_open(path, framework="pt") as handle:
            for key in handle.keys():
                shape = handle.get_slice(key).get_shape()
                count = 1
                for dim in shape:
                    count *= dim
                total += count
                vectors += count if len(shape) == 1 else 0
                if key.endswith("embed_tokens.weight"):
                    embed, columns = count, shape[-1]
                elif key.endswith("lm_head.weight"):
                    head = count
    return {"parameters": total, "embedding": embed, "embedding_columns": columns,
            "lm_head": head, "vectors": vectors, "weight_bytes": disk}


def estimate_bytes(stats: dict, variant: str, graph: str = "fused") -> int:
    """About how many bytes a variant's files take. q4/q4f16: every matrix in 4 bits with one scale
    per block of Q4_BLOCK_SIZE (fp32 scales for q4, fp16 for q4f16). The fused graph quantizes the
    embedding table too (when its rows are whole blocks) and stores a tied one once, with a second
    copy of its scales; the eager graph keeps the table at the activations' precision and stores a
    tied lm_head again (quantised, or as is)."""
    total, embed, head = stats["parameters"], stats["embedding"], stats["lm_head"]
    tied_head = embed if not head else 0
    fused = graph == "fused"
    if variant in ("fp32", "fp16"):
        width = 4 if variant == "fp32" else 2
        return width * (total + (0 if fused else tied_head))
    scale = 4 if variant == "q4" else 2
    per_weight = 0.5 + scale / Q4_BLOCK_SIZE
    columns = stats.get("embedding_columns", 0)
    if fused and columns and columns % Q4_BLOCK_SIZE == 0:
        return int(total * per_weight + tied_head * scale / Q4_BLOCK_SIZE)
    matrices = total - embed + tied_head
    return int(matrices * per_weight + embed * scale)


def default_variants(stats: dict) -> tuple[str, ...]:
    """BROWSER_RULE: q4f16 and q4 always; fp16 and fp32 when a browser can hold them."""
    return tuple(v for v in PUBLISH_ORDER
                 if v in ("q4f16", "q4") or estimate_bytes(stats, v) <= BROWSER_MAX_BYTES)


def disk_needed(stats: dict, variants: tuple, graph: str) -> int:
    """The most bytes the export has on disk at once: the variants it keeps, plus (eager graph) the
    fp32 export it converts them from and the exporter's own copy of it, with 5 % to spare."""
    need = sum(estimate_bytes(stats, v, graph) for v in variants)
    if graph == "eager":
        need += 2 * estimate_bytes(stats, "fp32")
    return int(need * 1.05)


def check_disk(web_dir: str, need: int) -> None:
    """Refuses (ExportSkipped) before anything is written when the disk cannot take `need` bytes."""
    folder = existing_parent(os.path.dirname(os.path.abspath(web_dir)))
    free = shutil.disk_usage(folder).free
    if need > free:
        raise ExportSkipped(f"needs about {size_text(need)} free in {folder}; "
                            f"{size_text(free)} free")


def _fused_problem(config: dict) -> str | None:
    try:
        import onnx_fused
    except ImportError as error:
        return f"the fused graph builder is not available ({error})"
    return onnx_fused.fused_problem(config)


# ----------------------------------------------------------------------------------- the export

def export_web(merged_dir: str, web_dir: str, say: Callable[[str], None],
               variants: tuple | list | None = None, graph: str = "auto",
               chunk_bytes: int = onnx_files.CHUNK_BYTES) -> dict:
    """Exports, checks and publishes merged_dir to web_dir; the export.json report (see module).

    variants: None for BROWSER_RULE's choice, else exactly these. graph: "fused" (ONNX Runtime's
    fused decoder operators, written from the weights by onnx_fused), "eager" (torch.onnx.export of
    the eager model, then ONNX Runtime's converters), or "auto" (fused where the family has it)."""
    started = time.monotonic()
    config = checked_config(merged_dir, supported_problem, ExportSkipped,
                            "so it is not a Hugging Face model folder the browser export can read")
    if graph not in ("auto", "fused", "eager"):
        raise ValueError(f"unknown graph {graph!r} (auto, fused or eager)")
    fused_reason = _fused_problem(config) if graph != "eager" else "eager graph asked for"
    if graph == "fused" and fused_reason:
        raise ExportSkipped(f"no fused graph for this model: {fused_reason}")
    use = "eager" if fused_reason else "fused"
    stats = weight_stats(merged_dir)
    chosen = tuple(variants) if variants else default_variants(stats)
    unknown = [v for v in chosen if v not in VARIANTS]
    if unknown or not chosen:
        raise ValueError(f"unknown variants {unknown} (known: {', '.join(VARIANTS)})")
    check_disk(web_dir, disk_needed(stats, chosen, use))

    partial = web_dir.rstrip("/\\") + ".partial"
    shutil.rmtree(partial, ignore_errors=True)
    try:
        report = _build(merged_dir, partial, config, chosen, use, fused_reason, stats, chunk_bytes,
                        say, started)
        old = web_dir.rstrip("/\\") + ".old"
        shutil.rmtree(old, ignore_errors=True)
        if os.path.exists(web_dir):
            os.replace(web_dir, old)
        os.replace(partial, web_dir)
        shutil.rmtree(old, ignore_errors=True)
    except BaseException:
        shutil.rmtree(partial, ignore_errors=True)
        raise
    return report


def _convert_eager(fp32_path: str, path: str, variant: str, chunk_bytes: int) -> None:
    """One variant from the eager fp32 export, its weights in chunks."""
    import onnx

    if variant == "fp32":
        proto = onnx.load(fp32_path, load_external_data=False)
        onnx_files.save_chunked(proto, path, source_dir=os.path.dirname(fp32_path),
                                chunk_bytes=chunk_bytes)
        return
    proto = _load(fp32_path)
    if variant in ("q4", "q4f16"):
        proto = _to_q4(proto)
    if variant in ("fp16", "q4f16"):
        proto = _to_fp16(proto)
    onnx_files.save_chunked(proto, path, chunk_bytes=chunk_bytes)


def _build(merged_dir: str, out: str, config: dict, variants: tuple, graph: str,
           fused_reason: str | None, stats: dict, chunk_bytes: int, say, started: float) -> dict:
    import gc

    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    onnx_dir = os.path.join(out, "onnx")
    work_dir = os.path.join(out, ".work")
    os.makedirs(onnx_dir)
    say(f"browser export of {config.get('model_type')} ({', '.join(variants)}), "
        + ("ONNX Runtime's fused decoder operators" if graph == "fused" else
           f"torch.onnx.export then ONNX Runtime fp16 / 4-bit ({fused_reason})"))
    tokenizer = AutoTokenizer.from_pretrained(merged_dir)
    # Eager attention for the reference as well as the export: it is the models' own definition
    # (SDPA silently drops Gemma2's attention soft-capping, so Gemma2 under SDPA is another model).
    model = AutoModelForCausalLM.from_pretrained(merged_dir, dtype=torch.float32,
                                                 attn_implementation="eager").eval()
    layers = model.config.num_hidden_layers
    prompt = _prompt_ids(tokenizer)
    t0 = time.monotonic()
    reference = reference_run(model, prompt)
    reference_seconds = time.monotonic() - t0

    report = {
        "format": FORMAT,
        "model_type": config.get("model_type"),
        "architectures": config.get("architectures"),
        "graph": graph,
        "exporter": ("training/onnx_fused.py: GroupQueryAttention, RotaryEmbedding, MatMulNBits, "
                     "(Skip)SimplifiedLayerNormalization, written from the safetensors weights"
                     if graph == "fused" else
                     f"torch.onnx.export (TorchScript, dynamo=False), opset {OPSET}"),
        "quantisation": {"q4": f"MatMulNBits 4-bit, block_size {Q4_BLOCK_SIZE}, symmetric, "
                               "float32 scales and activations",
                         "q4f16": f"MatMulNBits 4-bit, block_size {Q4_BLOCK_SIZE}, symmetric, "
                                  "float16 scales and activations",
                         "fp16": "float16 weights and activations, float32 logits"},
        "parameters": stats["parameters"],
        "chunk_bytes": chunk_bytes,
        "browser_rule": BROWSER_RULE,
        "versions": _versions(),
        "check": {"prompt": CHECK_PROMPT, "prompt_tokens": len(prompt), "rule": RULE,
                  "atol": ATOL, "clear": CLEAR, "reference_seconds": round(reference_seconds, 3)},
        # What the page replays on the user's GPU: the prompt's ids and PyTorch's greedy
        # continuation from merged/, with its top-1 margin at each step.
        "reference": {"prompt_ids": prompt, "tokens": reference["tokens"],
                      "margins": [round(m, 6) for m in reference["margins"]]},
        "notes": _notes(config),
        "variants": {},
        "published": [],
        "failed": [],
    }
    for note in report["notes"]:
        say(f"browser export: note: {note}")

    fp32_work = None
    if graph == "eager":
        t0 = time.monotonic()
        try:
            fp32_work = _export_torch(model, work_dir)
        except Exception as error:  # noqa: BLE001 - reported as a skip with the exporter's words
            cancel.check()
            raise ExportSkipped(
                f"torch.onnx.export failed for this {config.get('model_type')} model "
                f"({type(error).__name__}: {str(error).splitlines()[0][:200]})") from error
        report["check"]["torch_export_seconds"] = round(time.monotonic() - t0, 3)
    # The reference is taken: the model is not needed any more, and each variant is built and
    # checked alone (peak memory: one variant's, not the model's plus it).
    del model
    gc.collect()

    for variant in PUBLISH_ORDER:
        if variant not in variants:
            continue
        path = os.path.join(onnx_dir, FILE_NAMES[variant])
        t0 = time.monotonic()
        try:
            if graph == "fused":
                import onnx_fused
                onnx_fused.build_decoder(merged_dir, path, variant, chunk_bytes=chunk_bytes)
            else:
                _convert_eager(fp32_work, path, variant, chunk_bytes)
        except Exception as error:  # noqa: BLE001 - one variant's failure is reported, not fatal
            cancel.check()
            onnx_files.remove_model(path)
            failure = (f"conversion failed: {type(error).__name__}: "
                       f"{str(error).splitlines()[0][:200] if str(error) else ''}")
            report["variants"][variant] = {"file": f"onnx/{FILE_NAMES[variant]}", "passed": False,
                                           "published": False, "failure": failure}
            report["failed"].append(variant)
            say(f"browser export: {variant} FAILED ({failure}); not published")
            continue
        gc.collect()
        entry = _check_and_record(variant, path, time.monotonic() - t0, reference, layers, say)
        report["variants"][variant] = entry
        entry["published"] = entry["passed"]
        if entry["passed"]:
            report["published"].append(variant)
        else:
            report["failed"].append(variant)
            onnx_files.remove_model(path)
    shutil.rmtree(work_dir, ignore_errors=True)
    report["seconds"] = round(time.monotonic() - started, 3)
    if not report["published"]:
        reasons = "; ".join(f"{v}: {report['variants'][v]['failure']}" for v in report["failed"])
        raise ExportSkipped(f"no browser variant passed its check ({reasons})", report)

    _copy_model_files(merged_dir, out)
    web_config = read_json(os.path.join(out, "config.json"))
    js_config = dict(web_config.get("transformers.js_config") or {})
    js_config.pop("use_external_data_format", None)
    chunks = {FILE_NAMES[v]: len(report["variants"][v]["external_data"])
              for v in report["published"] if report["variants"][v]["external_data"]}
    if chunks:
        js_config["use_external_data_format"] = chunks
    if js_config:
        web_config["transformers.js_config"] = js_config
    else:
        web_config.pop("transformers.js_config", None)
    _write_json(os.path.join(out, "config.json"), web_config)
    _write_json(os.path.join(out, "export.json"), report)
    say(f"browser export: published {', '.join(report['published'])}"
        + (f"; failed {', '.join(report['failed'])}" if report["failed"] else "")
        + f" ({report['seconds']:.1f}s)")
    return report


def _check_and_record(variant: str, path: str, build_seconds: float, reference: dict,
                      layers: int, say) -> dict:
    t0 = time.monotonic()
    try:
        result = check_variant(path, reference, layers, variant)
    except Exception as error:  # noqa: BLE001 - a file ONNX Runtime cannot run fails its check
        cancel.check()
        result = {"passed": False, "steps": [],
                  "failure": f"ONNX Runtime could not run it: {type(error).__name__}: "
                             f"{str(error).splitlines()[0][:200]}"}
    chunks = onnx_files.chunk_files(path)
    entry = {"file": f"onnx/{FILE_NAMES[variant]}", "external_data": chunks,
             "bytes": onnx_files.model_bytes(path),
             "seconds": {"build": round(build_seconds, 3),
                         "check": round(time.monotonic() - t0, 3)},
             **result}
    size = f"{entry['bytes']:,} bytes" + (f" in {len(chunks) + 1} files" if chunks else "")
    # No "a/b" figures in these lines: the service reads `N/M` as training progress.
    if entry["passed"]:
        say(f"browser export: {variant} ok (max logit diff {entry['max_abs_diff']:.3g} <= "
            f"{entry['tolerance']['max_abs_diff']:.3g}; {entry['tokens_agreed']} of "
            f"{entry['tokens_compared']} clear-margin tokens agree"
            + (f", fewer than {MIN_TOKENS_COMPARED} such steps: inconclusive, the logits decide"
               if entry["tokens"] == "inconclusive" else "")
            + f"; {size})")
    else:
        figure = entry.get("max_abs_diff")
        tol = (entry.get("tolerance") or {}).get("max_abs_diff")
        say(f"browser export: {variant} FAILED its check ({entry['failure']}"
            + (f"; max logit diff {figure:.3g}, tolerance {tol:.3g}" if figure is not None
               and tol is not None else "") + f"; {size}); not published")
    return entry
