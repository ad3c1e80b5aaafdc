import { A2aError } from '../../../libs/a2a/src/errors/a2a.error.js';
import { StatementBatcher } from '../../../libs/a2a/src/postgres/statement-batcher.js';

describe('StatementBatcher', () => {
  it('runs the inputs of one turn together, in order, and answers each caller its own output', async () => {
    const batches: number[][] = [];
    const batcher = new StatementBatcher<number, number>(async (inputs) => {
      batches.push(inputs);
      return inputs.map((input) => input * 10);
    });
    expect(await Promise.all([1, 2, 3].map((n) => batcher.run(n)))).toEqual([10, 20, 30]);
    expect(await batcher.run(4)).toBe(40);
    expect(batches).toEqual([[1, 2, 3], [4]]);
  });

  it('splits a turn into statements of at most maxRows', async () => {
    const batches: number[][] = [];
    const batcher = new StatementBatcher<number, number>(async (inputs) => (batches.push(inputs), inputs), 2);
    await Promise.all([1, 2, 3, 4, 5].map((n) => batcher.run(n)));
    expect(batches).toEqual([[1, 2], [3, 4], [5]]);
  });

  it('runs each row of a failed batch alone, so that only the row that fails rejects', async () => {
    const batches: number[][] = [];
    const batcher = new StatementBatcher<number, number>(async (inputs) => {
      batches.push(inputs);
      if (inputs.includes(2)) throw new Error('row 2 is bad');
      return inputs;
    });
    const outcomes = await Promise.allSettled([1, 2, 3].map((n) => batcher.run(n)));
    expect(outcomes).toEqual([
      { status: 'fulfilled', value: 1 },
      { status: 'rejected', reason: new Error('row 2 is bad') },
      { status: 'fulfilled', value: 3 },
    ]);
    expect(batches).toEqual([[1, 2, 3], [1], [2], [3]]);
  });

  it('rejects every row of a batch at once when the database cannot be reached, without running each again', async () => {
    const batches: number[][] = [];
    const unavailable = new A2aError('Unavailable', 'The task store cannot be reached now; retry later');
    const batcher = new StatementBatcher<number, number>(async (inputs) => {
      batches.push(inputs);
      throw unavailable;
    });
    const outcomes = await Promise.allSettled([1, 2, 3].map((n) => batcher.run(n)));
    expect(outcomes).toEqual([1, 2, 3].map(() => ({ status: 'rejected', reason: unavailable })));
    expect(batches).toEqual([[1, 2, 3]]);
  });
});
