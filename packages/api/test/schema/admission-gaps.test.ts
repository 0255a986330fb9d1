import { expect } from 'chai';
import { API_VERSION, formatCause, TAG_CHARACTERS, validateObject } from '../../src/index.js';
import { REFUSED_KEY_CHARACTERS } from '../../src/schema/cluster.js';
import { evaluateRule } from '../../src/validation/cel.js';

// The schema gaps issue 13 found with CAPA's and OpenShift's own test objects.

const role = (allowedNamespaces: unknown) => ({
  apiVersion: API_VERSION,
  kind: 'AWSClusterRoleIdentity',
  metadata: { name: 'tenant-b' },
  spec: { roleARN: 'arn:aws:iam::333333333333:role/tenant-b-admin', allowedNamespaces },
});

const cluster = (additionalTags: Record<string, string>) => ({
  apiVersion: API_VERSION,
  kind: 'AWSCluster',
  metadata: { name: 'prod-1', namespace: 'tenant-a' },
  spec: { region: 'us-west-2', additionalTags },
});

const messages = (object: unknown) => validateObject(object).map(formatCause);
const expression = (requirement: Record<string, unknown>) => role({ selector: { matchExpressions: [requirement] } });

describe('label selectors are validated as Kubernetes validates them', () => {
  it('refuses NotIn with empty values, which would allow every namespace', () => {
    expect(messages(expression({ key: 'tier', operator: 'NotIn', values: [] }))).to.deep.equal([
      "spec.allowedNamespaces.selector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
    ]);
  });

  it('refuses In and NotIn with no values at all', () => {
    expect(messages(expression({ key: 'tier', operator: 'In', values: [] }))).to.have.length(1);
    expect(messages(expression({ key: 'tier', operator: 'In' }))).to.deep.equal([
      "spec.allowedNamespaces.selector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
    ]);
  });

  it('refuses values beside Exists and DoesNotExist', () => {
    for (const operator of ['Exists', 'DoesNotExist']) {
      expect(messages(expression({ key: 'tier', operator, values: ['gold'] }))).to.deep.equal([
        "spec.allowedNamespaces.selector.matchExpressions[0].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
      ]);
    }
  });

  it('accepts every operator used as Kubernetes allows', () => {
    for (const requirement of [
      { key: 'tier', operator: 'NotIn', values: ['bronze'] },
      { key: 'tier', operator: 'In', values: ['gold'] },
      { key: 'tier', operator: 'Exists' },
      { key: 'tier', operator: 'DoesNotExist', values: [] },
    ]) {
      expect(messages(expression(requirement)), JSON.stringify(requirement)).to.deep.equal([]);
    }
  });
});

describe('additionalTags keys', () => {
  const refused = 'tag keys may hold only letters, digits, spaces and _ . : / = + - @';

  it('refuses a tab and non-letter symbols, as resourceTags does', () => {
    for (const key of ['team\tname', 'price€', 'a→b', 'cost©', 'x\u2022y']) {
      const found = messages(cluster({ [key]: 'v' }));
      expect(found, JSON.stringify(key)).to.have.length(1);
      expect(found[0]).to.match(new RegExp(`^spec\\.additionalTags: .*${refused.replace(/[.+]/g, '\\$&')}$`));
    }
  });

  it('accepts keys in any script, with the characters AWS allows', () => {
    expect(
      messages(cluster({ 'kostenstelle/äöü': 'v', チーム: 'v', 'a_b.c:d/e=f+g-h@i j': 'v', 'n²': 'v' })),
    ).to.deep.equal([]);
  });

  it("never refuses a character AWS's allow-list accepts (every code point of the BMP)", () => {
    const rule = `self.all(k, !k.matches('${REFUSED_KEY_CHARACTERS}'))`;
    const allowed = new RegExp(TAG_CHARACTERS, 'u');
    const wronglyRefused: string[] = [];
    for (let code = 0; code <= 0xffff; code++) {
      if (code >= 0xd800 && code <= 0xdfff) continue;
      const key = String.fromCodePoint(code);
      if (allowed.test(key) && !evaluateRule(rule, { [key]: 'v' })) wronglyRefused.push(code.toString(16));
    }
    expect(wronglyRefused).to.deep.equal([]);
  });
});
