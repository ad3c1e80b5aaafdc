import { A2aAgentClient } from '../client/a2a-agent.client.js';
import { A2aAddressRefusedError, A2aCredentialsRefusedError } from '../client/a2a-client.errors.js';
import { agentOptionsOf } from './cli-agent.options.js';
import { CliUsageError, parseCommandLine, type CliInvocation } from './cli.args.js';
import { CliExitCode, exitCodeOfError, type CliExitCodeValue } from './cli.exit-codes.js';
import { helpText } from './cli.help.js';
import type { CliIo } from './cli.io.js';
import { CliMessages } from './cli.messages.js';
import { TaskConversation } from './task.conversation.js';
import { cardText, taskListText, taskText } from './task.text.js';

/**
 * Runs one command line and resolves with the exit code. `interrupt` is Ctrl-C: it ends the call in flight (the task
 * itself goes on at the agent).
 */
export async function runCli(
  argv: readonly string[],
  io: CliIo,
  interrupt: AbortController = new AbortController(),
): Promise<CliExitCodeValue> {
  let invocation: CliInvocation;
  try {
    const request = parseCommandLine(argv);
    if (request.help) {
      io.stdout.write(helpText());
      return CliExitCode.Completed;
    }
    invocation = request.invocation;
  } catch (error) {
    if (!(error instanceof CliUsageError)) throw error;
    io.stderr.write(`${error.message}\n${CliMessages.seeHelp()}\n`);
    return CliExitCode.Usage;
  }

  let agent: A2aAgentClient;
  try {
    agent = new A2aAgentClient(agentOptionsOf(invocation, io.env));
  } catch (error) {
    io.stderr.write(`${(error as Error).message}\n`);
    return CliExitCode.Usage;
  }
  const conversation = new TaskConversation(agent, invocation, io, interrupt.signal, () => interrupt.abort());
  try {
    return await run(invocation, agent, conversation, io, interrupt.signal);
  } catch (error) {
    if (interrupt.signal.aborted) {
      io.stderr.write(`\n${CliMessages.interrupted(conversation.taskId)}\n`);
      return CliExitCode.Interrupted;
    }
    io.stderr.write(`${errorText(error)}\n`);
    return exitCodeOfError(error);
  } finally {
    await agent.close();
  }
}

async function run(
  invocation: CliInvocation,
  agent: A2aAgentClient,
  conversation: TaskConversation,
  io: CliIo,
  signal: AbortSignal,
): Promise<CliExitCodeValue> {
  const print = (value: unknown, text: (value: never) => string) =>
    io.stdout.write(`${invocation.json ? JSON.stringify(value) : text(value as never)}\n`);
  const call = { signal };
  switch (invocation.command) {
    case 'card':
      print(await agent.card(call), cardText);
      return CliExitCode.Completed;
    case 'send':
      return conversation.send();
    case 'stream':
    case 'subscribe':
      return conversation.stream();
    case 'get':
      print(await agent.getTask(invocation.taskId!, { ...call, historyLength: invocation.historyLength }), taskText);
      return CliExitCode.Completed;
    case 'cancel':
      print(await agent.cancelTask(invocation.taskId!, call), taskText);
      return CliExitCode.Completed;
    case 'list':
      print(
        await agent.listTasks(
          {
            ...(invocation.context === undefined ? {} : { contextId: invocation.context }),
            ...(invocation.state === undefined ? {} : { status: invocation.state }),
            ...(invocation.pageSize === undefined ? {} : { pageSize: invocation.pageSize }),
            ...(invocation.pageToken === undefined ? {} : { pageToken: invocation.pageToken }),
            ...(invocation.historyLength === undefined ? {} : { historyLength: invocation.historyLength }),
          },
          call,
        ),
        taskListText,
      );
      return CliExitCode.Completed;
  }
}

/** The error's message, with the flag that would get past a refusal of the client's own policies. */
function errorText(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof A2aCredentialsRefusedError) return `${message}\n${CliMessages.credentialsHint()}`;
  if (error instanceof A2aAddressRefusedError) return `${message}\n${CliMessages.addressHint()}`;
  return message;
}
