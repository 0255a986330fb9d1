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

  it('writes text lines when asked', async () => {
    const { logger, lines } = capture('text');
    logger.info('started', { workers: 4 });
    await flush();
    expect(lines[0]).to.match(/ INFO started workers=4$/);
  });
});
