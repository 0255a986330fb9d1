import { expect } from 'chai';
import type { WebhookContext } from '../../src/webhooks/context.js';
import type { AdmissionRequest } from '../../src/webhooks/review.js';
import { validateNamespace } from '../../src/webhooks/tenancy.js';

const LABEL = 'keymaster.dev/tenant';
const logged: Record<string, unknown>[] = [];
const context = {
  tenancy: { label: LABEL, groupTenants: new Map([['tenant-a-developers', 'tenant-a']]) },
  privileged: { users: [], groups: ['platform-team'] },
  controllerNamespace: 'keymaster-system',
  logger: { info: (_message: string, fields: Record<string, unknown>) => logged.push(fields) },
} as unknown as WebhookContext;

const namespace = (name: string, labels: Record<string, string>) => ({
  apiVersion: 'v1',
  kind: 'Namespace',
  metadata: { name, labels },
});
const ALICE = { username: 'alice', groups: ['tenant-a-developers'] };
const PLATFORM = { username: 'pat', groups: ['platform-team'] };

/** An update of a Namespace's labels, through the object itself or one of its subresources. */
const update = (
  name: string,
  before: Record<string, string>,
  after: Record<string, string>,
  userInfo: AdmissionRequest['userInfo'],
  subResource?: string,
): AdmissionRequest => ({
  uid: 'u',
  kind: { group: '', version: 'v1', kind: 'Namespace' },
  ...(subResource ? { subResource } : {}),
  name,
  namespace: name,
  operation: 'UPDATE',
  userInfo,
  object: namespace(name, after),
  oldObject: namespace(name, before),
});

describe('the tenancy label rule (validate--v1-namespace)', () => {
  for (const subResource of [undefined, 'status', 'finalize']) {
    const path = subResource ? `namespaces/${subResource}` : 'the Namespace object';
    it(`refuses a tenant setting, changing or removing the label through ${path}`, () => {
      for (const [before, after, change] of [
        [{}, { [LABEL]: 'tenant-b' }, `set the label ${LABEL}=tenant-b`],
        [{ [LABEL]: 'tenant-a' }, { [LABEL]: 'tenant-b' }, `change the label ${LABEL} from tenant-a to tenant-b`],
        [{ [LABEL]: 'tenant-a' }, {}, `remove the label ${LABEL}`],
      ] as const) {
        const verdict = validateNamespace(update('tenant-a', before, after, ALICE, subResource), context);
        expect(verdict).to.include({ allowed: false, code: 403 });
        expect(verdict.message).to.equal(
          `alice may not ${change} on namespace tenant-a${subResource ? ` (through namespaces/${subResource})` : ''}: ` +
            'only the platform team (privileged users and groups of keymaster run) sets the tenant of a namespace',
        );
      }
    });

    it(`lets other labels change, and the platform change the tenant, through ${path}`, () => {
      const labels = { [LABEL]: 'tenant-a' };
      expect(
        validateNamespace(update('tenant-a', labels, { ...labels, team: 'x' }, ALICE, subResource), context),
      ).to.include({ allowed: true });
      logged.length = 0;
      const moved = update('tenant-a', labels, { [LABEL]: 'tenant-b' }, PLATFORM, subResource);
      expect(validateNamespace(moved, context)).to.include({ allowed: true });
      expect(logged).to.deep.equal([
        {
          user: 'pat',
          privilege: 'group platform-team',
          namespace: 'tenant-a',
          ...(subResource ? { subresource: subResource } : {}),
          from: 'tenant-a',
          to: 'tenant-b',
        },
      ]);
    });
  }

  for (const name of ['kube-system', 'kube-public', 'kube-node-lease', 'keymaster-system'])
    it(`gives ${name} no tenant, not even for the platform; the platform may remove a stale one`, () => {
      for (const subResource of [undefined, 'status', 'finalize']) {
        const verdict = validateNamespace(update(name, {}, { [LABEL]: 'tenant-a' }, PLATFORM, subResource), context);
        expect(verdict).to.include({ allowed: false, code: 403 });
        expect(verdict.message).to.equal(
          `namespace ${name} may not carry the label ${LABEL}: it is Kubernetes' or Keymaster's own, never a tenant's. ` +
            "Put tenants' AWSClusters and AWSCredentialsRequests in namespaces of their own",
        );
      }
      expect(validateNamespace(update(name, { [LABEL]: 'tenant-a' }, {}, PLATFORM), context)).to.include({
        allowed: true,
      });
      expect(validateNamespace(update(name, { [LABEL]: 'tenant-a' }, {}, ALICE), context)).to.include({
        allowed: false,
      });
    });
});
