/**
 * Who may talk to the service: a loopback Host only (DNS rebinding), browsers only from the
 * allowed origins (CORS answers for those alone), and state changes only as JSON (a cross-site
 * form cannot send that without a preflight).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { LOOPBACK_HOSTS } from '../config';
import { trainingMessages } from '../../../src/shared/training-messages';
import { sendError } from './error-handler';

const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

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
      reply.header('Access-Control-Allow-Origin', origin);
      reply.header('Vary', 'Origin');
      reply.header(
        'Access-Control-Expose-Headers',
        'Content-Length, Content-Range, Accept-Ranges, ETag',
      );
    }
    if (request.method === 'OPTIONS') {
      reply.header('Access-Control-Allow-Methods', 'GET, HEAD, POST, PUT, OPTIONS');
      reply.header('Access-Control-Allow-Headers', 'Content-Type, Range');
      reply.header('Access-Control-Max-Age', '600');
      if (request.headers['access-control-request-private-network'] === 'true')
        reply.header('Access-Control-Allow-Private-Network', 'true');
      return reply.code(204).send();
    }
    if (STATE_CHANGING.has(request.method)) {
      const type = (request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
      if (type !== 'application/json')
        return sendError(
          reply,
          415,
          trainingMessages.contentType(request.method, request.headers['content-type']),
        );
    }
    return undefined;
  });
}
