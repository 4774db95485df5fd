"""training/web_export.py with real torch, ONNX and ONNX Runtime on tiny models made from a config
(training/tiny_models.py, taught one answer for a second so that greedy decoding has clear margins,
as a fine-tuned model has): npm run test:python."""
from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
from unittest import mock

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import make_test_export  # noqa: E402
import test_support  # noqa: E402
import web_export  # noqa: E402
from tiny_models import KINDS, make_tiny_model  # noqa: E402

ALL = ["fp32", "fp16", "q4", "q4f16"]


def edit_config(dest: str, **changes) -> None:
    path = os.path.join(dest, "config.json")
    with open(path, encoding="utf-8") as handle:
        config = json.load(handle)
    config.update(changes)
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(config, handle, indent=2)


def make_taught(kind: str, dest: str, **config_changes) -> str:
    """A tiny `kind` model (tiny_models.py, its config.json changed by `config_changes`) taught
    make_test_export's answer and saved to dest; gemma2 and 3 get a sliding window of 8, shorter
    than the check prompt, so that the window is in play."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    make_tiny_model(kind, dest)
    changes = {"sliding_window": 8} if kind in ("gemma2", "gemma3") else {}
    changes.update(config_changes)
    if changes:
        edit_config(dest, **changes)
    model = AutoModelForCausalLM.from_pretrained(dest, dtype=torch.float32,
                                                 attn_implementation="eager")
    make_test_export.teach(model, AutoTokenizer.from_pretrained(dest))
    model.save_pretrained(dest)
    return dest


@contextlib.contextmanager
def small_disk(test: unittest.TestCase, folder: str, size: str, skipped: str = ""):
    """A tmpfs of `size` (mount's size= option) on folder, made for the block and unmounted after;
    the test is skipped where no filesystem can be mounted here. Unmounted lazily: a file an
    in-process run left open would keep it busy."""
    os.makedirs(folder)
    if subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", folder],
                      capture_output=True).returncode != 0:
        test.skipTest("cannot mount a small tmpfs here" + skipped)
    try:
        yield folder
    finally:
        subprocess.run(["umount", "--lazy", folder], check=False)


class Log:
    def __init__(self) -> None:
        self.lines: list[str] = []

    def __call__(self, text: str) -> None:
        self.lines.append(text)

    @property
    def text(self) -> str:
        return "\n".join(self.lines)


class ExportTestCase(unittest.TestCase):
    """A test class run with one torch and one ONNX Runtime thread, and a temporary folder
    (`tmp`, named after `prefix`) for its life."""
    prefix = "web-export-test."
    tmp: str

    @classmethod
    def setUpClass(cls) -> None:
        import torch
        torch.set_num_threads(1)
        test_support.freeze_imports("transformers", "onnx", "onnxruntime")
        cls.ort_threads = mock.patch.object(web_export, "ORT_THREADS", 1)
        cls.ort_threads.start()
        cls.tmp = tempfile.mkdtemp(prefix=cls.prefix)

    @classmethod
    def tearDownClass(cls) -> None:
        cls.ort_threads.stop()
        shutil.rmtree(cls.tmp, ignore_errors=True)


class WebExportTest(ExportTestCase):
    models: dict[str, str]
    exports: dict[str, tuple[str, dict, "Log"]]

    @classmethod
    def setUpClass(cls) -> None:
        super().setUpClass()
        cls.models = {kind: make_taught(kind, os.path.join(cls.tmp, "models", kind))
                      for kind in KINDS}
        cls.exports = {}

    def out(self, name: str) -> str:
        return os.path.join(self.tmp, "out", name, "web")

    def exported(self, kind: str) -> tuple[str, dict, Log]:
        """`kind`'s export with the default variants and graph: (web folder, report, log), made
        once per class; the tests only read it."""
        if kind not in self.exports:
            web, log = self.out(kind), Log()
            self.exports[kind] = (web, web_export.export_web(self.models[kind], web, log), log)
        return self.exports[kind]

    def assert_nothing_written(self, web: str) -> None:
        self.assertFalse(os.path.exists(web), web)
        self.assertFalse(os.path.exists(web + ".partial"), web + ".partial")

    def test_every_family_exports_every_variant_that_passes_its_checks(self):
        import onnxruntime as ort

        for kind in self.models:
            with self.subTest(kind=kind):
                web, report, log = self.exported(kind)
                self.assertEqual(report["published"], ["q4f16", "q4", "fp16", "fp32"], log.text)
                self.assertEqual(report["failed"], [])
                self.assertFalse(os.path.exists(web + ".partial"))
                with open(os.path.join(web, "export.json"), encoding="utf-8") as handle:
                    self.assertEqual(json.load(handle), json.loads(json.dumps(report)))
                # Every variant's weights are external data (the one path, whatever the size):
                # one chunk each at these sizes, named as transformers.js fetches them.
                names = sorted(os.listdir(os.path.join(web, "onnx")))
                files = ["model.onnx", "model_fp16.onnx", "model_q4.onnx", "model_q4f16.onnx"]
                self.assertEqual(names, sorted(files + [f + "_data" for f in files]))
                for name in ("config.json", "generation_config.json", "tokenizer.json"):
                    self.assertTrue(os.path.isfile(os.path.join(web, name)), name)
                with open(os.path.join(web, "tokenizer_config.json"), encoding="utf-8") as handle:
                    self.assertIn("chat_template", json.load(handle))
                with open(os.path.join(web, "config.json"), encoding="utf-8") as handle:
                    self.assertEqual(json.load(handle)["transformers.js_config"],
                                     {"use_external_data_format": {f: 1 for f in files}})
                self.assertEqual(report["graph"],
                                 "eager" if kind == "gemma2" else "fused")
                layers = 2
                for variant in ALL:
                    entry = report["variants"][variant]
                    self.assertTrue(entry["passed"], f"{kind} {variant}: {entry['failure']}")
                    self.assertTrue(entry["published"])
                    self.assertLessEqual(entry["max_abs_diff"], entry["tolerance"]["max_abs_diff"])
                    self.assertGreaterEqual(entry["decode_steps"], 16)
                    self.assertEqual(entry["steps"][0]["kind"], "prefill")
                    self.assertEqual(entry["tokens_agreed"], entry["tokens_compared"])
                    self.assertGreaterEqual(entry["tokens_compared"], 16, f"{kind} {variant}")
                    self.assertEqual(entry["tokens"], "agree")
                    path = os.path.join(web, entry["file"])
                    self.assertEqual(entry["external_data"], [os.path.basename(path) + "_data"])
                    self.assertEqual(entry["bytes"], os.path.getsize(path)
                                     + os.path.getsize(path + "_data"))
                    self.assertGreater(entry["seconds"]["check"], 0)
                    self.assertIn(f"{variant} ok", log.text)
                    # The io transformers.js needs: its names, a batch_size symbol, fixed kv heads
                    # and head dim, the past's dtype returned as present (float16 for fp16/q4f16).
                    session = ort.InferenceSession(os.path.join(web, entry["file"]),
                                                   providers=["CPUExecutionProvider"])
                    inputs = {i.name: i for i in session.get_inputs()}
                    self.assertEqual(list(inputs)[:3], ["input_ids", "attention_mask",
                                                        "position_ids"])
                    half = variant in ("fp16", "q4f16")
                    past_type = "tensor(float16)" if half else "tensor(float)"
                    for i in range(layers):
                        for part in ("key", "value"):
                            meta = inputs[f"past_key_values.{i}.{part}"]
                            self.assertEqual(meta.type, past_type)
                            self.assertEqual(meta.shape[0], "batch_size")
                            self.assertIsInstance(meta.shape[1], int)
                            self.assertIsInstance(meta.shape[3], int)
                    outputs = {o.name: o for o in session.get_outputs()}
                    self.assertEqual(outputs["logits"].type, "tensor(float)")
                    self.assertEqual(outputs["present.1.value"].type, past_type)
                fp32 = report["variants"]["fp32"]
                self.assertLessEqual(fp32["max_abs_diff"], 1e-4 * fp32["tolerance"]["logit_scale"])
                self.assertEqual(report["model_type"], {"llama_gqa_tied": "llama",
                                                        "gemma3": "gemma3_text"}.get(kind, kind))
                self.assertIn("rule", report["check"])
                self.assertIn("versions", report)
                q4 = report["variants"]["q4"]
                self.assertLess(q4["bytes"], fp32["bytes"])
                # The reference the page replays on the user's GPU.
                self.assertEqual(len(report["reference"]["prompt_ids"]),
                                 report["check"]["prompt_tokens"])
                self.assertEqual(len(report["reference"]["tokens"]),
                                 len(report["reference"]["margins"]))
                self.assertEqual(report["reference"]["tokens"][1:17], fp32["greedy_pytorch"][:16])
                # No `a/b` figure in the log: the service reads those as training progress.
                self.assertNotRegex(log.text, r"\b\d+/\d+\b")

    def test_a_variant_that_fails_its_check_is_left_out_and_logged(self):
        real_q4 = web_export._to_q4

        def broken_q4(proto):
            # A quantiser that garbles its output: the 4-bit scales of every layer multiplied.
            from onnx import numpy_helper
            out = real_q4(proto)
            for init in out.graph.initializer:
                if init.name.endswith("_scales"):
                    init.CopyFrom(numpy_helper.from_array(numpy_helper.to_array(init) * 3,
                                                          init.name))
            return out

        web, log = self.out("broken-q4"), Log()
        with mock.patch.object(web_export, "_to_q4", broken_q4):
            report = web_export.export_web(self.models["llama"], web, log, variants=ALL,
                                           graph="eager")
        # Each variant is built, checked and published on its own.
        self.assertEqual(report["published"], ["fp16", "fp32"])
        self.assertEqual(report["failed"], ["q4f16", "q4"])
        self.assertEqual(sorted(os.listdir(os.path.join(web, "onnx"))),
                         ["model.onnx", "model.onnx_data", "model_fp16.onnx",
                          "model_fp16.onnx_data"])
        with open(os.path.join(web, "config.json"), encoding="utf-8") as handle:
            self.assertEqual(json.load(handle)["transformers.js_config"],
                             {"use_external_data_format": {"model.onnx": 1,
                                                           "model_fp16.onnx": 1}})
        for variant in ("q4", "q4f16"):
            entry = report["variants"][variant]
            self.assertFalse(entry["passed"])
            self.assertFalse(entry["published"])
            self.assertGreater(entry["max_abs_diff"], entry["tolerance"]["max_abs_diff"])
            self.assertIn("logits differ by", entry["failure"])
            self.assertRegex(log.text, rf"{variant} FAILED its check \(step 0: logits differ by")
        with open(os.path.join(web, "export.json"), encoding="utf-8") as handle:
            self.assertEqual(json.load(handle)["failed"], ["q4f16", "q4"])

    def test_no_variant_passing_skips_with_the_figures_and_writes_nothing(self):
        import torch
        from transformers import AutoModelForCausalLM

        other = AutoModelForCausalLM.from_pretrained(self.models["qwen2"], dtype=torch.float32,
                                                     attn_implementation="eager")
        real_reference = web_export.reference_run
        web, log = self.out("wrong-reference"), Log()
        with mock.patch.object(web_export, "reference_run",
                               lambda _model, prompt, *a: real_reference(other, prompt, *a)):
            with self.assertRaises(web_export.ExportSkipped) as caught:
                web_export.export_web(self.models["llama"], web, log, variants=("q4f16", "fp32"))
        self.assertRegex(caught.exception.reason,
                         r"^no browser variant passed its check \(q4f16: step 0: logits differ by "
                         r".*; fp32: step 0: logits differ by")
        self.assertEqual(caught.exception.report["failed"], ["q4f16", "fp32"])
        self.assertGreater(caught.exception.report["variants"]["fp32"]["max_abs_diff"], 1)
        self.assertIn("fp32 FAILED its check", log.text)
        self.assert_nothing_written(web)

    def test_unsupported_architectures_are_skipped_with_the_reason(self):
        from transformers import BertConfig, GPT2Config

        for config in (GPT2Config(n_layer=1, n_embd=16, n_head=2, vocab_size=64, bos_token_id=0,
                                  eos_token_id=0),
                       BertConfig(num_hidden_layers=1, hidden_size=16, num_attention_heads=2,
                                  intermediate_size=32, vocab_size=64)):
            with self.subTest(model_type=config.model_type):
                merged = os.path.join(self.tmp, "unsupported", config.model_type)
                config.save_pretrained(merged)
                web = self.out(config.model_type)
                with self.assertRaises(web_export.ExportSkipped) as caught:
                    web_export.export_web(merged, web, Log())
                reason = caught.exception.reason
                self.assertIn(repr(config.model_type), reason)
                self.assertIn("llama, qwen2, qwen3, gemma2, gemma3_text, phi3", reason)
                self.assertEqual(str(caught.exception), reason)
                self.assert_nothing_written(web)

    def test_chunks_a_variant_subset_and_a_replaced_folder(self):
        import onnx

        chunk = 64 * 1024
        for graph in ("fused", "eager"):
            with self.subTest(graph=graph):
                web, log = self.out(f"chunks-{graph}"), Log()
                os.makedirs(os.path.join(web, "onnx"))
                with open(os.path.join(web, "onnx", "model_fp16.onnx"), "w",
                          encoding="utf-8") as handle:
                    handle.write("an older export")
                report = web_export.export_web(self.models["llama_gqa_tied"], web, log,
                                               variants=("fp32", "q4"), graph=graph,
                                               chunk_bytes=chunk)
                self.assertEqual(report["published"], ["q4", "fp32"])
                self.assertEqual(report["graph"], graph)
                onnx_dir = os.path.join(web, "onnx")
                counts = {}
                for variant, name in (("fp32", "model.onnx"), ("q4", "model_q4.onnx")):
                    entry = report["variants"][variant]
                    self.assertTrue(entry["passed"], entry["failure"])
                    chunks = entry["external_data"]
                    self.assertGreater(len(chunks), 1)
                    self.assertEqual(chunks, [name + "_data"] + [f"{name}_data_{i}"
                                                                 for i in range(1, len(chunks))])
                    counts[name] = len(chunks)
                    proto = onnx.load(os.path.join(onnx_dir, name), load_external_data=False)
                    per_chunk: dict[str, list[int]] = {}
                    for init in proto.graph.initializer:
                        info = {kv.key: kv.value for kv in init.external_data}
                        if info:
                            per_chunk.setdefault(info["location"], []).append(int(info["length"]))
                    self.assertEqual(sorted(per_chunk), sorted(chunks))
                    for chunk_name in chunks:
                        size = os.path.getsize(os.path.join(onnx_dir, chunk_name))
                        # At most the chunk size, unless one tensor alone is larger.
                        self.assertTrue(size <= chunk or len(per_chunk[chunk_name]) == 1,
                                        (chunk_name, size, per_chunk[chunk_name]))
                    self.assertEqual(entry["bytes"], os.path.getsize(os.path.join(onnx_dir, name))
                                     + sum(os.path.getsize(os.path.join(onnx_dir, c))
                                           for c in chunks))
                self.assertEqual(sorted(os.listdir(onnx_dir)), sorted(
                    [n for n in counts] + [c for v in ("fp32", "q4")
                                           for c in report["variants"][v]["external_data"]]))
                with open(os.path.join(web, "config.json"), encoding="utf-8") as handle:
                    self.assertEqual(json.load(handle)["transformers.js_config"],
                                     {"use_external_data_format": counts})
                self.assertFalse(os.path.exists(web + ".old"))

    def test_the_default_variants_and_their_sizes_at_real_shapes(self):
        # Parameter counts of the published configs (Llama 3.2 1B and 3B: tied embeddings;
        # DeepSeek R1 Distill Qwen 1.5B: untied).
        llama_1b = {"parameters": 1_235_814_400, "embedding": 128_256 * 2048,
                    "embedding_columns": 2048, "lm_head": 0}
        llama_3b = {"parameters": 3_212_749_824, "embedding": 128_256 * 3072,
                    "embedding_columns": 3072, "lm_head": 0}
        r1_15b = {"parameters": 1_777_088_000, "embedding": 151_936 * 1536,
                  "embedding_columns": 1536, "lm_head": 151_936 * 1536}
        self.assertEqual(web_export.default_variants(llama_1b), ("q4f16", "q4", "fp16"))
        self.assertEqual(web_export.default_variants(llama_3b), ("q4f16", "q4"))
        self.assertEqual(web_export.default_variants(r1_15b), ("q4f16", "q4", "fp16"))
        # No larger than what users download today (onnx-community's model_q4f16.onnx files,
        # which keep an fp16 embedding table): the 4-bit table makes ours smaller.
        for stats, published, ratio in ((llama_1b, 1.24e9, 0.57), (r1_15b, 1.37e9, 0.73),
                                        (llama_3b, 2.37e9, 0.77)):
            estimate = web_export.estimate_bytes(stats, "q4f16")
            self.assertAlmostEqual(estimate / published, ratio, delta=0.02)
            # The eager graph keeps the table in fp16 (and a tied lm_head beside it in 4 bits).
            self.assertGreater(web_export.estimate_bytes(stats, "q4f16", "eager"), published * 0.95)

    def test_too_little_disk_is_refused_before_anything_is_written(self):
        # The real free space of a real folder, and a need one gigabyte beyond it.
        free = shutil.disk_usage(self.tmp).free
        web = os.path.join(self.tmp, "disk-web")
        with self.assertRaises(web_export.ExportSkipped) as caught:
            web_export.check_disk(web, free + 10**9)
        self.assertRegex(caught.exception.reason,
                         rf"^needs about [\d.]+ [kMG]B free in {self.tmp}; [\d.]+ [kMG]B free$")
        # The whole export on a filesystem too small for it, where one can be mounted here.
        with small_disk(self, os.path.join(self.tmp, "small-disk"), "256k",
                        "; check_disk was tested above") as mount:
            web = os.path.join(mount, "web")
            with self.assertRaises(web_export.ExportSkipped) as caught:
                web_export.export_web(self.models["llama"], web, Log())
            self.assertRegex(caught.exception.reason,
                             rf"^needs about [\d.]+ MB free in {mount}; 0\.3 MB free$")
            self.assertEqual(os.listdir(mount), [])

    def test_a_cancel_during_the_export_leaves_no_web_folder(self):
        """The service cancels with SIGTERM: finetune.py unwinds, and the export's web.partial/ is
        removed; web/ never appears."""
        import signal
        import time

        data = os.path.join(self.tmp, "cancel-data.json")
        with open(data, "w", encoding="utf-8") as handle:
            json.dump([{"prompt": "What is the capital of France?",
                        "completion": "Paris."}] * 4, handle)
        out_dir = os.path.join(self.tmp, "out", "cancel")
        script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "finetune.py")
        proc = subprocess.Popen([sys.executable, script, "--base_model", self.models["llama"],
                                 "--data_file", data, "--output_dir", out_dir, "--max_steps", "1",
                                 "--web_variants", "fp32,q4"],
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                env={**os.environ, "HF_HUB_OFFLINE": "1", "OMP_NUM_THREADS": "1"})
        seen = []
        try:
            for line in proc.stdout:
                seen.append(line)
                if line.startswith("browser export of"):
                    break
            self.assertTrue(seen and seen[-1].startswith("browser export of"), "".join(seen))
            time.sleep(0.3)  # inside the export: the reference run or the first variant
            proc.send_signal(signal.SIGTERM)
            rest = proc.communicate(timeout=120)[0]
        finally:
            proc.kill()
        self.assertEqual(proc.returncode, 130, "".join(seen) + rest)
        self.assertNotIn("browser-ready model in", rest)
        self.assertFalse(os.path.exists(os.path.join(out_dir, "web")))
        self.assertFalse(os.path.exists(os.path.join(out_dir, "web.partial")))
        self.assertTrue(os.path.isdir(os.path.join(out_dir, "merged")))

    def test_a_cancel_that_an_import_turns_into_another_error_still_cancels(self):
        """A SIGTERM inside a C extension's import reaches Python as `ImportError: initialization
        failed` (pybind11 wraps what the module's init raised), which the export's handlers
        would report as a skipped export, exit 0 (seen on a loaded CI machine). The real signal
        is sent here; only pybind11's wrapping is reproduced."""
        import signal
        import time

        import cancel
        import finetune

        def export_web(*_args, **_kwargs):
            try:
                os.kill(os.getpid(), signal.SIGTERM)
                time.sleep(5)
            except KeyboardInterrupt as error:
                raise ImportError("initialization failed") from error

        previous = signal.getsignal(signal.SIGTERM)
        cancel.install()
        try:
            with mock.patch.object(web_export, "export_web", export_web):
                started = time.monotonic()
                with self.assertRaises(KeyboardInterrupt):
                    finetune.browser_export(self.tmp, os.path.join(self.tmp, "never"), Log())
                self.assertLess(time.monotonic() - started, 4)
        finally:
            signal.signal(signal.SIGTERM, previous)
            cancel.requested = None
        self.assertFalse(os.path.exists(os.path.join(self.tmp, "never")))

    def test_phi3_longrope_switches_to_the_long_factors_as_pytorch_does(self):
        # The check prompt is 52 tokens: with an original context of 60, the prefill uses the
        # short factors and the decode steps past position 60 the long ones (a Python `if` in
        # transformers, which a plain trace would fix at the short ones).
        merged = os.path.join(self.tmp, "models", "phi3-longrope")
        shutil.copytree(self.models["phi3"], merged)
        path = os.path.join(merged, "config.json")
        with open(path, encoding="utf-8") as handle:
            config = json.load(handle)
        config["original_max_position_embeddings"] = 60
        config["rope_parameters"] = {
            "rope_type": "longrope", "rope_theta": 10000.0, "original_max_position_embeddings": 60,
            "short_factor": [1.0, 1.1, 1.2, 1.3, 1.5, 2.0, 3.0, 4.0],
            "long_factor": [1.0, 2.0, 4.0, 8.0, 16.0, 20.0, 30.0, 40.0]}
        with open(path, "w", encoding="utf-8") as handle:
            json.dump(config, handle)
        # The eager graph (a traced switch, _TracedLongRope) and the fused one (an If between two
        # tables, onnx_fused).
        for graph in ("eager", "fused"):
            with self.subTest(graph=graph):
                report = web_export.export_web(merged, self.out(f"phi3-longrope-{graph}"), Log(),
                                               variants=("fp32", "fp16"), graph=graph)
                self.assertEqual(report["graph"], graph)
                self.assertEqual(report["published"], ["fp16", "fp32"])
                self.assertEqual(report["notes"], [])
                self.assertLess(report["check"]["prompt_tokens"], 60)
                self.assertGreater(report["check"]["prompt_tokens"]
                                   + report["variants"]["fp32"]["decode_steps"], 60)
                self.assertLessEqual(report["variants"]["fp32"]["max_abs_diff"], 1e-5)

    def test_a_left_padded_batch_row_gives_what_the_row_alone_gives(self):
        """transformers.js's batched generation: left padding, position_ids from the mask."""
        import numpy as np
        import onnxruntime as ort

        web = self.exported("gemma2")[0]  # every variant, fp32 and fp16 among them

        for name, tol in (("model.onnx", 1e-5), ("model_fp16.onnx", 1e-2)):
            session = ort.InferenceSession(os.path.join(web, "onnx", name),
                                           providers=["CPUExecutionProvider"])
            outputs = [o.name for o in session.get_outputs()]

            def greedy_logits(rows, steps=3):
                width = max(map(len, rows))
                ids = np.array([[0] * (width - len(r)) + r for r in rows], dtype=np.int64)
                mask = np.array([[0] * (width - len(r)) + [1] * len(r) for r in rows],
                                dtype=np.int64)
                feeds = {"input_ids": ids, "attention_mask": mask,
                         "position_ids": web_export.position_ids(mask, width),
                         **web_export.empty_past(session, len(rows))}
                found = []
                for _ in range(steps):
                    out = dict(zip(outputs, session.run(None, feeds)))
                    last = out["logits"][:, -1].astype(np.float32)
                    found.append(last)
                    mask = np.concatenate([mask, np.ones((len(rows), 1), np.int64)], axis=1)
                    feeds = {"input_ids": last.argmax(-1)[:, None].astype(np.int64),
                             "attention_mask": mask,
                             "position_ids": web_export.position_ids(mask, 1)}
                    feeds.update({k.replace("present", "past_key_values"): v
                                  for k, v in out.items() if k.startswith("present")})
                return found

            long, short = list(range(5, 17)), [20, 21, 22, 23]  # 12 tokens: past the window of 8
            batch, alone = greedy_logits([long, short]), greedy_logits([short])
            for step in range(3):
                self.assertTrue(np.isfinite(batch[step]).all(), name)
                self.assertLessEqual(float(np.abs(batch[step][1] - alone[step][0]).max()), tol,
                                     f"{name} step {step}")


class PureTest(unittest.TestCase):
    def test_position_ids_and_empty_past_as_transformers_js_makes_them(self):
        import numpy as np

        mask = np.array([[0, 0, 1, 1, 1], [1, 1, 1, 1, 1]])
        self.assertEqual(web_export.position_ids(mask, 5).tolist(),
                         [[1, 1, 0, 1, 2], [0, 1, 2, 3, 4]])
        self.assertEqual(web_export.position_ids(mask, 1).tolist(), [[2], [4]])

        class Meta:
            def __init__(self, name, shape, type_):
                self.name, self.shape, self.type = name, shape, type_

        class Session:
            def get_inputs(self):
                return [Meta("input_ids", ["batch_size", "sequence_length"], "tensor(int64)"),
                        Meta("past_key_values.0.key", ["batch_size", 2, "past_sequence_length", 16],
                             "tensor(float16)")]

        past = web_export.empty_past(Session(), 3)
        self.assertEqual(list(past), ["past_key_values.0.key"])
        self.assertEqual(past["past_key_values.0.key"].shape, (3, 2, 0, 16))
        self.assertEqual(past["past_key_values.0.key"].dtype, np.float16)

    def test_rope_kinds_fixed_at_trace_time_are_noted(self):
        self.assertEqual(web_export._notes({"rope_scaling": None}), [])
        self.assertEqual(web_export._notes({"rope_scaling": {"type": "longrope"}}), [])
        notes = web_export._notes({"rope_scaling": {"type": "dynamic", "factor": 2.0},
                                   "max_position_embeddings": 4096})
        self.assertEqual(len(notes), 1)
        self.assertIn("dynamic rope", notes[0])
        self.assertIn("4096 positions", notes[0])

    def test_supported_problem(self):
        self.assertIsNone(web_export.supported_problem({"model_type": "phi3"}))
        self.assertEqual(web_export.supported_problem({"model_type": "mistral",
                                                        "architectures": ["MistralForCausalLM"]}),
                         "the browser export supports decoder-only llama, qwen2, qwen3, gemma2, "
                         "gemma3_text, phi3 "
                         "models, and this one is model_type 'mistral' (MistralForCausalLM)")


if __name__ == "__main__":
    unittest.main()
