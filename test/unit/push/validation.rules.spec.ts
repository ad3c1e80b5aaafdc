import { PushAddressPolicy } from '../../../libs/a2a/src/push/push-address.policy.js';
import { pushConfigViolations, webhookUrlProblem } from '../../../libs/a2a/src/push/push-config.rules.js';
import { PushMessages } from '../../../libs/a2a/src/push/push.messages.js';

const strict = new PushAddressPolicy();
const loopbackAllowed = new PushAddressPolicy({ allowedCidrs: ['127.0.0.1/32'] });

describe('push config rules at create time (spec §13.2)', () => {
  describe('url', () => {
    it.each([
      'https://hooks.example.com/a2a',
      'https://hooks.example.com:8443/a2a?tenant=t1',
      'https://8.8.8.8/hook',
      'https://[2606:4700:4700::1111]/hook',
      'https://bücher.example/hook',
      `https://example.com/${'a'.repeat(2048 - 'https://example.com/'.length)}`,
    ])('accepts %s', (url) => {
      expect(pushConfigViolations({ url }, strict)).toEqual([]);
    });

    it.each<[string, unknown, string]>([
      ['missing', undefined, PushMessages.urlRequired()],
      ['empty', '', PushMessages.urlRequired()],
      ['not a string', 42, PushMessages.notAString()],
      [
        'longer than 2048 characters',
        `https://example.com/${'a'.repeat(2049 - 'https://example.com/'.length)}`,
        PushMessages.urlTooLong(2048),
      ],
      ['relative', '/hook', PushMessages.urlNotAbsolute()],
      ['a bare host', 'example.com', PushMessages.urlNotAbsolute()],
      ['padded with spaces', ' https://example.com/', PushMessages.urlHasSpaceOrControl()],
      ['holding a line break', 'https://example.com/\r\nX: 1', PushMessages.urlHasSpaceOrControl()],
      ['holding a tab (WHATWG would drop it silently)', 'https://exam\tple.com/', PushMessages.urlHasSpaceOrControl()],
      ['ftp', 'ftp://example.com/hook', PushMessages.urlNotHttp()],
      ['file', 'file:///etc/passwd', PushMessages.urlNotHttp()],
      ['javascript', 'javascript:alert(1)', PushMessages.urlNotHttp()],
      ['plain http', 'http://example.com/hook', PushMessages.urlNeedsHttps()],
      ['with a user', 'https://user@example.com/hook', PushMessages.urlHasUserinfo()],
      ['with a user and password', 'https://user:secret@example.com/hook', PushMessages.urlHasUserinfo()],
      ['with a fragment', 'https://example.com/hook#x', PushMessages.urlHasFragment()],
      ['with an empty fragment', 'https://example.com/hook#', PushMessages.urlHasFragment()],
      ['localhost', 'https://localhost/hook', PushMessages.urlLocalhost()],
      ['LOCALHOST with a trailing dot', 'https://LOCALHOST./hook', PushMessages.urlLocalhost()],
      ['a .localhost name', 'https://app.localhost:8443/hook', PushMessages.urlLocalhost()],
      [
        'cloud metadata',
        'https://169.254.169.254/latest/meta-data',
        PushMessages.urlAddressRefused('169.254.169.254', 'link-local'),
      ],
      [
        'IPv4-mapped metadata',
        'https://[::ffff:a9fe:a9fe]/',
        PushMessages.urlAddressRefused('::ffff:a9fe:a9fe', 'link-local'),
      ],
      ['loopback as one decimal number', 'http://2130706433/', PushMessages.urlAddressRefused('127.0.0.1', 'loopback')],
      ['loopback in hex and short form', 'https://0x7f.1/', PushMessages.urlAddressRefused('127.0.0.1', 'loopback')],
      ['loopback in octal', 'https://0177.0.0.1/', PushMessages.urlAddressRefused('127.0.0.1', 'loopback')],
      [
        'IPv4-mapped loopback',
        'https://[::ffff:127.0.0.1]/',
        PushMessages.urlAddressRefused('::ffff:7f00:1', 'loopback'),
      ],
      ['IPv6 loopback', 'https://[::1]:8443/', PushMessages.urlAddressRefused('::1', 'loopback')],
      ['NAT64 loopback', 'https://[64:ff9b::7f00:1]/', PushMessages.urlAddressRefused('64:ff9b::7f00:1', 'NAT64')],
      ['a private address', 'https://10.0.0.1/', PushMessages.urlAddressRefused('10.0.0.1', 'private')],
      ['CGNAT', 'https://100.100.100.200/', PushMessages.urlAddressRefused('100.100.100.200', 'carrier-grade NAT')],
      ['unspecified', 'https://0.0.0.0:9000/', PushMessages.urlAddressRefused('0.0.0.0', 'unspecified')],
    ])('refuses a url %s', (_what, url, description) => {
      expect(pushConfigViolations({ url } as { url: string }, strict)).toEqual([{ field: 'url', description }]);
    });

    it('prefers the address refusal to the https one, which would not help', () => {
      expect(webhookUrlProblem('http://169.254.169.254/', strict)).toBe(
        PushMessages.urlAddressRefused('169.254.169.254', 'link-local'),
      );
    });

    it('lets the allowlist exempt a loopback literal, over plain http too, and nothing else', () => {
      expect(webhookUrlProblem('http://127.0.0.1:8080/hook', loopbackAllowed)).toBeUndefined();
      expect(webhookUrlProblem('http://[::ffff:127.0.0.1]:8080/hook', loopbackAllowed)).toBeUndefined();
      expect(webhookUrlProblem('http://127.0.0.2/hook', loopbackAllowed)).toBe(
        PushMessages.urlAddressRefused('127.0.0.2', 'loopback'),
      );
      expect(webhookUrlProblem('http://localhost:8080/hook', loopbackAllowed)).toBe(PushMessages.urlLocalhost());
      expect(webhookUrlProblem('http://example.com/hook', loopbackAllowed)).toBe(PushMessages.urlNeedsHttps());
    });

    it('keeps an allowlisted IP literal to allowedPorts; a public address may use any port', () => {
      expect(webhookUrlProblem('http://127.0.0.1:6379/', loopbackAllowed)).toBe(
        PushMessages.urlPortRefused(6379, 'ports 80, 443, 8080, 8443'),
      );
      expect(webhookUrlProblem('https://[::ffff:127.0.0.1]:6379/', loopbackAllowed)).toBe(
        PushMessages.urlPortRefused(6379, 'ports 80, 443, 8080, 8443'),
      );
      expect(webhookUrlProblem('http://127.0.0.1/', loopbackAllowed)).toBeUndefined();
      expect(webhookUrlProblem('https://127.0.0.1/', loopbackAllowed)).toBeUndefined();
      expect(webhookUrlProblem('https://8.8.8.8:6379/', loopbackAllowed)).toBeUndefined();
      expect(
        webhookUrlProblem(
          'http://127.0.0.1:6379/',
          new PushAddressPolicy({ allowedCidrs: ['127.0.0.1/32'], allowedPorts: 'any' }),
        ),
      ).toBeUndefined();
    });

    it('lets an allowlisted host name be localhost, over plain http', () => {
      const policy = new PushAddressPolicy({ allowedHosts: ['localhost'] });
      expect(webhookUrlProblem('http://localhost:8080/hook', policy)).toBeUndefined();
      expect(webhookUrlProblem('http://app.localhost:8080/hook', policy)).toBe(PushMessages.urlLocalhost());
    });

    it('with allowHttp, accepts plain http to public hosts only', () => {
      const policy = new PushAddressPolicy({ allowHttp: true });
      expect(webhookUrlProblem('http://example.com/hook', policy)).toBeUndefined();
      expect(webhookUrlProblem('http://127.0.0.1/hook', policy)).toBe(
        PushMessages.urlAddressRefused('127.0.0.1', 'loopback'),
      );
    });
  });

  describe('token and authentication', () => {
    const url = 'https://hooks.example.com/a2a';

    it('accepts printable ASCII up to 4096 characters, and an empty value', () => {
      const printable = Array.from({ length: 0x7f - 0x20 }, (_, i) => String.fromCharCode(0x20 + i)).join('');
      expect(
        pushConfigViolations(
          { url, token: printable, authentication: { scheme: 'Bearer', credentials: 'x'.repeat(4096) } },
          strict,
        ),
      ).toEqual([]);
      expect(
        pushConfigViolations({ url, token: '', authentication: { scheme: 'Basic', credentials: '' } }, strict),
      ).toEqual([]);
      expect(pushConfigViolations({ url, authentication: { scheme: "!#$%&'*+-.^_`|~09AZaz" } }, strict)).toEqual([]);
    });

    it.each<[string, Record<string, unknown>, string, string]>([
      [
        'a CR LF header injection in credentials',
        { authentication: { scheme: 'Bearer', credentials: 't\r\nX-Evil: 1' } },
        'authentication.credentials',
        PushMessages.credentialsInvalid(4096),
      ],
      [
        'a NUL in credentials',
        { authentication: { scheme: 'Bearer', credentials: 'a\0b' } },
        'authentication.credentials',
        PushMessages.credentialsInvalid(4096),
      ],
      [
        'non-ASCII credentials',
        { authentication: { scheme: 'Bearer', credentials: 'clé' } },
        'authentication.credentials',
        PushMessages.credentialsInvalid(4096),
      ],
      [
        'credentials over 4096',
        { authentication: { scheme: 'Bearer', credentials: 'x'.repeat(4097) } },
        'authentication.credentials',
        PushMessages.credentialsInvalid(4096),
      ],
      [
        'credentials not a string',
        { authentication: { scheme: 'Bearer', credentials: 5 } },
        'authentication.credentials',
        PushMessages.notAString(),
      ],
      [
        'a scheme holding a space',
        { authentication: { scheme: 'Bearer x' } },
        'authentication.scheme',
        PushMessages.schemeInvalid(128),
      ],
      [
        'a scheme holding a colon',
        { authentication: { scheme: 'Bearer:' } },
        'authentication.scheme',
        PushMessages.schemeInvalid(128),
      ],
      [
        'a scheme holding a line break',
        { authentication: { scheme: 'Bearer\r\nX-Evil:' } },
        'authentication.scheme',
        PushMessages.schemeInvalid(128),
      ],
      [
        'a scheme over 128 characters',
        { authentication: { scheme: 'B'.repeat(129) } },
        'authentication.scheme',
        PushMessages.schemeInvalid(128),
      ],
      ['no scheme', { authentication: { credentials: 'x' } }, 'authentication.scheme', PushMessages.schemeRequired()],
      ['an empty scheme', { authentication: { scheme: '' } }, 'authentication.scheme', PushMessages.schemeRequired()],
      ['authentication not an object', { authentication: 'Bearer x' }, 'authentication', PushMessages.notAnObject()],
      ['a token with a line feed', { token: 'a\nb' }, 'token', PushMessages.tokenInvalid(4096)],
      ['a token with DEL', { token: 'a\x7fb' }, 'token', PushMessages.tokenInvalid(4096)],
      ['a token over 4096', { token: 't'.repeat(4097) }, 'token', PushMessages.tokenInvalid(4096)],
      ['a token not a string', { token: ['t'] }, 'token', PushMessages.notAString()],
    ])('refuses %s', (_what, fields, field, description) => {
      expect(pushConfigViolations({ url, ...fields } as { url: string }, strict)).toEqual([{ field, description }]);
    });

    it('lists every problem at once, under the path of an inline config', () => {
      const violations = pushConfigViolations(
        { url: 'http://10.0.0.1/', token: 'a\nb', authentication: { scheme: 'Bearer x', credentials: 'a\rb' } },
        strict,
        'configuration.taskPushNotificationConfig',
      );
      expect(violations.map((v) => v.field)).toEqual([
        'configuration.taskPushNotificationConfig.url',
        'configuration.taskPushNotificationConfig.token',
        'configuration.taskPushNotificationConfig.authentication.scheme',
        'configuration.taskPushNotificationConfig.authentication.credentials',
      ]);
    });

    it('never echoes a secret in a description', () => {
      const violations = pushConfigViolations(
        {
          url: 'https://u:pw-SECRET@example.com/?q=SECRET',
          token: 'SECRET\n',
          authentication: { scheme: 'SECRET x', credentials: 'SECRET\r' },
        },
        strict,
      );
      expect(violations).toHaveLength(4);
      expect(JSON.stringify(violations)).not.toContain('SECRET');
    });
  });
});
