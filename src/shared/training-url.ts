/**
 * The training service's default address, apart from the API's schemas (training-api.ts) so the
 * page can name the service without loading zod on its first load.
 */
/** The service listens on a fixed loopback address, port 8000. */
export const DEFAULT_TRAINING_URL = 'http://127.0.0.1:8000';
