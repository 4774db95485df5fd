/**
 * An MSW handler for one route of the shared route table (src/shared/service-http.ts), answering
 * as the service's request layer does: the JSON-only rule (415), a malformed body (400), each
 * request part checked against the route's schema (400, in the service's words), then the fake
 * domain's answer as JSON (the route's status), or its domain error with the shared status.
 */
import { http, HttpResponse, type HttpHandler, type JsonBodyType, type PathParams } from 'msw';
import type * as z from 'zod/mini';
import { DomainError } from '../../src/shared/domain-errors';
import {
  ERROR_STATUS,
  STATE_CHANGING_METHODS,
  checkRequestPart,
  contentTypeRefusal,
  malformedJson,
  type RequestPart,
  type ServiceRoute,
} from '../../src/shared/service-http';
import type { ErrorResponse } from '../../src/shared/training-api';

/** What a route's schema makes of one request part (undefined when the route checks none). */
type PartOf<R extends ServiceRoute, K extends RequestPart> = R['schema'] extends {
  readonly [P in K]: infer S;
}
  ? S extends z.ZodMiniType
    ? z.output<S>
    : undefined
  : undefined;

/** The checked request a route's domain call receives. */
export interface RouteInput<R extends ServiceRoute> {
  params: PartOf<R, 'params'>;
  query: PartOf<R, 'querystring'>;
  body: PartOf<R, 'body'>;
}

const errorResponse = (status: number, message: string) =>
  HttpResponse.json<ErrorResponse>({ error: message }, { status });

const METHODS = { GET: http.get, POST: http.post, PUT: http.put, DELETE: http.delete } as const;

/** Reads the body of a state change as JSON; a parse failure is a string (the parser's words). */
async function jsonBody(request: Request): Promise<{ value: unknown } | string> {
  try {
    return { value: JSON.parse(await request.text()) };
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/**
 * The request parts checked in the service's order (path, body, query), typed by the route's
 * schemas; the first failure is the service's 400.
 */
function checkParts<R extends ServiceRoute>(
  route: R,
  data: { params: unknown; query: unknown; body: unknown },
): RouteInput<R> | Response;
function checkParts(
  route: ServiceRoute,
  data: { params: unknown; query: unknown; body: unknown },
): { params: unknown; query: unknown; body: unknown } | Response {
  const checked = { ...data };
  for (const [part, key] of [
    ['params', 'params'],
    ['body', 'body'],
    ['querystring', 'query'],
  ] as const) {
    const schema = route.schema?.[part];
    if (!schema) continue;
    const result = checkRequestPart(schema, data[key], part);
    if ('error' in result)
      return errorResponse(ERROR_STATUS[result.error.kind], result.error.message);
    checked[key] = result.value;
  }
  return checked;
}

type Answer = JsonBodyType | Promise<JsonBodyType>;

/**
 * A maker of handlers under `base`: `route(r, handle)` answers route `r`, where `handle` is the
 * domain call (it may throw a DomainError) and receives the parts the route's schemas checked,
 * typed by them; `onRequest` sees every request first (the mock records them).
 */
export function mswRoutes(base: string, onRequest: (request: Request) => void = () => undefined) {
  return <const R extends ServiceRoute>(
    route: R,
    handle: (input: RouteInput<R>) => Answer,
  ): HttpHandler =>
    METHODS[route.method]<PathParams>(`${base}${route.url}`, async ({ request, params }) => {
      onRequest(request);
      const refused = contentTypeRefusal(
        request.method,
        request.headers.get('content-type') ?? undefined,
      );
      if (refused) return errorResponse(415, refused);
      let body: unknown;
      if (STATE_CHANGING_METHODS.has(request.method)) {
        const read = await jsonBody(request);
        if (typeof read === 'string') return errorResponse(400, malformedJson(read));
        body = read.value;
      }
      const query = Object.fromEntries(new URL(request.url).searchParams);
      const checked = checkParts(route, { params, query, body });
      if (checked instanceof Response) return checked;
      try {
        const answer = await handle(checked);
        return HttpResponse.json(answer, { status: route.status ?? 200 });
      } catch (error) {
        if (error instanceof DomainError)
          return errorResponse(ERROR_STATUS[error.kind], error.message);
        throw error;
      }
    });
}

/**
 * `bytes=a-b`, `bytes=a-` or `bytes=-n` of a `size`-byte file as send (the service's
 * @fastify/static) reads one range: [start, end] inclusive, 'unsatisfiable', or null for the
 * whole file (no header, or a form it ignores: several ranges).
 */
function byteRange(header: string | null, size: number): [number, number] | 'unsatisfiable' | null {
  const match = /^bytes=(\d*)-(\d*)$/.exec(header ?? '');
  if (!match || (match[1] === '' && match[2] === '')) return null;
  const [from, to] = [match[1] ?? '', match[2] ?? ''];
  const range: [number, number] =
    from === ''
      ? [Math.max(0, size - Number(to)), size - 1]
      : [Number(from), Math.min(size - 1, to === '' ? size - 1 : Number(to))];
  return range[0] > range[1] || range[0] >= size ? 'unsatisfiable' : range;
}

/**
 * A maker of GET and HEAD handlers for a file route under `base` (the service sends it with
 * @fastify/static): the route's params checked as `mswRoutes` checks them, `handle` gives the
 * file's name and bytes (or throws a DomainError); one Range is answered with 206 (416 when out
 * of the file), as an attachment.
 */
export function mswFileRoutes(
  base: string,
  onRequest: (request: Request) => void = () => undefined,
) {
  return <const R extends ServiceRoute>(
    route: R,
    handle: (input: RouteInput<R>) => Promise<{ name: string; bytes: Uint8Array }>,
  ): HttpHandler[] =>
    [http.get, http.head].map((method) =>
      method<PathParams>(`${base}${route.url}`, async ({ request, params }) => {
        onRequest(request);
        const checked = checkParts(route, { params, query: {}, body: undefined });
        if (checked instanceof Response) return checked;
        let file: { name: string; bytes: Uint8Array };
        try {
          file = await handle(checked);
        } catch (error) {
          if (error instanceof DomainError)
            return errorResponse(ERROR_STATUS[error.kind], error.message);
          throw error;
        }
        const size = file.bytes.byteLength;
        const headers: Record<string, string> = {
          'Accept-Ranges': 'bytes',
          'Content-Disposition': `attachment; filename="${file.name}"`,
          'Content-Type': 'application/octet-stream',
        };
        const range = byteRange(request.headers.get('range'), size);
        if (range === 'unsatisfiable')
          return new HttpResponse(null, {
            status: 416,
            headers: { ...headers, 'Content-Range': `bytes */${size}` },
          });
        const [start, end] = range ?? [0, size - 1];
        const body = request.method === 'HEAD' ? null : file.bytes.slice(start, end + 1);
        headers['Content-Length'] = String(end - start + 1);
        if (range) headers['Content-Range'] = `bytes ${start}-${end}/${size}`;
        return new HttpResponse(body, { status: range ? 206 : 200, headers });
      }),
    );
}
