"""GGUF for llama.cpp (and Ollama, LM Studio) from a merged Hugging Face causal LM, written with the
`gguf` package (its GGUFWriter, tensor-name maps, vocabulary and special-token helpers, and its
Q8_0 quantizer).

    write_gguf(merged_dir, path, "F16" | "Q8_0") -> {"file", "bytes", "tensors", "seconds", ...}
    gguf_problem(config) -> None, or one sentence saying why this model cannot be written
    read_tokenizer(merged_dir) -> the tokenizer's pieces, or GgufSkipped naming the one it lacks
    gguf_bytes(stats, type) -> about how many bytes a file takes (before anything is written)

Families: Llama, Qwen2, Qwen3, Gemma 2, Gemma 3 (text), Phi 3 (llama.cpp's architectures of the
same names). The weights are read
one tensor at a time from the safetensors files (onnx_fused._Weights) and written one at a time
(the writer's tensor infos first, then each tensor's data), so the peak memory is about the largest
tensor, never the model.

What llama.cpp needs beyond the tensors, and how it is met here:
- names: the package's TensorNameMap for the architecture maps each Hugging Face tensor name;
- rotary layout: llama.cpp's `llama` architecture rotates adjacent pairs of each head's dimensions,
  Hugging Face's Llama the two halves (rotate_half), so q_proj's and k_proj's rows are reordered
  per head (half i, half d/2 + i → rows 2i, 2i + 1). Qwen2, Qwen3, Gemma 2, Gemma 3 and Phi 3 are
  read by llama.cpp with the halves layout (NEOX) and are written as they are;
- Gemma 2: its RMSNorm weights are stored as w for x * (1 + w), llama.cpp multiplies by the
  stored weight, so 1 is added to every norm weight; the attention and final soft-capping and the
  sliding window go into the metadata; the output matrix is the embedding (tied, none written);
  llama.cpp scales the embeddings by sqrt(hidden_size) itself, and the queries by 1/sqrt(head_dim)
  (1/sqrt(hidden_size / heads) for the 46-layer 27B), so a config whose query_pre_attn_scalar is
  another number, that has no soft-capping, or whose layers do not alternate sliding and full
  attention from a sliding first one, is refused (gguf_problem);
- Gemma 3 as Gemma 2 (its q/k norms get the 1 too), but llama.cpp fixes its pattern at five
  sliding-window layers then a full one, rotates the sliding layers with base 10000 unscaled and
  the full ones with the file's base and linear factor (the full-attention layers' rope), and
  soft-caps no attention: other configs are refused;
- Phi 3: its fused qkv_proj and gate_up_proj are llama.cpp's attn_qkv and 2 × n_ff ffn_up, in the
  same order (the package's tensor-name map names them). llama.cpp does not apply Phi 3's sliding
  window (config sliding_window, 2047 in the 4k model), so a prompt longer than it would differ;
  the check prompt is far shorter. Longrope scaling (Phi 3.5 mini, the 128k models): the config's
  long and short factors as llama.cpp's rope_factors_long/short tensors (float32), the short
  factors' context (original_max_position_embeddings) and the attention factor read off the
  model's rotary module. llama.cpp takes the long factors for every position when its context
  was created larger than the short factors' (transformers: when the sequence is longer), so
  the check runs in a context no larger than that (export.json: each file's `context`), the
  report says what happens past it (LONGROPE_NOTE) and the Modelfile sets num_ctx to it.
  Phi 3's tokenizer strips the whitespace after its chat tokens (rstrip), which llama.cpp does
  only for a model whose general.name says Phi-3: general_name makes the name say so exactly
  when the tokenizer strips;
- Llama 3's rope scaling: llama.cpp divides each rotary frequency by the factor in the
  `rope_freqs` tensor; the factors are read off the model's own rotary module (default inverse
  frequencies ÷ the scaled ones), not recomputed from the formula;
- the tokenizer: byte-level BPE (tokenizer.json) as the `gpt2` tokenizer model, its merges and
  special tokens (the package's BpeVocab and SpecialVocab), the pre-tokenizer named by its split
  rule (PRE_TOKENIZERS); or SentencePiece-style BPE with byte fallback (Gemma's, Phi 3's; only
  tokenizer.json is read, as transformers 5 may save no tokenizer.model) as the `llama` tokenizer
  model (the package's LlamaHfVocab, scored by merge rank, spm_tokenizer) with its space prefix;
  then the chat template (tokenizer_config.json, or chat_template.jinja where transformers 5 keeps
  it) and the end-of-turn token as an end-of-generation id.
Types: F16 (every 2-D weight in float16) and Q8_0 (every 2-D weight whose rows split into 32-value
blocks, 8 bits per value and one float16 scale per block); 1-D tensors (norms, biases) and
rope_freqs stay float32, as llama.cpp expects.

export_gguf refuses before it writes anything (and before the PyTorch reference run) when the
model, its tokenizer or the free disk cannot take it; the disk sentence gives both figures
(disk_needed, web_export.check_disk). It also writes an Ollama `Modelfile` beside the published files (ollama_modelfile: the
chat template as a Go template, the stop tokens, the base's sampling settings), or says why not.
"""
from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass
from pathlib import Path

from model_folder import checked_config, folder_json, read_json, weights_problem

TYPES = ("F16", "Q8_0")
# transformers model_type -> llama.cpp architecture (gguf.MODEL_ARCH member name).
ARCHES = {"llama": "LLAMA", "qwen2": "QWEN2", "qwen3": "QWEN3", "gemma2": "GEMMA2",
          "gemma3_text": "GEMMA3", "phi3": "PHI3"}
# Architectures llama.cpp rotates as adjacent pairs (q/k rows reordered when written).
PAIRWISE_ROPE = ("llama",)
# The byte-level pre-tokenizer's split rule (tokenizer.json) -> llama.cpp's name for it. An
# unknown rule is refused: llama.cpp would split the text differently and the ids would differ.
PRE_TOKENIZERS = {
    # Llama 3
    "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+"
    "[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+": "llama-bpe",
    # Qwen2, Qwen2.5, Qwen3, DeepSeek R1 Distill Qwen
    "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+"
    "[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+": "qwen2",
}
# A ByteLevel pre-tokenizer with its own (GPT-2) rule.
GPT2_PRE = "gpt-2"
# Gemma's RMSNorm scales by 1 + weight; llama.cpp's by the weight, so 1 is added when written.
PLUS_ONE_NORMS = ("gemma2", "gemma3_text")
# The scaled rope each family may have besides the default: Llama 3's (rope_freqs) and Phi 3's
# longrope (Phi 3.5 mini, Phi-3-mini-128k: rope_factors_short/long and their context length).
SCALED_ROPE = {"llama": "llama3", "phi3": "longrope"}
# llama.cpp gives Phi 3's special tokens (all but <unk>, <s> and <|endoftext|>, and </s> too)
# the RSTRIP attribute only when general.name contains one of these (lowercased): it reads the
# name, not the tokenizer (src/llama-vocab.cpp), and then needs all four tokens in the vocabulary.
PHI3_NAMES = ("phi-3", "phi3")
PHI3_RSTRIP_TOKENS = ("<unk>", "<s>", "</s>", "<|endoftext|>")
# llama.cpp's Gemma: (layers of the 27B, whose queries it scales by 1/sqrt(hidden_size / heads);
# every layer whose index modulo the period is below period - 1 has a sliding window).
GEMMA = {"gemma2": (46, 2), "gemma3_text": (62, 6)}


class GgufSkipped(Exception):
    """This model cannot be written as GGUF; the message says why."""


def gguf_problem(config: dict) -> str | None:
    """None when write_gguf can write this config.json's model, else why not."""
    problem = weights_problem(config, ARCHES, "GGUF writer")
    if problem:
        return problem
    if config["model_type"] == "gemma3_text":
        return _gemma3_rope_problem(config) or _gemma_problem(config)
    rope = config.get("rope_parameters") or config.get("rope_scaling") or {}
    kind = str(rope.get("rope_type", rope.get("type", "default")) or "default") if isinstance(
        rope, dict) else "default"
    scaled = SCALED_ROPE.get(config["model_type"])
    if kind not in ("default", scaled):
        return (f"rope type {kind!r} is not one the GGUF writer writes for "
                f"{config['model_type']} (default{f', {scaled}' if scaled else ''})")
    if kind == "longrope":
        problem = _longrope_problem(config, rope)
        if problem:
            return problem
    partial = config.get("partial_rotary_factor") or (rope.get("partial_rotary_factor")
                                                      if isinstance(rope, dict) else None)
    if float(partial or 1.0) != 1.0:
        return "partial rotary embeddings are not written by the GGUF writer"
    if config.get("use_sliding_window"):
        return "sliding-window attention is not written by the GGUF writer for this family"
    if config["model_type"] == "gemma2":
        return _gemma_problem(config)
    return None


def _longrope_problem(config: dict, rope: dict) -> str | None:
    """What llama.cpp needs of Phi 3's longrope: a short and a long factor per rotary frequency
    (head_dim / 2 of each, its rope_factors_short/long tensors) and the context length the short
    ones were trained for (original_max_position_embeddings)."""
    heads = int(config.get("num_attention_heads") or 1)
    half = int(config.get("head_dim") or config.get("hidden_size", 0) // heads) // 2
    for key in ("short_factor", "long_factor"):
        factors = rope.get(key)
        if not isinstance(factors, list) or len(factors) != half or not all(
                isinstance(f, (int, float)) and f > 0 for f in factors):
            count = f"{len(factors)} values" if isinstance(factors, list) else "no list"
            return (f"longrope's {key} has {count}, and llama.cpp needs {half} positive numbers "
                    f"(one per rotary frequency, head_dim / 2)")
    original = rope.get("original_max_position_embeddings",
                        config.get("original_max_position_embeddings"))
    if not isinstance(original, int) or original <= 0:
        return ("longrope has no original_max_position_embeddings (the context its short factors "
                "are for), which llama.cpp needs to choose between the factors")
    return None


def longrope_context(config: dict) -> int | None:
    """The context Phi 3's longrope short factors are for (original_max_position_embeddings), when
    the model has longrope scaling; else None. llama.cpp uses the long factors for every position
    of a context created larger than this; transformers only for a sequence longer than it."""
    rope = config.get("rope_parameters") or config.get("rope_scaling") or {}
    if not isinstance(rope, dict) or rope.get("rope_type", rope.get("type")) != "longrope":
        return None
    return int(rope.get("original_max_position_embeddings",
                        config.get("original_max_position_embeddings")))


LONGROPE_NOTE = ("Past {original:,} tokens of context llama.cpp applies the long rope factors to "
                 "the whole sequence (as with llama.cpp's own converter), where transformers "
                 "applies them only to a sequence longer than {original:,} tokens; the check ran "
                 "in a context of {original:,} tokens or less, where both use the short factors.")


def _gemma_problem(config: dict) -> str | None:
    """What llama.cpp's GEMMA2 and GEMMA3 cannot express: they scale queries by 1/sqrt(head_dim)
    (by 1/sqrt(hidden_size / heads) for the 27B), have sliding-window layers in a fixed period
    (GEMMA), GEMMA2 always soft-caps the attention and the final logits, GEMMA3 never the
    attention."""
    model_type = config["model_type"]
    family = "Gemma 2" if model_type == "gemma2" else "Gemma 3"
    big, period = GEMMA[model_type]
    heads = int(config.get("num_attention_heads") or 1)
    head_dim = int(config.get("head_dim") or config.get("hidden_size", 0) // heads)
    layers = int(config.get("num_hidden_layers") or 0)
    llama_cpp = config.get("hidden_size", 0) / heads if layers == big else head_dim
    scalar = config.get("query_pre_attn_scalar", 256)
    if float(scalar) != float(llama_cpp):
        return (f"query_pre_attn_scalar {scalar} differs from what llama.cpp scales {family}'s "
                f"queries by ({llama_cpp:g}: head_dim, or hidden_size / heads for the "
                f"{big}-layer 27B), so llama.cpp would compute other attention")
    capped = ("attn_logit_softcapping", "final_logit_softcapping") if model_type == "gemma2" else ()
    for key in capped:
        if config.get(key) is None:
            return f"{key} is not set, and llama.cpp soft-caps {family}'s logits always"
    if model_type == "gemma3_text" and config.get("attn_logit_softcapping") is not None:
        return "attn_logit_softcapping is set, and llama.cpp does not soft-cap Gemma 3's attention"
    expected = ["sliding_attention" if i % period < period - 1 else "full_attention"
                for i in range(layers)]
    if config.get("layer_types") not in (None, expected):
        pattern = "a sliding-window layer" if period == 2 else f"{period - 1} sliding-window layers"
        return (f"layer_types is not {pattern} then a full one, in turn, the only pattern "
                f"llama.cpp runs for {family}")
    if config.get("hidden_activation", "gelu_pytorch_tanh") != "gelu_pytorch_tanh":
        return (f"hidden_activation {config.get('hidden_activation')!r} is not the tanh GELU "
                f"llama.cpp runs for {family}")
    return None


def _gemma3_rope_problem(config: dict) -> str | None:
    """llama.cpp's GEMMA3 rotates the sliding-window layers with base 10000 unscaled and the full
    ones with the file's base and linear scaling factor."""
    rope = config.get("rope_parameters") or {}
    local, full = rope.get("sliding_attention") or {}, rope.get("full_attention") or {}
    if local.get("rope_type", "default") != "default" or float(
            local.get("rope_theta", 10000.0)) != 10000.0:
        return ("the sliding-window layers' rope (rope_parameters.sliding_attention) is not the "
                "unscaled base 10000 llama.cpp runs for Gemma 3")
    if full.get("rope_type", "default") not in ("default", "linear"):
        return (f"rope type {full.get('rope_type')!r} of the full-attention layers is not one the "
                f"GGUF writer writes for Gemma 3 (default, linear)")
    return None


def chat_template(folder: str) -> str | None:
    """The model's chat template: chat_template.jinja (transformers 5) or tokenizer_config.json."""
    jinja = os.path.join(folder, "chat_template.jinja")
    if os.path.isfile(jinja):
        with open(jinja, encoding="utf-8") as handle:
            return handle.read()
    path = os.path.join(folder, "tokenizer_config.json")
    template = read_json(path).get("chat_template") if os.path.isfile(path) else None
    return template if isinstance(template, str) else None


def pre_tokenizer(tokenizer_json: dict) -> str:
    """llama.cpp's name for the tokenizer's byte-level split rule (GgufSkipped if unknown)."""
    pre = tokenizer_json.get("pre_tokenizer") or {}
    steps = pre.get("pretokenizers", [pre]) if pre.get("type") == "Sequence" else [pre]
    for step in steps:
        if step.get("type") == "Split":
            regex = (step.get("pattern") or {}).get("Regex")
            if regex in PRE_TOKENIZERS:
                return PRE_TOKENIZERS[regex]
            raise GgufSkipped(f"the tokenizer splits text with a rule llama.cpp has no name for "
                              f"({str(regex)[:60]}…)")
    if any(step.get("type") == "ByteLevel" and step.get("use_regex", True) for step in steps):
        return GPT2_PRE
    raise GgufSkipped("the tokenizer has no byte-level pre-tokenizer llama.cpp knows")


def read_tokenizer(merged_dir: str):
    """(tokenizer.json, llama.cpp's name for its split rule or None, the package's vocabulary of
    it: BpeVocab for byte-level BPE, LlamaHfVocab for SentencePiece-style BPE); or GgufSkipped
    naming the piece a GGUF tokenizer needs that this one lacks: tokenizer.json's model.type BPE,
    its merges, and either byte-level BPE (a ByteLevel decoder, a split rule llama.cpp knows) or
    SentencePiece-style BPE (spm_tokenizer)."""
    import gguf

    tokenizer_json = folder_json(merged_dir, "tokenizer.json", GgufSkipped,
                                 "which the GGUF writer reads the vocabulary from")
    model = tokenizer_json.get("model") or {}
    decoder = tokenizer_json.get("decoder") or {}
    if model.get("type") != "BPE":
        raise GgufSkipped(f"the tokenizer's model (tokenizer.json model.type) is "
                          f"{model.get('type')!r}, and the GGUF writer reads BPE (byte-level or "
                          f"SentencePiece-style with byte fallback)")
    if not model.get("merges"):
        raise GgufSkipped("the tokenizer has no merges (tokenizer.json model.merges), which "
                          "llama.cpp's tokenizer needs")
    if model.get("byte_fallback"):
        return tokenizer_json, None, spm_tokenizer(merged_dir, tokenizer_json)
    if decoder.get("type") != "ByteLevel":
        raise GgufSkipped(f"the tokenizer's decoder (tokenizer.json decoder.type) is "
                          f"{decoder.get('type')!r}, and the GGUF writer reads byte-level BPE "
                          f"(ByteLevel)")
    pre = pre_tokenizer(tokenizer_json)
    return tokenizer_json, pre, _package_vocab(gguf.BpeVocab, merged_dir)


def _package_vocab(kind, merged_dir: str):
    """The gguf package's vocabulary class `kind` of the folder, or GgufSkipped saying why not."""
    try:
        return kind(Path(merged_dir))
    except (FileNotFoundError, ValueError, TypeError) as error:
        raise GgufSkipped(f"the GGUF writer cannot read the tokenizer's vocabulary "
                          f"({error})") from error


def _steps(part: dict | None) -> list[dict]:
    """A tokenizer.json normalizer's, pre-tokenizer's or decoder's steps (a Sequence's, or itself)."""
    if not part:
        return []
    if part.get("type") != "Sequence":
        return [part]
    return part.get("normalizers") or part.get("pretokenizers") or part.get("decoders") or []


def spm_prefix(tokenizer_json: dict) -> bool:
    """Whether the SentencePiece-style tokenizer puts "▁" before the text (llama.cpp's
    add_space_prefix): a Prepend("▁") normalizer, or a Metaspace pre-tokenizer that always
    prepends. llama.cpp prepends to every text between special tokens, as a normalizer does;
    GgufSkipped for a tokenizer that prepends only at the start, or a step llama.cpp's
    SentencePiece tokenizer does not do (it replaces spaces with "▁" and splits nothing)."""
    prefix = False
    for step in _steps(tokenizer_json.get("normalizer")):
        kind = step.get("type")
        if kind == "Prepend" and step.get("prepend") == "\u2581":
            prefix = True
        elif not (kind == "Replace" and (step.get("pattern") or {}).get("String") == " "
                  and step.get("content") == "\u2581"):
            raise GgufSkipped(f"the tokenizer's normalizer step {kind!r} (tokenizer.json "
                              f"normalizer) is not one llama.cpp's SentencePiece tokenizer does")
    for step in _steps(tokenizer_json.get("pre_tokenizer")):
        if step.get("type") != "Metaspace" or step.get("split", True):
            raise GgufSkipped(f"the tokenizer's pre-tokenizer {step.get('type')!r} splits the "
                              f"text (tokenizer.json pre_tokenizer), which llama.cpp's "
                              f"SentencePiece tokenizer does not")
        scheme = step.get("prepend_scheme", "always" if step.get("add_prefix_space") else "never")
        if scheme == "first":
            raise GgufSkipped("the tokenizer puts \"\u2581\" only before the start of the text "
                              "(tokenizer.json pre_tokenizer Metaspace prepend_scheme 'first'), "
                              "and llama.cpp puts it after every special token as well")
        prefix = prefix or scheme == "always"
    return prefix


def spm_tokenizer(merged_dir: str, tokenizer_json: dict):
    """The package's LlamaHfVocab of a SentencePiece-style tokenizer.json (BPE with byte fallback,
    as Gemma's and Phi 3's), for llama.cpp's `llama` tokenizer model, with what that model needs
    beyond the package's vocabulary: a score per token (llama.cpp merges the adjacent pair whose
    joined text has the highest score, so a token made by the merge of rank r scores -r and the
    merge order is kept), each added token's type from tokenizer.json (special: CONTROL, other:
    USER_DEFINED; llama.cpp matches both in text), and the space prefix (spm_prefix). GgufSkipped
    when a byte token <0x00>..<0xFF> that byte fallback needs or the ByteFallback decoder is
    missing."""
    import gguf

    model = tokenizer_json["model"]
    vocab = model.get("vocab") or {}
    if not any(step.get("type") == "ByteFallback"
               for step in _steps(tokenizer_json.get("decoder"))):
        raise GgufSkipped("the tokenizer has byte fallback (tokenizer.json model.byte_fallback) "
                          "but no ByteFallback decoder (tokenizer.json decoder)")
    missing = [f"<0x{b:02X}>" for b in range(256) if f"<0x{b:02X}>" not in vocab]
    if missing:
        raise GgufSkipped(f"the tokenizer has byte fallback but lacks {len(missing)} of its 256 "
                          f"byte tokens (first: {missing[0]}) in tokenizer.json model.vocab")
    prefix = spm_prefix(tokenizer_json)
    spm = _package_vocab(gguf.LlamaHfVocab, merged_dir)
    scores: dict[int, float] = {}
    for rank, merge in enumerate(model["merges"]):
        left, right = merge.split(" ", 1) if isinstance(merge, str) else merge
        token = vocab.get(left + right)
        if token is not None:
            scores.setdefault(token, -float(rank + 1))
    added = {int(t["id"]): gguf.TokenType.CONTROL if t.get("special")
             else gguf.TokenType.USER_DEFINED for t in tokenizer_json.get("added_tokens", [])}
    # LlamaHfVocab lists the tokens in id order: the model's vocabulary, then the added ones.
    entries = [(text, scores.get(token, 0.0), added.get(token, kind))
               for token, (text, _, kind) in enumerate(spm.all_tokens())]
    return SpmVocab(entries, prefix)


@dataclass(frozen=True)
class SpmVocab:
    """A SentencePiece-style vocabulary as llama.cpp's `llama` tokenizer model reads it."""
    entries: list
    add_space_prefix: bool
    tokenizer_model = "llama"

    def all_tokens(self):
        return iter(self.entries)


# Metadata per vocabulary entry beyond its text: length (8), score (4) and type (4), and up to
# 16 bytes of text for the placeholder entries past the tokenizer.
ENTRY_BYTES = 32
TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "chat_template.jinja")


def metadata_bytes(folder: str, vocab_size: int) -> int:
    """More than a file's metadata takes: the tokenizer's files (their tokens, merges and chat
    template as JSON or text) and ENTRY_BYTES per vocabulary entry."""
    files = (os.path.join(folder, name) for name in TOKENIZER_FILES)
    return sum(os.path.getsize(f) for f in files if os.path.isfile(f)) + ENTRY_BYTES * vocab_size


def gguf_bytes(stats: dict, type_name: str) -> int:
    """About how many bytes write_gguf's file of type_name takes, from web_export.weight_stats'
    counts: 1-D tensors (stats["vectors"]) in float32, every other weight in float16 (F16) or in
    Q8_0 blocks (32 int8 values and a float16 scale), plus stats["metadata"] (metadata_bytes).
    A Q8_0 matrix whose rows do not split into blocks is written in float16, a little larger."""
    import gguf

    kind = gguf.GGMLQuantizationType.F16 if type_name == "F16" else gguf.GGMLQuantizationType.Q8_0
    values, size = gguf.GGML_QUANT_SIZES[kind]
    vectors = stats.get("vectors", 0)
    return int(4 * vectors + (stats["parameters"] - vectors) * size / values
               + stats.get("metadata", 0))


def disk_needed(stats: dict, types: tuple[str, ...]) -> int:
    """The most bytes export_gguf adds to the disk at once, with 5 % to spare: every asked type's
    file side by side in <out_dir>.partial (each written as <file>.partial and renamed in place;
    one failing its check is removed after it was written). An earlier out_dir stays until the
    new one replaces it, but it already counts as used, not free."""
    return int(1.05 * sum(gguf_bytes(stats, type_name) for type_name in types))


def _rope_freqs(config):
    """Llama 3's per-frequency divisors for llama.cpp's rope_freqs, from the model's own rotary
    module: default inverse frequencies ÷ scaled ones."""
    import numpy as np
    import torch
    from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding

    scaled = LlamaRotaryEmbedding(config=config).inv_freq.to(torch.float64)
    head_dim = getattr(config, "head_dim", None) or config.hidden_size // config.num_attention_heads
    base = float(config.rope_parameters["rope_theta"])
    default = 1.0 / (base ** (torch.arange(0, head_dim, 2, dtype=torch.float64) / head_dim))
    return (default / scaled).numpy().astype(np.float32)


def _longrope_tensors(config) -> tuple[list, float]:
    """Phi 3's longrope for llama.cpp: its rope_factors_long and rope_factors_short tensors (the
    config's long_factor and short_factor, float32, long first as llama.cpp's converter writes
    them) and the attention factor that scales cos and sin, read off the model's own rotary module
    (transformers' sqrt(1 + ln(scale) / ln(original)), scale = max / original context, or the
    config's attention_factor)."""
    import gguf
    import numpy as np
    from transformers.models.phi3.modeling_phi3 import Phi3RotaryEmbedding

    rope = config.rope_parameters
    tensors = [(gguf.TENSOR_NAMES[kind] + ".weight", np.asarray(rope[key], dtype=np.float32))
               for kind, key in ((gguf.MODEL_TENSOR.ROPE_FACTORS_LONG, "long_factor"),
                                 (gguf.MODEL_TENSOR.ROPE_FACTORS_SHORT, "short_factor"))]
    return tensors, float(Phi3RotaryEmbedding(config=config).attention_scaling)


def general_name(name: str, model_type: str, tokenizer_json: dict) -> str:
    """general.name for the file: `name`, made to say Phi-3 exactly when the tokenizer strips the
    whitespace after its special tokens (rstrip, as Phi 3's <|end|>, <|user|>, <|assistant|>,
    <|system|>). llama.cpp has no per-token rstrip in GGUF: it strips after Phi 3's special tokens
    only for a model whose general.name contains "phi-3" or "phi3" (PHI3_NAMES), so a Phi 3 named
    after its run would tokenize the chat template's "<|end|>\n" otherwise than the tokenizer it
    was trained with; and a name that says phi3 without rstrip would strip what the tokenizer keeps
    (and fail to load where <|endoftext|> or </s> is missing), so there the words are spaced out.
    GgufSkipped for a rstrip tokenizer lacking a token llama.cpp's rule needs."""
    lowered = name.lower()
    added = tokenizer_json.get("added_tokens", [])
    if model_type != "phi3" or not any(token.get("rstrip") for token in added):
        for word in PHI3_NAMES:  # "phi-3" → "phi 3", "Phi3" → "Phi 3": llama.cpp's rule unmet
            while word in lowered:
                at = lowered.index(word)
                name = name[:at + 3] + " " + name[at + len(word) - 1:]
                lowered = name.lower()
        return name
    vocab = {**(tokenizer_json.get("model") or {}).get("vocab", {}),
             **{token.get("content"): token.get("id") for token in added}}
    missing = [token for token in PHI3_RSTRIP_TOKENS if token not in vocab]
    if missing:
        raise GgufSkipped(f"the tokenizer strips the whitespace after its special tokens (rstrip), "
                          f"which llama.cpp does for a model named Phi-3 only with "
                          f"{', '.join(PHI3_RSTRIP_TOKENS)} in the vocabulary, and it lacks "
                          f"{', '.join(missing)}")
    return name if any(word in lowered for word in PHI3_NAMES) else f"{name} (Phi-3)"


def _pairwise(weight, heads: int):
    """Rows of q_proj/k_proj from Hugging Face's halves layout to llama.cpp's adjacent pairs."""
    rows, cols = weight.shape
    return (weight.reshape(heads, 2, rows // heads // 2, cols).swapaxes(1, 2)
            .reshape(rows, cols))


def write_gguf(merged_dir: str, path: str, type_name: str, say=lambda _: None,
               name: str | None = None) -> dict:
    """Writes merged_dir's model to path as GGUF of type_name (TYPES); the figures. `name` (by
    default the folder's) becomes general.name, as general_name adjusts it."""
    import gguf
    import numpy as np
    from transformers import AutoConfig

    import onnx_fused

    started = time.monotonic()
    if type_name not in TYPES:
        raise ValueError(f"unknown GGUF type {type_name!r} (known: {', '.join(TYPES)})")
    checked_config(merged_dir, gguf_problem, GgufSkipped)
    tokenizer_json, pre, vocab = read_tokenizer(merged_dir)
    title = name or os.path.basename(os.path.normpath(merged_dir))

    config = AutoConfig.from_pretrained(merged_dir)
    model_type = config.model_type
    arch = getattr(gguf.MODEL_ARCH, ARCHES[model_type])
    layers = config.num_hidden_layers
    heads = config.num_attention_heads
    kv_heads = config.num_key_value_heads or heads
    head_dim = getattr(config, "head_dim", None) or config.hidden_size // heads
    names = gguf.get_tensor_name_map(arch, layers)
    weights = onnx_fused._Weights(merged_dir)
    qtype = gguf.GGMLQuantizationType.F16 if type_name == "F16" else gguf.GGMLQuantizationType.Q8_0
    block = gguf.GGML_QUANT_SIZES[gguf.GGMLQuantizationType.Q8_0][0]

    # Which tensors, under which names and types; nothing is read yet.
    plan: list[tuple[str, str, list[int], object]] = []  # (gguf name, hf name, shape, type)
    for hf_name in sorted(weights.files):
        if hf_name == "lm_head.weight" and config.tie_word_embeddings:
            continue
        name = names.get_name(hf_name, try_suffixes=(".weight", ".bias"))
        if name is None:
            raise GgufSkipped(f"the GGUF writer has no llama.cpp name for the tensor {hf_name}")
        shape = weights.shape(hf_name)
        if len(shape) == 1:
            kind = gguf.GGMLQuantizationType.F32
        elif qtype == gguf.GGMLQuantizationType.Q8_0 and shape[-1] % block:
            kind = gguf.GGMLQuantizationType.F16
        else:
            kind = qtype
        plan.append((name, hf_name, shape, kind))
    rope = getattr(config, "rope_parameters", None) or {}
    if model_type == "gemma3_text":  # the full-attention layers' (llama.cpp's global) rope
        rope = rope.get("full_attention") or {}
    # Tensors that are not weights: Llama 3's rope_freqs, Phi 3's longrope factor tables.
    extra, attn_factor = [], None
    if rope.get("rope_type") == "llama3":
        freqs = _rope_freqs(config)
        extra = [] if freqs is None else [
            (gguf.TENSOR_NAMES[gguf.MODEL_TENSOR.ROPE_FREQS] + ".weight", freqs)]
    elif rope.get("rope_type") == "longrope":
        extra, attn_factor = _longrope_tensors(config)

    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    partial = path + ".partial"
    writer = gguf.GGUFWriter(partial, gguf.MODEL_ARCH_NAMES[arch])
    writer.add_name(general_name(title, model_type, tokenizer_json))
    writer.add_context_length(config.max_position_embeddings)
    writer.add_embedding_length(config.hidden_size)
    writer.add_block_count(layers)
    writer.add_feed_forward_length(config.intermediate_size)
    writer.add_head_count(heads)
    writer.add_head_count_kv(kv_heads)
    writer.add_key_length(head_dim)
    writer.add_value_length(head_dim)
    writer.add_rope_dimension_count(head_dim)
    writer.add_rope_freq_base(float(rope.get("rope_theta", getattr(config, "rope_theta", 10000.0))))
    writer.add_layer_norm_rms_eps(float(config.rms_norm_eps))
    writer.add_vocab_size(config.vocab_size)
    writer.add_file_type(gguf.LlamaFileType.MOSTLY_F16 if type_name == "F16"
                         else gguf.LlamaFileType.MOSTLY_Q8_0)
    writer.add_quantization_version(gguf.GGML_QUANT_VERSION)
    if model_type in GEMMA:
        if config.attn_logit_softcapping is not None:
            writer.add_attn_logit_softcapping(float(config.attn_logit_softcapping))
        if config.final_logit_softcapping is not None:
            writer.add_final_logit_softcapping(float(config.final_logit_softcapping))
        writer.add_sliding_window(int(config.sliding_window))
    if rope.get("rope_type") == "linear":
        writer.add_rope_scaling_type(gguf.RopeScalingType.LINEAR)
        writer.add_rope_scaling_factor(float(rope["factor"]))
    if attn_factor is not None:  # longrope: llama.cpp picks the factor table by this length
        writer.add_rope_scaling_orig_ctx_len(int(rope["original_max_position_embeddings"]))
        writer.add_rope_scaling_attn_factors(attn_factor)

    tokens, scores, types = [], [], []
    for text, score, kind in vocab.all_tokens():
        tokens.append(text)
        scores.append(score)
        types.append(kind)
    if len(tokens) > config.vocab_size:
        raise GgufSkipped(f"the tokenizer has {len(tokens)} tokens, more than the model's "
                          f"vocab_size {config.vocab_size}")
    # The embedding rows past the tokenizer (padding to a multiple) get placeholder tokens.
    for i in range(len(tokens), config.vocab_size):
        tokens.append(f"[PAD{i}]".encode())
        scores.append(-1000.0)
        types.append(gguf.TokenType.UNUSED)
    writer.add_tokenizer_model(vocab.tokenizer_model)
    if pre is not None:
        writer.add_tokenizer_pre(pre)
    else:
        writer.add_add_space_prefix(vocab.add_space_prefix)
    writer.add_token_list(tokens)
    writer.add_token_scores(scores)
    writer.add_token_types(types)
    special = gguf.SpecialVocab(Path(merged_dir), load_merges=pre is not None,
                                n_vocab=config.vocab_size)
    template = chat_template(merged_dir)
    special.chat_template = template
    special.add_to_gguf(writer, quiet=True)
    eot = _end_of_turn(merged_dir, tokenizer_json)
    if eot is not None:
        writer.add_eot_token_id(eot)

    for tensor_name, data in extra:
        writer.add_tensor_info(tensor_name, list(data.shape), np.float32, data.nbytes)
    floats = {gguf.GGMLQuantizationType.F32: np.float32, gguf.GGMLQuantizationType.F16: np.float16}
    for name, _, shape, kind in plan:
        if kind in floats:
            dtype = np.dtype(floats[kind])
            writer.add_tensor_info(name, shape, dtype, int(np.prod(shape)) * dtype.itemsize)
        else:  # quantized: the writer takes the byte shape and derives the real one
            byte_shape = gguf.quant_shape_to_byte_shape(shape, kind)
            writer.add_tensor_info(name, byte_shape, np.uint8, int(np.prod(byte_shape)),
                                   raw_dtype=kind)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_ti_data_to_file()
    for _, data in extra:
        writer.write_tensor_data(data)
    for _, hf_name, _, kind in plan:
        data = weights.get(hf_name, np.float32)
        if model_type in PAIRWISE_ROPE and hf_name.endswith(("q_proj.weight", "k_proj.weight")):
            data = _pairwise(data, heads if "q_proj" in hf_name else kv_heads)
        if model_type in PLUS_ONE_NORMS and hf_name.endswith("norm.weight"):
            data = data + 1.0
        data = data.astype(floats[kind]) if kind in floats else gguf.quants.quantize(data, kind)
        writer.write_tensor_data(data)
        del data
    writer.close()
    os.replace(partial, path)
    say(f"GGUF {type_name}: {os.path.getsize(path) / 1e6:.1f} MB")
    return {"file": os.path.basename(path), "type": type_name, "bytes": os.path.getsize(path),
            "tensors": len(plan) + len(extra), "architecture": gguf.MODEL_ARCH_NAMES[arch],
            "pre_tokenizer": pre, "chat_template": template is not None,
            "seconds": round(time.monotonic() - started, 3)}


def _end_of_turn(folder: str, tokenizer_json: dict) -> int | None:
    """The id of the token that ends an assistant turn in the chat template, when it is a special
    token other than the end-of-sequence one llama.cpp already stops at."""
    template = chat_template(folder) or ""
    for added in tokenizer_json.get("added_tokens", []):
        content = added.get("content", "")
        if added.get("special") and content in ("<|eot_id|>", "<|im_end|>", "<end_of_turn>",
                                                "<|end|>") and content in template:
            return int(added["id"])
    return None


# ------------------------------------------------------------------ checked by llama.cpp itself

# Logits tolerance per type: |llama.cpp - PyTorch| of PyTorch's next token <= ATOL * max(1, max
# |PyTorch logit|) at every step; tokens compared where PyTorch's lead is at least CLEAR * that.
ATOL = {"F16": 2e-2, "Q8_0": 0.1}
CLEAR = {"F16": 2e-2, "Q8_0": 0.05}
CHECK_STEPS = 24
RULE = (
    "Reference: the merged PyTorch model (fp32, eager attention), greedy, on the chat-templated "
    "check prompt. The GGUF runs in llama.cpp (node-llama-cpp's CPU build) fed the prompt and "
    "PyTorch's tokens (teacher forcing): at every step the logit of PyTorch's token is within "
    "atol * max(1, max |PyTorch logit|), and where PyTorch's top-1 lead is at least clear * the "
    "same scale, llama.cpp's top token is PyTorch's. The chat template inside the file renders the "
    "check prompt to the tokenizer's ids.")
RUNTIME_HINT = "run `npm run llama:setup` (installs llama.cpp's CPU build for the checks)"
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def runtime_dir() -> str:
    """The folder `npm run llama:setup` installs node-llama-cpp into (LLAMA_RUNTIME_DIR to move)."""
    return os.environ.get("LLAMA_RUNTIME_DIR") or os.path.join(ROOT, ".llama-runtime")


def runtime_problem() -> str | None:
    import shutil

    entry = os.path.join(runtime_dir(), "node_modules", "node-llama-cpp", "dist", "index.js")
    if not os.path.isfile(entry):
        return f"llama.cpp's runtime is not installed in {runtime_dir()}: {RUNTIME_HINT}"
    if not shutil.which("node"):
        return "Node.js is not on PATH, and llama.cpp's runtime runs in it"
    return None


def run_in_llama_cpp(path: str, prompt: list[int], tokens: list[int],
                     messages: list[dict] | None = None, timeout: float = 600,
                     context: int | None = None) -> dict:
    """training/gguf_check.mjs on one file: its JSON result (see there). `context`: the context
    size llama.cpp is asked for (by default the check's own: at least 256 tokens)."""
    import subprocess

    problem = runtime_problem()
    if problem:
        return {"ok": False, "error": problem}
    request = {"runtime": runtime_dir(), "model": os.path.abspath(path), "prompt": prompt,
               "tokens": tokens, **({"messages": messages} if messages else {}),
               **({"contextSize": context} if context else {})}
    done = subprocess.run(["node", os.path.join(ROOT, "training", "gguf_check.mjs")],
                          input=json.dumps(request), capture_output=True, text=True,
                          timeout=timeout, check=False)
    try:
        return json.loads(done.stdout)
    except json.JSONDecodeError:
        tail = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no output"]
        return {"ok": False, "error": f"llama.cpp's check exited {done.returncode}: {tail[0]}"}


def check_context(prompt: list[int], tokens: list[int], longrope: int | None) -> int | None:
    """The context size the check asks llama.cpp for: its default (None) but for Phi 3's longrope,
    whose short factors llama.cpp uses only in a context of at most `longrope` tokens, as
    transformers does for a sequence that long; then the default's size within that limit."""
    if longrope is None:
        return None
    return min(longrope, max(256, len(prompt) + len(tokens) + 8))


def check_gguf(path: str, type_name: str, reference: dict,
               messages: list[dict] | None, longrope: int | None = None) -> dict:
    """Runs `path` in llama.cpp against web_export.reference_run's reference (RULE); `longrope`:
    longrope_context's limit on the check's context (check_context)."""
    prompt, tokens, margins = reference["prompt"], reference["tokens"], reference["margins"]
    scale = max(1.0, max(float(abs(logits).max()) for logits in reference["logits"]))
    tol, clear_margin = ATOL[type_name] * scale, CLEAR[type_name] * scale
    result: dict = {"passed": False, "failure": None, "steps": [],
                    "tolerance": {"atol": ATOL[type_name], "clear": CLEAR[type_name],
                                  "logit_scale": scale, "max_abs_diff": tol,
                                  "clear_margin": clear_margin}}
    context = check_context(prompt, tokens, longrope)
    if context is not None and len(prompt) + len(tokens) > context:
        result["failure"] = (f"the check's {len(prompt)} prompt and {len(tokens)} reply tokens do "
                             f"not fit the {longrope}-token context of longrope's short factors")
        return result
    ran = run_in_llama_cpp(path, prompt, tokens, messages, context=context)
    if not ran.get("ok"):
        result["failure"] = f"llama.cpp could not run it: {ran.get('error')}"
        return result
    result["seconds"] = ran["seconds"]
    result["context"] = ran.get("contextSize")
    failures, worst, compared, agreed = [], 0.0, 0, 0
    if longrope is not None and not (isinstance(result["context"], int)
                                     and result["context"] <= longrope):
        failures.append(f"llama.cpp made a context of {result['context']} tokens, more than "
                        f"longrope's {longrope}, so it used the long factors")
    for step, got in enumerate(ran["steps"]):
        want = tokens[step]
        pytorch = float(reference["logits"][step][-1][want])
        diff = abs(float(got["refLogit"]) - pytorch) if got["refLogit"] is not None else float("inf")
        worst = max(worst, diff)
        clear = margins[step] >= clear_margin
        agree = got["top"] == want
        compared += clear
        agreed += clear and agree
        result["steps"].append({"step": step, "pytorch_token": want, "llama_cpp_token": got["top"],
                                "pytorch_margin": round(margins[step], 6),
                                "abs_diff": round(diff, 6), "compared": clear, "agree": agree})
        if diff > tol:
            failures.append(f"step {step}: the logit of PyTorch's token differs by {diff:.3g} > "
                            f"{tol:.3g}")
        if clear and not agree:
            failures.append(f"step {step}: token {got['top']} != PyTorch's {want} (margin "
                            f"{margins[step]:.3g})")
    template_matches = ran.get("promptFromTemplate") == prompt if messages else None
    if template_matches is False:
        failures.append("the chat template inside the file renders other ids than the "
                        "tokenizer's for the check prompt")
    result.update(max_abs_diff=round(worst, 6), tokens_compared=compared, tokens_agreed=agreed,
                  template_matches=template_matches)
    result["passed"] = not failures
    result["failure"] = "; ".join(failures[:3]) + (f" (+{len(failures) - 3} more)"
                                                   if len(failures) > 3 else "") or None
    return result


def _modelfile(merged_dir: str, folder: str, published: list[str], name: str, say) -> dict:
    """An Ollama Modelfile beside the smallest published file (ollama_modelfile), or why none."""
    from ollama_modelfile import ModelfileSkipped, write_modelfile

    type_name = "Q8_0" if "Q8_0" in published else published[0]
    try:
        info = write_modelfile(merged_dir, os.path.join(folder, f"{name}-{type_name}.gguf"),
                               os.path.join(folder, "Modelfile"))
    except ModelfileSkipped as error:
        say(f"Ollama Modelfile: left out ({error})")
        return {"modelfile": None, "modelfile_skipped": str(error)}
    say(f"Ollama Modelfile: FROM {info['from']}, stop {', '.join(info['stop'])}")
    return {"modelfile": {"file": "Modelfile", **info}}


def export_gguf(merged_dir: str, out_dir: str, say, reference: dict | None = None,
                types: tuple[str, ...] = TYPES) -> dict:
    """Writes, checks and publishes each type into out_dir (`<name>-<type>.gguf`, export.json):
    a file failing its check is removed, its figures kept. GgufSkipped when the model cannot be
    written or no file passes."""
    import shutil

    import web_export

    started = time.monotonic()
    unknown = [t for t in types if t not in TYPES]
    if unknown:
        raise ValueError(f"unknown GGUF types {unknown} (known: {', '.join(TYPES)})")
    config = checked_config(merged_dir, lambda config: gguf_problem(config) or runtime_problem(),
                            GgufSkipped, "so it is not a Hugging Face model folder (a run's model "
                            "is in <output folder>/merged)")
    general_name("model", config["model_type"], read_tokenizer(merged_dir)[0])
    partial = out_dir.rstrip("/") + ".partial"
    shutil.rmtree(partial, ignore_errors=True)  # an interrupted export's; its space is free again
    try:
        stats = web_export.weight_stats(merged_dir)
        stats["metadata"] = metadata_bytes(merged_dir, int(config.get("vocab_size") or 0))
        web_export.check_disk(out_dir, disk_needed(stats, types))
    except web_export.ExportSkipped as refused:
        raise GgufSkipped(refused.reason) from refused
    # The template check renders the check prompt (when the model has a template at all).
    messages = ([{"role": "user", "content": web_export.CHECK_PROMPT}]
                if chat_template(merged_dir) else None)
    longrope = longrope_context(config)
    if reference is None:
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer

        tokenizer = AutoTokenizer.from_pretrained(merged_dir)
        model = AutoModelForCausalLM.from_pretrained(merged_dir, dtype=torch.float32,
                                                     attn_implementation="eager").eval()
        reference = web_export.reference_run(model, web_export._prompt_ids(tokenizer), CHECK_STEPS)
        del model
    os.makedirs(partial)
    name = os.path.basename(os.path.normpath(os.path.dirname(os.path.abspath(merged_dir)))) or "model"
    report: dict = {"format": 1, "rule": RULE, "files": {}, "published": [], "failed": []}
    if longrope is not None:
        report["longrope"] = {"original_context": longrope,
                              "note": LONGROPE_NOTE.format(original=longrope)}
        say(f"GGUF: {report['longrope']['note']}")
    for type_name in types:
        path = os.path.join(partial, f"{name}-{type_name}.gguf")
        written = write_gguf(merged_dir, path, type_name, say, name=name)
        checked = check_gguf(path, type_name, reference, messages, longrope)
        entry = {**written, **checked, "published": checked["passed"]}
        report["files"][type_name] = entry
        if checked["passed"]:
            report["published"].append(type_name)
            say(f"GGUF {type_name}: checked in llama.cpp, {checked['tokens_agreed']}/"
                f"{checked['tokens_compared']} clear-margin tokens agree")
        else:
            report["failed"].append(type_name)
            os.remove(path)
            say(f"GGUF {type_name}: left out ({checked['failure']})")
    if report["published"]:
        report.update(_modelfile(merged_dir, partial, report["published"], name, say))
    report["seconds"] = round(time.monotonic() - started, 3)
    with open(os.path.join(partial, "export.json"), "w", encoding="utf-8") as handle:
        json.dump(report, handle, indent=2)
    shutil.rmtree(out_dir, ignore_errors=True)
    os.replace(partial, out_dir)
    if not report["published"]:
        raise GgufSkipped("no GGUF file passed its check in llama.cpp ("
                          + "; ".join(f"{t}: {report['files'][t]['failure']}"
                                      for t in report["failed"]) + ")")
    return report


def main(argv: list[str] | None = None) -> int:
    import argparse
    import sys

    parser = argparse.ArgumentParser(description="GGUF F16 and Q8_0 of a merged model, checked "
                                                 "in llama.cpp before they are kept")
    parser.add_argument("merged_dir")
    parser.add_argument("out_dir")
    parser.add_argument("--types", default=",".join(TYPES))
    args = parser.parse_args(argv)
    types = tuple(t.strip() for t in args.types.split(",") if t.strip())
    unknown = [t for t in types if t not in TYPES]
    if unknown:
        parser.error(f"unknown GGUF types {unknown} (known: {', '.join(TYPES)})")
    try:
        report = export_gguf(args.merged_dir, args.out_dir, print, types=types)
    except GgufSkipped as skipped:
        print(f"no GGUF: {skipped}", file=sys.stderr)
        return 1
    print(f"published {', '.join(report['published'])} in {args.out_dir}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
