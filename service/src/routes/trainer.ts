/**
 * The trainer's environment: GET /trainer (interpreter, packages, device, set-up state),
 * POST /trainer/setup (runs `npm run trainer:setup`'s script: fixed arguments, nothing from the
 * request; one at a time; refused while a run is active), GET /trainer/setup (its output).
 */
import type { FastifyInstance } from 'fastify';
import { SERVICE_ROUTES as ROUTES } from '../../../src/shared/service-http';
import type { TrainerDomain } from '../../../src/shared/service-domain';
import type { TrainerInfo, TrainerSetup } from '../../../src/shared/training-api';

export function registerTrainerRoutes(app: FastifyInstance, trainer: TrainerDomain): void {
  app.get(ROUTES.trainer.url, (): Promise<TrainerInfo> => trainer.info());
  // The set-up takes no options (its body schema allows only `{}`).
  app.post(
    ROUTES.startSetup.url,
    { schema: ROUTES.startSetup.schema },
    async (_request, reply): Promise<TrainerSetup> => {
      const setup = trainer.startSetup();
      reply.code(ROUTES.startSetup.status);
      return setup;
    },
  );
  app.get(ROUTES.setup.url, (): TrainerSetup => trainer.setup());
}
