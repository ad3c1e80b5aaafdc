import {
  BadRequestException,
  ForbiddenException,
  HttpException,
  InternalServerErrorException,
  Logger,
  NotFoundException,
  PayloadTooLargeException,
  UnauthorizedException,
  UnsupportedMediaTypeException,
} from '@nestjs/common';
import { A2aError } from '../../../libs/a2a/src/errors/a2a.error.js';
import { toA2aError } from '../../../libs/a2a/src/errors/to-a2a-error.js';

describe('toA2aError', () => {
  let logged: unknown[][];
  beforeEach(() => {
    logged = [];
    Logger.overrideLogger({
      log: () => undefined,
      warn: () => undefined,
      error: (...args: unknown[]) => void logged.push(args),
    });
  });
  afterAll(() => Logger.overrideLogger(false));

  it('returns an A2aError unchanged', () => {
    const error = A2aError.taskNotFound('t-1');
    expect(toA2aError(error)).toBe(error);
  });

  it.each([
    [new UnauthorizedException('Bearer token missing'), 'Unauthenticated', 'Bearer token missing'],
    [new ForbiddenException('Not your task'), 'PermissionDenied', 'Not your task'],
    [new PayloadTooLargeException('request entity too large'), 'PayloadTooLarge', 'request entity too large'],
    [new UnsupportedMediaTypeException('Send JSON'), 'UnsupportedMediaType', 'Send JSON'],
    [new BadRequestException('Unexpected token'), 'InvalidRequest', 'Unexpected token'],
    [new NotFoundException('Cannot POST /nope'), 'MethodNotFound', 'Cannot POST /nope'],
    [new HttpException('Method Not Allowed', 405), 'MethodNotAllowed', 'Method Not Allowed'],
    [new HttpException('I am a teapot', 418), 'InvalidRequest', 'I am a teapot'],
    [
      new HttpException('ThrottlerException: Too Many Requests', 429),
      'TooManyRequests',
      'ThrottlerException: Too Many Requests',
    ],
    // A 5xx's own text stays in the log.
    [new HttpException('database is down', 503), 'Unavailable', 'Service unavailable'],
  ])('keeps the meaning of an HttpException (%s)', (exception, kind, message) => {
    const error = toA2aError(exception);
    expect(error).toBeInstanceOf(A2aError);
    expect(error.kind).toBe(kind);
    expect(error.message).toBe(message);
    expect(logged).toEqual([]);
  });

  it('turns a 5xx HttpException into Internal without its message', () => {
    const error = toA2aError(new InternalServerErrorException('db password is hunter2'));
    expect(error.kind).toBe('Internal');
    expect(error.message).toBe('Internal error');
  });

  it.each([
    ['an Error', new Error('secret path /etc/shadow')],
    ['a string', 'boom at /srv/app.js'],
    ['undefined', undefined],
  ])('turns %s into a generic Internal error and logs the original', (_label, thrown) => {
    const error = toA2aError(thrown);
    expect(error.kind).toBe('Internal');
    expect(error.message).toBe('Internal error');
    expect(JSON.stringify(error.details())).not.toMatch(/shadow|srv|metadata/);
    expect(logged).toHaveLength(1);
  });
});
