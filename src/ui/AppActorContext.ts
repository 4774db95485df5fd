import { createActorContext } from '@xstate/react';
import { appMachine } from '../machines/appMachine';

/**
 * The one provider for the root actor. The composition root (src/main.tsx) passes the machine
 * with real actors provided (`logic`), tests pass fakes the same way.
 */
export const AppActorContext = createActorContext(appMachine);
