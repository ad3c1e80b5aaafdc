import { parseCommandLine } from '../../../libs/a2a/src/cli/cli.args.js';
import { agentOptionsOf } from '../../../libs/a2a/src/cli/cli-agent.options.js';

function optionsOf(argv: string[], env: NodeJS.ProcessEnv = {}) {
  const request = parseCommandLine(argv);
  if (request.help) throw new Error('expected a command');
  return agentOptionsOf(request.invocation, env);
}

describe('agentOptionsOf', () => {
  it('allows the loopback agent the user typed, by name and by address, over plain http', () => {
    const expected = { allowedHosts: ['127.0.0.1', 'localhost'], allowedCidrs: ['127.0.0.0/8', '::1/128'] };
    expect(optionsOf(['card', 'http://127.0.0.1:3001']).network).toEqual(expected);
    expect(optionsOf(['card', 'http://localhost:3000']).network).toEqual({
      allowedHosts: ['localhost'],
      allowedCidrs: ['127.0.0.0/8', '::1/128'],
    });
    expect(optionsOf(['card', 'http://[::1]:3000']).network?.allowedHosts).toEqual(['::1', 'localhost']);
  });

  it('allows a plain-http host typed by name, and nothing for a public https agent', () => {
    expect(optionsOf(['card', 'http://agent.lan:8080']).network).toEqual({
      allowedHosts: ['agent.lan'],
      allowedCidrs: [],
    });
    expect(optionsOf(['card', 'https://agent.example']).network).toEqual({ allowedHosts: [], allowedCidrs: [] });
  });

  it('adds --allow-host entries as hosts or CIDRs', () => {
    expect(
      optionsOf(['card', 'https://agent.example', '--allow-host', 'api.internal', '--allow-host', '10.0.0.0/8'])
        .network,
    ).toEqual({ allowedHosts: ['api.internal'], allowedCidrs: ['10.0.0.0/8'] });
  });

  it('takes credentials from the flags, else from the environment, with the allowed origins', () => {
    expect(optionsOf(['card', 'https://agent.example']).credentials).toBeUndefined();
    expect(
      optionsOf(['card', 'https://agent.example'], { A2A_API_KEY: 'env-key', A2A_BEARER_TOKEN: 'env-token' })
        .credentials,
    ).toEqual({ apiKey: 'env-key', bearer: 'env-token' });
    expect(
      optionsOf(['card', 'https://agent.example', '--api-key', 'flag-key', '--allow-origin', 'https://api.example'], {
        A2A_API_KEY: 'env-key',
        A2A_BEARER_TOKEN: '',
      }).credentials,
    ).toEqual({ apiKey: 'flag-key', allowedOrigins: ['https://api.example'] });
  });

  it('narrows the bindings to --binding and passes the timeout', () => {
    const options = optionsOf(['card', 'https://agent.example', '--binding', 'grpc', '--timeout', '3']);
    expect(options.preferredTransports).toEqual(['GRPC']);
    expect(options.timeoutMs).toBe(3000);
    expect(optionsOf(['card', 'https://agent.example']).preferredTransports).toBeUndefined();
  });
});
