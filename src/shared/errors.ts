/**
 * What any thrown value says to a person: an Error's message, a string as is, else a generic
 * sentence. The one place the app turns an unknown error into text.
 */
export function errorMessage(error: unknown, fallback = 'Something went wrong.'): string {
  if (error instanceof Error) return error.message.trim() || error.name || fallback;
  if (typeof error === 'string') return error.trim() || fallback;
  if (typeof error === 'object' && error !== null && 'message' in error) {
    const { message } = error;
    if (typeof message === 'string' && message.trim()) return message.trim();
  }
  return fallback;
}
