/**
 * Worker messages about stored models and download plans (part of the worker protocol; kept in
 * their own file so the chat's messages and these grow apart).
 */
import type { DownloadPlan, StoredModel } from './storage';

/** Main thread → worker. */
export type StorageRequest =
  | { type: 'storage.list' }
  | { type: 'storage.delete'; id: string }
  /** Download size and fit of a model before it is downloaded. */
  | { type: 'plan'; data: { id: string; dtype: string; host?: string | undefined } };

/** Worker → main thread. */
export type StorageResponse =
  | { status: 'stored'; models: StoredModel[] }
  | { status: 'deleted'; id: string; removed: number }
  | { status: 'plan'; plan: DownloadPlan }
  | { status: 'storage-error'; data: string; op: 'list' | 'delete' | 'plan'; id?: string };
