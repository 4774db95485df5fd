/**
 * A 'Format Input' error as shown: it offers only actions that are available (no "generate with
 * the loaded local model" while none is loaded) and, when a Hugging Face token is the problem,
 * links to where one is created.
 */
import { availableAdvice } from './advice';

export const HF_TOKENS_URL = 'https://huggingface.co/settings/tokens';

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
          </a>
          .
        </>
      )}
    </>
  );
}
