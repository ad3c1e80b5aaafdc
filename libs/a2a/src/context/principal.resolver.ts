import type { A2aInvocation } from './a2a-invocation.js';
import { modulePrincipal, type A2aPrincipal } from './call-context.js';

/**
 * Who is calling, when no guard has said so with `setA2aPrincipal`: read from the object the transport hands the
 * handler (the HTTP request, or the gRPC call). Option `principalResolver`.
 */
export type A2aPrincipalResolver = (carrier: object, invocation: A2aInvocation) => A2aPrincipal | undefined;

/**
 * The default resolver: the user Passport (`@nestjs/passport`'s `AuthGuard`) or a similar guard left on `user`, named
 * by its `id`, `sub`, `userId` or `username` (the principal's `subject`), the whole object kept as its claims. Its id,
 * the owner key of its tasks, is `user:<that name>`: a user named `anonymous` is not the anonymous caller.
 */
export const userPropertyPrincipal: A2aPrincipalResolver = (carrier) => {
  const user = (carrier as { user?: unknown }).user;
  if (typeof user !== 'object' || user === null) return undefined;
  const fields = user as Record<string, unknown>;
  const id = [fields.id, fields.sub, fields.userId, fields.username].find(
    (value) => typeof value === 'string' || typeof value === 'number',
  );
  return id === undefined
    ? undefined
    : modulePrincipal({ id: `user:${String(id)}`, authenticated: true, subject: String(id), claims: fields });
};
