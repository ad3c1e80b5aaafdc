import { Injectable } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { flushPendingHeaders } from '../bindings/http/pending-headers.js';
import { AgentCardService } from './agent-card.service.js';

/** The well-known URI of the card (§8.2, RFC 8615): at the origin's root, whatever the app's global prefix. */
export const AGENT_CARD_PATH = '/.well-known/agent-card.json';

/**
 * Serves the public card (R12, R16): cacheable, with an ETag and 304 for a matching If-None-Match; not version-gated.
 *
 * Registered on the HTTP adapter itself (by A2aHttpRoutes) rather than as a controller: a controller follows `setGlobalPrefix`
 * (`/api/.well-known/…`), where no client looks, and the app's global guards (an API-key guard for its own routes)
 * would make the agent undiscoverable. What the card says is public by design (R17: no credentials in it).
 */
@Injectable()
export class AgentCardRoute {
  constructor(private readonly cards: AgentCardService) {}

  serve(req: IncomingMessage, res: ServerResponse): void {
    flushPendingHeaders(res);
    res.setHeader('Cache-Control', `public, max-age=${this.cards.maxAgeSeconds}`);
    res.setHeader('ETag', this.cards.etag);
    const ifNoneMatch = req.headers['if-none-match'];
    if (ifNoneMatch && ifNoneMatch.split(',').some((tag) => tag.trim() === this.cards.etag || tag.trim() === '*')) {
      res.statusCode = 304;
      res.end();
      return;
    }
    res.statusCode = 200;
    res.setHeader('Content-Type', 'application/json; charset=utf-8');
    res.end(this.cards.json);
  }
}
