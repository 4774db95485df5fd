import { use } from 'react';
import { AppActorContext } from '../AppActorContext';
import { useServices } from '../services';
import { Compare } from './Compare';
import { runOfRoute } from './compare-route';
import './compare.css';

/**
 * The Compare view (`#/compare`, `#/compare?run=<id>`), loaded on demand with its services (the
 * evaluation machine, its store, the service's queries). Needs a QueryClientProvider above it.
 */
export default function CompareView({ route }: { route: string }) {
  const app = AppActorContext.useActorRef();
  const compare = use(useServices().loadCompare());
  return <Compare compare={compare} app={app} runId={runOfRoute(route)} />;
}
