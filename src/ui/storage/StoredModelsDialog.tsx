/** The Stored models dialog bound to its actor; fetched when "Stored models" is pressed. */
import { useEffect, useRef } from 'react';
import { useSelector } from '@xstate/react';
import type { ActorRefFrom } from 'xstate';
import { type storedModelsMachine } from '../../machines/storedModelsMachine';
import {
  selectLoadedModelId,
  selectPersisted,
  selectStorageEstimate,
  selectStoredModels,
  selectStoredModelsBusy,
  selectStoredModelsError,
} from '../../machines/storedModelsSelectors';
import { StoredModelsView } from './StoredModelsView';

export function StoredModelsDialog({
  storedModels,
  onClose,
}: {
  storedModels: ActorRefFrom<typeof storedModelsMachine>;
  onClose: () => void;
}) {
  const models = useSelector(storedModels, selectStoredModels);
  const estimate = useSelector(storedModels, selectStorageEstimate);
  const persisted = useSelector(storedModels, selectPersisted);
  const busy = useSelector(storedModels, selectStoredModelsBusy);
  const error = useSelector(storedModels, selectStoredModelsError);
  const loadedId = useSelector(storedModels, selectLoadedModelId);
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    storedModels.send({ type: 'storedModels.refresh' });
    const el = dialog.current;
    if (el && !el.open && typeof el.showModal === 'function') el.showModal();
  }, [storedModels]);
  return (
    <dialog
      ref={dialog}
      className="stored-models-dialog"
      aria-labelledby="stored-models-title"
      onClose={onClose}
    >
      <h2 id="stored-models-title">Stored models</h2>
      <StoredModelsView
        models={models}
        estimate={estimate}
        persisted={persisted}
        loadedId={loadedId}
        busy={busy}
        error={error}
        onDelete={(id) => storedModels.send({ type: 'storedModels.delete', id })}
        onPersist={() => storedModels.send({ type: 'storedModels.persist' })}
        onRefresh={() => storedModels.send({ type: 'storedModels.refresh' })}
      />
      <button type="button" className="secondary" onClick={() => dialog.current?.close()}>
        Close
      </button>
    </dialog>
  );
}
