/** Other web sites must not be able to start or see runs (issue: Security). */
import { describe, expect, it } from 'vitest';
import { serviceForFile, type TestService } from './helpers';

let svc: TestService;
serviceForFile((started) => (svc = started));

const error = (json: unknown) => (json as { error: string }).error;

describe('Host header (DNS rebinding)', () => {
  it('refuses a foreign Host with 403 and starts nothing', async () => {
    const reply = await svc.train({}, { host: `evil.example:${svc.port}` });
    expect(reply.status).toBe(403);
    expect(error(reply.json)).toMatch(/Host "evil.example:\d+" is not this service's loopback/);
    expect(svc.spawned).toEqual([]);
  });

  it('refuses a loopback name with another port, and a missing Host', async () => {
    expect((await svc.request({ path: '/runs', headers: { host: '127.0.0.1:1' } })).status).toBe(
      403,
    );
    // Node's HTTP server already answers 400 to an HTTP/1.1 request without Host.
    const noHost = await svc.request({ path: '/runs', headers: { host: undefined } });
    expect([400, 403]).toContain(noHost.status);
  });

  it('accepts 127.0.0.1:port and localhost:port', async () => {
    expect((await svc.request({ path: '/runs' })).status).toBe(200);
    const reply = await svc.request({ path: '/runs', headers: { host: `localhost:${svc.port}` } });
    expect(reply.status).toBe(200);
  });
});

describe('Origin allowlist and CORS', () => {
  it('refuses a foreign Origin with 403 and starts nothing', async () => {
    const reply = await svc.train({}, { origin: 'https://evil.example' });
    expect(reply.status).toBe(403);
    expect(error(reply.json)).toMatch(/Origin "https:\/\/evil.example" is not allowed/);
    expect(reply.headers['access-control-allow-origin']).toBeUndefined();
    expect(svc.spawned).toEqual([]);
  });

  it('refuses Origin: null (sandboxed frames, file://) with 403', async () => {
    const reply = await svc.request({ path: '/runs', headers: { origin: 'null' } });
    expect(reply.status).toBe(403);
    expect(error(reply.json)).toBe('Origin "null" is never allowed');
  });

  it('answers an allowed origin with CORS headers', async () => {
    const reply = await svc.request({
      path: '/runs',
      headers: { origin: 'http://localhost:5173' },
    });
    expect(reply.status).toBe(200);
    expect(reply.headers['access-control-allow-origin']).toBe('http://localhost:5173');
    expect(reply.headers.vary).toMatch(/Origin/);
  });

  /** A CORS preflight of `path` from `origin` with the `access-control-request-*` headers given. */
  const preflight = (path: string, origin: string, asks: Record<string, string>) =>
    svc.request({ method: 'OPTIONS', path, headers: { origin, ...asks } });

  it('answers a preflight from an allowed origin, refuses one from elsewhere', async () => {
    const ok = await preflight('/train', 'http://127.0.0.1:5173', {
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'content-type',
    });
    expect(ok.status).toBe(204);
    expect(ok.headers['access-control-allow-origin']).toBe('http://127.0.0.1:5173');
    expect(ok.headers['access-control-allow-methods']).toContain('POST');
    expect(ok.headers['access-control-allow-headers']).toMatch(/content-type/i);
    expect(ok.headers['access-control-max-age']).toBe('600');
    expect(ok.headers.vary).toMatch(/Origin/);
    expect(ok.headers['access-control-allow-private-network']).toBeUndefined();
    // Chrome's Private Network Access preflight: allowed origins get the permission.
    const pna = await preflight('/runs', 'http://localhost:5173', {
      'access-control-request-method': 'GET',
      'access-control-request-private-network': 'true',
    });
    expect(pna.status).toBe(204);
    expect(pna.headers['access-control-allow-private-network']).toBe('true');
    const bad = await preflight('/train', 'https://evil.example', {
      'access-control-request-method': 'POST',
    });
    expect(bad.status).toBe(403);
    expect(bad.headers['access-control-allow-origin']).toBeUndefined();
  });
});

describe('state changes only with JSON', () => {
  it.each([
    ['text/plain', '{"script_path":"x"}'],
    ['application/x-www-form-urlencoded', 'script_path=x'],
    ['multipart/form-data; boundary=x', '--x--'],
  ])('POST /train with %s → 415, nothing spawned', async (type, body) => {
    const reply = await svc.request({
      method: 'POST',
      path: '/train',
      headers: { 'content-type': type },
      body,
    });
    expect(reply.status).toBe(415);
    expect(error(reply.json)).toMatch(/Content-Type must be application\/json/);
    expect(svc.spawned).toEqual([]);
  });

  it('POST without a Content-Type → 415', async () => {
    const reply = await svc.request({ method: 'POST', path: '/runs/abc/cancel' });
    expect(reply.status).toBe(415);
  });

  it('no state-changing GET: GET /train and GET /runs/:id/cancel are not routes', async () => {
    expect((await svc.request({ path: '/train' })).status).toBe(404);
    expect((await svc.request({ path: '/runs/abc/cancel' })).status).toBe(404);
    expect(svc.spawned).toEqual([]);
  });

  it('limits the request body size (413)', async () => {
    const reply = await svc.train({ base_model: 'x'.repeat(300 * 1024) });
    expect(reply.status).toBe(413);
    expect(error(reply.json)).toBe('Request body is too large');
    expect(svc.spawned).toEqual([]);
  });
});

describe('binding', () => {
  it('listens on loopback only and refuses a non-loopback TRAINING_HOST', async () => {
    expect(svc.service.app.server.address()).toMatchObject({ address: '127.0.0.1' });
    const { loadConfig } = await import('../src/config');
    expect(() => loadConfig({ TRAINING_HOST: '0.0.0.0' })).toThrow(/must be a loopback address/);
    expect(() => loadConfig({ TRAINING_ALLOWED_ORIGINS: 'null' })).toThrow(/never allowed/);
  });
});

describe('the new endpoints keep the security model', () => {
  const paths = [
    '/',
    '/models',
    '/runs/some-run/metrics',
    '/trained/some-model/resolve/main/config.json',
  ];

  it.each(paths)('%s: a foreign Host is 403 before anything else', async (path) => {
    const reply = await svc.request({ path, headers: { host: `evil.example:${svc.port}` } });
    expect(reply.status).toBe(403);
    expect(error(reply.json)).toMatch(/is not this service's loopback address/);
  });

  it.each(paths)('%s: a foreign Origin is 403, without CORS headers', async (path) => {
    const reply = await svc.request({ path, headers: { origin: 'https://evil.example' } });
    expect(reply.status).toBe(403);
    expect(reply.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('a metrics query that is not a number is refused with a readable 400', async () => {
    const reply = await svc.request({ path: '/runs/some-run/metrics?after=0x10' });
    expect(reply.status).toBe(400);
    expect(error(reply.json)).toBe('Invalid query: after must be an integer');
  });

  it('a form POST to a model file is 415 (with JSON it is 404: models.test.ts)', async () => {
    const path = '/trained/some-model/resolve/main/config.json';
    const form = await svc.request({
      method: 'POST',
      path,
      headers: { 'content-type': 'text/plain', 'content-length': '1' },
      body: 'x',
    });
    expect(form.status).toBe(415);
    expect(svc.spawned).toEqual([]);
  });
});
