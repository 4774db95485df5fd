"""The second model of `npm run bench:speed`: a tiny random-weight Llama of another shape than the
repo's tiny model (wider and deeper, grouped-query attention), exported for the browser by the
trainer's own exporter (training/web_export.py, fp32), so the bench also runs a graph made the way
real exports are (ONNX Runtime's fused decoder operators) instead of the hand-built one.

    .venv/bin/python tests/bench/make_speed_model.py OUTDIR

Writes OUTDIR/merged (the Hugging Face folder) and OUTDIR/web (what the bench serves). Needs
`npm run tiny-model` (its tokenizer) and `npm run trainer:setup`. Deterministic (fixed seed).
The lm_head rows of the tokenizer's special tokens are zero, so their logit is 0 while the largest
of the other few hundred random logits is well above it: greedy decoding never ends a reply early
and every reply has the asked number of tokens.
"""
from __future__ import annotations

import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "training"))

# Twice the tiny model's width and depth (tests/fixtures/generated/tiny-model: hidden
# 64, 2 layers, 4 heads, 2 KV heads).
SHAPE = dict(hidden_size=128, intermediate_size=256, num_hidden_layers=4, num_attention_heads=4,
             num_key_value_heads=2, max_position_embeddings=2048)


def make(out_dir: str) -> str:
    import torch
    from transformers import AutoModelForCausalLM, LlamaConfig

    from tiny_models import copy_tokenizer
    from web_export import export_web

    merged = os.path.join(out_dir, "merged")
    tokenizer = copy_tokenizer(merged)
    config = LlamaConfig(**SHAPE, vocab_size=len(tokenizer), bos_token_id=tokenizer.bos_token_id,
                         eos_token_id=tokenizer.eos_token_id, pad_token_id=tokenizer.eos_token_id,
                         tie_word_embeddings=False)
    torch.manual_seed(0)
    model = AutoModelForCausalLM.from_config(config, dtype=torch.float32)
    with torch.no_grad():
        model.lm_head.weight[tokenizer.all_special_ids] = 0
    model.save_pretrained(merged)
    web = os.path.join(out_dir, "web")
    export_web(merged, web, say=print, variants=("fp32",))
    return web


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(f"usage: {sys.argv[0]} OUTDIR")
    print(make(sys.argv[1]))
