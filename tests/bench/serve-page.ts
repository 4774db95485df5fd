/**
 * A bench page served from loopback with the repository's node_modules (read only) for its
 * imports: the plain transformers.js pages of bench:speed and bench:export-decode.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, listen, type RunningServer } from '../e2e/harness';

/** Serves `html` at `route` (e.g. `/raw.html`) and files under `/node_modules/`. */
export function servePage(route: string, html: string | Buffer): Promise<RunningServer> {
  return listen((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    if (path === route) {
      res.writeHead(200, { 'Content-Type': 'text/html' });
      res.end(html);
      return true;
    }
    if (!path.startsWith('/node_modules/') || path.includes('..')) return false;
    const file = join(ROOT, path);
    if (!existsSync(file)) return false;
    const type = file.endsWith('.wasm')
      ? 'application/wasm'
      : /\.m?js$/.test(file)
        ? 'text/javascript'
        : 'application/octet-stream';
    res.writeHead(200, { 'Content-Type': type });
    res.end(readFileSync(file));
    return true;
  });
}
