import { AssumeRoleCommand } from '@aws-sdk/client-sts';
import { startAwsEmulator, type AwsEmulator, type World } from '@keymaster/aws-emulator';
import { randomBytes } from 'node:crypto';
import type { Moto } from '../../../src/moto/server.js';
import { awsClients, MOTO_ACCOUNT, REGION, type Keys } from '../../moto/support/clients.js';
import {
  createSecurityGroup,
  createUser,
  createVolume,
  resourceId,
  runInstances,
} from '../../moto/support/resources.js';

/** The controller's account: moto's default account, so that ARNs read the same on both sides. */
export const ACCOUNT = MOTO_ACCOUNT;
/** A tenant's account, reached with AssumeRole. */
export const TENANT_ACCOUNT = '222222222222';
export { REGION };

export const EXTERNAL_ID = '7a5b816a-7743-4377-a382-2d695bf1f172';
/** Roles of the tenant account that trust the controller: without and with an ExternalId. */
export const ROLES = {
  plain: `arn:aws:iam::${TENANT_ACCOUNT}:role/tenant-b-admin`,
  guarded: `arn:aws:iam::${TENANT_ACCOUNT}:role/tenant-b-guarded`,
  /** Trusts sessions of `plain`: the second link of a chain. */
  chained: `arn:aws:iam::${TENANT_ACCOUNT}:role/tenant-b-reader`,
  /** No such role exists. */
  missing: `arn:aws:iam::${TENANT_ACCOUNT}:role/no-such-role`,
};

export type Kind = 'instance' | 'volume' | 'security-group';

/** One AWS implementation under comparison, set up with the same accounts, principals and roles. */
export interface Side {
  readonly name: 'aws-emulator' | 'moto';
  readonly url: string;
  /** The keys of `keymaster-controller`, an IAM user of ACCOUNT that may do everything. */
  readonly controller: Keys;
  /** Makes an EC2 resource (through the side's own means), tagged with `tags`; its ID. */
  create(kind: Kind, tags: Record<string, string>, account?: string): Promise<string>;
  close(): Promise<void>;
}

const CONTROLLER_KEYS: Keys = {
  accessKeyId: 'AKIAFIDELITYCONTROLLER',
  secretAccessKey: 'fidelity-controller-secret-0123456789',
};

function world(): World {
  const controllerArn = `arn:aws:iam::${ACCOUNT}:user/keymaster-controller`;
  const everything = ['*'];
  return {
    accounts: [
      {
        id: ACCOUNT,
        users: [{ name: 'keymaster-controller', accessKeys: [{ ...CONTROLLER_KEYS }], allow: everything }],
      },
      {
        id: TENANT_ACCOUNT,
        roles: [
          {
            name: 'tenant-b-admin',
            trust: [{ principal: controllerArn, actions: ['sts:AssumeRole', 'sts:TagSession'] }],
            allow: everything,
          },
          {
            name: 'tenant-b-guarded',
            trust: [{ principal: controllerArn, externalId: EXTERNAL_ID }],
            allow: everything,
          },
          { name: 'tenant-b-reader', trust: [{ principal: ROLES.plain }], allow: everything },
        ],
      },
    ],
  };
}

const PREFIXES: Record<Kind, string> = { instance: 'i', volume: 'vol', 'security-group': 'sg' };

/** Our aws-emulator, with a world equal to what the moto side sets up. */
export async function awsEmulatorSide(): Promise<Side> {
  const emulator: AwsEmulator = await startAwsEmulator({ world: world() });
  return {
    name: 'aws-emulator',
    url: emulator.url,
    controller: CONTROLLER_KEYS,
    create: (kind, tags, account = ACCOUNT) => {
      // IDs of EC2's shape (17 hex digits), as moto makes them too.
      const id = `${PREFIXES[kind]}-${randomBytes(9).toString('hex').slice(0, 17)}`;
      emulator.world.putResources({ arn: `arn:aws:ec2:${REGION}:${account}:${kind}/${id}`, tags });
      return Promise.resolve(id);
    },
    close: () => emulator.stop(),
  };
}

/**
 * moto, emptied and set up as the aws-emulator's world: the controller is an IAM user made with moto's
 * IAM API; resources are made with moto's EC2 API. moto has no trust policies: any role can be assumed.
 */
export async function motoSide(moto: Moto): Promise<Side> {
  await moto.reset();
  const controller = await createUser(awsClients(moto.url), 'keymaster-controller');
  const actors = new Map<string, ReturnType<typeof awsClients>>([[ACCOUNT, awsClients(moto.url, controller)]]);
  let groups = 0;
  /** Clients acting in `account`: moto puts what a role's session makes in the role's account. */
  async function actor(account: string) {
    let clients = actors.get(account);
    if (clients === undefined) {
      const { Credentials } = await actors
        .get(ACCOUNT)!
        .sts.send(
          new AssumeRoleCommand({ RoleArn: `arn:aws:iam::${account}:role/builder`, RoleSessionName: 'builder' }),
        );
      clients = awsClients(moto.url, {
        accessKeyId: Credentials!.AccessKeyId!,
        secretAccessKey: Credentials!.SecretAccessKey!,
        sessionToken: Credentials!.SessionToken!,
      });
      actors.set(account, clients);
    }
    return clients;
  }
  return {
    name: 'moto',
    url: moto.url,
    controller,
    async create(kind, tags, account = ACCOUNT) {
      const clients = await actor(account);
      const arn =
        kind === 'instance'
          ? (await runInstances(clients, 1, tags))[0]!
          : kind === 'volume'
            ? await createVolume(clients, account, tags)
            : await createSecurityGroup(clients, `fidelity-${++groups}`, tags);
      return resourceId(arn);
    },
    close: () => Promise.resolve(),
  };
}
