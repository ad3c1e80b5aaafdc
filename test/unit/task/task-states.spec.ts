import { ALL_TASK_STATES, canTransition, isInterrupted, isTerminal } from '../../../libs/a2a/src/task/task-states.js';
import type { TaskState } from '../../../libs/a2a/src/protocol/a2a.types.js';

const S = 'TASK_STATE_SUBMITTED' as const;
const W = 'TASK_STATE_WORKING' as const;
const C = 'TASK_STATE_COMPLETED' as const;
const F = 'TASK_STATE_FAILED' as const;
const X = 'TASK_STATE_CANCELED' as const;
const I = 'TASK_STATE_INPUT_REQUIRED' as const;
const R = 'TASK_STATE_REJECTED' as const;
const A = 'TASK_STATE_AUTH_REQUIRED' as const;
const U = 'TASK_STATE_UNSPECIFIED' as const;

/**
 * The task lifecycle (spec §4.1.3) written out state by state, independently of the implementation: the targets each
 * state may move to. Live states may make progress (WORKING again), be interrupted, or end; nothing goes back to
 * SUBMITTED or to UNSPECIFIED.
 */
const ALLOWED: Record<TaskState, readonly TaskState[]> = {
  [S]: [W, I, A, C, F, X, R],
  [W]: [W, I, A, C, F, X, R],
  [I]: [W, I, A, C, F, X, R],
  [A]: [W, I, A, C, F, X, R],
  [C]: [],
  [F]: [],
  [X]: [],
  [R]: [],
  [U]: [W, I, A, C, F, X, R],
};

describe('task states (spec §3.1.1, §4.1.3)', () => {
  it('lists the eight real states, without UNSPECIFIED', () => {
    expect([...ALL_TASK_STATES].sort()).toEqual([S, W, C, F, X, I, R, A].sort());
  });

  it.each([C, F, X, R])('%s is terminal and not interrupted', (state) => {
    expect(isTerminal(state)).toBe(true);
    expect(isInterrupted(state)).toBe(false);
  });

  it.each([I, A])('%s is interrupted and not terminal', (state) => {
    expect(isInterrupted(state)).toBe(true);
    expect(isTerminal(state)).toBe(false);
  });

  it.each([S, W, U])('%s is neither terminal nor interrupted', (state) => {
    expect(isTerminal(state)).toBe(false);
    expect(isInterrupted(state)).toBe(false);
  });

  const pairs = ALL_TASK_STATES.flatMap((from) => [...ALL_TASK_STATES, U].map((to) => [from, to] as const));
  it.each(pairs)('%s → %s follows the table', (from, to) => {
    expect(canTransition(from, to)).toBe(ALLOWED[from].includes(to));
  });

  it('never leaves a terminal state, not even to itself', () => {
    for (const from of [C, F, X, R] as const) {
      for (const to of ALL_TASK_STATES) expect(canTransition(from, to)).toBe(false);
    }
  });

  it('allows REJECTED right at creation and WORKING again after an interruption', () => {
    expect(canTransition(S, R)).toBe(true);
    expect(canTransition(I, W)).toBe(true);
    expect(canTransition(A, W)).toBe(true);
  });
});
