/**
 * The training service's domain errors: what went wrong, in one sentence a person can act on, and
 * never an HTTP status. Thrown by the service's domain (service/src) and by the mock's fake domain
 * (mocks/fake); `ERROR_STATUS` (service-http.ts) maps each kind to its status for both.
 */
export type DomainErrorKind =
  /** The request itself is wrong (a path outside the roots, a bad parameter). */
  | 'bad-input'
  /** No such run, model, file or record. */
  | 'not-found'
  /** Another run, or the trainer's set-up, is going: try again when it ends. */
  | 'busy'
  /** The output folder is used by the running run or already holds a result. */
  | 'folder-in-use'
  /** The run is not in a state that allows this (e.g. cancel after it ended). */
  | 'wrong-state'
  /** A file the request needs exists but cannot be read as what it should be. */
  | 'unreadable'
  /** A program could not be started (interpreter, launcher). */
  | 'launch-failed'
  /** A program the request waits for did not answer in the time allowed (the trainer's plan). */
  | 'timed-out';

export class DomainError extends Error {
  constructor(
    readonly kind: DomainErrorKind,
    message: string,
  ) {
    super(message);
    this.name = 'DomainError';
  }
}

export const badInput = (message: string) => new DomainError('bad-input', message);
export const notFound = (message: string) => new DomainError('not-found', message);
export const busy = (message: string) => new DomainError('busy', message);
export const folderInUse = (message: string) => new DomainError('folder-in-use', message);
export const wrongState = (message: string) => new DomainError('wrong-state', message);
export const unreadable = (message: string) => new DomainError('unreadable', message);
export const launchFailed = (message: string) => new DomainError('launch-failed', message);
export const timedOut = (message: string) => new DomainError('timed-out', message);
