/**
 * The trainer's environment: GET /trainer (interpreter, packages, device, set-up state),
 * POST /trainer/setup (runs `npm run trainer:setup`'s script: fixed arguments, nothing from the
 * request; one at a time; refused while a run is active), GET /trainer/setup (its output).
 */
import type { FastifyInstance } from 'fastify';
import * as z from 'zod/mini';
import type { TrainerInfo, TrainerSetup } from '../../../src/shared/training-api';
import type { TrainerEnv } from '../trainer-env';

/** The set-up takes no options: the body must be `{}`. */
const SetupBodySchema = z.strictObject({});

export function registerTrainerRoutes(app: FastifyInstance, trainer: TrainerEnv): void {
  app.get('/trainer', (): Promise<TrainerInfo> => trainer.info());
  app.post(
    '/trainer/setup',
    { schema: { body: SetupBodySchema } },
    async (_request, reply): Promise<TrainerSetup> => {
      const setup = trainer.startSetup();
      reply.code(202);
      return setup;
    },
  );
  app.get('/trainer/setup', (): TrainerSetup => trainer.setup());
}
