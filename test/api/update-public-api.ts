import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { PUBLIC_API_FILE, publicApiReport } from './public-api.report.js';

// `npm run api:update`, from the repository's root: rewrites the checked-in report after an intended API change.
mkdirSync(dirname(PUBLIC_API_FILE), { recursive: true });
writeFileSync(PUBLIC_API_FILE, publicApiReport(process.cwd()));
console.log(`wrote ${PUBLIC_API_FILE}`);
