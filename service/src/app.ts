/**
 * The HTTP layer: a Fastify app with the security hooks, the one error handler and the routes
 * (routes/*), over the domain (runs, datasets, models, the trainer's environment), which knows
 * nothing of HTTP.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { REPO_ROOT, type ServiceConfig } from './config';
import { DatasetStore } from './datasets';
import { registerDatasetRoutes } from './routes/datasets';
import { registerErrorHandling } from './routes/error-handler';
import { registerExportRoutes } from './routes/exports';
import { HubCacheStore } from './hub-cache';
import { registerHubCacheRoutes } from './routes/hub-cache';
import { registerInfoRoutes } from './routes/info';
import { registerModelRoutes } from './routes/models';
import { registerRunRoutes } from './routes/runs';
import { allowedHosts, registerSecurity } from './routes/security';
import { registerTrainerRoutes } from './routes/trainer';
import { RunManager, type SpawnFn } from './runs';
import { TrainerEnv } from './trainer-env';

async function packageVersion(): Promise<string> {
  try {
    const pkg: unknown = JSON.parse(await readFile(`${REPO_ROOT}/package.json`, 'utf8'));
    const version =
      typeof pkg === 'object' && pkg !== null && 'version' in pkg ? pkg.version : undefined;
    return typeof version === 'string' ? version : '0.0.0';
  } catch {
    return '0.0.0';
  }
}

export interface AppDeps {
  spawn?: SpawnFn;
}

export interface TrainingService {
  app: FastifyInstance;
  runs: RunManager;
  trainer: TrainerEnv;
  /** Listens on config.host:config.port (0 = a free port); resolves with the bound port. */
  listen(): Promise<number>;
  close(): Promise<void>;
}

export function buildService(config: ServiceConfig, deps: AppDeps = {}): TrainingService {
  const runs = new RunManager(config, deps.spawn);
  runs.init();
  const trainer = new TrainerEnv(config, () => runs.activeId !== null);
  runs.settingUp = () => trainer.settingUp;
  const app = Fastify({
    bodyLimit: config.bodyLimit,
    routerOptions: { maxParamLength: 200 },
    logger: false,
  });
  let hosts = allowedHosts(config.port);
  registerSecurity(app, () => hosts, config.allowedOrigins);
  registerErrorHandling(app);
  const version = packageVersion();
  app.register(async (scope) => registerInfoRoutes(scope, await version));
  registerRunRoutes(app, runs);
  registerDatasetRoutes(
    app,
    new DatasetStore(join(config.dataDir, 'datasets')),
    config.datasetLimit,
  );
  registerModelRoutes(app, runs);
  registerExportRoutes(app, runs);
  registerTrainerRoutes(app, trainer);
  registerHubCacheRoutes(
    app,
    new HubCacheStore(config.hubCacheDir, () => {
      const id = runs.activeId;
      return new Set(id ? [runs.get(id).base_model] : []);
    }),
  );

  return {
    app,
    runs,
    trainer,
    async listen() {
      await runs.recover();
      await app.listen({ host: config.host, port: config.port });
      const address = app.server.address();
      const port = typeof address === 'object' && address ? address.port : config.port;
      hosts = allowedHosts(port);
      return port;
    },
    async close() {
      await app.close();
      await Promise.all([runs.shutdown(), trainer.shutdown()]);
    },
  };
}
