import type { AllowedNamespaces } from '@keymaster/api';
import { expect } from 'chai';
import { namespaceAllowed } from '../src/index.js';

const tenantA = { name: 'tenant-a', labels: { 'keymaster.dev/tenant': 'tenant-a', tier: 'gold' } };
const tenantB = { name: 'tenant-b', labels: { 'keymaster.dev/tenant': 'tenant-b' } };

// The table of docs/identity.md, one row per test: allowedNamespaces, then whether tenant-a and tenant-b may use the identity.
const table: [string, AllowedNamespaces | null | undefined, boolean, boolean][] = [
  ['absent: no namespace', undefined, false, false],
  ['null: no namespace', null, false, false],
  ['{}: every namespace', {}, true, true],
  ['list: the names listed', { list: ['tenant-a'] }, true, false],
  ['list: [] (present but empty): no namespace', { list: [] }, false, false],
  ['selector matchLabels: namespaces whose labels match', { selector: { matchLabels: { tier: 'gold' } } }, true, false],
  [
    'selector matchExpressions In',
    { selector: { matchExpressions: [{ key: 'keymaster.dev/tenant', operator: 'In', values: ['tenant-b'] }] } },
    false,
    true,
  ],
  [
    'selector matchExpressions NotIn',
    { selector: { matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['gold'] }] } },
    false,
    true,
  ],
  [
    'selector matchExpressions Exists',
    { selector: { matchExpressions: [{ key: 'tier', operator: 'Exists' }] } },
    true,
    false,
  ],
  [
    'selector matchExpressions DoesNotExist',
    { selector: { matchExpressions: [{ key: 'tier', operator: 'DoesNotExist' }] } },
    false,
    true,
  ],
  ['selector: {} (present but empty): no namespace', { selector: {} }, false, false],
  ['selector with empty matchLabels: no namespace', { selector: { matchLabels: {} } }, false, false],
  ['list and selector: either one', { list: ['tenant-b'], selector: { matchLabels: { tier: 'gold' } } }, true, true],
  [
    'list: [] and a selector: the selector alone',
    { list: [], selector: { matchLabels: { tier: 'gold' } } },
    true,
    false,
  ],
  ['list and selector: {}: the list alone', { list: ['tenant-b'], selector: {} }, false, true],
  [
    'matchLabels and matchExpressions are ANDed',
    {
      selector: {
        matchLabels: { tier: 'gold' },
        matchExpressions: [{ key: 'keymaster.dev/tenant', operator: 'In', values: ['tenant-b'] }],
      },
    },
    false,
    false,
  ],
];

describe('namespaceAllowed', () => {
  for (const [description, allowed, a, b] of table) {
    it(description, () => {
      expect(namespaceAllowed(allowed, tenantA), 'tenant-a').to.equal(a);
      expect(namespaceAllowed(allowed, tenantB), 'tenant-b').to.equal(b);
    });
  }
});
