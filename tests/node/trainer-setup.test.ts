/**
 * scripts/trainer-setup.mjs (`npm run trainer:setup`, also the service's POST /trainer/setup),
 * run for real with a fake python3 and a fake pip (shell scripts) in a temporary venv folder:
 * the stamp makes a second run a no-op, a changed Python rebuilds, Debian's missing python3-venv
 * and a pip failure each end with their one line and exit code.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..', '..');
const SCRIPT = join(ROOT, 'scripts', 'trainer-setup.mjs');
const REQUIREMENTS = join(ROOT, 'training', 'requirements.txt');

// Answers the version probe and `-m venv DIR` the way python3 does; FAKE_VENV=debian prints what
// Debian's python3 prints without python3-venv (and leaves a half-made venv, as it does).
const FAKE_PYTHON = `#!/bin/sh
if [ "$1" = "-c" ]; then echo "\${FAKE_PYTHON_VERSION:-3.11.7}"; exit 0; fi
if [ "$1" = "-m" ] && [ "$2" = "venv" ]; then
  shift 2
  echo "venv $*" >> "$FAKE_LOG"
  [ "$1" = "--clear" ] && shift
  mkdir -p "$1/bin"
  ln -sf "$0" "$1/bin/python"
  if [ "$FAKE_VENV" = "debian" ]; then
    echo "The virtual environment was not created successfully because ensurepip is not"
    echo "available.  On Debian/Ubuntu systems, you need to install the python3-venv"
    echo "package using the following command."
    echo ""
    echo "    apt install python3.11-venv"
    echo ""
    echo "Failing command: $1/bin/python3"
    exit 1
  fi
  cp "$FAKE_PIP" "$1/bin/pip"
  exit 0
fi
exit 2
`;
const FAKE_PIP = `#!/bin/sh
echo "pip $*" >> "$FAKE_LOG"
echo "Collecting torch<2.15,>=2.4"
if [ "$FAKE_PIP_FAIL" = "1" ]; then
  echo "ERROR: Could not find a version that satisfies the requirement torch<2.15,>=2.4 (from versions: none)" >&2
  echo "ERROR: No matching distribution found for torch<2.15,>=2.4" >&2
  exit 1
fi
echo "Successfully installed torch-2.13.0"
`;

interface Stamp {
  requirements_sha256: string;
  python_version: string;
}

let dir: string;
let venv: string;
let log: string;

function setup(env: Record<string, string> = {}) {
  const run = spawnSync(process.execPath, [SCRIPT], {
    encoding: 'utf8',
    env: {
      ...process.env,
      TRAINER_SETUP_PYTHON: join(dir, 'python3'),
      TRAINER_VENV_DIR: venv,
      FAKE_PIP: join(dir, 'pip'),
      FAKE_LOG: log,
      // llama.cpp's set-up after a ready environment: none here but in its own tests below.
      TRAINER_SETUP_LLAMA: '',
      ...env,
    },
  });
  const lines = run.stdout.trim().split('\n');
  return { code: run.status, stdout: run.stdout, last: lines.at(-1), stderr: run.stderr };
}

function calls(): string[] {
  return existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n') : [];
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'trainer-setup-'));
  venv = join(dir, 'venv');
  log = join(dir, 'calls.log');
  writeFileSync(join(dir, 'python3'), FAKE_PYTHON);
  writeFileSync(join(dir, 'pip'), FAKE_PIP);
  chmodSync(join(dir, 'python3'), 0o755);
  chmodSync(join(dir, 'pip'), 0o755);
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('npm run trainer:setup', () => {
  it('creates the venv, installs the requirements with pip, then is a no-op', () => {
    const first = setup();
    expect(first.code).toBe(0);
    expect(first.stdout).toContain('Collecting torch<2.15,>=2.4\n');
    expect(first.stdout).toContain('Successfully installed torch-2.13.0\n');
    expect(first.last).toBe(`Trainer environment ready (${venv})`);
    expect(calls()).toEqual([`venv ${venv}`, `pip install --retries 0 -r ${REQUIREMENTS}`]);
    const stamp = JSON.parse(readFileSync(join(venv, '.trainer-setup.json'), 'utf8')) as Stamp;
    expect(stamp.python_version).toBe('3.11.7');
    expect(stamp.requirements_sha256).toMatch(/^[0-9a-f]{64}$/);

    const second = setup();
    expect(second.code).toBe(0);
    expect(second.stdout).toBe(`Trainer environment up to date (${venv})\n`);
    expect(calls()).toHaveLength(2); // neither venv nor pip ran again
  });

  it("then llama.cpp's runtime (its lines passed through); when that fails the trainer is still ready", () => {
    const llama = join(dir, 'llama-setup.mjs');
    writeFileSync(
      llama,
      `console.log('Installing node-llama-cpp'); process.exit(Number(process.env.FAKE_LLAMA_EXIT ?? 0));`,
    );
    const first = setup({ TRAINER_SETUP_LLAMA: llama });
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(
      /Successfully installed torch-2\.13\.0\nInstalling node-llama-cpp\n/,
    );
    expect(first.last).toBe(`Trainer environment ready (${venv})`);

    const failed = setup({ TRAINER_SETUP_LLAMA: llama, FAKE_LLAMA_EXIT: '1' });
    expect(failed.code).toBe(0);
    expect(failed.stdout).toBe(
      [
        'Installing node-llama-cpp',
        "llama.cpp's runtime was not installed (exit code 1): GGUF files cannot be written or checked until npm run llama:setup succeeds; training is not affected.",
        `Trainer environment up to date (${venv})`,
        '',
      ].join('\n'),
    );
  });

  it('changed requirements: pip again in the same venv', () => {
    expect(setup().code).toBe(0);
    const stampPath = join(venv, '.trainer-setup.json');
    const stamp = JSON.parse(readFileSync(stampPath, 'utf8')) as Stamp;
    writeFileSync(stampPath, JSON.stringify({ ...stamp, requirements_sha256: 'old' }));
    const again = setup();
    expect(again.code).toBe(0);
    expect(calls().slice(2)).toEqual([`pip install --retries 0 -r ${REQUIREMENTS}`]);
  });

  it('another Python version: the venv is rebuilt (--clear) and pip runs again', () => {
    expect(setup().code).toBe(0);
    const again = setup({ FAKE_PYTHON_VERSION: '3.12.4' });
    expect(again.code).toBe(0);
    expect(calls().slice(2)).toEqual([
      `venv --clear ${venv}`,
      `pip install --retries 0 -r ${REQUIREMENTS}`,
    ]);
  });

  it('Debian without python3-venv: one line, exit 3, no half-made venv left', () => {
    const run = setup({ FAKE_VENV: 'debian' });
    expect(run.code).toBe(3);
    expect(run.stdout).toBe(
      `Creating the trainer environment (${venv}) with ${join(dir, 'python3')}\n` +
        "python3 -m venv is not available: install Debian's python3-venv package (sudo apt-get install python3-venv), then run npm run trainer:setup again.\n",
    );
    expect(existsSync(venv)).toBe(false);
    expect(calls()).toEqual([`venv ${venv}`]);
  });

  it("pip fails: exit 1 with pip's last error line, and the next run tries again", () => {
    const run = setup({ FAKE_PIP_FAIL: '1' });
    expect(run.code).toBe(1);
    expect(run.last).toBe(
      'pip install failed: ERROR: No matching distribution found for torch<2.15,>=2.4',
    );
    expect(existsSync(join(venv, '.trainer-setup.json'))).toBe(false);
    const again = setup();
    expect(again.code).toBe(0);
    expect(calls()).toEqual([
      `venv ${venv}`,
      `pip install --retries 0 -r ${REQUIREMENTS}`,
      `pip install --retries 0 -r ${REQUIREMENTS}`,
    ]);
  });

  it('no python3 at all: one line, exit 3', () => {
    const run = setup({ TRAINER_SETUP_PYTHON: join(dir, 'no-such-python') });
    expect(run.code).toBe(3);
    expect(run.stdout).toBe(
      `${join(dir, 'no-such-python')} was not found: install Python 3.10 or newer (Debian: sudo apt-get install python3 python3-venv), then run npm run trainer:setup again.\n`,
    );
  });

  it('a Python older than 3.10: one line, exit 3', () => {
    const run = setup({ FAKE_PYTHON_VERSION: '3.8.10' });
    expect(run.code).toBe(3);
    expect(run.last).toMatch(/is Python 3\.8\.10; the trainer needs Python 3\.10 or newer/);
    expect(calls()).toEqual([]);
  });
});
