/**
 * GET /models and the Hub-layout file routes for trained models (and base exports):
 * `GET|HEAD /trained/{name}/resolve/main/{file}`, streamed from the run's `web/` folder with
 * Content-Length, ETag and single-range support. The security hooks in app.ts (Host check,
 * Origin allowlist + CORS) apply; only GET and HEAD exist, the file name is checked before any
 * disk access, and the resolved real path must stay inside `web/`.
 */
import type { FastifyInstance } from 'fastify';
import * as z from 'zod/mini';
import { TRAINED_MODEL_OWNER, type ModelList } from '../../../src/shared/training-api';
import { notFound, rangeNotSatisfiable } from '../errors';
import {
  checkModelFile,
  contentType,
  listModels,
  modelFolder,
  parseRange,
  resolveModelFile,
  streamFile,
} from '../models';
import type { RunManager } from '../runs';

const ModelFileParamsSchema = z.object({
  name: z.string().check(z.regex(/^[A-Za-z0-9_][A-Za-z0-9._-]{0,119}$/, 'is not a model name')),
  revision: z.string(),
  '*': z.string(),
});

export function registerModelRoutes(app: FastifyInstance, runs: RunManager): void {
  app.get('/models', async (): Promise<ModelList> => ({
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
      const etag = `"${opened.size.toString(16)}-${opened.mtime.getTime().toString(16)}"`;
      reply.header('Accept-Ranges', 'bytes');
      reply.header('ETag', etag);
      reply.header('Last-Modified', opened.mtime.toUTCString());
      reply.header('Cache-Control', 'no-cache');
      reply.type(contentType(file));
      const range = parseRange(request.headers.range, opened.size);
      if (range === 'invalid') {
        reply.header('Content-Range', `bytes */${opened.size}`);
        throw rangeNotSatisfiable(`Range "${request.headers.range ?? ''}" is not satisfiable`);
      }
      const length = range ? range[1] - range[0] + 1 : opened.size;
      reply.header('Content-Length', String(length));
      if (range) {
        reply.code(206);
        reply.header('Content-Range', `bytes ${range[0]}-${range[1]}/${opened.size}`);
      }
      if (request.method === 'HEAD') return reply.send();
      return reply.send(streamFile(opened.path, range));
    },
  });
}
