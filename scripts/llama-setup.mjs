#!/usr/bin/env node
// `npm run llama:setup`: llama.cpp for the GGUF checks (training/gguf_check.mjs). Installs
// node-llama-cpp and only its prebuilt CPU binary for this platform into `.llama-runtime/` at the
// repository root — a folder of its own, as the trainer's `.venv/` is, because a default install
// also pulls its CUDA, Vulkan and ARM builds (about 725 MB) and the app does not need any of it.
// Nothing is built and nothing is downloaded at run time: node-llama-cpp's install script (which
// would look for or build binaries) is skipped, and the check calls getLlama with build "never"
// and skipDownload. A stamp (the pinned versions) makes a second run a no-op.
// Exit codes: 0 ready or up to date; 1 npm failed; 3 no prebuilt binary for this platform.
// Environment: LLAMA_RUNTIME_DIR (default .llama-runtime, relative to the repository root).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const DIR = resolve(ROOT, process.env.LLAMA_RUNTIME_DIR || '.llama-runtime');
const LABEL = relative(ROOT, DIR).startsWith('..') ? DIR : relative(ROOT, DIR);
const VERSION = '3.22.1';
// node-llama-cpp's prebuilt CPU packages, by Node's platform and architecture.
const BINARIES = {
  'linux-x64': '@node-llama-cpp/linux-x64',
  'linux-arm64': '@node-llama-cpp/linux-arm64',
  'linux-arm': '@node-llama-cpp/linux-armv7l',
  'darwin-arm64': '@node-llama-cpp/mac-arm64-metal',
  'darwin-x64': '@node-llama-cpp/mac-x64',
  'win32-x64': '@node-llama-cpp/win-x64',
  'win32-arm64': '@node-llama-cpp/win-arm64',
};

const key = `${process.platform}-${process.arch}`;
const binary = BINARIES[key];
if (!binary) {
  console.log(
    `node-llama-cpp has no prebuilt CPU binary for ${key}: GGUF files cannot be checked here.`,
  );
  process.exit(3);
}
const packages = [`node-llama-cpp@${VERSION}`, `${binary}@${VERSION}`];
const stamp = join(DIR, '.llama-setup.json');
const wanted = JSON.stringify({ packages });
if (existsSync(stamp) && readFileSync(stamp, 'utf8') === wanted) {
  console.log(`llama.cpp runtime up to date (${LABEL})`);
  process.exit(0);
}
rmSync(DIR, { recursive: true, force: true });
mkdirSync(DIR, { recursive: true });
writeFileSync(join(DIR, 'package.json'), JSON.stringify({ name: 'llama-runtime', private: true }));
console.log(`Installing ${packages.join(' and ')} into ${LABEL}…`);
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const done = spawnSync(
  npm,
  ['install', '--no-audit', '--no-fund', '--ignore-scripts', '--omit=optional', ...packages],
  {
    cwd: DIR,
    stdio: 'inherit',
    env: { ...process.env, NODE_LLAMA_CPP_SKIP_DOWNLOAD: 'true' },
    shell: process.platform === 'win32',
  },
);
if (done.status !== 0) {
  console.log(
    `npm install failed (exit ${done.status ?? done.signal}): run npm run llama:setup again.`,
  );
  process.exit(1);
}
writeFileSync(stamp, wanted);
console.log(`llama.cpp runtime ready (${LABEL})`);
