import { useMemo, useState } from 'react';
import { useMutation } from '@tanstack/react-query';
import { DatasetPanel } from './dataset/DatasetPanel';
import type { GenerateLocal } from './dataset/useDatasetActor';
import { TrainingPanel } from './training/TrainingPanel';
import { createTrainingClient, putDatasetMutationOptions } from '../actors/training-client';
import type { DatasetEntry, TrainedModel } from '../shared/training-api';

/** A title such as "Port Elsby Lantern Festival" → "port-elsby-lantern-festival" (the service's name rule). */
export function datasetFileName(title: string): string {
  const slug = title
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/^[^a-z0-9]+|-+$/g, '')
    .slice(0, 100);
  return slug || 'input_data';
}

/**
 * The fine-tuning tools beside the chat: 'Format Input' (the dataset) and the training panel.
 * A dataset sent with "Use for training" is stored by the training service, and its path fills
 * the training panel's data file. Loaded as its own chunk after the first paint.
 */
export default function Tools({
  localModelReady,
  generateLocal,
  onTrainedModels,
  onLoadInChat,
  baseModelSuggestions,
}: {
  localModelReady: boolean;
  generateLocal: GenerateLocal;
  /** The training service's browser-ready models (for the model picker). */
  onTrainedModels?: (models: readonly TrainedModel[], serviceUrl: string) => void;
  /** "Load in chat" on a trained model. */
  onLoadInChat?: (model: TrainedModel, serviceUrl: string) => void;
  /** Hub ids the training panel's Base model field suggests. */
  baseModelSuggestions?: readonly { id: string; label: string }[];
}) {
  const client = useMemo(() => createTrainingClient(), []);
  const storeDataset = useMutation(putDatasetMutationOptions(client));
  const [dataFile, setDataFile] = useState<string | undefined>();

  const onUseForTraining = async (entries: DatasetEntry[], name: string) => {
    const { path } = await storeDataset.mutateAsync({ name: datasetFileName(name), entries });
    setDataFile(path);
    return path;
  };

  return (
    <>
      <DatasetPanel
        localModelReady={localModelReady}
        generateLocal={generateLocal}
        onUseForTraining={onUseForTraining}
      />
      <TrainingPanel
        client={client}
        dataFileFromDataset={dataFile}
        onTrainedModels={onTrainedModels}
        baseModelSuggestions={baseModelSuggestions}
        onLoadInChat={onLoadInChat ? (model) => onLoadInChat(model, client.baseUrl) : undefined}
      />
    </>
  );
}
