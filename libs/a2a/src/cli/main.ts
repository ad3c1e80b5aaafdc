#!/usr/bin/env node
/**
 * The `nestjs-a2a` command: an A2A v1.0 client for the terminal (`nestjs-a2a --help`; docs/cli.md). Built on the
 * library's own client, so it dials, authenticates and resumes streams as `nestjs-a2a/client` does.
 */
import { runCli } from './cli.runner.js';

const interrupt = new AbortController();
process.on('SIGINT', () => {
  // A second Ctrl-C does not wait for the first to wind down.
  if (interrupt.signal.aborted) process.exit(130);
  interrupt.abort();
});

process.exitCode = await runCli(
  process.argv.slice(2),
  { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr, env: process.env },
  interrupt,
);
