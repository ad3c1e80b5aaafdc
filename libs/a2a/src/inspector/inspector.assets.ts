import { readFileSync } from 'node:fs';

/** One file of the page, ready to send. */
export interface InspectorAsset {
  /** Below the page's path: `''` for the page itself. */
  readonly path: string;
  readonly contentType: string;
  readonly body: Buffer;
}

/** Where the page's files sit: next to this module, in the sources and in the built package alike. */
const ASSETS = new URL('./assets/', import.meta.url);
/** The placeholder of the page's own path in the HTML files, so that their relative links resolve below it. */
const BASE_PLACEHOLDER = '%INSPECTOR_BASE%';

/** The page, its scripts and its stylesheet, with the HTML pointing at `base` (the page's full path). */
export function loadInspectorAssets(base: string): InspectorAsset[] {
  return [
    { path: '', contentType: 'text/html; charset=utf-8', body: html('index.html', base) },
    ...['inspector.js', 'a2a-transport.js', 'schema-checks.js', 'task-list.js', 'dom.js'].map((name) => ({
      path: name,
      contentType: 'text/javascript; charset=utf-8',
      body: file(name),
    })),
    { path: 'inspector.css', contentType: 'text/css; charset=utf-8', body: file('inspector.css') },
  ];
}

/**
 * The small page a browser gets instead when the guards refuse it for want of a credential, and its script (public:
 * static, and nothing of the agent's that the public card does not say).
 */
export function loadInspectorLogin(base: string): { page: InspectorAsset; script: InspectorAsset } {
  return {
    page: { path: '', contentType: 'text/html; charset=utf-8', body: html('login.html', base) },
    script: { path: 'login.js', contentType: 'text/javascript; charset=utf-8', body: file('login.js') },
  };
}

function file(name: string): Buffer {
  return readFileSync(new URL(name, ASSETS));
}

function html(name: string, base: string): Buffer {
  const escaped = base.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
  return Buffer.from(file(name).toString('utf8').replaceAll(BASE_PLACEHOLDER, `${escaped}/`));
}
