#!/usr/bin/env node
// `npm run trainer:setup`: the trainer's Python environment. Creates the virtual environment
// `.venv/` at the repository root (`python3 -m venv`) and installs training/requirements.txt into
// it with its pip, pip's output passed through line by line. A stamp in the venv (sha256 of
// requirements.txt and the Python version) makes a second run a no-op until either changes.
// The training service runs exactly this script for POST /trainer/setup. Once the environment is
// ready it also runs scripts/llama-setup.mjs (llama.cpp's CPU build for the GGUF export's check,
// into .llama-runtime/), its lines passed through; when that fails the trainer is still ready
// and one line says what GGUF cannot do.
//
// Everything is printed to stdout (one ordered stream for the service to show). Exit codes:
//   0  ready, or already up to date ("Trainer environment up to date (.venv)")
//   1  pip failed (the last line names pip's last error)
//   3  no usable Python, or `python3 -m venv` unavailable (Debian without python3-venv)
// Environment (for tests): TRAINER_SETUP_PYTHON (default python3), TRAINER_VENV_DIR (default
// .venv, relative to the repository root), TRAINER_SETUP_LLAMA (the llama.cpp set-up script,
// default scripts/llama-setup.mjs; empty: none).
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const REQUIREMENTS = join(ROOT, 'training', 'requirements.txt');
const PYTHON = process.env.TRAINER_SETUP_PYTHON || 'python3';
const VENV = resolve(ROOT, process.env.TRAINER_VENV_DIR || '.venv');
const LABEL = relative(ROOT, VENV).startsWith('..') ? VENV : relative(ROOT, VENV) || '.';
const BIN = join(VENV, process.platform === 'win32' ? 'Scripts' : 'bin');
const EXE = process.platform === 'win32' ? '.exe' : '';
const VENV_PYTHON = join(BIN, `python${EXE}`);
const VENV_PIP = join(BIN, `pip${EXE}`);
const STAMP = join(VENV, '.trainer-setup.json');
// transformers 5 needs Python 3.10 or newer.
const MIN_PYTHON = [3, 10];
const VENV_MISSING =
  "python3 -m venv is not available: install Debian's python3-venv package (sudo apt-get install python3-venv), then run npm run trainer:setup again.";

function stop(code, line) {
  console.log(line);
  process.exit(code);
}

const LLAMA_SETUP = process.env.TRAINER_SETUP_LLAMA ?? join(ROOT, 'scripts', 'llama-setup.mjs');

/** The environment is ready: llama.cpp's runtime next (a failure leaves the trainer ready). */
function finish(line) {
  if (LLAMA_SETUP) {
    const run = spawnSync(process.execPath, [LLAMA_SETUP], { encoding: 'utf8' });
    for (const said of `${run.stdout ?? ''}${run.stderr ?? ''}`.split('\n'))
      if (said.trim()) console.log(said);
    if (run.status !== 0)
      console.log(
        `llama.cpp's runtime was not installed (${run.error?.message ?? `exit code ${run.status}`}): GGUF files cannot be written or checked until npm run llama:setup succeeds; training is not affected.`,
      );
  }
  stop(0, line);
}

function pythonVersion() {
  const probe = spawnSync(PYTHON, ['-c', 'import sys; print("%d.%d.%d" % sys.version_info[:3])'], {
    encoding: 'utf8',
  });
  const version = probe.status === 0 ? probe.stdout.trim() : '';
  if (!/^\d+\.\d+\.\d+$/.test(version))
    stop(
      3,
      probe.error?.code === 'ENOENT'
        ? `${PYTHON} was not found: install Python 3.10 or newer (Debian: sudo apt-get install python3 python3-venv), then run npm run trainer:setup again.`
        : `${PYTHON} does not run: ${lastLine(`${probe.stderr ?? ''}`) || probe.error?.message || `exit code ${probe.status}`}`,
    );
  const [major, minor] = version.split('.').map(Number);
  if (major < MIN_PYTHON[0] || (major === MIN_PYTHON[0] && minor < MIN_PYTHON[1]))
    stop(
      3,
      `${PYTHON} is Python ${version}; the trainer needs Python ${MIN_PYTHON.join('.')} or newer: install a newer python3 (or point TRAINER_SETUP_PYTHON at one), then run npm run trainer:setup again.`,
    );
  return version;
}

function lastLine(text) {
  return (
    text
      .split(/\r?\n/)
      .map((line) => line.trim())
      .filter(Boolean)
      .at(-1) ?? ''
  );
}

function readStamp() {
  try {
    return JSON.parse(readFileSync(STAMP, 'utf8'));
  } catch {
    return null;
  }
}

function createVenv(clear) {
  const existed = existsSync(VENV);
  console.log(`Creating the trainer environment (${LABEL}) with ${PYTHON}`);
  const made = spawnSync(PYTHON, ['-m', 'venv', ...(clear ? ['--clear'] : []), VENV], {
    encoding: 'utf8',
  });
  if (made.status === 0 && existsSync(VENV_PIP)) return;
  // A failed venv (Debian: no ensurepip) leaves a folder without pip behind: not ours to keep.
  if (!existed) rmSync(VENV, { recursive: true, force: true });
  const output = `${made.stdout ?? ''}\n${made.stderr ?? ''}`;
  if (made.status === 0 || /ensurepip|python3(\.\d+)?-venv|No module named venv/.test(output))
    stop(3, VENV_MISSING);
  stop(
    3,
    `${PYTHON} -m venv failed: ${lastLine(output) || made.error?.message || `exit code ${made.status}`}`,
  );
}

function pipInstall() {
  return new Promise((done) => {
    const pip = spawn(VENV_PIP, ['install', '--retries', '0', '-r', REQUIREMENTS], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, PIP_DISABLE_PIP_VERSION_CHECK: '1', PYTHONUNBUFFERED: '1' },
    });
    let lastError = '';
    let last = '';
    const streams = [pip.stdout, pip.stderr].map((stream) => {
      const lines = createInterface({ input: stream });
      lines.on('line', (line) => {
        console.log(line);
        if (line.trim()) last = line.trim();
        if (/^(ERROR|error):/.test(line.trim())) lastError = line.trim();
      });
      return new Promise((closed) => lines.on('close', closed));
    });
    for (const signal of ['SIGINT', 'SIGTERM'])
      process.on(signal, () => {
        pip.kill(signal);
        process.exit(130);
      });
    pip.on('error', (error) => done({ code: 1, message: error.message }));
    pip.on('close', (code) => {
      void Promise.all(streams).then(() =>
        done({ code: code ?? 1, message: lastError || last || `exit code ${code}` }),
      );
    });
  });
}

const version = pythonVersion();
const wanted = {
  requirements_sha256: createHash('sha256').update(readFileSync(REQUIREMENTS)).digest('hex'),
  python_version: version,
};
const stamp = readStamp();
const ready = existsSync(VENV_PYTHON) && existsSync(VENV_PIP);
if (
  ready &&
  stamp?.requirements_sha256 === wanted.requirements_sha256 &&
  stamp?.python_version === wanted.python_version
)
  finish(`Trainer environment up to date (${LABEL})`);

const pythonChanged = stamp !== null && stamp.python_version !== version;
if (!ready || pythonChanged) createVenv(pythonChanged);
if (existsSync(STAMP)) unlinkSync(STAMP); // an interrupted install must not look finished
console.log(`Installing training/requirements.txt into ${LABEL} (Python ${version})`);
const result = await pipInstall();
if (result.code !== 0) stop(1, `pip install failed: ${result.message}`);
writeFileSync(STAMP, `${JSON.stringify(wanted, null, 2)}\n`);
finish(`Trainer environment ready (${LABEL})`);
