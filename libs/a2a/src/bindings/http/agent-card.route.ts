import { Inject, Injectable } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { AgentCardService } from '../../card/agent-card.service.js';
import type { AgentCard } from '../../protocol/a2a.types.js';
import { flushPendingHeaders } from './pending-headers.js';

/** The well-known URI of the card (§8.2, RFC 8615): at the origin's root, whatever the app's global prefix. */
export const AGENT_CARD_PATH = '/.well-known/agent-card.json';

/** A card as served: its serialized form and ETag. */
export interface ServedCard {
  readonly json: string;
  readonly etag: string;
}

/**
 * Another view of the card, for clients of another protocol version (option `compat`), chosen by a request header:
 * e.g. the card with v0.3's fields for a request without `A2A-Version`.
 */
export interface AgentCardView {
  /** The request header that chooses the view (the answer's `Vary`). */
  readonly vary: string;
  /** What `req` gets instead of the v1.0 card `served`; undefined for the v1.0 card. */
  of(req: IncomingMessage, served: ServedCard & { readonly card: AgentCard }): ServedCard | undefined;
}

/** The card's other views, asked in order (an empty list: the v1.0 card only). */
export const A2A_AGENT_CARD_VIEWS = Symbol('A2A_AGENT_CARD_VIEWS');

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
  /** The `Vary` of every answer when the card has other views. */
  private readonly vary?: string;

  constructor(
    private readonly cards: AgentCardService,
    @Inject(A2A_AGENT_CARD_VIEWS) private readonly views: readonly AgentCardView[],
  ) {
    if (views.length > 0) this.vary = [...new Set(views.map((view) => view.vary))].join(', ');
  }

  serve(req: IncomingMessage, res: ServerResponse): void {
    flushPendingHeaders(res);
    let served: ServedCard = this.cards;
    if (this.vary) {
      res.setHeader('Vary', this.vary);
      served = this.viewOf(req) ?? served;
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

  private viewOf(req: IncomingMessage): ServedCard | undefined {
    for (const view of this.views) {
      const served = view.of(req, this.cards);
      if (served) return served;
    }
    return undefined;
  }
}
