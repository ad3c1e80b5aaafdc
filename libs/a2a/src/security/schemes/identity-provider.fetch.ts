/** The identity provider could not be asked (network, timeout, HTTP error, oversized or non-JSON answer). */
export class IdentityProviderUnavailableError extends Error {
  override readonly name = 'IdentityProviderUnavailableError';
}

/** Discovery documents and JWKS are small; a larger answer is a misbehaving or hostile server. */
const MAX_BYTES = 64 * 1024;
const TIMEOUT_MS = 5_000;

/**
 * GETs a JSON document from an identity provider: 200 only (no redirects followed), at most 64 KiB, within 5 s (or
 * the caller's signal). Every failure is an IdentityProviderUnavailableError, so callers answer "unavailable".
 */
export async function fetchIdentityProviderJson(url: string | URL, signal?: AbortSignal): Promise<unknown> {
  const timeout = AbortSignal.timeout(TIMEOUT_MS);
  const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'GET',
      redirect: 'manual',
      signal: combined,
      headers: { accept: 'application/json' },
    });
  } catch (error) {
    throw new IdentityProviderUnavailableError(`GET ${String(url)} failed: ${describe(error)}`, { cause: error });
  }
  if (response.status !== 200) {
    await response.body?.cancel().catch(() => undefined);
    throw new IdentityProviderUnavailableError(`GET ${String(url)} answered HTTP ${response.status}`);
  }
  const text = await readCapped(response, String(url));
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new IdentityProviderUnavailableError(`GET ${String(url)} answered something other than JSON`, {
      cause: error,
    });
  }
}

async function readCapped(response: Response, url: string): Promise<string> {
  const declared = Number(response.headers.get('content-length'));
  if (declared > MAX_BYTES) {
    await response.body?.cancel().catch(() => undefined);
    throw new IdentityProviderUnavailableError(`GET ${url} answered ${declared} bytes, more than ${MAX_BYTES}`);
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for await (const chunk of response.body ?? []) {
      size += chunk.byteLength;
      // Chunked answers have no length up front: stop as soon as the cap is passed (leaving the loop cancels the body).
      if (size > MAX_BYTES)
        throw new IdentityProviderUnavailableError(`GET ${url} answered more than ${MAX_BYTES} bytes`);
      chunks.push(chunk);
    }
  } catch (error) {
    if (error instanceof IdentityProviderUnavailableError) throw error;
    throw new IdentityProviderUnavailableError(`GET ${url} broke off: ${describe(error)}`, { cause: error });
  }
  return Buffer.concat(chunks).toString('utf8');
}

function describe(error: unknown): string {
  const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : '';
  return error instanceof Error ? `${error.name}: ${error.message}${cause}` : String(error);
}
