import { CliExitCode } from './cli.exit-codes.js';
import { CLI_ENV } from './cli-agent.options.js';

/** `nestjs-a2a --help`: the commands, the flags, and the exit codes scripts branch on. */
export function helpText(): string {
  return `Usage: nestjs-a2a <command> <url> [arguments] [flags]

Talks to an A2A v1.0 agent. <url> is the agent's origin (its card is at /.well-known/agent-card.json) or its card's URL.

Commands:
  card <url>                  The agent card.
  send <url> <text>           Sends one message and prints the task (or the agent's reply).
  stream <url> <text>         Sends one message and shows the task's progress as it streams.
  get <url> <taskId>          The task.
  list <url>                  Your tasks, one page.
  cancel <url> <taskId>       Cancels the task.
  subscribe <url> <taskId>    Follows the task's events until it stops.

Flags of send and stream:
  --data <json>               Adds a data part (the text may then be left out).
  --skill <id>                Asks for this skill.
  --context <id>              The context (conversation) the message belongs to.
  --task <id>                 Continues this task.
Flags of list:
  --context <id>              Only this context's tasks.
  --state <state>             Only tasks in this state (completed, working, input-required, …).
  --page-size <n>, --page-token <token>, --history <n>
Flags of get:
  --history <n>               At most n messages of the task's history.
Every command:
  --binding jsonrpc|rest|grpc The protocol binding (default: the card's order).
  --api-key <key>             An API key, sent where the card's scheme says (or ${CLI_ENV.apiKey}).
  --bearer <token>            A bearer token (or ${CLI_ENV.bearer}).
  --allow-origin <origin>     Another origin the credentials may go to (the card's own is allowed).
  --allow-host <host|CIDR>    Another host the card may point calls at; the URL's own host is allowed.
  --timeout <seconds>         Per attempt (default 30).
  --json                      JSON only: one object per line (each event of a stream).
  -h, --help                  This help.

When a task asks for input (input-required) and this runs in a terminal, you are asked the agent's question and your
answer is sent on the same task. Ctrl-C stops following; the task goes on at the agent.

Exit codes:
  ${CliExitCode.Completed}    completed (or the agent replied with a message; any other command succeeded)
  ${CliExitCode.Internal}    internal error
  ${CliExitCode.Usage}    usage error
  ${CliExitCode.Failed}    the task failed
  ${CliExitCode.Canceled}    the task was canceled
  ${CliExitCode.Rejected}    the task was rejected
  ${CliExitCode.InputRequired}    the task requires input and there is no terminal to ask on (or --json)
  ${CliExitCode.AuthRequired}    the task requires authentication, or the agent refused the credentials
  ${CliExitCode.Network}    the agent could not be reached, or did not answer in A2A
  ${CliExitCode.AgentError}    the agent answered with an error (task not found, invalid parameters, …)
  ${CliExitCode.NotFinished}   the stream ended before the task stopped
  ${CliExitCode.Interrupted}  interrupted (Ctrl-C)
`;
}
