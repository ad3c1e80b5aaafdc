import 'reflect-metadata';
import type { INestApplication } from '@nestjs/common';
import { TaskState, type StreamResponse as SdkStreamResponse } from '@a2a-js/sdk';
import { DefaultPushNotificationSender, InMemoryPushNotificationStore, ServerCallContext } from '@a2a-js/sdk/server';
import { jest } from '@jest/globals';
import { lastValueFrom, toArray } from 'rxjs';
import { A2aPushEvents, A2aPushReceiverModule } from '../../../libs/a2a/src/push-receiver.js';
import type { StreamResponse } from '../../../libs/a2a/src/protocol/a2a.types.js';
import { startReceiverApp, type HttpAdapterName } from './receiver-app.js';

/**
 * What the other sender receivers meet sends, taken as sent: `@a2a-js/sdk` 1.3's DefaultPushNotificationSender,
 * driven standalone (its store holds the task's push config, as the SDK's request handler would have saved it).
 * It POSTs `application/a2a+json` with the StreamResponse in ProtoJSON, the config's `authentication` as
 * `Authorization` or else its `token` as `X-A2A-Notification-Token`, and no event id.
 */

const TOKEN = 'sdk-push-token';
const context = new ServerCallContext({ requestedVersion: '1.0' });

function sdkStatus(taskId: string, state: TaskState): SdkStreamResponse {
  return {
    payload: {
      $case: 'statusUpdate',
      value: {
        taskId,
        contextId: 'ctx-sdk',
        status: { state, message: undefined, timestamp: undefined },
        metadata: undefined,
      },
    },
  };
}

function sdkArtifact(taskId: string, text: string): SdkStreamResponse {
  return {
    payload: {
      $case: 'artifactUpdate',
      value: {
        taskId,
        contextId: 'ctx-sdk',
        artifact: {
          artifactId: 'a-1',
          name: '',
          description: '',
          parts: [{ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: '' }],
          metadata: undefined,
          extensions: [],
        },
        append: true,
        lastChunk: false,
        metadata: undefined,
      },
    },
  };
}

/** A sender whose store holds one push config for `taskId`. */
async function senderFor(
  taskId: string,
  config: { url: string; token?: string; authentication?: { scheme: string; credentials: string } },
) {
  const store = new InMemoryPushNotificationStore();
  await store.save(taskId, context, {
    id: `config-${taskId}`,
    taskId,
    tenant: '',
    url: config.url,
    token: config.token ?? '',
    authentication: config.authentication,
  });
  return new DefaultPushNotificationSender(store, { timeout: 5000 });
}

describe.each<HttpAdapterName>(['express', 'fastify'])(
  'push receiver and @a2a-js/sdk’s push sender on %s',
  (adapter) => {
    let app: INestApplication;
    let endpoint: string;
    let events: A2aPushEvents;
    /** A second receiver, for configs with `authentication`: the SDK then sends Authorization and no token header. */
    let authApp: INestApplication;
    let authEndpoint: string;
    let logs: Array<ReturnType<typeof jest.spyOn>>;

    beforeAll(async () => {
      const started = await startReceiverApp(adapter, A2aPushReceiverModule.register({ tokens: [TOKEN] }));
      app = started.app;
      endpoint = `${started.url}/a2a/push`;
      events = app.get(A2aPushEvents);
      const withAuth = await startReceiverApp(
        adapter,
        A2aPushReceiverModule.register({ verify: ({ authorization }) => authorization === 'Bearer sdk-credentials' }),
      );
      authApp = withAuth.app;
      authEndpoint = `${withAuth.url}/a2a/push`;
      // The sender reports each delivery on the console.
      logs = [
        jest.spyOn(console, 'info').mockImplementation(() => undefined),
        jest.spyOn(console, 'error').mockImplementation(() => undefined),
      ];
    });
    afterAll(async () => {
      for (const log of logs) log.mockRestore();
      await Promise.all([app.close(), authApp.close()]);
    });

    it('takes a task’s events with the config’s token, in order, until the terminal status', async () => {
      const taskId = `sdk-${adapter}-token`;
      const sender = await senderFor(taskId, { url: endpoint, token: TOKEN });
      const received = lastValueFrom(events.forTask(taskId).pipe(toArray()));
      await sender.send(sdkStatus(taskId, TaskState.TASK_STATE_WORKING), context);
      await sender.send(sdkArtifact(taskId, 'partial'), context);
      await sender.send(sdkStatus(taskId, TaskState.TASK_STATE_COMPLETED), context);
      const expected: StreamResponse[] = [
        { statusUpdate: { taskId, contextId: 'ctx-sdk', status: { state: 'TASK_STATE_WORKING' } } },
        {
          artifactUpdate: {
            taskId,
            contextId: 'ctx-sdk',
            artifact: { artifactId: 'a-1', parts: [{ text: 'partial' }] },
            append: true,
          },
        },
        { statusUpdate: { taskId, contextId: 'ctx-sdk', status: { state: 'TASK_STATE_COMPLETED' } } },
      ];
      expect(await received).toEqual(expected);
      expect(logs[1]).not.toHaveBeenCalled();
    });

    it('takes a task pushed whole, with the config’s authentication checked by the verify hook', async () => {
      const taskId = `sdk-${adapter}-auth`;
      // A token too: the SDK sends only one of the two, Authorization first.
      const sender = await senderFor(taskId, {
        url: authEndpoint,
        token: TOKEN,
        authentication: { scheme: 'Bearer', credentials: 'sdk-credentials' },
      });
      const received = lastValueFrom(authApp.get(A2aPushEvents).forTask(taskId).pipe(toArray()));
      await sender.send(
        {
          payload: {
            $case: 'task',
            value: {
              id: taskId,
              contextId: 'ctx-sdk',
              status: { state: TaskState.TASK_STATE_FAILED, message: undefined, timestamp: undefined },
              artifacts: [],
              history: [],
              metadata: undefined,
            },
          },
        },
        context,
      );
      expect(await received).toEqual([
        { task: { id: taskId, contextId: 'ctx-sdk', status: { state: 'TASK_STATE_FAILED' } } },
      ]);
    });

    it('refuses it with a token it does not know (the SDK logs the 401 and drops the event)', async () => {
      const taskId = `sdk-${adapter}-refused`;
      const sender = await senderFor(taskId, { url: endpoint, token: 'not-the-token' });
      const seen: StreamResponse[] = [];
      const subscription = events.events$.subscribe((event) => seen.push(event));
      await sender.send(sdkStatus(taskId, TaskState.TASK_STATE_WORKING), context);
      subscription.unsubscribe();
      expect(seen).toEqual([]);
      expect(logs[1]).toHaveBeenCalledWith(
        expect.stringContaining(`task_id=${taskId}`),
        expect.objectContaining({ message: expect.stringContaining('HTTP 401') }),
      );
    });
  },
);
