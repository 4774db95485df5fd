/**
 * "Downloaded base models": the training service's Hub cache (GET /hub-cache): its folder, the
 * space it uses, one row per base model with its size and a **Remove** (asked to confirm; refused
 * while a run trains from it: DELETE /hub-cache/models/{org}/{name}). Asked again when a run
 * ends (a run may have downloaded its base). Its ids go up to the Base model field's suggestions.
 * Server state through TanStack Query, in its own chunk.
 */
import { useEffect, useId, useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { trainingKeys } from '../../shared/training-keys';
import type { CachedModel } from '../../shared/training-api';
import { errorMessage } from '../../shared/errors';
import { useServices } from '../services';
import { formatBytes } from '../../shared/format-bytes';

export interface HubCacheProps {
  /** A run is going (its end asks the cache again). */
  busy: boolean;
  /** The cached ids, whenever the list changes (the Base model field's suggestions). */
  onModels: (ids: readonly string[]) => void;
}

function ModelRow({
  model,
  removing,
  onRemove,
}: {
  model: CachedModel;
  removing: boolean;
  onRemove: () => void;
}) {
  const [confirming, setConfirming] = useState(false);
  return (
    <li className="hub-cache-model">
      <span className="hub-cache-id">{model.id}</span>{' '}
      <span>
        {formatBytes(model.bytes)}
        {model.revisions > 1 ? `, ${model.revisions} revisions` : ''}
      </span>{' '}
      {model.inUse ? (
        <span>in use by the running run</span>
      ) : confirming ? (
        <span role="group" aria-label={`Remove ${model.id}?`}>
          Remove {model.id} ({formatBytes(model.bytes)})?{' '}
          <button type="button" disabled={removing} onClick={onRemove}>
            Yes, remove
          </button>{' '}
          <button type="button" onClick={() => setConfirming(false)}>
            Keep
          </button>
        </span>
      ) : (
        <button
          type="button"
          aria-label={`Remove ${model.id}`}
          disabled={removing}
          onClick={() => setConfirming(true)}
        >
          Remove
        </button>
      )}
    </li>
  );
}

export default function HubCache({ busy, onModels }: HubCacheProps) {
  const services = useServices();
  const queryClient = useQueryClient();
  const id = useId();
  const key = trainingKeys.hubCache(services.trainingUrl);
  const cache = useQuery({
    queryKey: key,
    queryFn: ({ signal }) => services.hubCache.list(signal),
    retry: false,
  });
  const remove = useMutation({
    mutationFn: (modelId: string) => services.hubCache.remove(modelId),
    onSuccess: (next) => queryClient.setQueryData(key, next),
    // Refused (a run took it meanwhile) or failed: what the cache holds now.
    onError: () => void queryClient.invalidateQueries({ queryKey: key }),
  });
  const { refetch } = cache;
  // A run that ends may have downloaded its base.
  useEffect(() => {
    if (!busy) void refetch();
  }, [busy, refetch]);
  const models = cache.data?.models;
  useEffect(() => {
    if (models) onModels(models.map((m) => m.id));
  }, [models, onModels]);

  if (!cache.data) return null;
  const { dir, bytes } = cache.data;
  return (
    <section className="hub-cache" aria-labelledby={`${id}-heading`}>
      <h3 id={`${id}-heading`}>Downloaded base models</h3>
      <p>
        In <code>{dir}</code> on the training service: {formatBytes(bytes)}.
      </p>
      {cache.data.models.length === 0 ? (
        <p>None yet: a run downloads its base model from the Hub the first time.</p>
      ) : (
        <ul>
          {cache.data.models.map((model) => (
            <ModelRow
              key={model.id}
              model={model}
              removing={remove.isPending}
              onRemove={() => remove.mutate(model.id)}
            />
          ))}
        </ul>
      )}
      {remove.error && (
        <p className="training-failed" role="alert">
          {errorMessage(remove.error)}
        </p>
      )}
    </section>
  );
}
