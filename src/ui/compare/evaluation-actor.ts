/**
 * The evaluation actor lives as long as the page (a root like the training actor, but outside
 * React): a comparison goes on while you read the chat, and the view finds it again on return.
 */
import { createActor } from 'xstate';
import type { EvaluationActorRef, EvaluationInput } from '../../machines/evaluationMachine';
import type { CompareServices } from '../../actors/compare-services';
import { inspect } from '../../inspection/bus';

let current: {
  logic: CompareServices['logic'];
  input: EvaluationInput;
  actor: EvaluationActorRef;
} | null = null;

export function evaluationActor(
  logic: CompareServices['logic'],
  input: EvaluationInput,
): EvaluationActorRef {
  // One per page; another app session (tests) gets its own.
  if (current?.logic !== logic || current.input.worker !== input.worker) {
    current?.actor.stop();
    current = { logic, input, actor: createActor(logic, { input, inspect }).start() };
  }
  return current.actor;
}
