/**
 * `npm run service`: the local training service on 127.0.0.1:8000 (see service/README.md).
 */
import { loadConfig } from './config';
import { buildService } from './app';

async function main() {
  const config = loadConfig();
  const service = buildService(config);
  const port = await service.listen();
  console.log(
    `Training service on http://${config.host}:${port} — scripts from ${config.scriptRoots.join(', ')}, data in ${config.dataDir}`,
  );
  const stop = (signal: string) => {
    console.log(`${signal}: stopping (an active run is terminated and marked interrupted)`);
    void service.close().finally(() => process.exit(0));
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
