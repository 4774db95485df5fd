"""training/trainer_info.py: one JSON object, never a failure (npm run test:python)."""
from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
import unittest
from unittest import mock

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import trainer_info  # noqa: E402

KEYS = {"python", "python_version", "packages", "device"}


class TrainerInfoTest(unittest.TestCase):
    def test_this_environment(self):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            self.assertEqual(trainer_info.main(), 0)
        info = json.loads(out.getvalue())
        self.assertEqual(set(info), KEYS)
        self.assertEqual(info["python"], sys.executable)
        self.assertEqual(info["python_version"], "%d.%d.%d" % sys.version_info[:3])
        self.assertEqual(set(info["packages"]), set(trainer_info.PACKAGES))
        try:
            import torch
        except ImportError:
            self.assertIsNone(info["device"])
            return
        self.assertEqual(info["packages"]["torch"], torch.__version__.split("+")[0])
        self.assertIn(info["device"]["kind"], ("cuda", "mps", "cpu"))
        if info["device"]["kind"] == "cuda":
            self.assertEqual(len(info["device"]["gpus"]), torch.cuda.device_count())

    def test_nothing_installed(self):
        # -I -S: no site-packages, so none of the packages and no torch.
        proc = subprocess.run([sys.executable, "-I", "-S", os.path.join(HERE, "trainer_info.py")],
                              capture_output=True, text=True, timeout=60, check=False)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        info = json.loads(proc.stdout)
        self.assertEqual(info["packages"], {name: None for name in trainer_info.PACKAGES})
        self.assertIsNone(info["device"])

    def test_broken_metadata_is_null(self):
        with mock.patch("importlib.metadata.version", side_effect=RuntimeError("bad METADATA")):
            self.assertIsNone(trainer_info.package_version("torch"))

    def test_a_torch_that_does_not_import_is_no_device(self):
        with mock.patch.dict(sys.modules, {"torch": None}):
            self.assertIsNone(trainer_info.device_info(True))

    def test_any_failure_still_prints_the_object(self):
        out = io.StringIO()
        with mock.patch.object(trainer_info, "trainer_info", side_effect=RuntimeError("x")), \
                contextlib.redirect_stdout(out):
            self.assertEqual(trainer_info.main(), 0)
        info = json.loads(out.getvalue())
        self.assertEqual(set(info), KEYS)
        self.assertIsNone(info["device"])


if __name__ == "__main__":
    unittest.main()
