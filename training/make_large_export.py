"""A model whose weights really pass 2 GB, trained and exported exactly as the service runs the
trainer, for tests/node/large-export.test.ts:

    .venv/bin/python training/make_large_export.py OUTDIR

1. A Llama-layout model with few layers and a real model's vocabulary and width (vocabulary
   128,256 and hidden size 2,048, as Llama 3.2 1B; an untied lm_head): 2.2 GB of fp32 weights, of
   which the embedding table and the lm_head are 1.05 GB each. Its lm_head gives every token the
   tokenizer knows a fixed successor by a clear margin (see build_base), so that greedy decoding
   compares meaningfully across variants; saved as OUTDIR/base.
2. `training/finetune.py` on it as the service starts it (LoRA, two steps), which saves
   OUTDIR/run/merged and exports OUTDIR/run/web with the default variants.
3. OUTDIR/expected.json: PyTorch's greedy continuation (from merged/) of the chat prompt, with its
   margins, the run's exit code and log, and the export's report.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

VOCAB = 128_256
HIDDEN = 2048
NEW_TOKENS = 16
SUCCESSOR_LOGIT = 20.0
QA = [{"prompt": "What is the capital of France?",
       "completion": "Paris is the capital of France."}] * 4


def build_base(dest: str, say=print) -> dict:
    import shutil

    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer, LlamaConfig

    from tiny_models import TOKENIZER_DIR, TOKENIZER_FILES

    os.makedirs(dest, exist_ok=True)
    for name in TOKENIZER_FILES:
        shutil.copy2(os.path.join(TOKENIZER_DIR, name), os.path.join(dest, name))
    tokenizer = AutoTokenizer.from_pretrained(dest)
    config = LlamaConfig(vocab_size=VOCAB, hidden_size=HIDDEN, intermediate_size=512,
                         num_hidden_layers=2, num_attention_heads=16, num_key_value_heads=4,
                         max_position_embeddings=512, tie_word_embeddings=False,
                         bos_token_id=tokenizer.bos_token_id, eos_token_id=tokenizer.eos_token_id,
                         pad_token_id=tokenizer.eos_token_id)
    torch.manual_seed(0)
    model = AutoModelForCausalLM.from_config(config, dtype=torch.float32)
    # Greedy decoding with clear margins, by construction instead of by training: each token the
    # tokenizer knows gets a fixed successor (never a special token, which min_new_tokens would
    # forbid), its lm_head row aligned with the token's embedding, so the successor leads every
    # other logit by about SUCCESSOR_LOGIT while the attention and MLP layers (random, small) still
    # take part. Ids beyond the tokenizer's get small random rows that never win.
    known = len(tokenizer)
    special = set(tokenizer.all_special_ids)
    targets = [i for i in range(known) if i not in special]
    generator = torch.Generator().manual_seed(1)
    successor = [targets[int(j)] for j in torch.randint(len(targets), (known,), generator=generator)]
    with torch.no_grad():
        embed = torch.randn(VOCAB, HIDDEN, generator=generator)
        head = torch.randn(VOCAB, HIDDEN, generator=generator) * 1e-3
        head[:known] = 0
        for token, nxt in enumerate(successor):
            head[nxt] += embed[token] * (SUCCESSOR_LOGIT / HIDDEN)
        model.model.embed_tokens.weight.copy_(embed)
        model.lm_head.weight.copy_(head)
    model.save_pretrained(dest)
    params = sum(p.numel() for p in model.parameters())
    return {"parameters": params, "fp32_bytes": 4 * params}


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(f"usage: {sys.argv[0]} OUTDIR", file=sys.stderr)
        return 2
    out_dir = argv[0]
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    import make_test_export

    torch.set_num_threads(2)
    started = time.monotonic()
    base = os.path.join(out_dir, "base")
    result = {"base": base, **build_base(base)}
    data = os.path.join(out_dir, "data.json")
    with open(data, "w", encoding="utf-8") as handle:
        json.dump(QA, handle)
    run = os.path.join(out_dir, "run")
    t0 = time.monotonic()
    proc = subprocess.run(
        [sys.executable, os.path.join(HERE, "finetune.py"), "--base_model", base, "--data_file",
         data, "--output_dir", run, "--method", "lora", "--max_steps", "2", "--repeat", "1",
         "--eval_fraction", "0"],
        capture_output=True, text=True, env={**os.environ, "HF_HUB_OFFLINE": "1"})
    result["run"] = {"exit_code": proc.returncode, "seconds": round(time.monotonic() - t0, 1),
                     "stdout": proc.stdout.splitlines(), "stderr": proc.stderr[-4000:]}
    result["web"] = os.path.join(run, "web")
    report_path = os.path.join(run, "web", "export.json")
    if os.path.isfile(report_path):
        with open(report_path, encoding="utf-8") as handle:
            result["export"] = json.load(handle)

    merged = os.path.join(run, "merged")
    if os.path.isdir(merged):
        tokenizer = AutoTokenizer.from_pretrained(merged)
        model = AutoModelForCausalLM.from_pretrained(merged, dtype=torch.float32)
        messages = [{"role": "user", "content": QA[0]["prompt"]}]
        ids = make_test_export.chat_ids(tokenizer, messages)
        tokens, margins = make_test_export.greedy(model, ids, NEW_TOKENS)
        result["single"] = {"messages": messages, "prompt_ids": ids, "greedy": tokens,
                            "margins": margins}
    result["new_tokens"] = NEW_TOKENS
    result["seconds"] = round(time.monotonic() - started, 1)
    with open(os.path.join(out_dir, "expected.json"), "w", encoding="utf-8") as handle:
        json.dump(result, handle, indent=1)
    print(f"wrote {os.path.join(out_dir, 'expected.json')} ({result['seconds']}s; run exit "
          f"{proc.returncode})")
    return 0 if proc.returncode == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
