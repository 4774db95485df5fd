"""training/plan.py: the plan of a run on a tiny model (entries, split, token lengths, steps and
epochs, parameters counted without weights, LoRA's trainable count against peft's), its errors,
and the memory estimate against the measured peak of a small model trained in a child process."""
from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import subprocess
import sys
import unittest
from unittest import mock

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import test_support  # noqa: E402  (first: it sets the offline environment)
import plan  # noqa: E402
import train_data  # noqa: E402

try:
    import torch
except ImportError:  # pragma: no cover - the suite runs in the trainer's venv
    torch = None

TMP = ""
LLAMA = ""


def setUpModule():
    global TMP, LLAMA
    TMP, LLAMA = test_support.tiny_llama("plan-test.", torch, threads=None, quiet=True)


def tearDownModule():
    test_support.remove(TMP)


def data_file(entries: list[dict], name: str = "data.jsonl") -> str:
    path = os.path.join(TMP, name)
    with open(path, "w", encoding="utf-8") as handle:
        handle.write("\n".join(json.dumps(e) for e in entries) + "\n")
    return path


def run_plan(**values) -> tuple[int, list[str], str]:
    """plan.run_plan on the tiny model: (exit code, the lines said, stderr)."""
    args = plan.field_defaults(values.pop("method", "lora"), base_model=values.pop("base", LLAMA),
                               **values)
    said: list[str] = []
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        code = plan.run_plan(args, said.append)
    return code, said, err.getvalue()


SHORT = [{"prompt": f"Q{i}?", "completion": f"A{i}."} for i in range(19)]
LONG = {"prompt": "tell " * 60, "completion": "ok"}


class Plan(unittest.TestCase):
    def plan(self, **values) -> dict:
        code, said, err = run_plan(**values)
        self.assertEqual((code, err), (0, ""))
        self.assertEqual(len(said), 1)
        return json.loads(said[0])["plan"]

    def test_counts_lengths_steps_and_parameters(self):
        entries = SHORT + [LONG]
        result = self.plan(data_file=data_file(entries), max_len=64)
        tokenizer = __import__("transformers").AutoTokenizer.from_pretrained(LLAMA)
        lengths = [len(train_data.encode(tokenizer, m, 10_000)["input_ids"])
                   for m in train_data.load_entries(data_file(entries))]
        self.assertEqual(result["entries"], 20)
        self.assertEqual(result["too_long"]["count"], 1)
        self.assertEqual(result["too_long"]["indices"], [19])
        self.assertEqual(result["too_long"]["message"], "1 of 20 entries is longer than 64 tokens "
                         "and was left out: raise Max length")
        self.assertEqual(result["tokens"]["max"], max(lengths))
        self.assertEqual(result["tokens"]["over_max_len"], 1)
        self.assertEqual(result["tokens"]["p95"], sorted(lengths)[18])
        # The trainer's split over the 19 usable entries: 2 held out at 0.1.
        self.assertEqual((result["train"], result["held_out"]), (17, 2))
        self.assertEqual(result["steps"], 120)
        self.assertEqual(result["epochs"], round(120 / 17, 4))
        self.assertEqual(result["effective_batch"], 1)
        self.assertEqual(result["device"], "cpu")
        self.assertEqual(result["precision"], "fp32")
        self.assertFalse(result["gradient_checkpointing"])

        from peft import LoraConfig, get_peft_model
        from transformers import AutoModelForCausalLM

        model = AutoModelForCausalLM.from_pretrained(LLAMA)
        self.assertEqual(result["parameters"], model.num_parameters())
        peft_model = get_peft_model(model, LoraConfig(r=16, target_modules="all-linear",
                                                      task_type="CAUSAL_LM"))
        trainable, _ = peft_model.get_nb_trainable_parameters()
        self.assertEqual(result["trainable_parameters"], trainable)
        memory = result["memory"]
        self.assertEqual(memory["total_bytes"], sum(memory[k] for k in (
            "weights", "gradients", "optimizer", "activations", "runtime")))
        self.assertEqual(memory["weights"], 4 * result["parameters"])

    def test_epochs_and_effective_batch(self):
        with mock.patch.dict(os.environ, {"WORLD_SIZE": "2"}):
            result = self.plan(data_file=data_file(SHORT[:10]), epochs=3, batch_size=2,
                               grad_accum=2, eval_fraction=0.2, method="full",
                               gradient_checkpointing="on")
        self.assertEqual((result["train"], result["held_out"]), (8, 2))
        self.assertEqual(result["effective_batch"], 8)
        self.assertEqual(result["steps"], 3)  # ceil(8 × 3 / 8)
        self.assertEqual(result["epochs"], 3.0)
        self.assertEqual(result["trainable_parameters"], result["parameters"])
        self.assertTrue(result["gradient_checkpointing"])
        self.assertEqual(result["memory"]["optimizer"], 8 * result["parameters"])

    def test_bad_input_is_refused_with_the_trainers_messages(self):
        code, said, err = run_plan(data_file=os.path.join(TMP, "missing.jsonl"))
        self.assertEqual((code, said), (2, []))
        self.assertEqual(err.strip(), f"error: data file not found: {TMP}/missing.jsonl")
        code, _, err = run_plan(data_file=data_file([LONG]), max_len=16)
        self.assertEqual((code, err.strip()), (2, "error: 1 of 1 entry is longer than 16 tokens "
                                                  "and was left out: raise Max length"))
        broken = os.path.join(TMP, "broken.jsonl")
        with open(broken, "w", encoding="utf-8") as handle:
            handle.write(json.dumps(SHORT[0]) + "\n{oops\n")
        code, _, err = run_plan(data_file=broken)
        self.assertEqual(code, 2)
        self.assertIn("line 2 is not valid JSON", err)

    def test_base_without_chat_template(self):
        bare = os.path.join(TMP, "bare")
        shutil.copytree(LLAMA, bare, dirs_exist_ok=True)
        config_path = os.path.join(bare, "tokenizer_config.json")
        with open(config_path, encoding="utf-8") as handle:
            config = json.load(handle)
        config.pop("chat_template", None)
        with open(config_path, "w", encoding="utf-8") as handle:
            json.dump(config, handle)
        for name in os.listdir(bare):
            if name.startswith("chat_template"):
                os.remove(os.path.join(bare, name))
        code, _, err = run_plan(base=bare, data_file=data_file(SHORT))
        self.assertEqual(code, 2)
        self.assertIn(f"error: {bare} has no chat template", err)
        # The panel's Chat template field: the plan formats the entries with it.
        template = ("{% for m in messages %}{{ m['role'] }}: {{ m['content'] }}\n{% endfor %}"
                    "{% if add_generation_prompt %}assistant: {% endif %}")
        self.assertEqual(self.plan(base=bare, data_file=data_file(SHORT),
                                   chat_template=template)["entries"], 19)
        code, _, err = run_plan(base=bare, data_file=data_file(SHORT),
                                chat_template="{% if messages %}")
        self.assertEqual(code, 2)
        self.assertIn("error: the chat template is not valid Jinja (line 1: ", err)


class Resolution(unittest.TestCase):
    def test_checkpointing_auto_from_one_billion(self):
        self.assertFalse(plan.resolve_checkpointing("auto", 999_999_999))
        self.assertTrue(plan.resolve_checkpointing("auto", 1_000_000_000))
        self.assertTrue(plan.resolve_checkpointing("on", 10))
        self.assertFalse(plan.resolve_checkpointing("off", 10**10))

    def test_fsdp_shards_weights_gradients_and_optimizer_across_gpus(self):
        from transformers import LlamaConfig

        # Llama 3.2 3B's published shape, full fine-tuning in bf16 on 4 GPUs under the FSDP preset.
        config = LlamaConfig(hidden_size=3072, intermediate_size=8192, num_hidden_layers=28,
                             num_attention_heads=24, num_key_value_heads=8, head_dim=128,
                             vocab_size=128256, tie_word_embeddings=True)
        params = 3_212_749_824
        args = (config, params, "full", "bf16", 1, 512, True, 0)
        whole = plan.estimate_memory(*args, device="cuda")
        sharded = plan.estimate_memory(*args, device="cuda", shards=4)
        root = 128256 * 3072 + 3072
        gathered = (root + (params - root) // 28) * 8  # fp32 weights and their fp32 gradients
        self.assertEqual(sharded["weights"], int(params * 6 / 4 + gathered))
        self.assertEqual(sharded["gradients"], params * 4 // 4)
        self.assertEqual(sharded["optimizer"], params * 8 // 4)
        self.assertEqual(sharded["activations"], whole["activations"])
        self.assertIn("FSDP across 4 GPUs", sharded["note"])
        # About 52 GB on each GPU without sharding; under 20 GB with it: a 24 GB card fits.
        self.assertGreater(whole["total_bytes"], 50e9)
        self.assertLess(sharded["total_bytes"], 20e9)

    def test_fsdp_on_the_cpu_is_said_to_run_as_ddp(self):
        with mock.patch.dict(os.environ, {"TRAINING_SHARDED": "fsdp", "WORLD_SIZE": "2"}):
            result = plan.make_plan(plan.field_defaults("full", base_model=LLAMA,
                                                        data_file=data_file(SHORT)))
        self.assertEqual(result["device"], "cpu")
        self.assertTrue(result["memory"]["note"].endswith(
            "; FSDP shards across GPUs only: on this CPU the 2 processes run as DDP, each holding "
            "everything"), result["memory"]["note"])
        self.assertNotIn("FSDP across", result["memory"]["note"])

    def test_percentile(self):
        self.assertEqual(plan.percentile(list(range(1, 101)), 0.95), 95)
        self.assertEqual(plan.percentile([7], 0.95), 7)


# A small Llama whose training memory is mostly its activations and logits (hundreds of MB), so
# that the process's own noise does not decide the comparison.
MEASURE_CONFIG = dict(hidden_size=256, intermediate_size=1024, num_hidden_layers=4,
                      num_attention_heads=4, num_key_value_heads=2, vocab_size=16000,
                      tie_word_embeddings=False)


class AnonPeak:
    """The process's peak anonymous resident memory (RssAnon, sampled every millisecond). Not the
    whole RSS: a host that pages out cold file-backed pages (the libraries' code; e.g. a DAMON
    pageout scheme) lowers VmHWM's growth by what it paged out, and the comparison with it."""

    def __init__(self) -> None:
        import threading

        self.peak = self.now()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    @staticmethod
    def now() -> int:
        with open("/proc/self/status", encoding="ascii") as handle:
            for line in handle:
                if line.startswith("RssAnon:"):
                    return int(line.split()[1]) * 1024
        raise RuntimeError("no RssAnon in /proc/self/status")

    def _run(self) -> None:
        while not self._stop.wait(0.001):
            self.peak = max(self.peak, self.now())

    def stop(self) -> int:
        self._stop.set()
        self._thread.join()
        return max(self.peak, self.now())


def measure(method: str, checkpointing: bool, batch: int, seq: int) -> dict:
    """In a fresh process: trains a few AdamW steps on the CPU as the trainer does (peft LoRA on
    every linear layer, or every weight) and returns the peak growth of its anonymous memory over
    the process after its imports, beside plan.estimate_memory (its runtime part left out: the
    imports are the baseline)."""
    import torch
    from transformers import AutoModelForCausalLM, LlamaConfig

    torch.manual_seed(0)
    torch.set_num_threads(1)
    config = LlamaConfig(**MEASURE_CONFIG)
    baseline = AnonPeak.now()
    sampler = AnonPeak()
    model = AutoModelForCausalLM.from_config(config, dtype=torch.float32)
    parameters = model.num_parameters()
    if method == "lora":
        from peft import LoraConfig, get_peft_model

        model = get_peft_model(model, LoraConfig(r=16, lora_alpha=32, lora_dropout=0.05,
                                                 target_modules="all-linear",
                                                 task_type="CAUSAL_LM"))
    if checkpointing:
        model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
        model.enable_input_require_grads()
    optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-4)
    ids = torch.randint(0, config.vocab_size, (batch, seq))
    for _ in range(2):
        model(input_ids=ids, labels=ids).loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
    peak = sampler.stop()
    _, lora = plan.count_parameters(config, 16)
    estimate = plan.estimate_memory(config, parameters, method, "fp32", batch, seq,
                                    checkpointing, lora, device="cuda")
    return {"measured": peak - baseline, "estimate": estimate["total_bytes"]}


class Disk(unittest.TestCase):
    def test_checkpoint_estimate_against_the_checkpoints_a_run_writes(self):
        # finetune.py on the tiny model, one checkpoint a step: each checkpoint-N as written
        # (before the run's end removes them) is the estimate plus the run's small files (trainer
        # state, RNG, scheduler, tokenizer: under 150 kB, nothing at a real model's size).
        import finetune

        data = data_file(SHORT, "disk.jsonl")
        for method, rank in (("lora", 16), ("lora", 256), ("full", 16)):
            with self.subTest(method=method, rank=rank):
                out = os.path.join(TMP, f"disk-{method}-{rank}")
                sizes: list[int] = []
                rmtree = shutil.rmtree

                def record(path, *args, **kwargs):
                    if os.path.basename(str(path)) == "checkpoints":
                        sizes.extend(tree_bytes(os.path.join(path, name))
                                     for name in os.listdir(path) if name.startswith("checkpoint-"))
                    return rmtree(path, *args, **kwargs)

                with mock.patch.object(finetune.shutil, "rmtree", record):
                    code, _out, err = test_support.call_main(finetune.main, [
                        "--base_model", LLAMA, "--data_file", data, "--output_dir", out,
                        "--method", method, "--lora_r", str(rank), "--max_steps", "3",
                        "--save_steps", "1", "--keep_checkpoints", "1", "--no-web-export"])
                self.assertEqual(code, 0, err[-2000:])
                disk = self.plan(method=method, lora_r=rank, data_file=data, max_steps=3,
                                 output_dir=out)["disk"]
                self.assertEqual(len(sizes), 1, sizes)  # the newest kept
                self.assertGreaterEqual(sizes[0], disk["checkpoint_bytes"])
                self.assertLess(sizes[0] - disk["checkpoint_bytes"], 150_000, (sizes, disk))
                # keep (2 by default) + 1 being written, or keep + the saved result.
                self.assertEqual(disk["total_bytes"], 2 * disk["checkpoint_bytes"]
                                 + max(disk["checkpoint_bytes"], disk["result_bytes"]))

    def test_free_space_where_the_run_writes(self):
        # A folder not made yet: the free space of the nearest folder that is.
        data = data_file(SHORT, "disk.jsonl")
        disk = self.plan(data_file=data, max_steps=3,
                         output_dir=os.path.join(TMP, "not", "made", "yet"))["disk"]
        self.assertIsInstance(disk["free_bytes"], int)
        self.assertGreater(disk["free_bytes"], 0)
        self.assertTrue(disk["fits"])
        # A 1 MB disk: too small for full fine-tuning's checkpoints of this model (about 1.8 MB).
        small = os.path.join(TMP, "small-disk")
        os.makedirs(small, exist_ok=True)
        mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", small],
                                 capture_output=True, text=True, check=False)
        if mounted.returncode != 0:
            self.skipTest(f"cannot mount a small tmpfs here ({mounted.stderr.strip()})")
        self.addCleanup(subprocess.run, ["umount", small], check=False)
        disk = self.plan(method="full", data_file=data, max_steps=3,
                         output_dir=os.path.join(small, "run"))["disk"]
        self.assertLessEqual(disk["free_bytes"], 1 << 20)
        self.assertFalse(disk["fits"])
        self.assertGreater(disk["total_bytes"], disk["free_bytes"])
        # Without an output folder (a caller that does not say where): free space unknown.
        disk = self.plan(data_file=data, max_steps=3)["disk"]
        self.assertIsNone(disk["free_bytes"])
        self.assertIsNone(disk["fits"])

    plan = Plan.plan


def tree_bytes(folder: str) -> int:
    return sum(os.path.getsize(os.path.join(root, name))
               for root, _dirs, names in os.walk(folder) for name in names)


class Estimate(unittest.TestCase):
    def test_estimate_within_a_quarter_of_a_measured_peak(self):
        # One fresh process per case (a peak is only its own in a new process), run side by side:
        # each measures its own memory.
        cases = (("full", False), ("lora", False), ("lora", True))
        procs = [subprocess.Popen([sys.executable, __file__, "measure", method,
                                   str(int(checkpointing)), "4", "256"],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                 for method, checkpointing in cases]
        outputs = []
        try:
            for proc in procs:
                out, err = proc.communicate(timeout=600)
                self.assertEqual(proc.returncode, 0, err[-3000:])
                outputs.append(out)
        finally:
            for proc in procs:
                proc.kill()
        for (method, checkpointing), out in zip(cases, outputs):
            with self.subTest(method=method, checkpointing=checkpointing):
                figures = json.loads(out.strip().splitlines()[-1])
                ratio = figures["estimate"] / figures["measured"]
                self.assertGreater(ratio, 0.75, figures)
                self.assertLess(ratio, 1.25, figures)


if __name__ == "__main__":
    if sys.argv[1:2] == ["measure"]:
        print(json.dumps(measure(sys.argv[2], sys.argv[3] == "1", int(sys.argv[4]),
                                 int(sys.argv[5]))))
    else:
        unittest.main()
