/**
 * Our server under test: the conformance agent exactly as `npm run start:conformance` runs it (built by
 * `npm run build`), plus the memory probe. Imported by URL rather than by a literal specifier so that compiling the
 * bench does not compile the library: a library that does not build fails our column, not the whole bench.
 */
import './memory-probe.js';

await import(new URL('../../apps/conformance-agent/src/main.js', import.meta.url).href);
