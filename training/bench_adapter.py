"""The adapter check (training/adapter_check.py) on a real shape, random weights, no download:

    .venv/bin/python training/bench_adapter.py            Llama 3.2 1B Instruct's shape
    .venv/bin/python training/bench_adapter.py --smoke    a tiny Llama layout (figures mean nothing)

A base of the shape is built from its published config (bench_export.SHAPES) in bfloat16, the
precision the published weights are in and so the one a LoRA run on it trains and merges in; a
LoRA adapter on every linear layer gets random, non-zero B (a trained adapter's weights are not
zero; zero B would make adapter and merged equal trivially); the adapter is merged as finetune.py
merges it (on the CPU, in the base's precision) and both are saved. Then the check runs in a child
process of its own: its seconds, its peak RSS (os.wait4's rusage of that child) and its verdict.
Then the same adapter with one weight changed on disk, which the check must refuse.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import bench_export  # noqa: E402

LORA_RANK = 16
B_STD = 0.02  # the random B's spread: a delta of the order a short fine-tune leaves


def child_make(payload: dict) -> dict:
    import torch
    from peft import LoraConfig, get_peft_model
    from transformers import AutoConfig, AutoModelForCausalLM

    from tiny_models import copy_tokenizer

    shape = bench_export.SHAPES[payload["shape"]]
    base, out = payload["base"], payload["out"]
    tokenizer = copy_tokenizer(base)
    config = AutoConfig.for_model(shape["model_type"], **shape["config"],
                                  bos_token_id=tokenizer.bos_token_id,
                                  eos_token_id=tokenizer.eos_token_id,
                                  pad_token_id=tokenizer.eos_token_id)
    torch.manual_seed(0)
    with torch.no_grad():
        model = AutoModelForCausalLM.from_config(config, dtype=torch.bfloat16)
    model.save_pretrained(base)
    net = get_peft_model(model, LoraConfig(r=LORA_RANK, lora_alpha=2 * LORA_RANK,
                                           target_modules="all-linear", task_type="CAUSAL_LM"))
    with torch.no_grad():
        for name, weight in net.named_parameters():
            if "lora_B" in name:
                weight.normal_(0, B_STD)
    net.save_pretrained(out)
    tokenizer.save_pretrained(out)
    merged = net.merge_and_unload()
    merged.save_pretrained(os.path.join(out, "merged"))
    tokenizer.save_pretrained(os.path.join(out, "merged"))
    return {"ok": True, "parameters": sum(p.numel() for p in merged.parameters())}


def _rss_anon() -> int:
    with open("/proc/self/status", encoding="ascii") as handle:
        for line in handle:
            if line.startswith("RssAnon:"):
                return int(line.split()[1]) * 1024
    return 0


def child_check(payload: dict) -> dict:
    """The check, with the peak of the process's anonymous memory sampled every 5 ms beside the
    whole RSS (which also counts the safetensors files' mapped pages: page cache the kernel can
    drop, not memory the check takes)."""
    import threading

    import adapter_check

    peak = [_rss_anon()]
    stop = threading.Event()

    def sample() -> None:
        while not stop.wait(0.005):
            peak[0] = max(peak[0], _rss_anon())

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    try:
        report = adapter_check.check_adapter(payload["base"], payload["out"],
                                             os.path.join(payload["out"], "merged"))
    finally:
        stop.set()
        sampler.join()
    return {**report, "ok": True, "check_ok": report["ok"], "peak_anon_bytes": peak[0]}


def child_corrupt(payload: dict) -> dict:
    """One LoRA B matrix of the saved adapter scaled by 3 (the file no longer holds what was
    merged)."""
    from safetensors.torch import load_file, save_file

    path = os.path.join(payload["out"], "adapter_model.safetensors")
    weights = load_file(path)
    name = sorted(key for key in weights if "lora_B" in key)[0]
    weights[name] = weights[name] * 3
    save_file(weights, path, metadata={"format": "pt"})
    return {"ok": True, "changed": name}


TASKS = {"make": child_make, "check": child_check, "corrupt": child_corrupt}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--smoke", action="store_true", help="a tiny shape (figures mean nothing)")
    args = parser.parse_args(argv)
    shape = "smoke-llama" if args.smoke else "llama-3.2-1b"
    work = tempfile.mkdtemp(prefix="bench-adapter.")
    payload = {"shape": shape, "base": os.path.join(work, "base"), "out": os.path.join(work, "out")}
    load = os.getloadavg()[0]
    try:
        made = bench_export.run_child("make", payload, "build base, adapter, merged", work,
                                      script=os.path.abspath(__file__))
        if not made.get("ok"):
            print(f"could not build the models: {made.get('error')}")
            return 1
        checked = bench_export.run_child("check", payload, "adapter check", work,
                                         script=os.path.abspath(__file__))
        bench_export.run_child("corrupt", payload, "change one adapter weight", work,
                               script=os.path.abspath(__file__))
        refused = bench_export.run_child("check", payload, "adapter check (changed)", work,
                                         script=os.path.abspath(__file__))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    label = bench_export.SHAPES[shape]["label"]
    rows = [[what, "ok" if r.get("check_ok") else "refused", f"{r.get('max_logit_difference'):.3g}"
             if r.get("max_logit_difference") is not None else "—",
             f"{r.get('tolerance'):.3g}" if r.get("tolerance") is not None else "—",
             f"{r['run']['seconds']:.1f}", bench_export.gb(r["run"]["peak_rss_bytes"]),
             bench_export.gb(r.get("peak_anon_bytes") or 0)]
            for what, r in (("adapter as saved", checked), ("one B weight ×3", refused))]
    print(f"{label}: {made['parameters'] / 1e9:.2f} B parameters, bfloat16 merged/, LoRA rank "
          f"{LORA_RANK} on every linear layer, {checked.get('tokens')}-token reference prompt")
    print(bench_export.table(rows, ["adapter", "check", "max logit diff", "tolerance",
                                    "child s", "child peak RSS", "peak anonymous"]))
    print(f"(1-minute load average {load:.1f} at the start, {os.getloadavg()[0]:.1f} at the end, "
          f"{os.cpu_count()} cores)")
    print(json.dumps({"checked": checked, "refused": refused}))
    return 0 if checked.get("check_ok") and not refused.get("check_ok") else 1


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "_child":
        sys.exit(bench_export.child_main(sys.argv[2], sys.argv[3], sys.argv[4], tasks=TASKS))
    sys.exit(main())
