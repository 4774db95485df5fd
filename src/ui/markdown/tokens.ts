/**
 * Type guards for marked's tokens: `Token` includes `Tokens.Generic` (any `type`), so a check of
 * `type` alone does not narrow it.
 */
import type { Token, Tokens } from 'marked';

export const isTable = (token: Token | undefined): token is Tokens.Table => token?.type === 'table';
export const isList = (token: Token | undefined): token is Tokens.List => token?.type === 'list';
export const isParagraph = (token: Token | undefined): token is Tokens.Paragraph =>
  token?.type === 'paragraph';
export const isCode = (token: Token | undefined): token is Tokens.Code => token?.type === 'code';
export const isDef = (token: Token | undefined): token is Tokens.Def => token?.type === 'def';
