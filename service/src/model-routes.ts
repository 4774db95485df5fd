/**
 * GET /models and the Hub-layout file routes for trained models:
 * `GET|HEAD /trained/{name}/resolve/main/{file}`, streamed from the run's `web/` folder with
 * Content-Length, ETag and single-range support. The security hooks in app.ts (Host check,
 * Origin allowlist + CORS) apply; only GET and HEAD exist, the file name is checked before any
 * disk access, and the resolved real path must stay inside `web/`.
 */
import type { FastifyInstance } from 'fastify';
import { join } from 'node:path';
import * as z from 'zod/mini';
import {
  TRAINED_MODEL_OWNER,
  type ModelList,
  type TrainedModel,
} from '../../src/shared/training-api';
import {
  checkModelFile,
  contentType,
  inspectWebFolder,
  parseRange,
  resolveModelFile,
  streamFile,
} from './models';
import { RequestError } from './paths';
import type { RunManager } from './runs';

const ModelFileParamsSchema = z.object({
  name: z.string().check(z.regex(/^[A-Za-z0-9_][A-Za-z0-9._-]{0,119}$/, 'is not a model name')),
  revision: z.string(),
  '*': z.string(),
});

export function registerModelRoutes(app: FastifyInstance, runs: RunManager): void {
  app.get('/models', async (): Promise<ModelList> => {
    const models: TrainedModel[] = [];
    for (const record of runs.records()) {
      if (record.state !== 'succeeded' || !record.model_id) continue;
      const web = await inspectWebFolder(record.output_dir);
      if (!web.ok) continue;
      models.push({
        id: record.model_id,
        name: record.model_id.slice(TRAINED_MODEL_OWNER.length + 1),
        run_id: record.id,
        base_model: record.base_model,
        output_dir: record.output_dir,
        variants: web.variants,
        bytes: web.bytes,
        created_at: record.ended_at ?? record.started_at,
      });
    }
    models.sort((a, b) => b.created_at.localeCompare(a.created_at));
    return { models };
  });

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
        throw new RequestError(404, `Trained models have one revision, "main" (got "${revision}")`);
      const id = `${TRAINED_MODEL_OWNER}/${name}`;
      const record = runs.records().find((r) => r.model_id === id && r.state === 'succeeded');
      if (!record) throw new RequestError(404, `No trained model "${id}" (see GET /models)`);
      const opened = await resolveModelFile(join(record.output_dir, 'web'), file);
      const etag = `"${opened.size.toString(16)}-${opened.mtime.getTime().toString(16)}"`;
      reply.header('Accept-Ranges', 'bytes');
      reply.header('ETag', etag);
      reply.header('Last-Modified', opened.mtime.toUTCString());
      reply.header('Cache-Control', 'no-cache');
      reply.type(contentType(file));
      const range = parseRange(request.headers.range, opened.size);
      if (range === 'invalid') {
        reply.header('Content-Range', `bytes */${opened.size}`);
        throw new RequestError(416, `Range "${request.headers.range ?? ''}" is not satisfiable`);
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
