import { useState } from 'react';
import { DatasetPanel } from './dataset/DatasetPanel';
import { TrainingPanel } from './training/TrainingPanel';
import { useServices, type GenerateLocal } from './services';
import type { DatasetEntry } from '../shared/training-api';

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
}: {
  localModelReady: boolean;
  generateLocal: GenerateLocal;
}) {
  const { storeDataset } = useServices();
  const [dataFile, setDataFile] = useState<string | undefined>();

  const onUseForTraining = async (entries: DatasetEntry[], name: string) => {
    const path = await storeDataset(entries, datasetFileName(name));
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
      <TrainingPanel dataFileFromDataset={dataFile} />
    </>
  );
}
