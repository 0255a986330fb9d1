import { PassThrough } from 'node:stream';
import { expect } from 'chai';
import { createControllerLogger } from '../src/logging.js';

function capture(style: 'json' | 'text') {
  const stream = new PassThrough();
  const lines: string[] = [];
  stream.on('data', (chunk: Buffer) => lines.push(...chunk.toString().split('\n').filter(Boolean)));
  return { logger: createControllerLogger('debug', style, stream), lines };
}

const flush = () => new Promise((resolve) => setImmediate(resolve));

describe('controller logging', () => {
  it("writes one JSON object per line with the reconcile's fields", async () => {
    const { logger, lines } = capture('json');
    logger
      .child({ cluster: 'prod', namespace: 'tenant-a', reconcileID: 'r-1' })
      .info('reconciled', { identity: 'AWSClusterRoleIdentity/tenant-b' });
    await flush();
    expect(JSON.parse(lines[0]!)).to.include({
      level: 'info',
      message: 'reconciled',
      cluster: 'prod',
      namespace: 'tenant-a',
      reconcileID: 'r-1',
      identity: 'AWSClusterRoleIdentity/tenant-b',
    });
  });

  it('redacts secrets in fields, nested objects, errors and free text', async () => {
    const { logger, lines } = capture('json');
    logger.warn('oops', {
      secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
      credentials: {
        accessKeyId: 'AKIAEXAMPLE',
        sessionToken: 'IQoJb3JpZ2luX2VjEJr//////////wEaCXVzLWVhc3QtMSJHMEUCIQ',
      },
      secret: { data: { SecretAccessKey: 'c2VjcmV0' } },
      error: new Error('failed with secret=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY'),
    });
    await flush();
    const line = lines.join('\n');
    expect(line).not.to.include('wJalrXUtnFEMI');
    expect(line).not.to.include('IQoJb3JpZ2lu');
    expect(line).not.to.include('c2VjcmV0');
    expect(line).to.include('AKIAEXAMPLE');
    expect((JSON.parse(lines[0]!) as { credentials: unknown }).credentials).to.deep.equal({
      accessKeyId: 'AKIAEXAMPLE',
      sessionToken: '[REDACTED]',
    });
  });

  it('escapes control and bidirectional characters in messages, fields, nested keys and errors, in both formats', async () => {
    for (const style of ['json', 'text'] as const) {
      const stream = new PassThrough();
      let written = '';
      stream.on('data', (chunk: Buffer) => (written += chunk.toString()));
      createControllerLogger('debug', style, stream).warn('refused key tenant\u202e', {
        key: 'a\u2067b\nFAKE LINE',
        tags: { 'c\u202ed': 'e\u009bf' },
        error: new Error('bad \u200fkey'),
      });
      await flush();
      expect(written, style).to.not.match(/[\u202e\u2067\u009b\u200f]/);
      expect(written.trimEnd().split('\n'), `${style}: one line`).to.have.length(1);
      const fields = style === 'json' ? (JSON.parse(written) as { message: string; key: string }) : undefined;
      const shown = fields ? `${fields.message} key=${fields.key}` : written;
      expect(shown, style).to.contain('tenant\\u202e').and.contain('a\\u2067b\\u000aFAKE LINE');
    }
  });

  it('writes text lines when asked', async () => {
    const { logger, lines } = capture('text');
    logger.info('started', { workers: 4 });
    await flush();
    expect(lines[0]).to.match(/ INFO started workers=4$/);
  });
});
