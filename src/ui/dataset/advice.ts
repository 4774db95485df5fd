const LOCAL_MODEL_ADVICE = /,? or generate with the loaded local model/;

/** A 'Format Input' error without advice the user cannot follow now (no local model loaded). */
export function availableAdvice(message: string, localModelReady: boolean): string {
  return localModelReady ? message : message.replace(LOCAL_MODEL_ADVICE, '');
}
