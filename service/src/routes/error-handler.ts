/**
 * The one place where outcomes become HTTP: domain errors → status codes, schema failures → 400
 * with one readable sentence, Fastify's own errors → their status, unknown routes → 404.
 * Every error body is `{ "error": "<one sentence>" }`.
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import * as z from 'zod/mini';
import { formatIssues, type ErrorResponse } from '../../../src/shared/training-api';
import { trainingMessages } from '../../../src/shared/training-messages';
import { DomainError, badInput, type DomainErrorKind } from '../errors';

const STATUS: Record<DomainErrorKind, number> = {
  'bad-input': 400,
  'not-found': 404,
  busy: 409,
  'folder-in-use': 409,
  'wrong-state': 409,
  unreadable: 422,
  'launch-failed': 500,
};

const SUBJECT: Record<string, string> = {
  body: 'body',
  querystring: 'query',
  params: 'path',
  headers: 'headers',
};

export function sendError(reply: FastifyReply, statusCode: number, message: string) {
  const body: ErrorResponse = { error: message };
  return reply.code(statusCode).type('application/json; charset=utf-8').send(body);
}

/** Route schemas are the shared zod/mini schemas (they carry zod's `_zod` internals). */
function isZodSchema(schema: unknown): schema is z.ZodMiniType {
  return typeof schema === 'object' && schema !== null && '_zod' in schema;
}

/** What Fastify's own errors carry (body parsing, limits). */
function fastifyFields(error: unknown): { statusCode?: number; code?: string; message: string } {
  if (!(error instanceof Error)) return { message: String(error) };
  const statusCode = 'statusCode' in error ? error.statusCode : undefined;
  const code = 'code' in error ? error.code : undefined;
  return {
    statusCode: typeof statusCode === 'number' ? statusCode : undefined,
    code: typeof code === 'string' ? code : undefined,
    message: error.message,
  };
}

export function registerErrorHandling(app: FastifyInstance): void {
  // The shared schemas validate every request part; failures become one readable 400.
  app.setValidatorCompiler(({ schema, httpPart }) => {
    if (!isZodSchema(schema)) throw new Error('route schemas must be zod/mini schemas');
    const subject = SUBJECT[httpPart ?? 'body'] ?? 'request';
    return (data: unknown) => {
      const result = z.safeParse(schema, data ?? undefined);
      if (result.success) return { value: result.data };
      return {
        error: badInput(`Invalid ${subject}: ${formatIssues(result.error.issues, subject)}`),
      };
    };
  });

  app.setErrorHandler((error: unknown, _request, reply) => {
    if (error instanceof DomainError) return sendError(reply, STATUS[error.kind], error.message);
    const e = fastifyFields(error);
    const status = e.statusCode ?? 500;
    // http-errors' headers (@fastify/static's 416 carries `Content-Range: bytes */size`).
    const headers = error instanceof Error && 'headers' in error ? error.headers : undefined;
    if (status < 500 && typeof headers === 'object' && headers !== null)
      for (const [name, value] of Object.entries(headers))
        if (typeof value === 'string') reply.header(name, value);
    let message = e.message || 'Internal error';
    if (e.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || e.code === 'FST_ERR_CTP_EMPTY_JSON_BODY')
      message = `Malformed JSON body: ${message}`;
    else if (e.code === 'FST_ERR_CTP_BODY_TOO_LARGE') message = 'Request body is too large';
    else if (status >= 500) message = `Internal error: ${message}`;
    return sendError(reply, status, message);
  });

  app.setNotFoundHandler((request, reply) =>
    sendError(
      reply,
      404,
      trainingMessages.noRoute(request.method, request.url.split('?')[0] ?? ''),
    ),
  );
}
