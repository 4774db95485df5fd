import { useSyncExternalStore } from 'react';
import type { Updates } from '../service-worker/updates';

/** "A new version is available" with a Reload button, once a new service worker is waiting. */
export function UpdatePrompt({ updates }: { updates: Updates }) {
  const available = useSyncExternalStore(updates.subscribe, updates.available);
  return (
    <div role="status" className="update-prompt">
      {available && (
        <>
          A new version is available
          <button type="button" className="primary" onClick={updates.apply}>
            Reload
          </button>
        </>
      )}
    </div>
  );
}
