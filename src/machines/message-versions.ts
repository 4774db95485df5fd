/**
 * Versions of a message: a Regenerate or an Edit sets the message and everything after it aside as
 * another version (a branch), kept on the message that replaces it; the pager swaps branches in.
 * Pure functions over the shown list (the active path), used by the chat machine.
 */
import type { ConversationMessage } from '../shared/conversations/types';

type Message = ConversationMessage;

/** How many versions the message has (1 = no alternatives). */
export function versionCount(message: Message): number {
  return (message.alternatives?.length ?? 0) + 1;
}

/** The shown version's place (0-based). */
export function versionOf(message: Message): number {
  const others = message.alternatives?.length ?? 0;
  return Math.min(message.version ?? others, others);
}

function bare(message: Message): Message {
  const { alternatives: _alternatives, version: _version, ...rest } = message;
  return rest;
}

/** Every version of the branch at `index`, in order, the shown one included. */
function allVersions(messages: Message[], index: number): Message[][] {
  const at = messages[index];
  if (!at) return [];
  const others = at.alternatives ?? [];
  const v = versionOf(at);
  const shown = [bare(at), ...messages.slice(index + 1)];
  return [...others.slice(0, v), shown, ...others.slice(v)];
}

/**
 * The list with the branch from `index` set aside and `first` in its place as the newest version;
 * what followed the old message goes with it.
 */
export function branchAt(messages: Message[], index: number, first: Message): Message[] {
  const alternatives = allVersions(messages, index);
  return [
    ...messages.slice(0, index),
    { ...bare(first), alternatives, version: alternatives.length },
  ];
}

/** The list showing version `version` of the branch at `index` (unchanged when there is none). */
export function showVersion(messages: Message[], index: number, version: number): Message[] {
  const all = allVersions(messages, index);
  const [head, ...rest] = all[version] ?? [];
  if (!head || all.length < 2) return messages;
  const alternatives = all.filter((_, i) => i !== version);
  return [...messages.slice(0, index), { ...head, alternatives, version }, ...rest];
}
