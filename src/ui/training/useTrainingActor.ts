/**
 * The panel's own training actor (a root, like the dataset actor), its logic (HTTP actors through
 * the app's QueryClient) from the composition root's services. Nothing is kept in the page: on
 * load the machine asks the service which run is active and attaches to it.
 */
import { use } from 'react';
import { useActorRef } from '@xstate/react';
import { useServices } from '../services';
import { inspect } from '../../inspection/bus';

export function useTrainingActor() {
  const { loadTrainingLogic, trainingUrl, trainingLog, trainingPlan } = useServices();
  // Suspends the panel until the training code has loaded (one promise per page).
  const logic = use(loadTrainingLogic());
  const actorRef = useActorRef(logic, { input: {}, inspect });
  return { actorRef, trainingUrl, trainingLog, trainingPlan };
}
