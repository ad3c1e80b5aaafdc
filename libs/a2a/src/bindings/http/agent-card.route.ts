import { Inject, Injectable } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { A2A_MODULE_OPTIONS } from '../../a2a-module-definition.js';
import type { A2aModuleOptions } from '../../a2a-module.options.js';
import { flushPendingHeaders } from './pending-headers.js';
import { V03CardView, wantsV03Card } from '../../compat/v03/v03.card.js';
import { AgentCardService } from '../../card/agent-card.service.js';

/** The well-known URI of the card (§8.2, RFC 8615): at the origin's root, whatever the app's global prefix. */
export const AGENT_CARD_PATH = '/.well-known/agent-card.json';

/**
 * Serves the public card (spec §8.1, §8.6): cacheable, with an ETag and 304 for a matching If-None-Match; not
 * version-gated.
 *
 * Registered on the HTTP adapter itself (by A2aHttpRoutes) rather than as a controller: a controller follows `setGlobalPrefix`
 * (`/api/.well-known/…`), where no client looks, and the app's global guards (an API-key guard for its own routes)
 * would make the agent undiscoverable. What the card says is public by design (spec §14.3: no credentials in it).
 */
@Injectable()
export class AgentCardRoute {
  /** Option `compat.v03`: the card with v0.3's fields, for requests without `A2A-Version` (or with 0.3). */
  private readonly v03?: V03CardView;

  constructor(
    private readonly cards: AgentCardService,
    @Inject(A2A_MODULE_OPTIONS) options: A2aModuleOptions,
  ) {
    if (options.compat?.v03) this.v03 = new V03CardView();
  }

  serve(req: IncomingMessage, res: ServerResponse): void {
    flushPendingHeaders(res);
    let served: { readonly json: string; readonly etag: string } = this.cards;
    if (this.v03) {
      res.setHeader('Vary', 'A2A-Version');
      if (wantsV03Card(req)) served = this.v03.of(this.cards.card, this.cards);
    }
    res.setHeader('Cache-Control', `public, max-age=${this.cards.maxAgeSeconds}`);
    res.setHeader('ETag', served.etag);
    const ifNoneMatch = req.headers['if-none-match'];
    if (ifNoneMatch && ifNoneMatch.split(',').some((tag) => tag.trim() === served.etag || tag.trim() === '*')) {
      res.statusCode = 304;
      res.end();
      return;
    }
    res.statusCode = 200;
    res.setHeader('Content-Type', 'application/json; charset=utf-8');
    res.end(served.json);
  }
}
