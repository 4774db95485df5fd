/**
 * GET /models and the Hub-layout file routes for trained models (and base exports):
 * `GET|HEAD /trained/{name}/resolve/main/{file}`, sent from the run's `web/` folder by
 * `@fastify/static` (Content-Length, ETag, Last-Modified, single ranges, 416, HEAD). The security hooks in app.ts (Host check,
 * Origin allowlist + CORS) apply; only GET and HEAD exist, the file name is checked before any
 * disk access, and the resolved real path must stay inside `web/`.
 */
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import * as z from 'zod/mini';
import { SERVICE_ROUTES } from '../../../src/shared/service-http';
import { TRAINED_MODEL_OWNER, type ModelList } from '../../../src/shared/training-api';
import { basename, dirname } from 'node:path';
import { notFound } from '../errors';
import {
  checkModelFile,
  listModels,
  modelFolder,
  resolveModelFile,
  type ModelSources,
} from '../models';

const ModelFileParamsSchema = z.object({
  name: z.string().check(z.regex(/^[A-Za-z0-9_][A-Za-z0-9._-]{0,119}$/, 'is not a model name')),
  revision: z.string(),
  '*': z.string(),
});

/**
 * `send`'s options: our own Cache-Control; names were checked above; 1 MiB reads (send's
 * `highWaterMark`, missing from @fastify/static's types; its default 64 KiB more than halves the
 * throughput of a large weights file: `npm run bench:service -- --file-vs REV`).
 */
export const SEND_OPTIONS = {
  cacheControl: false,
  dotfiles: 'allow' as const,
  highWaterMark: 1 << 20,
};

export function registerModelRoutes(app: FastifyInstance, runs: ModelSources): void {
  // Only reply.sendFile: no route of the plugin's own (every file is checked below first).
  void app.register(fastifyStatic, { serve: false, root: '/' });
  app.get(SERVICE_ROUTES.models.url, async (): Promise<ModelList> => ({
    models: await listModels(runs.records()),
  }));

  app.route<{ Params: z.infer<typeof ModelFileParamsSchema> }>({
    method: ['GET', 'HEAD'],
    url: `/${TRAINED_MODEL_OWNER}/:name/resolve/:revision/*`,
    exposeHeadRoute: false,
    schema: { params: ModelFileParamsSchema },
    handler: async (request, reply) => {
      const { name, revision } = request.params;
      const file = request.params['*'];
      checkModelFile(file);
      if (revision !== 'main')
        throw notFound(`Trained models have one revision, "main" (got "${revision}")`);
      const id = `${TRAINED_MODEL_OWNER}/${name}`;
      const folder = modelFolder(runs.records(), id);
      if (!folder) throw notFound(`No trained model "${id}" (see GET /models)`);
      const opened = await resolveModelFile(folder, file);
      // @fastify/static (send): Content-Length, ETag, Last-Modified, one Range (206, 416), HEAD.
      reply.header('Cache-Control', 'no-cache');
      return reply.sendFile(basename(opened.path), dirname(opened.path), SEND_OPTIONS);
    },
  });
}
