import { jest } from '@jest/globals';
import { HttpException, Logger } from '@nestjs/common';
import type { A2aModuleOptions } from '../../../libs/a2a/src/a2a-module.options.js';
import { A2aError } from '../../../libs/a2a/src/errors/a2a.error.js';
import { UnexpectedErrorReporter } from '../../../libs/a2a/src/errors/unexpected-error.reporter.js';

const options = (onUnexpectedError?: A2aModuleOptions['onUnexpectedError']): A2aModuleOptions => ({
  card: { name: 'n', description: 'd' },
  onUnexpectedError,
});

describe('UnexpectedErrorReporter', () => {
  it('hands unexpected errors to onUnexpectedError, never protocol errors or HttpExceptions', () => {
    const seen: unknown[] = [];
    const reporter = new UnexpectedErrorReporter(options((error) => seen.push(error)));
    const boom = new Error('boom');
    reporter.report(boom);
    reporter.report(new A2aError('TaskNotFound'));
    reporter.report(new HttpException('slow down', 429));
    expect(seen).toEqual([boom]);
  });

  it('logs and swallows a hook that throws: reporting must not change the answer', () => {
    const logged = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    try {
      const reporter = new UnexpectedErrorReporter(
        options(() => {
          throw new Error('reporting is down');
        }),
      );
      expect(() => reporter.report(new Error('boom'))).not.toThrow();
      expect(logged).toHaveBeenCalledWith('onUnexpectedError threw', expect.stringContaining('reporting is down'));
    } finally {
      logged.mockRestore();
    }
  });

  it('does nothing without a hook', () => {
    expect(() => new UnexpectedErrorReporter(options()).report(new Error('boom'))).not.toThrow();
  });
});
