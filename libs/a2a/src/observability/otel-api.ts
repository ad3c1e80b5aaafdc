import { Logger } from '@nestjs/common';
import type * as OtelApi from '@opentelemetry/api';
import { ObservabilityMessages } from './observability.messages.js';

/** The `@opentelemetry/api` module, when it is installed. Its types only: the core never imports it statically. */
export type OpenTelemetryApi = typeof OtelApi;

/** Loads a module by name: `import()`, but in tests, which simulate a missing package. */
export type OtelImporter = (specifier: string) => Promise<unknown>;

/** The optional peer tracing and metrics go through; nothing else of OpenTelemetry is ever imported. */
export const OTEL_API_PACKAGE = '@opentelemetry/api';

const importPackage: OtelImporter = (specifier) => import(specifier);

let loading: Promise<OpenTelemetryApi | undefined> | undefined;
let loaded: OpenTelemetryApi | undefined;

/**
 * Loads `@opentelemetry/api` with `import()`, once per process (A2aModule does at bootstrap; an app that only uses
 * the client may call it itself), and resolves to it, or to undefined when it is not installed. A package that is there
 * but fails to load also resolves to undefined: tracing must never stop an agent from starting. The API is a registry
 * of globals (the SDK registers its providers there), so one load serves every module of the process.
 *
 * `load` replaces `import()` for tests; its result is not cached.
 */
export function loadOpenTelemetryApi(load?: OtelImporter): Promise<OpenTelemetryApi | undefined> {
  if (load) return importApi(load);
  loading ??= importApi(importPackage).then((api) => (loaded = api));
  return loading;
}

/** The API once {@link loadOpenTelemetryApi} has loaded it; undefined before, or when it is not installed. */
export function openTelemetryApi(): OpenTelemetryApi | undefined {
  return loaded;
}

/**
 * Writes the active trace context into `headers` with the global propagator (W3C `traceparent` and `tracestate` with
 * the SDK's default), so the agent called next continues the caller's trace: inside a skill, its span. Returns
 * `headers`. A no-op until `@opentelemetry/api` is loaded, when it is absent, or when nothing is registered.
 *
 * ```ts
 * await fetch(url, { method: 'POST', headers: injectTraceContext({ 'content-type': 'application/json' }), body });
 * ```
 */
export function injectTraceContext<T extends Record<string, string>>(headers: T): T {
  const api = loaded;
  if (api) api.propagation.inject(api.context.active(), headers);
  return headers;
}

async function importApi(load: OtelImporter): Promise<OpenTelemetryApi | undefined> {
  try {
    const module = (await load(OTEL_API_PACKAGE)) as OpenTelemetryApi & { default?: OpenTelemetryApi };
    // ESM builds expose named exports; a CommonJS build seen through `import()` may put them on `default`.
    const api = typeof module.trace?.getTracerProvider === 'function' ? module : module.default;
    return typeof api?.trace?.getTracerProvider === 'function' ? api : undefined;
  } catch (error) {
    const code = (error as { code?: unknown } | undefined)?.code;
    if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'MODULE_NOT_FOUND')
      new Logger('A2aObservability').warn(ObservabilityMessages.apiLoadFailed(error));
    return undefined;
  }
}
