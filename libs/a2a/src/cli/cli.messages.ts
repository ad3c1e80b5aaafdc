/** The CLI's usage and status messages, in one place so tests check the same words the CLI prints. */
export const CliMessages = {
  noCommand: () => 'No command given.',
  unknownCommand: (command: string) => `Unknown command "${command}".`,
  missingUrl: (command: string) => `"${command}" needs the agent's URL.`,
  badUrl: (url: string) => `"${url}" is not an http or https URL.`,
  missingText: (command: string) => `"${command}" needs a message text or --data.`,
  missingTaskId: (command: string) => `"${command}" needs a task id.`,
  extraArguments: (command: string, extra: readonly string[]) =>
    `"${command}" takes no more arguments (got ${extra.map((arg) => JSON.stringify(arg)).join(' ')}).`,
  flagNotFor: (flag: string, command: string) => `--${flag} does not apply to "${command}".`,
  badData: (reason: string) => `--data is not JSON: ${reason}`,
  badBinding: (value: string) => `--binding must be jsonrpc, rest or grpc (got "${value}").`,
  badState: (value: string) => `--state must be a task state such as completed or input-required (got "${value}").`,
  badInteger: (flag: string, value: string, min: number) =>
    `--${flag} must be an integer of at least ${min} (got "${value}").`,
  badTimeout: (value: string) => `--timeout must be a number of seconds above 0 (got "${value}").`,
  seeHelp: () => 'Run "nestjs-a2a --help" for usage.',
  interrupted: (taskId: string | undefined) =>
    taskId === undefined
      ? 'Interrupted.'
      : `Interrupted. Task ${taskId} goes on at the agent; "nestjs-a2a cancel <url> ${taskId}" cancels it.`,
  noAnswer: () => 'No answer given: the task still waits for input.',
  credentialsHint: () =>
    'The card points the call elsewhere than the URL given: pass --allow-origin <origin> to send the credentials there.',
  addressHint: () => 'The card points the call at a host not allowed: pass --allow-host <host or CIDR> to allow it.',
} as const;
