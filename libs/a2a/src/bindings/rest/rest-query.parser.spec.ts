import { A2aError } from '../../errors/a2a.error.js';
import { LIST_TASKS_QUERY, parseRestQuery } from './rest-query.parser.js';

function violationsOf(run: () => unknown): string[] {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(A2aError);
    return (error as A2aError).fieldViolations.map((v) => v.field);
  }
  throw new Error('expected InvalidParams');
}

describe('parseRestQuery (§11.5)', () => {
  it('decodes decimal integers, true/false and strings, and ignores other parameters', () => {
    const query = {
      pageSize: '20',
      historyLength: '0',
      includeArtifacts: 'false',
      status: 'TASK_STATE_WORKING',
      'A2A-Version': '1.0',
    };
    expect(parseRestQuery(query, LIST_TASKS_QUERY)).toEqual({
      pageSize: 20,
      historyLength: 0,
      includeArtifacts: false,
      status: 'TASK_STATE_WORKING',
    });
  });

  it('passes negative numbers on, for the validator to judge against the field range', () => {
    expect(parseRestQuery({ historyLength: '-1' }, LIST_TASKS_QUERY)).toEqual({ historyLength: -1 });
  });

  it('treats an empty value as unset', () => {
    expect(parseRestQuery({ pageSize: '', contextId: '' }, LIST_TASKS_QUERY)).toEqual({});
  });

  it('reports every undecodable or repeated parameter at once', () => {
    const query = { pageSize: '1e2', historyLength: 'ten', includeArtifacts: 'TRUE', contextId: ['a', 'b'] };
    expect(violationsOf(() => parseRestQuery(query, LIST_TASKS_QUERY)).sort()).toEqual([
      'contextId',
      'historyLength',
      'includeArtifacts',
      'pageSize',
    ]);
  });

  it('accepts the proto names of the parameters (history_length, page_size, …)', () => {
    const query = {
      page_size: '20',
      history_length: '0',
      include_artifacts: 'true',
      context_id: 'c-1',
      status_timestamp_after: '2026-01-01T00:00:00Z',
    };
    expect(parseRestQuery(query, LIST_TASKS_QUERY)).toEqual({
      pageSize: 20,
      historyLength: 0,
      includeArtifacts: true,
      contextId: 'c-1',
      statusTimestampAfter: '2026-01-01T00:00:00Z',
    });
  });

  it('refuses a parameter given under both names', () => {
    expect(violationsOf(() => parseRestQuery({ pageSize: '1', page_size: '2' }, LIST_TASKS_QUERY))).toEqual([
      'pageSize',
    ]);
  });
});
