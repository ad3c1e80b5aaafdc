import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * The gRPC binding serves `proto/a2a.binpb`, compiled from `proto/a2a.proto` by `npm run proto:descriptor`. These
 * checks keep the two in step, and the proto identical to the specification's.
 */
describe('proto/', () => {
  const specProto = join('..', 'shared', 'spec', 'a2a.proto');

  (existsSync(specProto) ? it : it.skip)('a2a.proto is the specification’s lf.a2a.v1 proto, unchanged', () => {
    expect(readFileSync('proto/a2a.proto', 'utf8')).toBe(readFileSync(specProto, 'utf8'));
  });

  it('a2a.binpb is what npm run proto:descriptor builds from a2a.proto', () => {
    const dir = mkdtempSync(join(tmpdir(), 'a2a-descriptor-'));
    try {
      const rebuilt = join(dir, 'a2a.binpb');
      // A second -o overrides the script's own output path.
      execFileSync('npm', ['run', '--silent', 'proto:descriptor', '--', '-o', rebuilt], { stdio: 'pipe' });
      expect(readFileSync(rebuilt).equals(readFileSync('proto/a2a.binpb'))).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
