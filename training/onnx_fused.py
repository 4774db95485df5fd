"""A transformers.js decoder written straight from safetensors, with ONNX Runtime's fused operators.

    problem = fused_problem(config)                 # None when the builder can make this model
    info = build_decoder(merged_dir, "onnx/model_q4.onnx", "q4")
    # {"files": ["model_q4.onnx", "model_q4.onnx_data", ...], "bytes": ..., "ops": [...],
    #  "seconds": ...}

Why a builder instead of torch.onnx.export: the exporter traces the whole PyTorch model, holds an
fp32 protobuf of it in memory and emits one small op per PyTorch op (RMSNorm as Pow/ReduceMean/Sqrt/
Div/Mul, rotary embedding as Slice/Neg/Concat/Mul/Add, attention as MatMul/Softmax plus the causal
mask arithmetic), which is slow to convert, slow to load and slow to run. The decoder-only families
here are a fixed recipe, so the graph is written directly, as ONNX Runtime's own model builder
(onnxruntime-genai, builder.py) writes it, with the operators ONNX Runtime fuses for them:

    Gather, or GatherBlockQuantized + Reshape for q4/q4f16 (embedding) [* sqrt(hidden) for gemma]
    per layer:  SimplifiedLayerNormalization / SkipSimplifiedLayerNormalization (RMSNorm and the
                residual add)
                MatMul or MatMulNBits (q, k, v) [+ Add bias] [+ per-head RMSNorm for qwen3, gemma3]
                RotaryEmbedding (q, k; fed transformers.js's position_ids)
                GroupQueryAttention (causal attention over past + new, returns the present cache)
                MatMul or MatMulNBits (o, gate, up, down), Sigmoid * Mul * Mul (SiLU(gate) * up)
                or, for gemma, FastGelu * Mul (GELU-tanh(gate) * up)
    SkipSimplifiedLayerNormalization (final norm), lm_head, Cast to float32 for the f16 variants
    [Div, Tanh, Mul: the logits' soft-capping, where the config has one (gemma2)]

Gemma 2 and Gemma 3 (text) map onto the same ops:
- RMSNorm multiplies by (1 + weight): 1 + weight is computed in float32 when the norm weights are
  written, so the fused norms take it as their scale;
- four norms per layer: input norm, attention, post-attention norm (SimplifiedLayerNormalization),
  then residual add and pre-feedforward norm in one SkipSimplifiedLayerNormalization, MLP,
  post-feedforward norm (SimplifiedLayerNormalization), and the residual add meets the next
  layer's input norm (or the final norm) in a SkipSimplifiedLayerNormalization;
- GroupQueryAttention's scale is query_pre_attn_scalar ** -0.5; attention soft-capping (Gemma 2)
  is refused (see WebGPU below; Gemma 3's attention does not soft-cap, whatever its config says);
- sliding layers (layer_types) get local_window_size = sliding_window: transformers keeps key j
  for query i when i - sliding_window < j <= i, the last sliding_window tokens with the query's own,
  which is what ONNX Runtime's CPU and WebGPU kernels attend to with that local_window_size. The
  cache keeps every token (present = past + new), as transformers.js's growing mask expects;
- the tanh GELU is com.microsoft FastGelu (ONNX Runtime CPU, float32 and float16, and WebGPU);
  ai.onnx Gelu(approximate="tanh") would need opset 20 for the whole graph;
- Gemma 3's rope parameters differ per layer type (another base for the sliding layers, scaling on
  the full ones): one cos/sin table per layer type, each layer's RotaryEmbedding reading its own.

Weights are read from the safetensors files (sharded or not, any float dtype) one tensor at a time,
a slice of rows at a time, converted or quantized into the variant's form and streamed into
external-data chunks by onnx_files.ChunkedWriter: the peak memory is about the largest tensor in its
output form (the embedding table) and no protobuf ever holds the weights.

Variants (transformers.js's file names are chosen by the caller):
- fp32: float32 weights and activations, float32 past/present;
- fp16: float16 weights and activations, float16 past/present (the norms accumulate in float32:
  stash_type=1), float32 logits;
- q4 / q4f16: every projection and lm_head as MatMulNBits, 4 bits, block 32, symmetric (the settings
  of transformers.js's quantize script), quantized by ONNX Runtime's own kernel
  (quantize_matmul_4bits, the one MatMulNBitsQuantizer calls), with float32 (q4) or float16 (q4f16)
  scales and activations. The embedding table is quantized the same way and read by
  com.microsoft GatherBlockQuantized (ONNX Runtime CPU and WebGPU; llama.cpp's Q4_0 also keeps
  token embeddings in 4 bits); a hidden size that is not a whole number of blocks keeps it float.

With tied embeddings the largest tensor is stored once: the fp32/fp16 lm_head reads the embedding
table itself (Gemm with transB=1), the q4/q4f16 one (MatMulNBits) the embedding's 4-bit bytes.

The io contract is transformers.js's (see web_export.py): `input_ids`, `attention_mask`,
`position_ids`, `past_key_values.{i}.key|value` [batch_size, kv_heads, past_sequence_length,
head_dim] -> `logits`, `present.{i}.key|value`. GroupQueryAttention reads the attention mask only as
lengths (seqlens_k = sum(mask) - 1, total_sequence_length = mask width): it assumes every row's
tokens are contiguous from the start of the cache, which is what one chat (batch 1, no padding)
feeds. A batch of left-padded prompts would need the padding handled differently; ONNX Runtime also
refuses several new tokens on a non-empty past for batch > 1.

Rotary frequencies come from the model's own Hugging Face rotary module (its rope type, scaling and
attention_scaling, per layer type where the family has that), evaluated at every position up to
max_position_embeddings; dynamic rope, whose frequencies depend on the sequence length, is refused
by fused_problem. Phi 3's longrope is two fixed tables: transformers uses the short factors while
the sequence (its last position + 1) is at most original_max_position_embeddings and the long ones
past it, so both tables are written and an If on the mask's width picks one per step.

Phi 3 maps onto Llama's ops: its fused qkv_proj and gate_up_proj are read as row slices (q, k, v;
gate, up: the order transformers splits them in) into the same Linears, and its sliding_window,
where the config has one, masks every layer (GroupQueryAttention's local_window_size, as Gemma's
sliding layers).

WebGPU (onnxruntime-web): every op here has a WebGPU kernel (contrib_ops/webgpu registers
GroupQueryAttention, RotaryEmbedding, MatMulNBits, FastGelu, SimplifiedLayerNormalization and
SkipSimplifiedLayerNormalization), and its GroupQueryAttention windows as the CPU one does. But
its GroupQueryAttention reads `softcap` without applying it in the ONNX Runtime sources seen
(softcap support for it was an open pull request, microsoft/onnxruntime#27461), and the checks here
run on the CPU, where it is applied. So a model that soft-caps its attention scores (Gemma 2) is
refused by fused_problem and goes through the eager graph, which writes the soft-cap as plain
operators; Gemma 3 does not soft-cap its attention.
"""
from __future__ import annotations

import importlib
import os
import time

import onnx_files
from model_folder import checked_config, read_json, weights_problem

FUSED_FAMILIES = ("llama", "qwen2", "qwen3", "gemma2", "gemma3_text", "phi3")
# Gemma's decoder: (1 + w) RMSNorms, four per layer, embeddings scaled by sqrt(hidden), a tanh-GELU
# MLP, query_pre_attn_scalar, sliding-window layers (layer_types); Gemma 2 soft-caps the attention
# scores and the logits, Gemma 3 norms q and k per head and has rope parameters per layer type.
GEMMA_FAMILIES = ("gemma2", "gemma3_text")
# The Hugging Face module that defines each family's classes, where it is not named after it.
MODULES = {"gemma3_text": "gemma3"}
LAYER_TYPES = ("full_attention", "sliding_attention")
VARIANTS = ("fp32", "fp16", "q4", "q4f16")
OPSET = 17
IR_VERSION = 8  # the IR of opset 17; every ONNX Runtime that knows these contrib ops loads it
MS_DOMAIN = "com.microsoft"
Q4_BLOCK_SIZE = 32
# MatMulNBits's accuracy_level 4: the activations are quantised to int8 per block and multiplied
# with int8 dot products (ONNX Runtime's CPU and WASM kernels; its WebGPU kernel uses the same
# level for its DP4A path where the GPU has it), as ONNX Runtime's own model builder sets for CPU
# and WebGPU. On the CPU it decodes several times faster than float activations; the checks against
# PyTorch hold each variant to the same tolerances either way.
Q4_ACCURACY_LEVEL = 4
# Rows of a weight read (converted, quantized) at a time: a slice is all that is ever in float32.
READ_ROWS = 4096
# Rope types whose frequencies are fixed per position (no dependence on the sequence length), so a
# cos/sin table over every position is exactly what the model computes.
STATIC_ROPE_TYPES = ("default", "linear", "llama3", "yarn")
# Phi 3's fused projections, each split by rows into the Linears the graph writes (q, k, v sizes in
# heads of head_dim; gate and up in halves): transformers slices qkv_proj's output in that order and
# chunks gate_up_proj's into (gate, up).
PHI3_SPLITS = {"self_attn.qkv_proj": ("self_attn.q_proj", "self_attn.k_proj", "self_attn.v_proj"),
               "mlp.gate_up_proj": ("mlp.gate_proj", "mlp.up_proj")}


# ------------------------------------------------------------------------------ what it can build

def _rope_type(rope) -> str:
    if not isinstance(rope, dict):
        return "default"
    return str(rope.get("rope_type", rope.get("type", "default")) or "default")


def _rope_types(config: dict) -> list[str]:
    """The rope type of every rope parameter set of config.json (one, or one per layer type)."""
    rope = config.get("rope_parameters") or config.get("rope_scaling") or {}
    if isinstance(rope, dict) and rope and all(isinstance(v, dict) for v in rope.values()):
        return [_rope_type(v) for v in rope.values()]
    return [_rope_type(rope)]


def _head_dim(config: dict) -> int:
    return int(config.get("head_dim") or config["hidden_size"] // config["num_attention_heads"])


def fused_problem(config: dict) -> str | None:
    """None when build_decoder can make this config.json's model, else one sentence saying why."""
    problem = weights_problem(config, FUSED_FAMILIES, "fused ONNX builder")
    if problem:
        return problem
    model_type = config.get("model_type")
    if model_type == "gemma2" and config.get("attn_logit_softcapping", 50.0):
        return ("the model soft-caps its attention scores, which ONNX Runtime Web's "
                "GroupQueryAttention does not apply (microsoft/onnxruntime#27461)")
    gemma = model_type in GEMMA_FAMILIES
    if gemma:
        # Gemma's MLP reads hidden_activation (its default: the tanh GELU); hidden_act is unused.
        act = config.get("hidden_activation") or "gelu_pytorch_tanh"
        if act != "gelu_pytorch_tanh":
            return (f"the fused ONNX builder implements Gemma's tanh-GELU MLP "
                    f"(gelu_pytorch_tanh), and this model's activation is {act!r}")
        if config.get("use_bidirectional_attention"):
            return ("the model uses bidirectional attention, and the fused ONNX builder writes "
                    "causal decoders")
    else:
        act = config.get("hidden_act", "silu")
        if act != "silu":
            return (f"the fused ONNX builder implements a SiLU MLP, and this model's activation is "
                    f"{act!r}")
    rope = config.get("rope_parameters")
    if (model_type != "gemma3_text" and isinstance(rope, dict) and rope
            and all(isinstance(v, dict) for v in rope.values())):
        return "per-layer-type rope parameters are not supported by the fused ONNX builder"
    for rope_type in _rope_types(config):
        # Phi 3's longrope switches between two fixed tables at original_max_position_embeddings
        # (transformers: the long factors once the sequence passes it): an If on the length.
        if rope_type == "longrope" and model_type == "phi3":
            continue
        if rope_type not in STATIC_ROPE_TYPES:
            return (f"rope type {rope_type!r} is not one the fused ONNX builder can tabulate (it "
                    f"handles {', '.join(STATIC_ROPE_TYPES)})")
    if float(config.get("partial_rotary_factor") or 1.0) != 1.0:
        return "partial rotary embeddings are not supported by the fused ONNX builder"
    layer_types = config.get("layer_types") or []
    unknown = sorted({kind for kind in layer_types if kind not in LAYER_TYPES})
    if unknown:
        return (f"layer types {', '.join(map(repr, unknown))} are not attention the fused ONNX "
                "builder writes")
    if gemma:
        # Gemma's sliding layers (layer_types, or transformers' default pattern) attend to the last
        # sliding_window tokens: GroupQueryAttention's local_window_size.
        window = config.get("sliding_window")
        if (not layer_types or "sliding_attention" in layer_types) and not (
                isinstance(window, int) and window > 0):
            return (f"the model has sliding-window layers and a sliding_window of {window!r}, "
                    "which the fused ONNX builder cannot apply")
    elif model_type == "phi3":
        # Phi 3 masks every layer to its sliding_window when the config has one (transformers'
        # sliding-window causal mask, the same rule as Gemma's sliding layers).
        window = config.get("sliding_window")
        if window is not None and not (isinstance(window, int) and window > 0):
            return (f"the model has a sliding_window of {window!r}, which the fused ONNX builder "
                    "cannot apply")
    else:
        if config.get("use_sliding_window"):
            return ("the model uses sliding-window attention, which the fused ONNX builder does "
                    "not apply to this family")
        if any(kind != "full_attention" for kind in layer_types):
            return ("some layers are not full attention (layer_types), which the fused ONNX "
                    "builder does not apply to this family")
    heads = int(config["num_attention_heads"])
    kv_heads = int(config.get("num_key_value_heads") or heads)
    if heads % kv_heads:
        return f"{heads} attention heads are not a multiple of {kv_heads} key/value heads"
    head_dim = _head_dim(config)
    if head_dim % 8:
        return (f"head_dim {head_dim} is not a multiple of 8, which ONNX Runtime's "
                "GroupQueryAttention requires")
    return None


# --------------------------------------------------------------------------------- reading weights

class _Weights:
    """The safetensors tensors of a Hugging Face folder, read one at a time (or a slice of rows at a
    time) as float32 numpy. Each read opens its file anew, so no mapping outlives the read."""

    def __init__(self, folder: str) -> None:
        from safetensors import safe_open

        index = os.path.join(folder, "model.safetensors.index.json")
        if os.path.isfile(index):
            weight_map = read_json(index)["weight_map"]
            self.files = {name: os.path.join(folder, file) for name, file in weight_map.items()}
        else:
            single = os.path.join(folder, "model.safetensors")
            if not os.path.isfile(single):
                raise FileNotFoundError(f"{folder} has neither model.safetensors nor "
                                        "model.safetensors.index.json")
            with safe_open(single, framework="pt") as handle:
                self.files = {name: single for name in handle.keys()}

        # name -> (stored tensor, first row, end row): a tensor read as rows of another (Phi 3).
        self.views: dict[str, tuple[str, int, int]] = {}

    def split_rows(self, name: str, parts: list[tuple[str, int]]) -> None:
        """Reads the stored tensor `name` as the tensors `parts` (name, rows), in order."""
        total = self.shape(name)[0]
        if sum(rows for _, rows in parts) != total:
            raise ValueError(f"{name} has {total} rows, not the {sum(r for _, r in parts)} of "
                             f"{', '.join(part for part, _ in parts)}")
        start = 0
        for part, rows in parts:
            self.views[part] = (name, start, start + rows)
            start += rows

    def __contains__(self, name: str) -> bool:
        return name in self.files or name in self.views

    def shape(self, name: str) -> list[int]:
        from safetensors import safe_open

        if name in self.views:
            stored, start, end = self.views[name]
            return [end - start, *self.shape(stored)[1:]]
        with safe_open(self.files[name], framework="pt") as handle:
            return list(handle.get_slice(name).get_shape())

    def rows(self, name: str, start: int, end: int):
        """Rows [start, end) of the tensor as a new float32 numpy array."""
        import torch
        from safetensors import safe_open

        if name in self.views:
            stored, first, _ = self.views[name]
            return self.rows(stored, first + start, first + end)
        with safe_open(self.files[name], framework="pt") as handle:
            # copy=True: a float32 checkpoint's slice is copied too, so nothing refers to the file.
            return handle.get_slice(name)[start:end].to(torch.float32, copy=True).numpy()

    def get(self, name: str, dtype, transpose: bool = False):
        """The tensor in `dtype` (a 2-D one transposed if asked), converted READ_ROWS rows at a
        time so that only the result is ever whole in memory."""
        import numpy as np

        shape = self.shape(name)
        out = np.empty(shape[::-1] if transpose else shape, dtype=dtype)
        for start in range(0, shape[0], READ_ROWS):
            end = min(shape[0], start + READ_ROWS)
            part = self.rows(name, start, end)
            if transpose:
                out[:, start:end] = part.T
            else:
                out[start:end] = part
        return out


# ------------------------------------------------------------------------------- 4-bit quantization

def _quantize_q4(weight):
    """A Linear weight [N, K] (float32) as MatMulNBits's B [N, blocks, 16] uint8 and scales
    [N, blocks] float32: 4 bits, Q4_BLOCK_SIZE, symmetric (zero point 8, not stored)."""
    import numpy as np
    from onnxruntime.capi._pybind_state import quantize_matmul_4bits

    n, k = weight.shape
    blocks = (k + Q4_BLOCK_SIZE - 1) // Q4_BLOCK_SIZE
    # The kernel takes MatMul's B, [K, N], zero-padded to whole blocks along K.
    b = np.zeros((blocks * Q4_BLOCK_SIZE, n), dtype=np.float32)
    b[:k] = weight.T
    packed = np.zeros((n, blocks, Q4_BLOCK_SIZE // 2), dtype=np.uint8)
    scales = np.zeros((n, blocks), dtype=np.float32)
    zero_points = np.zeros((n, (blocks + 1) // 2), dtype=np.uint8)
    quantize_matmul_4bits(packed, b, scales, zero_points, Q4_BLOCK_SIZE, n, k, True)
    return packed, scales


def _quantize_q4_by_rows(weights: _Weights, name: str):
    """_quantize_q4 of the tensor `name`, READ_ROWS output rows at a time (each row is quantized on
    its own), so that a large lm_head never has a float32 copy in memory whole."""
    import numpy as np

    n, k = weights.shape(name)
    blocks = (k + Q4_BLOCK_SIZE - 1) // Q4_BLOCK_SIZE
    packed = np.empty((n, blocks, Q4_BLOCK_SIZE // 2), dtype=np.uint8)
    scales = np.empty((n, blocks), dtype=np.float32)
    for start in range(0, n, READ_ROWS):
        end = min(n, start + READ_ROWS)
        packed[start:end], scales[start:end] = _quantize_q4(weights.rows(name, start, end))
    return packed, scales, n, k


# ------------------------------------------------------------------------------------- the graph

class _Graph:
    """Nodes, initializers (streamed to chunks) and helpers to add both."""

    def __init__(self, writer: onnx_files.ChunkedWriter, dtype) -> None:
        self.writer = writer
        self.dtype = dtype  # numpy dtype of weights and activations
        self.nodes: list = []
        self.initializers: list = []
        self._names: set[str] = set()

    def node(self, op: str, inputs: list[str], name: str, outputs: int | list[str] = 1,
             domain: str = "", **attrs) -> list[str]:
        from onnx import helper

        if name in self._names:
            raise ValueError(f"duplicate node name {name}")
        self._names.add(name)
        if isinstance(outputs, int):
            outputs = [f"{name}/output_{i}" for i in range(outputs)]
        self.nodes.append(helper.make_node(op, inputs, outputs, name=name, domain=domain or None,
                                           **attrs))
        return outputs

    def tensor(self, name: str, array) -> str:
        self.initializers.append(self.writer.add(name, array))
        return name

    def matmul_nbits(self, x: str, packed: str, scales: str, n: int, k: int, prefix: str,
                     outputs: int | list[str] = 1) -> str:
        """x @ W.T for W [n, k] stored as 4-bit `packed` and `scales` (_quantize_q4's form)."""
        return self.node("MatMulNBits", [x, packed, scales], f"/{prefix}/MatMulNBits", outputs,
                         domain=MS_DOMAIN, K=k, N=n, bits=4, block_size=Q4_BLOCK_SIZE,
                         accuracy_level=Q4_ACCURACY_LEVEL)[0]

    def linear(self, x: str, weights: _Weights, prefix: str, quantized: bool,
               weight_name: str | None = None, output: str | None = None) -> str:
        """x @ W.T (+ b) for the Linear `prefix`, W read from weight_name (default prefix.weight);
        `output` names the result."""
        weight_name = weight_name or f"{prefix}.weight"
        has_bias = f"{prefix}.bias" in weights
        named = [output] if output and not has_bias else 1
        if quantized:
            packed, scales, n, k = _quantize_q4_by_rows(weights, weight_name)
            out = self.matmul_nbits(x, self.tensor(f"{prefix}.weight_Q4", packed),
                                    self.tensor(f"{prefix}.weight_scales",
                                                scales.astype(self.dtype)),
                                    n, k, prefix, named)
            del packed, scales
        else:
            weight = weights.get(weight_name, self.dtype, transpose=True)
            out = self.node("MatMul", [x, self.tensor(f"{prefix}.weight", weight)],
                            f"/{prefix}/MatMul", named)[0]
            del weight
        if has_bias:
            bias = self.tensor(f"{prefix}.bias", weights.get(f"{prefix}.bias", self.dtype))
            out = self.node("Add", [out, bias], f"/{prefix}/Add", [output] if output else 1)[0]
        return out


def _rotary_caches(config, head_dim: int, max_positions: int, layer_type: str | None = None):
    """cos and sin [max_positions, head_dim / 2] float32, from the model's own rotary module
    (config: its transformers config; layer_type: the layer type whose rope parameters to use, for
    the families with one set per layer type). For longrope, the module's choice for a sequence of
    max_positions: the short factors up to original_max_position_embeddings, the long ones past."""
    import numpy as np
    import torch

    name = MODULES.get(config.model_type, config.model_type)
    module = importlib.import_module(f"transformers.models.{name}.modeling_{name}")
    classes = [getattr(module, name) for name in dir(module) if name.endswith("RotaryEmbedding")
               and isinstance(getattr(module, name), type)
               and issubclass(getattr(module, name), torch.nn.Module)]
    if len(classes) != 1:
        raise RuntimeError(f"expected one rotary embedding class in {module.__name__}, "
                           f"found {[c.__name__ for c in classes]}")
    rotary = classes[0](config=config)
    extra = {"layer_type": layer_type} if layer_type else {}
    with torch.no_grad():
        cos, sin = rotary(torch.zeros(1, dtype=torch.float32),
                          torch.arange(max_positions, dtype=torch.long)[None], **extra)
    cos, sin = cos[0].numpy(), sin[0].numpy()
    half = head_dim // 2
    if cos.shape != (max_positions, head_dim) or not (
            np.array_equal(cos[:, :half], cos[:, half:]) and np.array_equal(sin[:, :half],
                                                                               sin[:, half:])):
        raise RuntimeError("the rotary module's output is not cat(freqs, freqs) over head_dim, "
                           "which RotaryEmbedding (non-interleaved) computes")
    return np.ascontiguousarray(cos[:, :half]), np.ascontiguousarray(sin[:, :half])


def build_decoder(merged_dir: str, onnx_path: str, variant: str,
                  chunk_bytes: int = onnx_files.CHUNK_BYTES) -> dict:
    """Writes onnx_path and its `<name>_data[_i]` chunks for merged_dir's causal LM (see module)."""
    import numpy as np
    from onnx import TensorProto, helper
    from transformers import AutoConfig

    started = time.monotonic()
    if variant not in VARIANTS:
        raise ValueError(f"unknown variant {variant!r} (known: {', '.join(VARIANTS)})")
    checked_config(merged_dir, fused_problem, ValueError)
    # The sizes as transformers reads them (with each family's defaults for keys left out).
    config = AutoConfig.from_pretrained(merged_dir)
    model_type = config.model_type
    layers = config.num_hidden_layers
    hidden = config.hidden_size
    heads = config.num_attention_heads
    kv_heads = config.num_key_value_heads or heads
    head_dim = getattr(config, "head_dim", None) or hidden // heads
    eps = float(config.rms_norm_eps)
    max_positions = config.max_position_embeddings
    vocab = config.vocab_size
    tied = bool(config.tie_word_embeddings)

    half = variant in ("fp16", "q4f16")
    quantized = variant in ("q4", "q4f16")
    dtype = np.float16 if half else np.float32
    onnx_type = TensorProto.FLOAT16 if half else TensorProto.FLOAT

    folder = os.path.dirname(os.path.abspath(onnx_path))
    os.makedirs(folder, exist_ok=True)
    writer = onnx_files.ChunkedWriter(onnx_path, chunk_bytes)
    weights = _Weights(merged_dir)
    if model_type == "phi3":
        sizes = {"self_attn.qkv_proj": [heads * head_dim, kv_heads * head_dim, kv_heads * head_dim],
                 "mlp.gate_up_proj": [config.intermediate_size] * 2}
        for i in range(layers):
            for fused, parts in PHI3_SPLITS.items():
                weights.split_rows(f"model.layers.{i}.{fused}.weight",
                                   [(f"model.layers.{i}.{part}.weight", rows)
                                    for part, rows in zip(parts, sizes[fused])])
    g = _Graph(writer, dtype)

    def const(name: str, values, np_type) -> str:
        return g.tensor(name, np.array(values, dtype=np_type))

    # The attention lengths GroupQueryAttention takes, from the mask transformers.js feeds.
    axis_1 = const("/model/constants/axis_1", [1], np.int64)
    one = const("/model/constants/one", 1, np.int64)
    mask_sum = g.node("ReduceSum", ["attention_mask", axis_1], "/model/attn_mask/ReduceSum",
                      keepdims=0)[0]
    seqlens = g.node("Sub", [mask_sum, one], "/model/attn_mask/Sub")[0]
    seqlens_k = g.node("Cast", [seqlens], "/model/attn_mask/seqlens_k", to=TensorProto.INT32)[0]
    mask_shape = g.node("Shape", ["attention_mask"], "/model/attn_mask/Shape")[0]
    total = g.node("Gather", [mask_shape, one], "/model/attn_mask/Gather", axis=0)[0]
    total_len = g.node("Cast", [total], "/model/attn_mask/total_seq_len",
                       to=TensorProto.INT32)[0]

    # Gemma: (1 + w) norms, scaled embeddings, GELU (tanh), query_pre_attn_scalar, sliding layers,
    # soft-capping (Gemma 2), q/k norms and rope per layer type (Gemma 3).
    gemma = model_type in GEMMA_FAMILIES
    layer_types = list(getattr(config, "layer_types", None) or ["full_attention"] * layers)
    sliding_window = getattr(config, "sliding_window", None)
    # Phi 3 applies its sliding window (when it has one) to every layer.
    phi3_window = sliding_window if model_type == "phi3" else None
    logit_softcap = float(getattr(config, "final_logit_softcapping", None) or 0.0) if gemma else 0.0
    scale = (float(config.query_pre_attn_scalar) ** -0.5 if gemma else float(head_dim ** -0.5))

    # One cos/sin table, or one per layer type where the rope parameters differ by layer type.
    rope_params = getattr(config, "rope_parameters", None) or {}
    per_type_rope = model_type == "gemma3_text" and all(
        isinstance(rope_params.get(kind), dict) for kind in set(layer_types))
    rotary_tables: dict[str | None, tuple[str, str]] = {}
    for kind in (sorted(set(layer_types)) if per_type_rope else [None]):
        cos, sin = _rotary_caches(config, head_dim, max_positions, kind)
        suffix = f"_{kind}" if kind else ""
        rotary_tables[kind] = (g.tensor(f"cos_cache{suffix}", cos.astype(dtype)),
                               g.tensor(f"sin_cache{suffix}", sin.astype(dtype)))
        del cos, sin
    if _rope_types(config.to_dict()) == ["longrope"]:
        # transformers takes the long factors once the sequence (the last position + 1, here the
        # mask's width) passes original_max_position_embeddings, the short ones before: both
        # tables, and an If on the length picks one for the whole step, as the model builder does.
        original = int(config.rope_parameters["original_max_position_embeddings"])
        cos, sin = _rotary_caches(config, head_dim, min(original, max_positions))
        short = (g.tensor("cos_cache_short", cos.astype(dtype)),
                 g.tensor("sin_cache_short", sin.astype(dtype)))
        long = rotary_tables[None]
        limit = const("/model/rotary/original_max", original, np.int32)
        beyond = g.node("Greater", [total_len, limit], "/model/rotary/Greater")[0]

        def branch(name: str, tables: tuple[str, str]):
            outs = [helper.make_tensor_value_info(f"/model/rotary/{name}/{part}", onnx_type, None)
                    for part in ("cos", "sin")]
            nodes = [helper.make_node("Identity", [table], [out.name],
                                      name=f"/model/rotary/{name}/Identity_{part}")
                     for table, out, part in zip(tables, outs, ("cos", "sin"))]
            return helper.make_graph(nodes, f"rotary_{name}", [], outs)
        rotary_tables[None] = tuple(g.node("If", [beyond], "/model/rotary/If", 2,
                                           then_branch=branch("long", long),
                                           else_branch=branch("short", short)))
        del cos, sin

    embed_name = "model.embed_tokens.weight"
    embed_q4 = quantized and hidden % Q4_BLOCK_SIZE == 0
    if embed_q4:
        # The table in MatMulNBits's 4-bit form, read by GatherBlockQuantized (ONNX Runtime CPU and
        # WebGPU): its packed bytes [vocab, blocks, 16] are the lm_head's B when the embeddings are
        # tied, so the largest tensor is stored once, in 4 bits. Scales twice: [vocab, blocks, 1]
        # here (the rank of the data), [vocab, blocks] for MatMulNBits (its only shapes).
        packed, scales, _, _ = _quantize_q4_by_rows(weights, embed_name)
        embed = g.tensor(f"{embed_name}_Q4", packed)
        if tied:
            embed_scales = g.tensor(f"{embed_name}_scales", scales.astype(dtype))
        rows = g.node("GatherBlockQuantized",
                      [embed, "input_ids",
                       g.tensor(f"{embed_name}_scales_3d", scales[..., None].astype(dtype))],
                      "/model/embed_tokens/GatherBlockQuantized", domain=MS_DOMAIN, gather_axis=0,
                      quantize_axis=2, block_size=Q4_BLOCK_SIZE, bits=4)[0]
        del packed, scales
        x = g.node("Reshape", [rows, const("/model/embed_tokens/shape", [0, 0, hidden], np.int64)],
                   "/model/embed_tokens/Reshape")[0]
    else:
        embed = g.tensor(embed_name, weights.get(embed_name, dtype))
        x = g.node("Gather", [embed, "input_ids"], "/model/embed_tokens/Gather", axis=0)[0]
    if gemma:
        # embeddings * sqrt(hidden), the factor in the activations' dtype (as transformers has it).
        normalizer = const("/model/embed_tokens/normalizer", hidden ** 0.5, dtype)
        x = g.node("Mul", [x, normalizer], "/model/embed_tokens/Mul")[0]

    def norm_weight(name: str) -> str:
        if gemma:
            # Gemma's RMSNorm multiplies by (1 + weight), computed in float32: folded in here.
            return g.tensor(name, (weights.get(name, np.float32) + 1.0).astype(dtype))
        return g.tensor(name, weights.get(name, dtype))

    def rms_norm(value: str, weight: str, name: str) -> str:
        return g.node("SimplifiedLayerNormalization", [value, norm_weight(weight)],
                      f"/{name}/LayerNorm", epsilon=eps, axis=-1, stash_type=1)[0]

    def skip_norm(residual: str, value: str, weight: str, name: str,
                  with_sum: bool = True) -> tuple[str, str | None]:
        """RMSNorm(residual + value) and (with_sum) residual + value, in one op."""
        outputs = [f"/{name}/output_0", "", "", f"/{name}/output_3"] if with_sum else 1
        out = g.node("SkipSimplifiedLayerNormalization", [residual, value, norm_weight(weight)],
                     f"/{name}/SkipLayerNorm", outputs=outputs, domain=MS_DOMAIN, epsilon=eps)
        return out[0], (out[3] if with_sum else None)

    def head_norm(value: str, name: str, count: int) -> str:
        """Qwen3's and Gemma 3's RMSNorm of each of the `count` heads of q or k (over head_dim)."""
        prefix = f"{name}_norm"
        to_heads = const(f"/{prefix}/shape_heads", [0, 0, count, head_dim], np.int64)
        to_hidden = const(f"/{prefix}/shape_hidden", [0, 0, count * head_dim], np.int64)
        value = g.node("Reshape", [value, to_heads], f"/{prefix}/Reshape_heads")[0]
        value = rms_norm(value, f"{name}_norm.weight", prefix)
        return g.node("Reshape", [value, to_hidden], f"/{prefix}/Reshape_hidden")[0]

    residual = x
    normed = rms_norm(x, "model.layers.0.input_layernorm.weight",
                      "model.layers.0/input_layernorm")
    mlp_out = None
    for i in range(layers):
        p = f"model.layers.{i}"
        if i > 0:
            normed, residual = skip_norm(residual, mlp_out, f"{p}.input_layernorm.weight",
                                         f"{p}/input_layernorm")

        # Attention.
        a = f"{p}.self_attn"
        q = g.linear(normed, weights, f"{a}.q_proj", quantized)
        k = g.linear(normed, weights, f"{a}.k_proj", quantized)
        v = g.linear(normed, weights, f"{a}.v_proj", quantized)
        if model_type in ("qwen3", "gemma3_text"):
            q = head_norm(q, f"{a}.q", heads)
            k = head_norm(k, f"{a}.k", kv_heads)
        cos_cache, sin_cache = rotary_tables[layer_types[i] if per_type_rope else None]
        q = g.node("RotaryEmbedding", [q, "position_ids", cos_cache, sin_cache],
                   f"/{a}/q_rotary/RotaryEmbedding", domain=MS_DOMAIN, num_heads=heads,
                   interleaved=0)[0]
        k = g.node("RotaryEmbedding", [k, "position_ids", cos_cache, sin_cache],
                   f"/{a}/k_rotary/RotaryEmbedding", domain=MS_DOMAIN, num_heads=kv_heads,
                   interleaved=0)[0]
        attention = {"num_heads": heads, "kv_num_heads": kv_heads, "scale": scale}
        if phi3_window:
            attention["local_window_size"] = int(phi3_window)
        if gemma and layer_types[i] == "sliding_attention":
            # transformers' sliding mask keeps key j for query i when i - sliding_window < j <= i:
            # the last sliding_window tokens, the query's own included, which is what
            # GroupQueryAttention attends to with local_window_size = sliding_window. The cache
            # keeps every past token (present = past + new), as transformers.js's mask expects.
            attention["local_window_size"] = int(sliding_window)
        attn = g.node("GroupQueryAttention",
                      [q, k, v, f"past_key_values.{i}.key", f"past_key_values.{i}.value",
                       seqlens_k, total_len],
                      f"/{a}/GroupQueryAttention",
                      outputs=[f"/{a}/GroupQueryAttention/output_0", f"present.{i}.key",
                               f"present.{i}.value"],
                      domain=MS_DOMAIN, **attention)[0]
        attn = g.linear(attn, weights, f"{a}.o_proj", quantized)

        if gemma:
            # residual + post_attention_norm(attn), then pre_feedforward_norm of that sum.
            attn = rms_norm(attn, f"{p}.post_attention_layernorm.weight",
                            f"{p}/post_attention_layernorm")
            normed, residual = skip_norm(residual, attn, f"{p}.pre_feedforward_layernorm.weight",
                                         f"{p}/pre_feedforward_layernorm")
        else:
            normed, residual = skip_norm(residual, attn, f"{p}.post_attention_layernorm.weight",
                                         f"{p}/post_attention_layernorm")

        # MLP: down(act(gate(x)) * up(x)), act SiLU or (Gemma) GELU with the tanh approximation.
        m = f"{p}.mlp"
        gate = g.linear(normed, weights, f"{m}.gate_proj", quantized)
        up = g.linear(normed, weights, f"{m}.up_proj", quantized)
        if gemma:
            act = g.node("FastGelu", [gate], f"/{m}/act_fn/FastGelu", domain=MS_DOMAIN)[0]
        else:
            sigmoid = g.node("Sigmoid", [gate], f"/{m}/act_fn/Sigmoid")[0]
            act = g.node("Mul", [gate, sigmoid], f"/{m}/act_fn/Mul")[0]
        product = g.node("Mul", [act, up], f"/{m}/Mul")[0]
        mlp_out = g.linear(product, weights, f"{m}.down_proj", quantized)
        if gemma:
            mlp_out = rms_norm(mlp_out, f"{p}.post_feedforward_layernorm.weight",
                               f"{p}/post_feedforward_layernorm")

    normed, _ = skip_norm(residual, mlp_out, "model.norm.weight", "model/norm", with_sum=False)

    # f16 variants compute the logits in float16 and return them as float32; the logits'
    # soft-capping where the config has one (Gemma 2: tanh(logits / cap) * cap) follows, in float32.
    final = "/lm_head/logits_f16" if half else ("/lm_head/logits" if logit_softcap else "logits")
    if tied or "lm_head.weight" not in weights:
        if not tied:
            raise ValueError("the checkpoint has no lm_head.weight and does not tie embeddings")
        if embed_q4:
            # The embedding's own 4-bit table (above), not a second copy of it.
            g.matmul_nbits(normed, embed, embed_scales, vocab, hidden, "lm_head", [final])
        elif quantized:
            g.linear(normed, weights, "lm_head", quantized, weight_name=embed_name, output=final)
        else:
            # The embedding table itself, [vocab, hidden], read transposed: stored once.
            flat_shape = const("/lm_head/shape_flat", [-1, hidden], np.int64)
            flat = g.node("Reshape", [normed, flat_shape], "/lm_head/Reshape_flat")[0]
            logits = g.node("Gemm", [flat, embed], "/lm_head/Gemm", transB=1)[0]
            ids_shape = g.node("Shape", ["input_ids"], "/lm_head/Shape")[0]
            vocab_dim = const("/lm_head/vocab", [vocab], np.int64)
            out_shape = g.node("Concat", [ids_shape, vocab_dim], "/lm_head/Concat", axis=0)[0]
            g.node("Reshape", [logits, out_shape], "/lm_head/Reshape_logits", [final])
    else:
        g.linear(normed, weights, "lm_head", quantized, output=final)
    if half:
        final = g.node("Cast", [final], "/lm_head/Cast",
                       ["/lm_head/logits" if logit_softcap else "logits"],
                       to=TensorProto.FLOAT)[0]
    if logit_softcap:
        cap = const("/lm_head/softcap", logit_softcap, np.float32)
        capped = g.node("Div", [final, cap], "/lm_head/softcap/Div")[0]
        capped = g.node("Tanh", [capped], "/lm_head/softcap/Tanh")[0]
        g.node("Mul", [capped, cap], "/lm_head/softcap/Mul", ["logits"])

    # The io transformers.js feeds and reads.
    cache = ["batch_size", kv_heads, None, head_dim]
    inputs = [helper.make_tensor_value_info("input_ids", TensorProto.INT64,
                                            ["batch_size", "sequence_length"]),
              helper.make_tensor_value_info("attention_mask", TensorProto.INT64,
                                            ["batch_size", "total_sequence_length"]),
              helper.make_tensor_value_info("position_ids", TensorProto.INT64,
                                            ["batch_size", "sequence_length"])]
    outputs = [helper.make_tensor_value_info("logits", TensorProto.FLOAT,
                                             ["batch_size", "sequence_length", vocab])]
    for i in range(layers):
        for part in ("key", "value"):
            cache[2] = "past_sequence_length"
            inputs.append(helper.make_tensor_value_info(f"past_key_values.{i}.{part}", onnx_type,
                                                        list(cache)))
            cache[2] = "total_sequence_length"
            outputs.append(helper.make_tensor_value_info(f"present.{i}.{part}", onnx_type,
                                                         list(cache)))

    # The initializers hold no weight bytes (those are in the chunks), so copying them is cheap.
    graph = helper.make_graph(g.nodes, "main_graph", inputs, outputs, initializer=g.initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET),
                                                    helper.make_opsetid(MS_DOMAIN, 1)],
                              ir_version=IR_VERSION, producer_name="onnx_fused")
    chunks = writer.finish(model)
    files = [os.path.basename(onnx_path), *chunks]
    return {"files": files, "bytes": onnx_files.model_bytes(onnx_path),
            "ops": sorted({node.op_type for node in g.nodes}),
            "seconds": round(time.monotonic() - started, 3)}
