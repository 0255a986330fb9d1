import { expect } from 'chai';
import { credentialKey } from '../src/cache-key.js';
import type { ChainLink } from '../src/chain.js';
import type { IdentityObject } from '../src/index.js';
import { role, staticIdentity } from './fixtures.js';

const link = (identity: IdentityObject, material?: ChainLink['material']): ChainLink => ({
  kind: identity.kind,
  name: identity.metadata.name!,
  identity,
  ...(material ? { material } : {}),
});
const where = { namespace: 'tenant-a', controllerNamespace: 'keymaster-system' };
const edit = (identity: IdentityObject, change: (copy: IdentityObject) => void): IdentityObject => {
  const copy = structuredClone(identity);
  change(copy);
  return copy;
};

describe('credentialKey', () => {
  const base = role('tenant', { externalID: 'ext-1', sessionName: 'km' });
  const key = credentialKey(link(base), 'source-key', 'us-east-1', where);

  it('ignores metadata, allowedNamespaces, credentialVending and resourceTags: they shape no credentials', () => {
    const relabeled = edit(base, (copy) => {
      copy.metadata.labels = { team: 'x' };
      copy.metadata.resourceVersion = '999';
      (copy.spec as { allowedNamespaces?: object }).allowedNamespaces = { list: ['other'] };
      copy.spec.resourceTags = [{ key: 'a', value: 'b' }];
      (copy.spec as { credentialVending?: object }).credentialVending = { allowedNamespaces: { list: ['other'] } };
    });
    expect(credentialKey(link(relabeled), 'source-key', 'us-east-1', where)).to.equal(key);
  });

  it('changes with every AssumeRole input, the UID, the source and the STS region', () => {
    const variants = [
      credentialKey(
        link(edit(base, (copy) => ((copy.spec as { externalID: string }).externalID = 'ext-2'))),
        'source-key',
        'us-east-1',
        where,
      ),
      credentialKey(
        link(edit(base, (copy) => ((copy.spec as { durationSeconds: number }).durationSeconds = 900))),
        'source-key',
        'us-east-1',
        where,
      ),
      credentialKey(
        link(
          edit(base, (copy) => ((copy.spec as { policyARNs: string[] }).policyARNs = ['arn:aws:iam::aws:policy/X'])),
        ),
        'source-key',
        'us-east-1',
        where,
      ),
      credentialKey(link(edit(base, (copy) => (copy.metadata.uid = 'recreated'))), 'source-key', 'us-east-1', where),
      credentialKey(link(base), 'other-source', 'us-east-1', where),
      credentialKey(link(base), 'source-key', 'eu-west-1', where),
    ];
    expect(new Set([key, ...variants]).size).to.equal(variants.length + 1);
  });

  it('changes when static keys rotate, and never contains them', () => {
    const identity = staticIdentity('a', 'a-keys');
    const before = credentialKey(
      link(identity, { accessKeyId: 'AKIAOLD', secretAccessKey: 'old-secret' }),
      undefined,
      'us-east-1',
      where,
    );
    const after = credentialKey(
      link(identity, { accessKeyId: 'AKIANEW', secretAccessKey: 'new-secret' }),
      undefined,
      'us-east-1',
      where,
    );
    expect(after).not.to.equal(before);
    expect(before).to.match(/^[0-9a-f]{64}$/);
  });
});
