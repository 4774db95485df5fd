import { use } from 'react';
import type { AppActorRef } from '../../machines/appMachine';
import { useServices } from '../services';
import { Compare } from './Compare';
import { runOfRoute } from './compare-route';
import './compare.css';

/**
 * The Compare view (`#/compare`, `#/compare?run=<id>`), loaded on demand with its services (the
 * evaluation machine, its store, the service's queries). Needs a QueryClientProvider above it.
 * The app actor comes as a prop: importing AppActorContext (and so appMachine) into this lazy
 * chunk made the bundler split xstate out of the entry, adding to the first load.
 */
export default function CompareView({ route, app }: { route: string; app: AppActorRef }) {
  const compare = use(useServices().loadCompare());
  return <Compare compare={compare} app={app} runId={runOfRoute(route)} />;
}
