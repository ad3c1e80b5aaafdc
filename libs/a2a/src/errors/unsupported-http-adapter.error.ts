/** The app's HTTP adapter is neither Express nor Fastify, so the HTTP routes cannot be mounted: the app does not start. */
export class UnsupportedHttpAdapterError extends Error {
  override readonly name = 'UnsupportedHttpAdapterError';
}
