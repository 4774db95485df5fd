/**
 * A finished run's exports: GET /runs/{id}/exports lists what `<output_dir>/gguf/` holds (GGUF
 * files with their llama.cpp check, the Ollama Modelfile, or why there are none), and
 * `GET|HEAD /runs/{id}/exports/gguf/{file}` sends one of the files it lists, streamed by
 * `@fastify/static` as the trained files are (Range, ETag, HEAD) with
 * `Content-Disposition: attachment`. A name is looked up in the run's list, never joined raw.
 */
import type { FastifyInstance } from 'fastify';
import { basename, dirname } from 'node:path';
import type * as z from 'zod/mini';
import { SERVICE_ROUTES as ROUTES } from '../../../src/shared/service-http';
import type { ExportFileParamsSchema, RunExports } from '../../../src/shared/training-api';
import type { RunManager } from '../runs';
import { SEND_OPTIONS } from './models';

export function registerExportRoutes(
  app: FastifyInstance,
  runs: Pick<RunManager, 'exports' | 'exportFile'>,
): void {
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
}
