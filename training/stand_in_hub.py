"""A stand-in for the Hugging Face Hub on loopback, for the tests (HF_ENDPOINT points at it).

It answers what huggingface_hub 1.x requests when it downloads a model, with the headers and
error codes the library reads (huggingface_hub/utils/_http.py `hf_raise_for_status`,
file_download.py `get_hf_file_metadata`, hf_api.py `model_info`/`list_repo_tree`):

    GET  /api/models/{repo}[/revision/{rev}]     model info: sha, siblings
    GET  /api/models/{repo}/tree/{rev}[/...]     the file list with sizes (LFS for weights)
    HEAD /{repo}/resolve/{rev}/{file}            X-Repo-Commit, ETag/X-Linked-Etag, sizes
    GET  /{repo}/resolve/{rev}/{file}            the bytes, Range honoured (206)

Models are local folders served under an id (its main branch), and optionally more revisions
(`refs`: id -> {branch or tag: folder}), each with its own commit sha. A gated id answers the file requests with the
Hub's 401 (no token) or 403 (a token without access), X-Error-Code GatedRepo; an unknown id
401 RepoNotFound; an unknown revision 404 RevisionNotFound; a token the stand-in does not know
401 "Invalid credentials in Authorization header" on every request, as the Hub does. `slow`
(bytes per second) paces the bytes; `drop_at` (bytes) closes the connection at that offset of
the next `drops` weights bodies (a body that starts past it is cut at once). Every request is recorded (method, path,
Range, Authorization) for the tests' assertions.

Run alone (the service's tests start it so): python stand_in_hub.py --model org/name=FOLDER
[--gated org/name] [--token TOKEN=org/name,...] → prints `port N`, serves until killed.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import unquote, urlsplit

CHUNK = 64 * 1024


class StandInHub:
    def __init__(self, models: dict[str, str], gated: set[str] | None = None,
                 tokens: dict[str, set[str]] | None = None,
                 refs: dict[str, dict[str, str]] | None = None) -> None:
        self.models = dict(models)
        self.refs = {repo: dict(named) for repo, named in (refs or {}).items()}
        self.gated = set(gated or ())
        self.tokens = dict(tokens or {})  # token -> the gated ids it may read
        self.slow: int | None = None
        self.drop_at: int | None = None
        self.drops = 0
        self.requests: list[dict] = []
        self.lock = threading.Lock()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def start(self) -> "StandInHub":
        self.thread.start()
        return self

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def sha(self, repo: str, ref: str | None = None) -> str:
        """The commit of `repo`'s main branch, or of its branch or tag `ref`."""
        return hashlib.sha1((repo + (f"@{ref}" if ref else "")).encode()).hexdigest()

    def revision(self, repo: str, revision: str | None) -> tuple[str, str] | None:
        """(commit sha, folder) of a known repo's revision (None or main: the main branch; a
        branch, tag or commit sha), or None for a revision the repo does not have."""
        if revision in (None, "main", self.sha(repo)):
            return self.sha(repo), self.models[repo]
        for ref, folder in self.refs.get(repo, {}).items():
            if revision in (ref, self.sha(repo, ref)):
                return self.sha(repo, ref), folder
        return None

    @staticmethod
    def files(folder: str) -> dict[str, str]:
        return {name: os.path.join(folder, name) for name in sorted(os.listdir(folder))
                if os.path.isfile(os.path.join(folder, name))}

    @staticmethod
    def is_lfs(name: str) -> bool:
        return name.endswith((".safetensors", ".bin", ".onnx", ".onnx_data", ".gguf"))

    def _handler(self):
        hub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *_args) -> None:
                pass

            def error(self, status: int, code: str | None, message: str) -> None:
                body = json.dumps({"error": message}).encode()
                self.send_response(status)
                if code:
                    self.send_header("X-Error-Code", code)
                self.send_header("X-Error-Message", message)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(body)

            def json(self, value) -> None:
                body = json.dumps(value).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def token(self) -> str | None:
                auth = self.headers.get("Authorization") or ""
                return auth[len("Bearer "):] if auth.startswith("Bearer ") else None

            def do_HEAD(self) -> None:  # noqa: N802 - the library's names
                self.route()

            def do_GET(self) -> None:  # noqa: N802
                self.route()

            def route(self) -> None:
                path = unquote(urlsplit(self.path).path)
                token = self.token()
                with hub.lock:
                    hub.requests.append({"method": self.command, "path": path,
                                         "range": self.headers.get("Range"),
                                         "authorization": self.headers.get("Authorization")})
                if token is not None and token not in hub.tokens:
                    return self.error(401, None, "Invalid credentials in Authorization header")
                api = re.fullmatch(r"/api/models/([^/]+/[^/]+)(?:/(revision|tree)/([^/]+)(/.*)?)?",
                                   path)
                if api:
                    return self.api(api.group(1), api.group(2), api.group(3))
                resolve = re.fullmatch(r"/([^/]+/[^/]+)/resolve/([^/]+)/(.+)", path)
                if resolve:
                    return self.resolve(*resolve.groups(), token)
                return self.error(404, None, "Not found")

            def known(self, repo: str, revision: str | None) -> tuple[str, str] | None:
                if repo not in hub.models:
                    self.error(401, "RepoNotFound", "Repository not found")
                    return None
                found = hub.revision(repo, revision)
                if found is None:
                    self.error(404, "RevisionNotFound", f"Invalid rev id: {revision}")
                return found

            def api(self, repo: str, kind: str | None, revision: str | None) -> None:
                found = self.known(repo, revision)
                if found is None:
                    return
                sha, folder = found
                files = hub.files(folder)
                if kind == "tree":
                    entries = []
                    for name, file in files.items():
                        size = os.path.getsize(file)
                        entry = {"type": "file", "path": name, "size": size,
                                 "oid": hashlib.sha1(name.encode()).hexdigest()}
                        if hub.is_lfs(name):
                            entry["lfs"] = {"oid": file_sha256(file), "size": size,
                                            "pointerSize": 134}
                        entries.append(entry)
                    return self.json(entries)
                return self.json({
                    "id": repo, "modelId": repo, "sha": sha, "private": False,
                    "gated": "manual" if repo in hub.gated else False, "disabled": False,
                    "siblings": [{"rfilename": name} for name in files]})

            def resolve(self, repo: str, revision: str, name: str, token: str | None) -> None:
                found = self.known(repo, revision)
                if found is None:
                    return
                sha, folder = found
                if repo in hub.gated and repo not in hub.tokens.get(token or "", set()):
                    if token is None:
                        return self.error(401, "GatedRepo", (
                            f"Access to model {repo} is restricted. You must have access to it "
                            "and be authenticated to access it. Please log in."))
                    return self.error(403, "GatedRepo", (
                        f"Access to model {repo} is restricted and you are not in the "
                        f"authorized list. Visit {self.headers.get('Host')}/{repo} to ask "
                        "for access."))
                file = hub.files(folder).get(name)
                if file is None:
                    return self.error(404, "EntryNotFound", f"{name} does not exist")
                size = os.path.getsize(file)
                start = 0
                match = re.fullmatch(r"bytes=(\d+)-", self.headers.get("Range") or "")
                if match:
                    start = int(match.group(1))
                self.send_response(206 if start else 200)
                self.send_header("X-Repo-Commit", sha)
                # The Hub's ETag: the LFS file's sha256, else the git blob's sha1 (by content: a
                # file of the same name in another revision is another blob in the cache).
                etag = f'"{file_sha256(file) if hub.is_lfs(name) else file_sha1(file)}"'
                self.send_header("ETag", etag)
                if hub.is_lfs(name):
                    self.send_header("X-Linked-Etag", etag)
                    self.send_header("X-Linked-Size", str(size))
                self.send_header("Accept-Ranges", "bytes")
                if start:
                    self.send_header("Content-Range", f"bytes {start}-{size - 1}/{size}")
                self.send_header("Content-Length", str(size - start))
                self.end_headers()
                if self.command == "HEAD":
                    return
                drop = None
                with hub.lock:
                    if hub.is_lfs(name) and hub.drop_at is not None and hub.drops > 0:
                        hub.drops -= 1
                        drop = hub.drop_at
                with open(file, "rb") as handle:
                    handle.seek(start)
                    offset = start
                    while offset < size:
                        length = min(CHUNK, size - offset)
                        if drop is not None:
                            if offset >= drop:
                                break
                            length = min(length, drop - offset)
                        chunk = handle.read(length)
                        self.wfile.write(chunk)
                        self.wfile.flush()
                        offset += len(chunk)
                        if hub.slow:
                            time.sleep(len(chunk) / hub.slow)
                if offset < size:  # the dropped connection: no more bytes, the socket closed
                    self.close_connection = True
                    self.connection.shutdown(2)

        return Handler


_SHA256: dict[tuple[str, float], str] = {}


def file_sha1(path: str) -> str:
    with open(path, "rb") as handle:
        return hashlib.sha1(handle.read()).hexdigest()


def file_sha256(path: str) -> str:
    key = (path, os.path.getmtime(path))
    if key not in _SHA256:
        digest = hashlib.sha256()
        with open(path, "rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
        _SHA256[key] = digest.hexdigest()
    return _SHA256[key]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", action="append", default=[], help="ID=FOLDER")
    parser.add_argument("--gated", action="append", default=[], help="a gated ID")
    parser.add_argument("--token", action="append", default=[], help="TOKEN=ID,ID (may read)")
    parser.add_argument("--ref", action="append", default=[],
                        help="ID@REF=FOLDER: a branch or tag of ID")
    args = parser.parse_args()
    models = dict(item.split("=", 1) for item in args.model)
    refs: dict[str, dict[str, str]] = {}
    for item in args.ref:
        named, folder = item.split("=", 1)
        repo, ref = named.split("@", 1)
        refs.setdefault(repo, {})[ref] = folder
    tokens = {t.split("=", 1)[0]: set(filter(None, t.split("=", 1)[1].split(",")))
              for t in args.token}
    hub = StandInHub(models, set(args.gated), tokens, refs).start()
    print(f"port {hub.server.server_address[1]}", flush=True)
    threading.Event().wait()


if __name__ == "__main__":
    main()
