"""training/onnx_fused.py on Phi 3 (tiny models taught one answer, as test_onnx_fused.py does): the
fused qkv_proj and gate_up_proj read as row slices, a sliding window on every layer (Phi 3 mini's
2047, here 8, shorter than the check prompt), and longrope (Phi 3.5 mini's rope: short factors up
to original_max_position_embeddings, long ones past it; here the limit falls a few tokens after the
check prompt, so that the check decodes across it). Every variant against PyTorch (eager attention)
with web_export's own checker, fed as transformers.js feeds it.

    npm run test:python
"""
from __future__ import annotations

import os
import shutil
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import onnx_fused  # noqa: E402
import test_onnx_fused  # noqa: E402
import test_web_export  # noqa: E402
import web_export  # noqa: E402
from tiny_models import make_tiny_model  # noqa: E402

VARIANTS = ("fp32", "q4", "q4f16")
HALF_HEAD = 8  # the tiny model's head_dim (64 / 4) / 2: one factor per rotary frequency


def longrope(original: int) -> dict:
    """Phi 3.5's rope shape with factors that make short and long frequencies clearly differ."""
    return {"rope_type": "longrope", "rope_theta": 10000.0,
            "original_max_position_embeddings": original,
            "short_factor": [1.0 + 0.1 * i for i in range(HALF_HEAD)],
            "long_factor": [2.0 + 0.5 * i for i in range(HALF_HEAD)]}


class FusedPhi3Test(test_web_export.ExportTestCase):
    prefix = "onnx-fused-phi3-test."

    @classmethod
    def setUpClass(cls) -> None:
        import torch
        from transformers import AutoModelForCausalLM

        super().setUpClass()
        probe = make_tiny_model("phi3", os.path.join(cls.tmp, "probe"))
        cls.prompt_length = len(test_onnx_fused.prompt_ids(probe))
        cls.original = cls.prompt_length + 3
        cls.models, cls.references = {}, {}
        for kind, changes in (("window", {"sliding_window": 8}),
                              ("longrope", {"rope_parameters": longrope(cls.original),
                                            "original_max_position_embeddings": cls.original})):
            merged = os.path.join(cls.tmp, "models", kind)
            test_web_export.make_taught("phi3", merged, **changes)
            model = AutoModelForCausalLM.from_pretrained(merged, dtype=torch.float32,
                                                         attn_implementation="eager").eval()
            cls.models[kind] = merged
            cls.references[kind] = web_export.reference_run(
                model, test_onnx_fused.prompt_ids(merged))
            del model

    def build(self, kind: str, variant: str) -> tuple[str, dict]:
        path = os.path.join(self.tmp, "out", kind, f"model_{variant}.onnx")
        return path, onnx_fused.build_decoder(self.models[kind], path, variant)

    def test_every_variant_matches_pytorch(self):
        import onnx

        for kind in self.models:
            for variant in VARIANTS:
                with self.subTest(kind=kind, variant=variant):
                    path, info = self.build(kind, variant)
                    result = test_onnx_fused.assert_agrees(self, path, self.references[kind],
                                                           variant, kind)
                    ops = set(info["ops"])
                    self.assertTrue({"GroupQueryAttention", "RotaryEmbedding",
                                     "SkipSimplifiedLayerNormalization"} <= ops, ops)
                    self.assertEqual("If" in ops, kind == "longrope")
                    graph = onnx.load(path, load_external_data=False).graph
                    windows = {attr.i for node in graph.node
                               if node.op_type == "GroupQueryAttention"
                               for attr in node.attribute if attr.name == "local_window_size"}
                    self.assertEqual(windows, {8} if kind == "window" else set())
                    if kind == "longrope":
                        # The check decoded past the limit, where the long factors take over.
                        steps = len(result["steps"])
                        self.assertGreater(self.prompt_length + steps, self.original, steps)

    def test_the_long_factors_matter_past_the_limit(self):
        """The longrope model's PyTorch logits past original_max_position_embeddings differ from
        those of the same weights with the short factors everywhere (so the If is what agrees)."""
        import numpy as np
        import torch
        from transformers import AutoModelForCausalLM

        merged = self.models["longrope"]
        short = os.path.join(self.tmp, "short-only")
        shutil.copytree(merged, short)
        test_web_export.edit_config(short, rope_parameters=dict(
            longrope(self.original), long_factor=longrope(self.original)["short_factor"]))
        model = AutoModelForCausalLM.from_pretrained(short, dtype=torch.float32,
                                                     attn_implementation="eager").eval()
        other = web_export.reference_run(model, self.references["longrope"]["prompt"], 6)
        want = self.references["longrope"]["logits"]
        self.assertLess(float(np.abs(other["logits"][0] - want[0]).max()), 1e-4)  # within it
        beyond = max(float(np.abs(other["logits"][s] - want[s]).max()) for s in range(4, 7))
        self.assertGreater(beyond, 1e-2)

    def test_configs_it_cannot_build_get_a_reason(self):
        import json

        with open(os.path.join(self.models["window"], "config.json"), encoding="utf-8") as handle:
            config = json.load(handle)
        self.assertIsNone(onnx_fused.fused_problem(config))
        self.assertIn("partial rotary", onnx_fused.fused_problem(
            dict(config, partial_rotary_factor=0.75)))  # Phi 4 mini
        self.assertIn("sliding_window", onnx_fused.fused_problem(dict(config, sliding_window=0)))


if __name__ == "__main__":
    unittest.main()
