import { redactUrl } from '../../../libs/a2a/src/push/push.redaction.js';

describe('redactUrl: webhook URLs in logs and dead letters (spec §13.2)', () => {
  it.each([
    [
      'Slack',
      'https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX',
      'https://hooks.slack.com/services/…',
    ],
    [
      'Discord',
      'https://discord.com/api/webhooks/123456789012345678/s3cr3t-T0KEN_abcdefghijklmnop',
      'https://discord.com/api/…',
    ],
    [
      'Teams',
      'https://contoso.webhook.office.com/webhookb2/0f5c1a2b-aaaa-bbbb-cccc-0123456789ab@72f988bf-86f1/IncomingWebhook/s3cr3t0123456789/9b1e',
      'https://contoso.webhook.office.com/webhookb2/…',
    ],
    [
      'a secret as the only segment',
      'https://webhook.example/0f5c1a2baaaabbbbcccc0123456789ab',
      'https://webhook.example/…',
    ],
    ['a query', 'https://example.com/hook?key=s3cr3t&x=1', 'https://example.com/hook?…'],
    ['a path and a query', 'https://example.com:8443/a/b?key=s3cr3t', 'https://example.com:8443/a/…?…'],
  ])('%s: keeps scheme, host and a short first segment', (_name, url, shown) => {
    expect(redactUrl(new URL(url))).toBe(shown);
  });

  it('leaves a URL with nothing to hide as it is', () => {
    expect(redactUrl(new URL('http://127.0.0.1:8080/hook'))).toBe('http://127.0.0.1:8080/hook');
    expect(redactUrl(new URL('https://example.com'))).toBe('https://example.com/');
  });
});
