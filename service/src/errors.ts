/**
 * The service's domain errors (kinds, class, constructors) live in src/shared/domain-errors.ts,
 * so the mock's fake domain throws the same ones; the one error handler
 * (routes/error-handler.ts) maps each kind to its status (`ERROR_STATUS`).
 */
export * from '../../src/shared/domain-errors';
