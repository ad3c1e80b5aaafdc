import type { Observable } from 'rxjs';
import { SKILL_ID_METADATA_KEY } from '../a2a.constants.js';
import type { A2aAgentClient, A2aOutgoingMessage } from '../client/a2a-agent.client.js';
import type { Message, Part, StreamResponse, TaskState } from '../protocol/a2a.types.js';
import type { CliInvocation } from './cli.args.js';
import { CliExitCode, exitCodeOfState, type CliExitCodeValue } from './cli.exit-codes.js';
import { isInteractive, type CliIo } from './cli.io.js';
import { CliMessages } from './cli.messages.js';
import { askForInput } from './input.prompt.js';
import { StreamDisplay } from './stream.display.js';
import { messageText, taskText } from './task.text.js';

/** Where a task stands after a call: enough to continue it. */
interface TaskPosition {
  taskId?: string;
  contextId?: string;
  state?: TaskState;
  /** The agent answered with a Message rather than a task. */
  replied?: boolean;
}

/**
 * `send`, `stream` and `subscribe`: one message (or a subscription), shown as it goes, and, when the task asks for
 * input and a person is at the terminal, their answer sent as a follow-up on the same task, until the task stops in a
 * state no one here can change. The exit code is that state's.
 */
export class TaskConversation {
  private readonly display: StreamDisplay;
  private readonly position: TaskPosition = {};

  constructor(
    private readonly agent: A2aAgentClient,
    private readonly invocation: CliInvocation,
    private readonly io: CliIo,
    private readonly signal: AbortSignal,
    private readonly abort: () => void,
  ) {
    this.display = new StreamDisplay(io.stdout);
  }

  /** The task the conversation is about, once known (for the interrupted message). */
  get taskId(): string | undefined {
    return this.position.taskId;
  }

  /** SendMessage, blocking; then follow-ups while the task asks and someone answers. */
  async send(): Promise<CliExitCodeValue> {
    let message = this.firstMessage();
    for (;;) {
      const answer = await this.agent.send(message, { signal: this.signal });
      if ('status' in answer) {
        this.note({ task: answer });
        this.print(JSON.stringify({ task: answer }), taskText(answer));
      } else {
        this.position.replied = true;
        this.print(JSON.stringify({ message: answer }), messageText(answer));
      }
      const next = await this.nextMessage();
      if (next === undefined) return this.exitCode();
      message = next;
    }
  }

  /** SendStreamingMessage (`stream`) or SubscribeToTask (`subscribe`), then follow-ups as streams. */
  async stream(): Promise<CliExitCodeValue> {
    let events =
      this.invocation.command === 'subscribe'
        ? this.agent.subscribe(this.invocation.taskId!, { signal: this.signal })
        : this.agent.stream(this.firstMessage(), { signal: this.signal });
    for (;;) {
      await this.follow(events);
      const next = await this.nextMessage();
      if (next === undefined) return this.exitCode();
      events = this.agent.stream(next, { signal: this.signal });
    }
  }

  private follow(events: Observable<StreamResponse>): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      events.subscribe({
        next: (event) => {
          this.note(event);
          if (this.invocation.json) this.io.stdout.write(`${JSON.stringify(event)}\n`);
          else this.display.show(event);
        },
        error: (error: unknown) => {
          if (!this.invocation.json) this.display.finish();
          reject(error);
        },
        complete: () => {
          if (!this.invocation.json) this.display.finish();
          resolve();
        },
      });
    });
  }

  /** The follow-up to send: the answer of the person at the terminal when the task asks for input. */
  private async nextMessage(): Promise<A2aOutgoingMessage | undefined> {
    const { state, taskId, contextId } = this.position;
    if (state !== 'TASK_STATE_INPUT_REQUIRED' || this.invocation.json || !isInteractive(this.io)) return undefined;
    const answer = await askForInput(this.io, this.signal, this.abort);
    if (answer === undefined) {
      this.io.stderr.write(`${CliMessages.noAnswer()}\n`);
      return undefined;
    }
    return { parts: [{ text: answer }], taskId, contextId };
  }

  private firstMessage(): A2aOutgoingMessage {
    const { text, data, skill, context, task } = this.invocation;
    const parts: Part[] = [
      ...(text === undefined ? [] : [{ text }]),
      ...(data === undefined ? [] : [{ data, mediaType: 'application/json' }]),
    ];
    const message: Omit<Message, 'messageId' | 'role'> = {
      parts,
      ...(context === undefined ? {} : { contextId: context }),
      ...(task === undefined ? {} : { taskId: task }),
      ...(skill === undefined ? {} : { metadata: { [SKILL_ID_METADATA_KEY]: skill } }),
    };
    return message;
  }

  private note(event: StreamResponse): void {
    if ('task' in event) this.at(event.task.id, event.task.contextId, event.task.status.state);
    else if ('statusUpdate' in event)
      this.at(event.statusUpdate.taskId, event.statusUpdate.contextId, event.statusUpdate.status.state);
    else if ('artifactUpdate' in event) this.at(event.artifactUpdate.taskId, event.artifactUpdate.contextId);
    else this.position.replied = this.position.taskId === undefined;
  }

  private at(taskId: string, contextId: string, state?: TaskState): void {
    this.position.taskId = taskId;
    this.position.contextId = contextId;
    if (state !== undefined) this.position.state = state;
  }

  private exitCode(): CliExitCodeValue {
    if (this.position.state !== undefined) return exitCodeOfState(this.position.state);
    return this.position.replied ? CliExitCode.Completed : CliExitCode.NotFinished;
  }

  private print(json: string, text: string): void {
    this.io.stdout.write(`${this.invocation.json ? json : text}\n`);
  }
}
