"""Tiny trained models exported for the browser, with PyTorch's greedy answers, for the Node tests.

    .venv/bin/python training/make_test_export.py OUTDIR [KIND ...]     (default: llama gemma2 qwen3 gemma3)

For each kind (training/tiny_models.py) it makes the random-weight model, teaches it one answer for
a few seconds (so that greedy decoding has clear margins, as a fine-tuned model has, instead of the
near-ties of random weights), saves it as OUTDIR/KIND/merged, exports it with
web_export.export_web to OUTDIR/KIND/web, and writes OUTDIR/expected.json:

    {"prompt": [...messages], "new_tokens": 16,
     "models": {KIND: {"merged": path, "web": path, "published": [...variants],
                       "single": {"messages", "prompt_ids", "greedy", "margins"},
                       "multi_turn": {"messages", "prompt_ids", "greedy", "margins"},
                       "export": {variant: {"passed", "max_abs_diff", "clear_margin", ...}}}}}

`greedy` is the merged PyTorch model's greedy continuation (NEW_TOKENS tokens, eos not stopping it)
of the chat-templated messages; "multi_turn" is a second user turn after the first answer, for
tests of cache reuse across turns. gemma2 gets a sliding window of 8 so that the window is in play.
With llama, "llama-chunked" is the same model exported (fp32, q4f16) with its weights in several
small external-data chunks.
"""
from __future__ import annotations

import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

NEW_TOKENS = 16
QUESTION = "What is the capital of France?"
ANSWER = "Paris is the capital of France, famous for the Eiffel Tower and its museums."
FOLLOW_UP = "And what river runs through it?"
TRAIN_STEPS = 120


def chat_ids(tokenizer, messages: list[dict], add_generation_prompt: bool = True) -> list[int]:
    out = tokenizer.apply_chat_template(messages, add_generation_prompt=add_generation_prompt,
                                        tokenize=True, return_dict=True)
    return list(out["input_ids"])


def teach(model, tokenizer, steps: int = TRAIN_STEPS, seed: int = 0) -> float:
    """A few full-parameter steps on the answer; the last loss."""
    import torch

    torch.manual_seed(seed)
    examples = []
    for messages, answer in (([{"role": "user", "content": QUESTION}], ANSWER),):
        prompt = chat_ids(tokenizer, messages)
        full = chat_ids(tokenizer, messages + [{"role": "assistant", "content": answer}],
                        add_generation_prompt=False)
        labels = [-100] * len(prompt) + full[len(prompt):]
        examples.append((torch.tensor([full]), torch.tensor([labels])))
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3)
    model.train()
    loss = None
    for step in range(steps):
        ids, labels = examples[step % len(examples)]
        loss = model(input_ids=ids, labels=labels).loss
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
    model.eval()
    return float(loss.detach())


def greedy(model, prompt: list[int], new_tokens: int = NEW_TOKENS) -> tuple[list[int], list[float]]:
    """Greedy continuation without a cache (every step recomputes the sequence); top-1 margins."""
    import torch

    seq = list(prompt)
    margins = []
    with torch.no_grad():
        for _ in range(new_tokens):
            top = torch.topk(model(input_ids=torch.tensor([seq])).logits[0, -1], 2)
            margins.append(round(float(top.values[0] - top.values[1]), 4))
            seq.append(int(top.indices[0]))
    return seq[len(prompt):], margins


def make(kind: str, out_dir: str, say=print) -> dict:
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from tiny_models import make_tiny_model
    from web_export import export_web

    merged = os.path.join(out_dir, kind, "merged")
    web = os.path.join(out_dir, kind, "web")
    make_tiny_model(kind, merged)
    if kind in ("gemma2", "gemma3"):
        path = os.path.join(merged, "config.json")
        with open(path, encoding="utf-8") as handle:
            config = json.load(handle)
        config["sliding_window"] = 8
        with open(path, "w", encoding="utf-8") as handle:
            json.dump(config, handle, indent=2)
    tokenizer = AutoTokenizer.from_pretrained(merged)
    model = AutoModelForCausalLM.from_pretrained(merged, dtype=torch.float32,
                                                 attn_implementation="eager")
    loss = teach(model, tokenizer)
    model.save_pretrained(merged)
    say(f"{kind}: taught for {TRAIN_STEPS} steps (loss {loss:.4f})")

    entry = {"merged": merged, "web": web, "train_loss": loss}
    single = [{"role": "user", "content": QUESTION}]
    ids = chat_ids(tokenizer, single)
    tokens, margins = greedy(model, ids)
    entry["single"] = {"messages": single, "prompt_ids": ids, "greedy": tokens, "margins": margins,
                       "text": tokenizer.decode(tokens)}
    answer = tokenizer.decode(tokens, skip_special_tokens=True)
    multi = single + [{"role": "assistant", "content": answer},
                      {"role": "user", "content": FOLLOW_UP}]
    ids = chat_ids(tokenizer, multi)
    tokens, margins = greedy(model, ids)
    entry["multi_turn"] = {"messages": multi, "prompt_ids": ids, "greedy": tokens,
                           "margins": margins, "text": tokenizer.decode(tokens)}
    del model

    report = export_web(merged, web, say)
    entry["published"] = report["published"]
    entry["graph"] = report["graph"]
    entry["export"] = {v: {"passed": e.get("passed"), "max_abs_diff": e.get("max_abs_diff"),
                           "clear_margin": (e.get("tolerance") or {}).get("clear_margin"),
                           "tokens": e.get("tokens"), "bytes": e.get("bytes"),
                           "external_data": e.get("external_data")}
                       for v, e in report["variants"].items()}
    return entry


CHUNK_BYTES = 64 * 1024  # small chunks, so that a tiny model's weights span several


def chunked_copy(entry: dict, out_dir: str, say=print) -> dict:
    """The same merged model exported (fp32 and q4f16) with its weights in several small chunks:
    transformers.js must fetch every `_data`, `_data_1`, … file that config.json counts."""
    import web_export

    web = os.path.join(out_dir, "llama-chunked", "web")
    report = web_export.export_web(entry["merged"], web, say, variants=("fp32", "q4f16"),
                                   chunk_bytes=CHUNK_BYTES)
    copy = dict(entry, web=web, published=report["published"])
    copy["export"] = {v: {"passed": e.get("passed"), "max_abs_diff": e.get("max_abs_diff"),
                          "clear_margin": (e.get("tolerance") or {}).get("clear_margin"),
                          "external_data": e.get("external_data")}
                      for v, e in report["variants"].items()}
    return copy


def main(argv: list[str]) -> int:
    if not argv or argv[0].startswith("-"):
        print(f"usage: {sys.argv[0]} OUTDIR [KIND ...]", file=sys.stderr)
        return 2
    out_dir, kinds = argv[0], argv[1:] or ["llama", "gemma2", "qwen3", "gemma3"]
    import torch

    import web_export
    # Tiny models on a shared machine: one thread each (more threads only contend).
    torch.set_num_threads(1)
    web_export.ORT_THREADS = 1
    os.makedirs(out_dir, exist_ok=True)
    started = time.monotonic()
    result = {"new_tokens": NEW_TOKENS, "models": {}}
    for kind in kinds:
        result["models"][kind] = make(kind, out_dir)
    if "llama" in result["models"]:
        result["models"]["llama-chunked"] = chunked_copy(result["models"]["llama"], out_dir)
    result["seconds"] = round(time.monotonic() - started, 2)
    with open(os.path.join(out_dir, "expected.json"), "w", encoding="utf-8") as handle:
        json.dump(result, handle, indent=2, ensure_ascii=False)
    print(f"wrote {os.path.join(out_dir, 'expected.json')} ({result['seconds']}s)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
