/**
 * Who may talk to the service: a loopback Host only (DNS rebinding), browsers only from the
 * allowed origins (refused here with a 403; @fastify/cors answers CORS for those alone), and
 * state changes only as JSON (a cross-site form cannot send that without a preflight).
 */
import fastifyCors from '@fastify/cors';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { LOOPBACK_HOSTS } from '../config';
import { contentTypeRefusal } from '../../../src/shared/service-http';
import { sendError } from './error-handler';

/** Host values that name this service: its loopback names with the port it listens on. */
export function allowedHosts(port: number): Set<string> {
  return new Set(LOOPBACK_HOSTS.map((h) => `${h.includes(':') ? `[${h}]` : h}:${port}`));
}

/** `hosts()` is read per request: the port is known only once the service listens. */
export function registerSecurity(
  app: FastifyInstance,
  hosts: () => Set<string>,
  allowedOrigins: readonly string[],
): void {
  const origins = new Set(allowedOrigins);
  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    // DNS rebinding: a foreign name resolving to 127.0.0.1 still sends its own Host.
    const host = request.headers.host ?? '';
    const allowed = hosts();
    if (!allowed.has(host.toLowerCase()))
      return sendError(
        reply,
        403,
        `Host "${host}" is not this service's loopback address (expected one of ${[...allowed].join(', ')})`,
      );
    const origin = request.headers.origin;
    if (origin !== undefined) {
      if (!origins.has(origin))
        return sendError(
          reply,
          403,
          origin === 'null'
            ? 'Origin "null" is never allowed'
            : `Origin "${origin}" is not allowed (allowed: ${[...origins].join(', ')}; set TRAINING_ALLOWED_ORIGINS)`,
        );
    }
    // Chrome's Private Network Access preflight (a public page may not reach loopback without it;
    // @fastify/cors has no option for it). Only allowed origins get here.
    if (
      request.method === 'OPTIONS' &&
      request.headers['access-control-request-private-network'] === 'true'
    )
      reply.header('Access-Control-Allow-Private-Network', 'true');
    const refused = contentTypeRefusal(request.method, request.headers['content-type']);
    if (refused) return sendError(reply, 415, refused);
    return undefined;
  });
  // The CORS answers themselves (allowed origins only: the hook above refused the others).
  void app.register(fastifyCors, {
    origin: [...origins],
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'OPTIONS'],
    allowedHeaders: ['Content-Type', 'Range'],
    exposedHeaders: ['Content-Length', 'Content-Range', 'Accept-Ranges', 'ETag'],
    maxAge: 600,
    strictPreflight: false,
  });
}
