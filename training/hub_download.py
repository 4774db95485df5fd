"""The base model from the Hub, as its own step before training (huggingface_hub underneath).

finetune.py calls `fetch_base(repo_id)` for a base that is not a local folder:

1. The model's file list (`HfApi.model_info`, public even for gated models) and the files a
   causal LM needs from it: config, tokenizer, chat template and the weights (safetensors where
   the model has them; other formats, ONNX, GGUF and `original/` are left).
2. A dry run of each file (`hf_hub_download(dry_run=True)`: one HEAD request each, at the
   resolved commit): the access check (a gated model answers here, before any byte is fetched),
   each file's size and whether the cache already holds it.
3. The free space of the cache's disk against the bytes still to fetch: too little is refused
   with both figures.
4. The files, one by one (`hf_hub_download`: a cut connection is resumed from where it stopped,
   with a Range request, up to five times; a file that still fails is fetched anew by the next
   run, as huggingface_hub 1.x keeps no partial file across runs — the files already finished
   stay in the cache), with a progress line the service reads, at most every half second and at each file's end:
       {"download": {"file": ..., "file_bytes": ..., "file_total": ..., "bytes": ..., "total": ...,
                     "files_done": ..., "files": ..., "cached_bytes": ...,
                     "bytes_per_second": ...}}
   `bytes`/`total` count what this run fetches (files already cached are `cached_bytes`);
   the rate is the mean since the fetch began.

Every failure is a `HubError` with one sentence naming the model or the host and what to do;
the token (HF_TOKEN, which the library reads) never appears in it.
The cache is huggingface_hub's (HF_HUB_CACHE; the service points it inside its data folder).
"""
from __future__ import annotations

import fnmatch
import json
import os
import shutil
import sys
import time

# Files a causal LM loads with transformers (weights chosen separately), and the base's own
# model card (README.md: its front matter's `license:` goes into the fine-tuned model's card).
NEEDED = ("README.md", "config.json", "generation_config.json", "tokenizer.json",
          "tokenizer_config.json",
          "special_tokens_map.json", "tokenizer.model", "vocab.json", "merges.txt",
          "added_tokens.json", "chat_template.jinja", "chat_template.json")
SAFETENSORS = ("*.safetensors", "*.safetensors.index.json")
PYTORCH = ("pytorch_model*.bin", "pytorch_model.bin.index.json")
PROGRESS_EVERY = 0.5  # seconds between progress lines (each file's end is always printed)


class HubError(Exception):
    """A download that cannot go on: one sentence for the run's log (exit 2)."""


def human(size: float) -> str:
    for unit in ("B", "kB", "MB", "GB", "TB"):
        if size < 1000 or unit == "TB":
            return f"{size:.1f} {unit}" if unit != "B" else f"{int(size)} B"
        size /= 1000
    return f"{size:.1f} TB"


def choose_files(names: list[str]) -> list[str]:
    """The files of a model repository that loading it as a causal LM reads."""
    top = [n for n in names if "/" not in n]
    chosen = [n for n in top if n in NEEDED]
    weights = [n for n in top if any(fnmatch.fnmatch(n, p) for p in SAFETENSORS)]
    if not weights:
        weights = [n for n in top if any(fnmatch.fnmatch(n, p) for p in PYTORCH)]
    return sorted(chosen + weights)


class Progress:
    """Counts the bytes of the files fetched and prints the service's progress line."""

    def __init__(self, files: int, total: int, cached: int, out=None) -> None:
        self.files, self.total, self.cached = files, total, cached
        self.done_bytes = 0  # bytes of the files finished
        self.files_done = 0
        self.file = None
        self.file_bytes = self.file_total = 0
        self.last = 0.0
        self.started = time.monotonic()
        self.out = out or sys.stdout

    def line(self, force: bool = False) -> None:
        now = time.monotonic()
        if not force and now - self.last < PROGRESS_EVERY:
            return
        self.last = now
        fetched = self.done_bytes + self.file_bytes
        rate = fetched / (now - self.started) if now > self.started else 0
        print(json.dumps({"download": {
            "file": self.file, "file_bytes": self.file_bytes, "file_total": self.file_total,
            "bytes": self.done_bytes + self.file_bytes, "total": self.total,
            "files_done": self.files_done, "files": self.files,
            "cached_bytes": self.cached, "bytes_per_second": round(rate)}}), file=self.out,
            flush=True)

    def bar_class(self):
        """A tqdm stand-in for hf_hub_download's `tqdm_class`: it only counts."""
        progress = self

        class Bar:
            def __init__(self, *_args, total=None, initial=0, **_kwargs) -> None:
                progress.file_total = total or progress.file_total
                progress.file_bytes = initial or 0  # resumed from an .incomplete blob
                progress.line()

            def update(self, n=1) -> None:
                progress.file_bytes += int(n or 0)
                progress.line()

            def __enter__(self):
                return self

            def __exit__(self, *_exc) -> None:
                pass

            def close(self) -> None:
                pass

            def set_postfix_str(self, *_args, **_kwargs) -> None:
                pass

        return Bar


def page(repo_id: str) -> str:
    from huggingface_hub import constants

    return f"{constants.ENDPOINT.rstrip('/')}/{repo_id}"


def explain(error: BaseException, repo_id: str, revision: str | None) -> HubError:
    """The library's exception as one sentence saying what to do."""
    from huggingface_hub import constants
    from huggingface_hub.errors import (GatedRepoError, HfHubHTTPError, LocalEntryNotFoundError,
                                        OfflineModeIsEnabled, RepositoryNotFoundError,
                                        RevisionNotFoundError)

    host = constants.ENDPOINT.rstrip("/")
    token = "the service's HF_TOKEN or the panel's Hub token"
    response = getattr(error, "response", None)
    status = getattr(response, "status_code", None)
    server = ""
    if response is not None:
        server = (response.headers.get("X-Error-Message") or "").strip()
    first_line = str(error).splitlines()[0][:200] if str(error) else ""
    unreachable = (isinstance(error, (LocalEntryNotFoundError, ConnectionError, TimeoutError,
                                      OSError))
                   or type(error).__module__.startswith(("httpx", "httpcore")))
    # The sentence of the first case that applies: the order matters, as the library's classes
    # nest (a gated repository is a missing one, each of them an HTTP error, every HTTP error and
    # the offline mode an OSError).
    cases = (
        (isinstance(error, GatedRepoError) and status == 403,
         f"{repo_id} is a gated model and the token given has no access to it: accept its "
         f"licence at {page(repo_id)} with the account the token belongs to, then run again"
         + (f" (the Hub: {server})" if server else "")),
        (isinstance(error, GatedRepoError),
         f"{repo_id} is a gated model: accept its licence at {page(repo_id)} (signed in), then "
         f"give the trainer a Hub token with access ({token}) and run again"),
        (isinstance(error, RevisionNotFoundError),
         f"{repo_id} has no revision {revision!r} on {host}: check the revision "
         "(a branch, a tag or a commit)"),
        (isinstance(error, RepositoryNotFoundError),
         f"no model {repo_id} on {host}: check the id (organisation/name); a "
         f"private model needs a token with access ({token})"),
        (isinstance(error, HfHubHTTPError) and status == 401 and bool(server),
         f"the Hub at {host} refused the token ({server}): give a valid token "
         f"({token}), or none for a public model"),
        (isinstance(error, OfflineModeIsEnabled),
         f"{repo_id} is not in the model cache and downloads are off "
         "(HF_HUB_OFFLINE is set): unset it, or give a local model folder"),
        (isinstance(error, HfHubHTTPError),
         f"the Hub at {host} answered {status} for {repo_id}"
         + (f" ({server})" if server else "") + ": try again later"),
        (unreachable,
         f"cannot reach the Hub at {host} to download {repo_id} "
         f"({first_line if str(error) else type(error).__name__}): check the network and run again (the files "
         "already fetched are kept), or give a local model folder"),
    )
    return HubError(next((text for applies, text in cases if applies),
                         f"the download of {repo_id} failed: {type(error).__name__}: {first_line}"))


def cache_dir() -> str:
    from huggingface_hub import constants

    return constants.HF_HUB_CACHE


def check_disk(needed: int, folder: str) -> None:
    os.makedirs(folder, exist_ok=True)
    free = shutil.disk_usage(folder).free
    if needed > free:
        raise HubError(f"the base model needs {human(needed)} more in {folder}, which has "
                       f"{human(free)} free: free some space, or point HF_HUB_CACHE elsewhere")


def fetch_base(repo_id: str, say, revision: str | None = None, main: bool = True) -> str:
    """Downloads what training needs of `repo_id` into the cache; returns the local folder (the
    cache's snapshot). `say` prints a log line; progress lines only where `main`."""
    from huggingface_hub import HfApi, hf_hub_download, snapshot_download
    from huggingface_hub.errors import LocalEntryNotFoundError

    try:
        try:
            info = HfApi().model_info(repo_id, revision=revision)
        except Exception as error:  # noqa: BLE001 - offline: a complete cached copy still trains
            try:
                local = snapshot_download(repo_id, revision=revision, local_files_only=True)
            except (LocalEntryNotFoundError, OSError, ValueError):
                raise error from None
            if main:
                say(f"the Hub is not reachable ({type(error).__name__}): using the cached copy "
                    f"of {repo_id} in {local}")
            return local
        names = choose_files([s.rfilename for s in info.siblings or []])
        if "config.json" not in names:
            raise HubError(f"{repo_id} on the Hub has no config.json: it is not a transformers "
                           "model (choose a causal language model)")
        plan = [hf_hub_download(repo_id, name, revision=info.sha, dry_run=True)
                for name in names]
        fetch = [p for p in plan if p.will_download]
        total = sum(p.file_size or 0 for p in fetch)
        cached = sum(p.file_size or 0 for p in plan if not p.will_download)
        folder = cache_dir()
        if main:
            say(f"base model {repo_id}" + (f" at {revision}" if revision else "")
                + f" ({info.sha[:12]}): {len(plan)} files, "
                f"{human(total + cached)}; {human(total)} to download into {folder}"
                + (f", {human(cached)} already cached" if cached else ""))
        if fetch:
            check_disk(total, folder)
        progress = Progress(len(fetch), total, cached)
        for item in fetch:
            progress.file, progress.file_bytes = item.filename, 0
            progress.file_total = item.file_size or 0
            hf_hub_download(repo_id, item.filename, revision=info.sha,
                            tqdm_class=progress.bar_class() if main else None)
            progress.done_bytes += item.file_size or progress.file_bytes
            progress.files_done += 1
            progress.file_bytes = 0
            if main:
                progress.line(force=True)
        # Every file is cached at the resolved commit; asked by the revision the user gave, the
        # library also records which commit that revision is (refs/), so that a later run with
        # the Hub unreachable finds this copy.
        return snapshot_download(repo_id, revision=revision, allow_patterns=names)
    except HubError:
        raise
    except KeyboardInterrupt:
        raise
    except Exception as error:  # noqa: BLE001 - every library failure becomes one sentence
        raise explain(error, repo_id, revision) from error
