/**
 * A finished run's exports: GET /runs/{id}/exports lists what `<output_dir>/gguf/` holds (GGUF
 * files with their llama.cpp check, the Ollama Modelfile, or why there are none), and
 * `GET|HEAD /runs/{id}/exports/gguf/{file}` sends one of the files it lists, streamed by
 * `@fastify/static` as the trained files are (Range, ETag, HEAD) with
 * `Content-Disposition: attachment`. A name is looked up in the run's list, never joined raw.
 * `GET|HEAD /runs/{id}/exports/archive/{kind}` sends the adapter or the merged model as a zip made
 * while it is sent (archives.ts), with its exact Content-Length. `POST /runs/{id}/exports` writes
 * GGUF from an ended run's merged model (gguf-exports.ts): 202 with the listing, "writing".
 * `PUT /runs/{id}/evaluation` puts Compare's scores in the merged model's card (run-evaluation.ts).
 */
import type { FastifyInstance } from 'fastify';
import { basename, dirname } from 'node:path';
import type * as z from 'zod/mini';
import { SERVICE_ROUTES as ROUTES } from '../../../src/shared/service-http';
import type {
  ExportArchiveParamsSchema,
  ExportFileParamsSchema,
  ExportRequest,
  RunEvaluationResult,
  RunExports,
} from '../../../src/shared/training-api';
import type { RunEvaluation } from '../../../src/shared/run-evaluation';
import type { RunManager } from '../runs';
import { SEND_OPTIONS } from './models';
import { zipArchive, zipSize } from '../archives';

export function registerExportRoutes(
  app: FastifyInstance,
  runs: Pick<
    RunManager,
    'exports' | 'exportFile' | 'exportArchive' | 'exportRun' | 'saveEvaluation'
  >,
): void {
  app.put<{ Params: { id: string }; Body: RunEvaluation }>(
    ROUTES.runEvaluation.url,
    { schema: ROUTES.runEvaluation.schema },
    (request): Promise<RunEvaluationResult> => runs.saveEvaluation(request.params.id, request.body),
  );

  app.post<{ Params: { id: string }; Body: ExportRequest }>(
    ROUTES.exportRun.url,
    { schema: ROUTES.exportRun.schema },
    async (request, reply): Promise<RunExports> => {
      const answer = await runs.exportRun(request.params.id, request.body);
      reply.code(ROUTES.exportRun.status);
      return answer;
    },
  );

  app.get<{ Params: { id: string } }>(
    ROUTES.exports.url,
    { schema: ROUTES.exports.schema },
    (request): Promise<RunExports> => runs.exports(request.params.id),
  );

  app.route<{ Params: z.infer<typeof ExportFileParamsSchema> }>({
    method: ['GET', 'HEAD'],
    url: ROUTES.exportFile.url,
    exposeHeadRoute: false,
    schema: ROUTES.exportFile.schema,
    handler: async (request, reply) => {
      const path = await runs.exportFile(request.params.id, request.params.file);
      // Listed names are letters, digits, '.', '_' and '-' (run-exports.ts): safe to quote as is.
      reply.header('Content-Disposition', `attachment; filename="${basename(path)}"`);
      reply.header('Cache-Control', 'no-cache');
      // @fastify/static (send): Content-Length, ETag, Last-Modified, one Range (206, 416), HEAD.
      return reply.sendFile(basename(path), dirname(path), SEND_OPTIONS);
    },
  });

  app.route<{ Params: z.infer<typeof ExportArchiveParamsSchema> }>({
    method: ['GET', 'HEAD'],
    url: ROUTES.exportArchive.url,
    exposeHeadRoute: false,
    schema: ROUTES.exportArchive.schema,
    handler: async (request, reply) => {
      const { id, kind } = request.params;
      const { name, files } = await runs.exportArchive(id, kind);
      // HEAD only sizes the zip; GET makes it while it is sent (no file read ahead of the socket).
      const zip = request.method === 'HEAD' ? null : zipArchive(id, kind, files);
      reply.header('Content-Disposition', `attachment; filename="${name}"`);
      reply.header('Cache-Control', 'no-cache');
      reply.header('Content-Length', await (zip?.size ?? zipSize(id, kind, files)));
      reply.type('application/zip');
      return reply.send(zip?.stream);
    },
  });
}
