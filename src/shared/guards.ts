/**
 * Type guards for data whose shape is not known (parsed JSON, postMessage data, stored records):
 * they narrow `unknown` so its fields can be read as `unknown` and checked one by one, in place of
 * type assertions (which the lint forbids in product code).
 */

/** A non-null object (an array too): its fields can be read, each as `unknown`. */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

/** An array, its items read as `unknown` (`Array.isArray` alone narrows to `any[]`). */
export function isUnknownArray(value: unknown): value is unknown[] {
  return Array.isArray(value);
}

/** A JSON object: a non-null object that is not an array. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return isObject(value) && !Array.isArray(value);
}
