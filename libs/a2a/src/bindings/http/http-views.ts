import type { ServerResponse } from 'node:http';
import type { HttpRequest } from './http-request.js';

const HTTP_VIEWS = Symbol('nestjs-a2a.httpViews');

type WithViews = HttpRequest & { [HTTP_VIEWS]?: [HttpRequest, ServerResponse] };

/** Records the views of `req` and its response that the Nest pipeline is to be given instead of node's objects. */
export function setHttpViews(req: HttpRequest, requestView: HttpRequest, responseView: ServerResponse): void {
  (req as WithViews)[HTTP_VIEWS] = [requestView, responseView];
}

/** What the Nest pipeline's handlers get as their (request, response) arguments: the views, when there are some. */
export function httpViewsOf(req: HttpRequest, res: ServerResponse): [HttpRequest, ServerResponse] {
  return (req as WithViews)[HTTP_VIEWS] ?? [req, res];
}
