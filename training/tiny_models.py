"""Tiny random-weight causal LMs made from a config at test time (no downloads), for the trainer's
tests and benchmark: the shapes of the app's model families with the repo's tiny tokenizer
(tests/fixtures/generated/tiny-model, written by `npm run tiny-model`).

    python3 training/tiny_models.py llama /tmp/tiny-llama
"""
from __future__ import annotations

import os
import shutil
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOKENIZER_DIR = os.path.join(ROOT, "tests", "fixtures", "generated", "tiny-model")
TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json")

# Shared sizes: small enough to train in seconds on CPU, large enough to memorise a few answers.
_COMMON = dict(hidden_size=64, intermediate_size=128, num_hidden_layers=2,
               num_attention_heads=4, max_position_embeddings=512)

KINDS = ("llama", "llama_gqa_tied", "qwen2", "qwen3", "gemma2", "gemma3", "phi3")


def _config(kind: str, vocab_size: int, bos: int, eos: int):
    from transformers import (Gemma2Config, Gemma3TextConfig, LlamaConfig, Phi3Config,
                              Qwen2Config, Qwen3Config)

    ids = dict(vocab_size=vocab_size, bos_token_id=bos, eos_token_id=eos, pad_token_id=eos)
    if kind == "llama":
        return LlamaConfig(**_COMMON, **ids, num_key_value_heads=4, tie_word_embeddings=False)
    if kind == "llama_gqa_tied":
        return LlamaConfig(**_COMMON, **ids, num_key_value_heads=2, tie_word_embeddings=True)
    if kind == "qwen2":
        return Qwen2Config(**_COMMON, **ids, num_key_value_heads=2, tie_word_embeddings=True)
    if kind == "gemma2":
        return Gemma2Config(**_COMMON, **ids, num_key_value_heads=2, head_dim=16,
                            sliding_window=64, tie_word_embeddings=True)
    if kind == "qwen3":
        return Qwen3Config(**_COMMON, **ids, num_key_value_heads=2, head_dim=16,
                           tie_word_embeddings=True)
    if kind == "gemma3":
        return Gemma3TextConfig(**_COMMON, **ids, num_key_value_heads=2, head_dim=16,
                                sliding_window=64, tie_word_embeddings=True)
    if kind == "phi3":
        return Phi3Config(**_COMMON, **ids, num_key_value_heads=4, tie_word_embeddings=False)
    raise ValueError(f"unknown tiny model kind {kind!r} (known: {', '.join(KINDS)})")


def copy_tokenizer(dest: str):
    """Copies the repo's tiny tokenizer into dest (made if missing) and returns it loaded."""
    from transformers import AutoTokenizer

    if not os.path.isfile(os.path.join(TOKENIZER_DIR, "tokenizer.json")):
        raise FileNotFoundError(f"{TOKENIZER_DIR} is missing: run `npm run tiny-model` first")
    os.makedirs(dest, exist_ok=True)
    for name in TOKENIZER_FILES:
        shutil.copy2(os.path.join(TOKENIZER_DIR, name), os.path.join(dest, name))
    return AutoTokenizer.from_pretrained(dest)


def make_tiny_model(kind: str, dest: str, seed: int = 0) -> str:
    """Writes a random-weight `kind` model (Hugging Face layout) with the repo's tokenizer to dest."""
    import torch
    from transformers import AutoModelForCausalLM

    tokenizer = copy_tokenizer(dest)
    config = _config(kind, len(tokenizer), tokenizer.bos_token_id, tokenizer.eos_token_id)
    torch.manual_seed(seed)
    model = AutoModelForCausalLM.from_config(config, torch_dtype=torch.float32)
    model.save_pretrained(dest)
    return dest


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(f"usage: {sys.argv[0]} {{{'|'.join(KINDS)}}} DEST")
    print(make_tiny_model(sys.argv[1], sys.argv[2]))
