"""A model whose weights really pass 2 GB, trained and exported exactly as the service runs the
trainer, for tests/node/large-export.test.ts:

    .venv/bin/python training/make_large_export.py OUTDIR

1. A Llama-layout model with few layers and a real model's vocabulary and width (vocabulary
   128,256 and hidden size 2,048, as Llama 3.2 1B; an untied lm_head): 2.2 GB of fp32 weights, of
   which the embedding table and the lm_head are 1.05 GB each. It is first taught one answer at the
   tokenizer's own vocabulary size (seconds, so that greedy decoding has clear margins), then its
   embedding and lm_head are widened to the full vocabulary with small random rows (ids the
   repo's tokenizer never produces), and saved as OUTDIR/base.
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
QA = [{"prompt": "What is the capital of France?",
       "completion": "Paris is the capital of France."}] * 4


def build_base(dest: str, say=print) -> dict:
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer, LlamaConfig

    import make_test_export
    from tiny_models import TOKENIZER_DIR, TOKENIZER_FILES

    import shutil
    os.makedirs(dest, exist_ok=True)
    for name in TOKENIZER_FILES:
        shutil.copy2(os.path.join(TOKENIZER_DIR, name), os.path.join(dest, name))
    tokenizer = AutoTokenizer.from_pretrained(dest)
    small = len(tokenizer)
    config = LlamaConfig(vocab_size=small, hidden_size=HIDDEN, intermediate_size=512,
                         num_hidden_layers=2, num_attention_heads=16, num_key_value_heads=4,
                         max_position_embeddings=512, tie_word_embeddings=False,
                         bos_token_id=tokenizer.bos_token_id, eos_token_id=tokenizer.eos_token_id,
                         pad_token_id=tokenizer.eos_token_id)
    torch.manual_seed(0)
    model = AutoModelForCausalLM.from_config(config, dtype=torch.float32)
    t0 = time.monotonic()
    loss = make_test_export.teach(model, tokenizer, steps=60)
    say(f"taught at vocabulary {small} in {time.monotonic() - t0:.1f}s (loss {loss:.4f})")
    # Widen to the real vocabulary: rows the tokenizer never produces, small enough never to win.
    with torch.no_grad():
        generator = torch.Generator().manual_seed(1)
        for module in (model.model.embed_tokens, model.lm_head):
            extra = torch.randn(VOCAB - small, HIDDEN, generator=generator) * 1e-3
            module.weight = torch.nn.Parameter(torch.cat([module.weight, extra]))
        model.model.embed_tokens.num_embeddings = VOCAB
        model.lm_head.out_features = VOCAB
        model.config.vocab_size = VOCAB
    model.save_pretrained(dest)
    params = sum(p.numel() for p in model.parameters())
    return {"parameters": params, "fp32_bytes": 4 * params, "train_loss": loss}


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
