"""The base model's download from a Hub (hub_download.py), against a stand-in Hub on loopback
(stand_in_hub.py; HF_ENDPOINT points at it): the real huggingface_hub and the real trainer in
subprocesses, each with its own cache (HF_HUB_CACHE). npm run test:python."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import model_card  # noqa: E402
from stand_in_hub import StandInHub  # noqa: E402

TOKEN = "hf_standin_secret_4f9c2b7e"
FETCH = ("import sys; sys.path.insert(0, sys.argv[1]); import hub_download as h\n"
         "try:\n    print('FOLDER', h.fetch_base(sys.argv[2], print, *sys.argv[3:]))\n"
         "except h.HubError as e:\n    print('ERROR', e); sys.exit(2)")


class HubDownloadTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        import torch
        from transformers import AutoConfig, AutoModelForCausalLM
        from tiny_models import make_tiny_model

        cls.tmp = tempfile.mkdtemp(prefix="hub-download-test.")
        small = make_tiny_model("llama", os.path.join(cls.tmp, "small"))
        # A weights file past one download chunk (10 MiB), so that a cut connection leaves bytes
        # in the .incomplete blob for the next run to resume from.
        big = os.path.join(cls.tmp, "big")
        shutil.copytree(small, big)
        config = AutoConfig.from_pretrained(small)
        config.intermediate_size = 12288
        torch.manual_seed(0)
        AutoModelForCausalLM.from_config(config).save_pretrained(big)
        cls.big_bytes = os.path.getsize(os.path.join(big, "model.safetensors"))
        # org/tiny's own model card (and its tag's) names its license; org/big has no card.
        with open(os.path.join(small, "README.md"), "w", encoding="utf-8") as handle:
            handle.write("---\nlicense: apache-2.0\n---\n# tiny\n")
        # A tag v1 of the same model whose config says so: which revision was fetched shows.
        tagged = os.path.join(cls.tmp, "tagged")
        shutil.copytree(small, tagged)
        with open(os.path.join(tagged, "config.json"), encoding="utf-8") as handle:
            config_v1 = json.load(handle)
        with open(os.path.join(tagged, "config.json"), "w", encoding="utf-8") as handle:
            # One layer fewer, so that a plan shows which config it read.
            json.dump({**config_v1, "stand_in_revision": "v1",
                       "num_hidden_layers": config_v1["num_hidden_layers"] - 1}, handle)
        cls.hub = StandInHub({"org/tiny": small, "org/big": big, "org/gated": small},
                             gated={"org/gated"},
                             tokens={TOKEN: {"org/gated"}, "hf_no_access": set()},
                             refs={"org/tiny": {"v1": tagged}, "org/gated": {"v1": tagged}}).start()
        cls.runs = 0

    @classmethod
    def tearDownClass(cls):
        cls.hub.close()
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def setUp(self):
        self.hub.drop_at = None
        type(self).runs += 1
        self.cache = os.path.join(self.tmp, f"cache-{self.runs}")

    def env(self, token: str | None = None, cache: str | None = None) -> dict:
        env = {**os.environ, "HF_ENDPOINT": self.hub.url, "HF_HUB_CACHE": cache or self.cache,
               "HF_HUB_DISABLE_TELEMETRY": "1", "OMP_NUM_THREADS": "1"}
        for name in ("HF_HUB_OFFLINE", "HF_TOKEN", "TRANSFORMERS_OFFLINE"):
            env.pop(name, None)
        if token:
            env["HF_TOKEN"] = token
        return env

    def fetch(self, repo: str, token: str | None = None, cache: str | None = None,
              revision: str | None = None):
        return subprocess.run([sys.executable, "-c", FETCH, HERE, repo, *filter(None, [revision])],
                              env=self.env(token, cache), capture_output=True, text=True,
                              timeout=300)

    def progress(self, stdout: str) -> list[dict]:
        return [json.loads(line)["download"] for line in stdout.splitlines()
                if line.startswith('{"download"')]

    def test_a_public_model_downloads_with_progress_then_comes_from_the_cache(self):
        first = self.fetch("org/tiny")
        self.assertEqual(first.returncode, 0, first.stdout + first.stderr)
        lines = self.progress(first.stdout)
        self.assertEqual(lines[-1]["files_done"], lines[-1]["files"])
        self.assertEqual(lines[-1]["bytes"], lines[-1]["total"])
        self.assertGreater(lines[-1]["total"], 600_000)
        self.assertEqual([line["bytes"] for line in lines], sorted(line["bytes"] for line in lines))
        folder = first.stdout.split("FOLDER ")[1].strip()
        self.assertTrue(folder.startswith(self.cache))
        self.assertTrue(os.path.isfile(os.path.join(folder, "config.json")))
        self.assertTrue(os.path.isfile(os.path.join(folder, "model.safetensors")))
        # Only what a causal LM loads, and the base's card, was fetched (the stand-in serves the
        # folder's every file): the card's license is what the fine-tuned model's card names.
        self.assertIn("README.md", os.listdir(folder))
        self.assertEqual(model_card.base_card_license(folder), {"license": "apache-2.0"})
        again = self.fetch("org/tiny")
        self.assertEqual(again.returncode, 0, again.stdout + again.stderr)
        self.assertRegex(again.stdout, r"0 B to download into .*, [\d.]+ kB already cached")
        # The Hub unreachable: the cached copy trains, and the log says so.
        env = self.env()
        env["HF_ENDPOINT"] = "http://127.0.0.1:9"
        offline = subprocess.run([sys.executable, "-c", FETCH, HERE, "org/tiny"], env=env,
                                 capture_output=True, text=True, timeout=300)
        self.assertEqual(offline.returncode, 0, offline.stdout + offline.stderr)
        self.assertIn("the Hub is not reachable", offline.stdout)
        self.assertEqual(offline.stdout.split("FOLDER ")[1].strip(), folder)

    def test_gated_model_without_a_token_with_a_token_without_access_and_with_access(self):
        none = self.fetch("org/gated")
        self.assertEqual(none.returncode, 2)
        self.assertIn(f"ERROR org/gated is a gated model: accept its licence at "
                      f"{self.hub.url}/org/gated (signed in), then give the trainer a Hub token",
                      none.stdout)
        denied = self.fetch("org/gated", token="hf_no_access")
        self.assertEqual(denied.returncode, 2)
        self.assertIn("the token given has no access to it", denied.stdout)
        self.assertIn("you are not in the authorized list", denied.stdout)
        allowed = self.fetch("org/gated", token=TOKEN)
        self.assertEqual(allowed.returncode, 0, allowed.stdout + allowed.stderr)
        self.assertNotIn(TOKEN, allowed.stdout + allowed.stderr)
        # The token went to the Hub as a bearer token, and nowhere into the cache.
        self.assertIn(f"Bearer {TOKEN}", [r["authorization"] for r in self.hub.requests])
        for root, _dirs, files in os.walk(self.cache):
            for name in files:
                with open(os.path.join(root, name), "rb") as handle:
                    self.assertNotIn(TOKEN.encode(), handle.read(), name)

    def test_a_wrong_token_an_unknown_id_and_an_unreachable_hub(self):
        wrong = self.fetch("org/tiny", token="hf_wrong")
        self.assertEqual(wrong.returncode, 2)
        self.assertIn(f"ERROR the Hub at {self.hub.url} refused the token (Invalid credentials in "
                      "Authorization header)", wrong.stdout)
        self.assertNotIn("hf_wrong", wrong.stdout)
        missing = self.fetch("org/missing")
        self.assertEqual(missing.returncode, 2)
        self.assertIn(f"ERROR no model org/missing on {self.hub.url}: check the id", missing.stdout)
        env = self.env()
        env["HF_ENDPOINT"] = "http://127.0.0.1:9"  # the discard port: nothing listens
        gone = subprocess.run([sys.executable, "-c", FETCH, HERE, "org/tiny"], env=env,
                              capture_output=True, text=True, timeout=300)
        self.assertEqual(gone.returncode, 2)
        self.assertIn("ERROR cannot reach the Hub at http://127.0.0.1:9 to download org/tiny",
                      gone.stdout)

    def test_a_revision_downloads_that_commit_and_an_unknown_one_is_refused_before_any_file(self):
        tagged = self.fetch("org/tiny", revision="v1")
        self.assertEqual(tagged.returncode, 0, tagged.stdout + tagged.stderr)
        sha = self.hub.sha("org/tiny", "v1")
        self.assertIn(f"base model org/tiny at v1 ({sha[:12]})", tagged.stdout)
        folder = tagged.stdout.split("FOLDER ")[1].strip()
        self.assertEqual(os.path.basename(folder), sha)
        with open(os.path.join(folder, "config.json"), encoding="utf-8") as handle:
            self.assertEqual(json.load(handle).get("stand_in_revision"), "v1")
        main = self.fetch("org/tiny")
        self.assertEqual(main.returncode, 0, main.stdout + main.stderr)
        with open(os.path.join(main.stdout.split("FOLDER ")[1].strip(), "config.json"),
                  encoding="utf-8") as handle:
            self.assertNotIn("stand_in_revision", json.load(handle))
        seen = len(self.hub.requests)
        missing = self.fetch("org/tiny", revision="v9")
        self.assertEqual(missing.returncode, 2, missing.stdout + missing.stderr)
        self.assertIn(f"ERROR org/tiny has no revision 'v9' on {self.hub.url}: check the revision",
                      missing.stdout)
        self.assertFalse([r for r in self.hub.requests[seen:] if "/resolve/" in r["path"]])

    def test_the_plan_reads_the_config_of_the_revision_asked_for(self):
        data = os.path.join(self.tmp, "plan-data.json")
        with open(data, "w", encoding="utf-8") as handle:
            json.dump([{"prompt": "Where is the harbour?", "completion": "By the mill."}] * 4,
                      handle)
        plans = {}
        for revision in (None, "v1"):
            run = subprocess.run(
                [sys.executable, os.path.join(HERE, "finetune.py"), "--plan", "--base_model",
                 "org/tiny", "--data_file", data, "--output_dir", os.path.join(self.tmp, "plan"),
                 *(["--base_revision", revision] if revision else [])],
                env=self.env(), capture_output=True, text=True, timeout=300)
            self.assertEqual(run.returncode, 0, run.stdout[-2000:] + run.stderr[-2000:])
            line = next(l for l in run.stdout.splitlines() if l.startswith('{"plan"'))
            plans[revision] = json.loads(line)["plan"]
        self.assertLess(plans["v1"]["parameters"], plans[None]["parameters"])

    def test_the_trainer_refuses_a_revision_for_a_local_folder_and_a_revision_with_a_space(self):
        data = os.path.join(self.tmp, "data-revision.json")
        with open(data, "w", encoding="utf-8") as handle:
            json.dump([{"prompt": "q", "completion": "a"}], handle)
        common = [sys.executable, os.path.join(HERE, "finetune.py"), "--data_file", data,
                  "--output_dir", os.path.join(self.tmp, "out-revision"), "--no-web-export"]
        local = subprocess.run(common + ["--base_model", self.hub.models["org/tiny"],
                                         "--base_revision", "v1"],
                               env=self.env(), capture_output=True, text=True, timeout=120)
        self.assertEqual(local.returncode, 2, local.stderr)
        self.assertIn(f"error: --base_revision (v1) is for a Hub id, and "
                      f"{self.hub.models['org/tiny']} is a local folder", local.stderr)
        spaced = subprocess.run(common + ["--base_model", "org/tiny", "--base_revision", "my tag"],
                                env=self.env(), capture_output=True, text=True, timeout=120)
        self.assertEqual(spaced.returncode, 2, spaced.stderr)
        self.assertIn("--base_revision must be printable characters without spaces, got 'my tag'",
                      spaced.stderr)

    def test_a_download_cut_half_way_resumes_where_it_stopped(self):
        # Cut once: the library asks for the rest (Range) and the file is whole.
        self.hub.drop_at, self.hub.drops = 11 * 2 ** 20, 1
        seen = len(self.hub.requests)
        once = self.fetch("org/big")
        self.assertEqual(once.returncode, 0, once.stdout + once.stderr)
        ranges = [r["range"] for r in self.hub.requests[seen:]
                  if r["method"] == "GET" and r["path"].endswith("model.safetensors")]
        self.assertEqual(len(ranges), 2, ranges)
        self.assertIsNone(ranges[0])
        resumed_from = int(ranges[1][len("bytes="):-1])
        self.assertGreaterEqual(resumed_from, 10 * 2 ** 20)  # one whole chunk was kept
        self.assertLessEqual(resumed_from, 11 * 2 ** 20)
        folder = once.stdout.split("FOLDER ")[1].strip()
        self.assertEqual(os.path.getsize(os.path.join(folder, "model.safetensors")),
                         self.big_bytes)
        # A base without a card of its own: no license is named, none invented.
        self.assertNotIn("README.md", os.listdir(folder))
        self.assertEqual(model_card.base_card_license(folder), {})
        last = self.progress(once.stdout)[-1]
        self.assertEqual(last["bytes"], last["total"])  # the resumed bytes are not counted twice

    def test_a_connection_that_keeps_failing_ends_the_run_and_keeps_the_finished_files(self):
        self.hub.drop_at, self.hub.drops = 11 * 2 ** 20, 100
        cut = self.fetch("org/big")
        self.assertEqual(cut.returncode, 2, cut.stdout + cut.stderr)
        self.assertIn(f"ERROR cannot reach the Hub at {self.hub.url} to download org/big", cut.stdout)
        self.assertIn("run again (the files already fetched are kept)", cut.stdout)
        self.hub.drops = 0
        seen = len(self.hub.requests)
        again = self.fetch("org/big")
        self.assertEqual(again.returncode, 0, again.stdout + again.stderr)
        fetched = [r["path"].rsplit("/", 1)[1] for r in self.hub.requests[seen:]
                   if r["method"] == "GET" and "/resolve/" in r["path"]]
        self.assertIn("model.safetensors", fetched)
        self.assertNotIn("config.json", fetched)  # finished by the first run, kept in the cache
        self.assertRegex(again.stdout, r"already cached")

    def test_a_disk_too_small_is_refused_before_the_download_with_both_figures(self):
        mount = os.path.join(self.tmp, "small-disk")
        os.makedirs(mount, exist_ok=True)
        if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", mount],
                          capture_output=True).returncode != 0:
            self.skipTest("cannot mount a small tmpfs here")
        try:
            seen = len(self.hub.requests)
            small = self.fetch("org/big", cache=os.path.join(mount, "hub"))
            self.assertEqual(small.returncode, 2, small.stdout + small.stderr)
            self.assertRegex(small.stdout, r"ERROR the base model needs [\d.]+ MB more in "
                             rf"{mount}/hub, which has [\d.]+ (kB|MB) free")
            self.assertFalse([r for r in self.hub.requests[seen:]
                              if r["method"] == "GET" and "org/big/resolve" in r["path"]])
        finally:
            subprocess.run(["umount", mount], check=False)

    def test_the_trainer_downloads_its_base_and_trains_on_it(self):
        data = os.path.join(self.tmp, "data.json")
        with open(data, "w", encoding="utf-8") as handle:
            json.dump([{"prompt": "Where is the harbour?", "completion": "By the mill."}] * 4,
                      handle)
        out = os.path.join(self.tmp, "out-train")
        run = subprocess.run(
            [sys.executable, os.path.join(HERE, "finetune.py"), "--base_model", "org/gated",
             "--base_revision", "v1", "--data_file", data, "--output_dir", out, "--max_steps", "2",
             "--eval_fraction", "0", "--no-web-export"],
            env=self.env(TOKEN), capture_output=True, text=True, timeout=600)
        self.assertEqual(run.returncode, 0, run.stdout[-3000:] + run.stderr[-3000:])
        self.assertIn(f"base model org/gated at v1 ({self.hub.sha('org/gated', 'v1')[:12]})",
                      run.stdout)
        self.assertIn(f"/snapshots/{self.hub.sha('org/gated', 'v1')} on cpu", run.stdout)
        # The base's card came with it: the fine-tuned model's card names the same license.
        with open(os.path.join(out, "merged", "README.md"), encoding="utf-8") as handle:
            self.assertIn("\nlicense: apache-2.0\n", handle.read().split("\n---\n")[0])
        order = [line for line in run.stdout.splitlines()
                 if line.startswith(('{"download"', "step ", "loading "))]
        self.assertTrue(order[0].startswith('{"download"'), order[:3])
        self.assertIn("step 2/2", order)
        self.assertLess(max(i for i, l in enumerate(order) if l.startswith('{"download"')),
                        order.index("step 2/2"))
        for root, _dirs, files in os.walk(out):
            for name in files:
                with open(os.path.join(root, name), "rb") as handle:
                    self.assertNotIn(TOKEN.encode(), handle.read(), name)
        gated = subprocess.run(
            [sys.executable, os.path.join(HERE, "finetune.py"), "--base_model", "org/gated",
             "--data_file", data, "--output_dir", out + "-2", "--max_steps", "2",
             "--no-web-export"],
            env=self.env(cache=self.cache + "-empty"), capture_output=True, text=True,
            timeout=600)
        self.assertEqual(gated.returncode, 2)
        self.assertIn("error: org/gated is a gated model: accept its licence", gated.stderr)


if __name__ == "__main__":
    unittest.main()
