/** The highest `?maxTokens=` accepts, and so the highest Max new tokens can ever be. (Its own
 * module: the chat's selectors need it on the first screen, the settings module is a chunk.) */
export const MAX_TOKENS_LIMIT = 4096;
