import { KeymasterError } from '@keymaster/api';
import type { Privileged } from './privileged.js';
import type { Tenancy } from './context.js';
import { DEFAULT_TENANT_LABEL } from './tenancy.js';

/** `keymaster run`'s admission flags (controller-runtime's names for the server's). */
export const WEBHOOK_FLAGS = {
  'webhook-port': {
    type: 'string',
    default: '0',
    help: "port of the admission webhooks' HTTPS server (9443 in deploy/webhooks); 0 turns the webhooks off",
  },
  'webhook-cert-dir': {
    type: 'string',
    default: '/tmp/k8s-webhook-server/serving-certs',
    help: 'folder of the serving certificate (tls.crt, tls.key, optional ca.crt), reloaded when it changes',
  },
  'webhook-inject-ca-bundle': {
    type: 'boolean',
    default: false,
    help: "write the certificate's CA into the webhook configurations' caBundle (instead of cert-manager's CA injector)",
  },
  'webhook-configuration-name': {
    type: 'string',
    default: 'keymaster',
    help: 'name of the Mutating- and ValidatingWebhookConfiguration whose caBundle is injected',
  },
  'admission-privileged-users': {
    type: 'string',
    default: '',
    help: 'comma-separated users that bypass the cross-object admission checks and may set tenancy labels (each bypass is logged)',
  },
  'admission-privileged-groups': {
    type: 'string',
    default: 'system:masters',
    help: 'comma-separated groups with the same privilege, e.g. system:masters,platform-team',
  },
  'tenant-label': {
    type: 'string',
    default: DEFAULT_TENANT_LABEL,
    help: "the namespace label naming a namespace's tenant: only privileged users and groups may set, change or remove it",
  },
  'tenant-groups': {
    type: 'string',
    default: '',
    help: 'comma-separated group=tenant: a namespace created by a member of the group gets that tenant label',
  },
} as const;

export interface WebhookFlags {
  /** undefined: no webhook server. */
  webhookPort: number | undefined;
  webhookCertDir: string;
  injectCaBundle: boolean;
  webhookConfigurationName: string;
  privileged: Privileged;
  tenancy: Tenancy;
}

const list = (text: string): string[] =>
  text
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);

const invalid = (flag: string, value: string, problem: string, fix: string) =>
  new KeymasterError('ERR_KEYMASTER_INVALID_FLAG', `--${flag}=${JSON.stringify(value)}: ${problem}`, { hint: fix });

/** A label key as Kubernetes checks one: an optional DNS subdomain prefix and a name of 1-63 characters. */
const LABEL_KEY =
  /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;
const LABEL_VALUE = /^[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;

/** --tenant-label, checked: a label key. */
export function tenantLabelFlag(label: string): string {
  if (!LABEL_KEY.test(label))
    throw invalid('tenant-label', label, 'is not a label key', 'Use a key like keymaster.dev/tenant.');
  return label;
}

export function parseWebhookFlags(values: {
  [flag in keyof typeof WEBHOOK_FLAGS]: (typeof WEBHOOK_FLAGS)[flag]['default'] extends boolean ? boolean : string;
}): WebhookFlags {
  const portText = values['webhook-port'];
  const port = Number(portText);
  if (!/^[0-9]+$/.test(portText) || port > 65535)
    throw invalid('webhook-port', portText, 'is not a port', 'Use 9443, or 0 to turn the webhooks off.');
  const label = tenantLabelFlag(values['tenant-label']);
  const groupTenants = new Map<string, string>();
  for (const pair of list(values['tenant-groups'])) {
    const [group = '', tenant = ''] = pair.split('=');
    if (!group || !LABEL_VALUE.test(tenant))
      throw invalid(
        'tenant-groups',
        values['tenant-groups'],
        `"${pair}" is not group=tenant with a tenant that is a label value`,
        'Write e.g. tenant-a-developers=tenant-a,tenant-b-developers=tenant-b.',
      );
    groupTenants.set(group, tenant);
  }
  return {
    webhookPort: port === 0 ? undefined : port,
    webhookCertDir: values['webhook-cert-dir'],
    injectCaBundle: values['webhook-inject-ca-bundle'],
    webhookConfigurationName: values['webhook-configuration-name'],
    privileged: {
      users: list(values['admission-privileged-users']),
      groups: list(values['admission-privileged-groups']),
    },
    tenancy: { label, groupTenants },
  };
}
