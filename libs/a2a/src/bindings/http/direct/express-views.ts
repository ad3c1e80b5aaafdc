import type { ServerResponse } from 'node:http';
import type { HttpRequest } from '../http-request.js';
import { setHttpViews } from '../http-views.js';
import type { ExpressApp } from './express-stack.js';

/**
 * Gives the Nest pipeline Express's view of the request and response, as a guard written for Express expects
 * (`req.get()`, `req.ip`, `res.status()`, `res.header()`, `req.params`), without what Express itself does for that:
 * swapping the prototypes of node's objects costs V8 about 90 µs per request (the bench's piped rows). Each view is a
 * Proxy of node's object that falls back to Express's own prototype (`app.request`, `app.response`) for what node's
 * lacks, so Express's methods run with the view as `this` and every write lands on node's object.
 */
export function attachExpressViews(
  express: ExpressApp,
  req: HttpRequest,
  res: ServerResponse,
  params: Record<string, string | undefined>,
): void {
  // What Express's `app.handle` and router add (`req.res`, `res.req`, `res.locals`, `req.params`) are properties of
  // the views only: node's objects keep their shapes.
  const extraOfRequest: Record<PropertyKey, unknown> = { params };
  const extraOfResponse: Record<PropertyKey, unknown> = { locals: Object.create(null) };
  const requestView = viewOf(req, express.request as object, extraOfRequest);
  const responseView = viewOf(res, express.response as object, extraOfResponse);
  extraOfRequest.res = responseView;
  extraOfResponse.req = requestView;
  setHttpViews(req, requestView, responseView);
}

/**
 * Node's own methods are bound to node's object: its internals compare identities (`socket._httpMessage === this`),
 * so `res.end()` called on the view would queue its bytes for a socket that never takes them.
 */
function viewOf<T extends object>(target: T, expressPrototype: object, extra: Record<PropertyKey, unknown>): T {
  return new Proxy(target, {
    get: (object, property, receiver) => {
      if (Object.hasOwn(extra, property)) return extra[property];
      if (!(property in object)) return Reflect.get(expressPrototype, property, receiver);
      const value: unknown = Reflect.get(object, property);
      return typeof value === 'function' ? value.bind(object) : value;
    },
  });
}
