import type { AgentCard, Task } from '../../../libs/a2a/src/protocol/a2a.types.js';
import {
  cardText,
  partsText,
  stateName,
  statusText,
  taskListText,
  taskText,
} from '../../../libs/a2a/src/cli/task.text.js';

const task: Task = {
  id: 't1',
  contextId: 'c1',
  status: {
    state: 'TASK_STATE_INPUT_REQUIRED',
    message: { messageId: 'm1', role: 'ROLE_AGENT', parts: [{ text: 'Which hotel?' }, { data: { options: [1, 2] } }] },
  },
  artifacts: [{ artifactId: 'a1', name: 'offers', parts: [{ text: 'two hotels' }] }],
};

describe('task text', () => {
  it('names states as people say them', () => {
    expect(stateName('TASK_STATE_INPUT_REQUIRED')).toBe('input-required');
    expect(stateName('TASK_STATE_COMPLETED')).toBe('completed');
  });

  it('runs text parts on and puts data, files and urls on lines of their own', () => {
    expect(
      partsText([
        { text: 'a' },
        { text: 'b' },
        { data: [1] },
        { raw: 'aGk=', mediaType: 'text/plain' },
        { url: 'https://x.example/f', filename: 'f.pdf' },
        { text: 'c' },
      ]),
    ).toBe('ab\n[\n  1\n]\n[file file (text/plain, 2 bytes)]\n[url f.pdf https://x.example/f]\nc');
  });

  it('shows a status with its message', () => {
    expect(statusText(task.status)).toBe('[input-required] Which hotel?\n{\n  "options": [\n    1,\n    2\n  ]\n}');
    expect(statusText({ state: 'TASK_STATE_WORKING' })).toBe('[working]');
  });

  it('shows a task with its ids, status, artifacts and history', () => {
    expect(
      taskText({ ...task, history: [{ messageId: 'u', role: 'ROLE_USER', parts: [{ text: 'a hotel in Lisbon' }] }] }),
    ).toBe(
      [
        'Task t1 (context c1)',
        '[input-required] Which hotel?',
        '{',
        '  "options": [',
        '    1,',
        '    2',
        '  ]',
        '}',
        '[offers]',
        'two hotels',
        'History:',
        '  user: a hotel in Lisbon',
      ].join('\n'),
    );
  });

  it('lists tasks a line each, with the next page token', () => {
    expect(taskListText({ tasks: [task], nextPageToken: 'p2', pageSize: 1, totalSize: 3 })).toBe(
      ['t1  input-required  c1  Which hotel?', '1 of 3 task(s)', 'Next page: --page-token p2'].join('\n'),
    );
    expect(taskListText({ tasks: [], nextPageToken: '', pageSize: 50, totalSize: 0 })).toBe('0 of 0 task(s)');
  });

  it('shows the card: interfaces, capabilities, security and skills', () => {
    const card: AgentCard = {
      name: 'Travel agent',
      description: 'Books flights.',
      version: '1.0.0',
      supportedInterfaces: [
        { url: 'http://localhost:3000/a2a/jsonrpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      ],
      capabilities: { streaming: true, pushNotifications: false },
      securitySchemes: {
        apiKey: { apiKeySecurityScheme: { location: 'header', name: 'X-API-Key' } },
        bearer: { httpAuthSecurityScheme: { scheme: 'Bearer', bearerFormat: 'JWT' } },
      },
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['text/plain', 'application/json'],
      skills: [
        {
          id: 'book-flight',
          name: 'Book a flight',
          description: 'Books one.',
          tags: ['travel'],
          examples: ['Paris to Tokyo'],
        },
      ],
    };
    expect(cardText(card)).toBe(
      [
        'Travel agent (version 1.0.0)',
        'Books flights.',
        '',
        'Interfaces:',
        '  JSONRPC   http://localhost:3000/a2a/jsonrpc  (A2A 1.0)',
        '',
        'Capabilities: streaming',
        'Input: text/plain   Output: text/plain, application/json',
        '',
        'Security:',
        '  apiKey: API key in header "X-API-Key" (--api-key)',
        '  bearer: HTTP Bearer (JWT) (--bearer)',
        '',
        'Skills:',
        '  book-flight: Book a flight',
        '    Books one.',
        '    tags: travel',
        '    e.g. Paris to Tokyo',
      ].join('\n'),
    );
  });
});
