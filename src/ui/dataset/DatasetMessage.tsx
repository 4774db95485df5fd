/**
 * A 'Format Input' error as shown: it offers only actions that are available (no "generate with
 * the loaded local model" while none is loaded) and, when a Hugging Face token is the problem,
 * links to where one is created.
 */
export const HF_TOKENS_URL = 'https://huggingface.co/settings/tokens';

const LOCAL_MODEL_ADVICE = /,? or generate with the loaded local model/;

/** The message without advice the user cannot follow right now. */
export function availableAdvice(message: string, localModelReady: boolean): string {
  return localModelReady ? message : message.replace(LOCAL_MODEL_ADVICE, '');
}

/** Whether the message is about the access token (missing or refused). */
export function isTokenProblem(message: string): boolean {
  return /access token/i.test(message);
}

export function DatasetMessage({
  message,
  localModelReady,
}: {
  message: string;
  localModelReady: boolean;
}) {
  return (
    <>
      {availableAdvice(message, localModelReady)}
      {isTokenProblem(message) && (
        <>
          {' '}
          <a href={HF_TOKENS_URL} target="_blank" rel="noreferrer">
            Create a token on huggingface.co
          </a>{' '}
          (a fine-grained token with “Make calls to Inference Providers”).
        </>
      )}
    </>
  );
}
