// `npm start`, after the (quiet) build: serves the app (`npm run serve`: vite preview on
// 127.0.0.1:5173) and the training service (`npm run service`), keeps their start-up banners
// out of the way and ends with ONE line: where to open the app, where the service listens, how
// to stop. Anything else either prints (warnings, errors, later logs) passes through, prefixed.
// When one of the two exits, the other is stopped and `npm start` exits with its status.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[0-9;]*m/g;
const parts = [
  // vite preview prints "➜  Local:   http://127.0.0.1:5173/"
  { name: 'app', script: 'serve', ready: /Local:\s+(http:\/\/\S+?)\/?$/, url: '' },
  // the service prints "Training service on http://127.0.0.1:8000 — …"
  { name: 'service', script: 'service', ready: /^Training service on (http:\/\/\S+)/, url: '' },
];
const banner = /press h \+ enter|➜\s+Network:|^\s*$/;
let stopping = false;

const children = parts.map((part) => {
  const child = spawn(npm, ['run', '--silent', part.script], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, FORCE_COLOR: '0' },
  });
  for (const stream of [child.stdout, child.stderr]) {
    createInterface({ input: stream }).on('line', (raw) => {
      const line = raw.replace(ANSI, '');
      const ready = part.url ? null : part.ready.exec(line.trim());
      if (ready) {
        part.url = ready[1];
        if (parts.every((p) => p.url))
          console.log(
            `App: ${parts[0].url}  ·  Training service: ${parts[1].url}  ·  Stop: Ctrl+C`,
          );
      } else if (!banner.test(line) && line.trim()) {
        console.log(`[${part.name}] ${line}`);
      }
    });
  }
  child.on('exit', (code, signal) => {
    if (!stopping) {
      console.log(`[${part.name}] exited (${signal ?? code}); stopping.`);
      stop(code ?? 1);
    } else if (children.every((c) => c.exitCode !== null || c.signalCode !== null)) {
      process.exit(process.exitCode ?? 0);
    }
  });
  return child;
});

function stop(code) {
  stopping = true;
  process.exitCode = code;
  for (const child of children)
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
  if (children.every((c) => c.exitCode !== null || c.signalCode !== null)) process.exit(code);
}

process.on('SIGINT', () => stop(0));
process.on('SIGTERM', () => stop(0));
