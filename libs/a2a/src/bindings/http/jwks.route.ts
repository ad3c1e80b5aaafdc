import { Injectable } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { flushPendingHeaders } from './pending-headers.js';
import { AgentCardSigner } from '../../card/signing/agent-card.signer.js';

/** An hour: keys change far less often than the card, and a rotation publishes the new key ahead of use. */
const JWKS_MAX_AGE_SECONDS = 3600;

/**
 * Serves the JWK Set of the card's signing keys (the signatures' `jku`) when option `cardSigning` is set. Registered on
 * the HTTP adapter beside the card (see AgentCardRoute), so it is at the origin's root and outside the app's guards:
 * a verifier fetches it without credentials.
 */
@Injectable()
export class JwksRoute {
  constructor(private readonly signer: AgentCardSigner) {}

  get path(): string {
    return this.signer.jwksPath;
  }

  get enabled(): boolean {
    return this.signer.enabled;
  }

  serve(_req: IncomingMessage, res: ServerResponse): void {
    flushPendingHeaders(res);
    res.statusCode = 200;
    res.setHeader('Cache-Control', `public, max-age=${JWKS_MAX_AGE_SECONDS}`);
    res.setHeader('Content-Type', 'application/json; charset=utf-8');
    res.end(this.signer.jwksJson);
  }
}
