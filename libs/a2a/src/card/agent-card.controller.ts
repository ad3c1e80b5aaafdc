import { Controller, Get, Headers, Res } from '@nestjs/common';
import type { Response } from 'express';
import { AgentCardService } from './agent-card.service.js';

/** The well-known card (R12, R16): cacheable, with an ETag and 304 for a matching If-None-Match. Not version-gated. */
@Controller()
export class AgentCardController {
  constructor(private readonly cards: AgentCardService) {}

  @Get('.well-known/agent-card.json')
  serve(@Headers('if-none-match') ifNoneMatch: string | undefined, @Res() res: Response): void {
    res.setHeader('Cache-Control', `public, max-age=${this.cards.maxAgeSeconds}`);
    res.setHeader('ETag', this.cards.etag);
    if (ifNoneMatch && ifNoneMatch.split(',').some((tag) => tag.trim() === this.cards.etag || tag.trim() === '*')) {
      res.status(304).end();
      return;
    }
    res.status(200).type('application/json').send(this.cards.json);
  }
}
