/**
 * The one place where outcomes become HTTP: domain errors → status codes, schema failures → 400
 * with one readable sentence, Fastify's own errors → their status, unknown routes → 404.
 * Every error body is `{ "error": "<one sentence>" }`.
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import type * as z from 'zod/mini';
import {
  ERROR_STATUS,
  checkRequestPart,
  malformedJson,
  type RequestPart,
} from '../../../src/shared/service-http';
import type { ErrorResponse } from '../../../src/shared/training-api';
import { trainingMessages } from '../../../src/shared/training-messages';
import { DomainError } from '../errors';

const PARTS: readonly string[] = ['params', 'querystring', 'body', 'headers'];
const isRequestPart = (part: string | undefined): part is RequestPart =>
  part !== undefined && PARTS.includes(part);

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
  // The shared schemas validate every request part; failures become one readable 400
  // (checkRequestPart: the mock answers the same).
  app.setValidatorCompiler(({ schema, httpPart }) => {
    if (!isZodSchema(schema)) throw new Error('route schemas must be zod/mini schemas');
    const part = isRequestPart(httpPart) ? httpPart : 'body';
    return (data: unknown) => checkRequestPart(schema, data, part);
  });

  app.setErrorHandler((error: unknown, _request, reply) => {
    if (error instanceof DomainError)
      return sendError(reply, ERROR_STATUS[error.kind], error.message);
    const e = fastifyFields(error);
    const status = e.statusCode ?? 500;
    // http-errors' headers (@fastify/static's 416 carries `Content-Range: bytes */size`).
    const headers = error instanceof Error && 'headers' in error ? error.headers : undefined;
    if (status < 500 && typeof headers === 'object' && headers !== null)
      for (const [name, value] of Object.entries(headers))
        if (typeof value === 'string') reply.header(name, value);
    let message = e.message || 'Internal error';
    if (e.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || e.code === 'FST_ERR_CTP_EMPTY_JSON_BODY')
      message = malformedJson(message);
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
