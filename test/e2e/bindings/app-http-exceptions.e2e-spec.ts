import * as grpc from '@grpc/grpc-js';
import {
  HttpException,
  Injectable,
  type CanActivate,
  type ExecutionContext,
  type INestApplication,
} from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { randomUUID } from 'node:crypto';
import type { Response } from 'express';
import { GrpcJsonClient, reasonOf } from '../../fixtures/grpc-json.client.js';
import { startGrpcProbeApp, type GrpcProbeApp } from '../../fixtures/grpc-probe.fixture.js';

/**
 * HttpExceptions that the app's own guards, interceptors or pipes throw keep their meaning on every binding: a rate
 * limiter's 429 (and the Retry-After it set) stays 429 / RESOURCE_EXHAUSTED, a 503 stays 503 / UNAVAILABLE, each in the
 * binding's error shape.
 */

/** Behaves like @nestjs/throttler's guard when `x-fail: 429` (Retry-After, then a 429), or a breaker when `x-fail: 503`. */
@Injectable()
class FailingGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const fail =
      context.getType() === 'rpc'
        ? (context.switchToRpc().getContext<grpc.Metadata>().get('x-fail')[0] as string | undefined)
        : context.switchToHttp().getRequest<{ headers: Record<string, string> }>().headers['x-fail'];
    if (fail === '429') {
      if (context.getType() === 'http') context.switchToHttp().getResponse<Response>().setHeader('Retry-After', '7');
      throw new HttpException('ThrottlerException: Too Many Requests', 429);
    }
    if (fail === '503') throw new HttpException('Upstream breaker open', 503);
    return true;
  }
}

const send = JSON.stringify({ message: { messageId: 'm-1', role: 'ROLE_USER', parts: [{ text: 'hello' }] } });

describe.each([
  ['429', 429, 'RESOURCE_EXHAUSTED', 'TOO_MANY_REQUESTS', -31429, grpc.status.RESOURCE_EXHAUSTED],
  ['503', 503, 'UNAVAILABLE', 'UNAVAILABLE', -31503, grpc.status.UNAVAILABLE],
])('an app guard throwing HttpException %s', (fail, httpStatus, status, reason, jsonRpcCode, grpcCode) => {
  let probe: GrpcProbeApp;
  let app: INestApplication;

  beforeAll(async () => {
    probe = await startGrpcProbeApp({ providers: [{ provide: APP_GUARD, useClass: FailingGuard }] });
    app = probe.app;
  });
  afterAll(() => app.close());

  it(`HTTP+JSON: ${httpStatus} ${status} as a google.rpc.Status`, async () => {
    const res = await fetch(`${probe.httpUrl}/a2a/rest/message:send`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-fail': fail },
      body: send,
    });
    expect(res.status).toBe(httpStatus);
    if (fail === '429') expect(res.headers.get('retry-after')).toBe('7');
    expect(await res.json()).toEqual({
      error: {
        code: httpStatus,
        status,
        message: expect.any(String),
        details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason, domain: 'a2a-protocol.org' }],
      },
    });
  });

  it(`JSON-RPC: HTTP ${httpStatus} with a ${jsonRpcCode} envelope`, async () => {
    const res = await fetch(`${probe.httpUrl}/a2a/jsonrpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-fail': fail },
      body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'SendMessage', params: JSON.parse(send) }),
    });
    expect(res.status).toBe(httpStatus);
    if (fail === '429') expect(res.headers.get('retry-after')).toBe('7');
    expect(await res.json()).toMatchObject({
      jsonrpc: '2.0',
      id: 3,
      error: { code: jsonRpcCode, data: [expect.objectContaining({ reason })] },
    });
  });

  it(`gRPC: status ${grpcCode} with the ErrorInfo`, async () => {
    const client = new GrpcJsonClient(probe.grpcAddress);
    try {
      const error = await client.unary('GetTask', { id: randomUUID() }, { 'x-fail': fail }).then(
        () => {
          throw new Error('expected the call to fail');
        },
        (e: unknown) => e as grpc.ServiceError,
      );
      expect(error.code).toBe(grpcCode);
      expect(reasonOf(error)).toBe(reason);
    } finally {
      client.close();
    }
  });
});
