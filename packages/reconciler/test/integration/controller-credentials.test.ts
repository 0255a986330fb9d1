import { PassThrough } from 'node:stream';
import { API_VERSION, type AWSCluster } from '@keymaster/api';
import { expect } from 'chai';
import { createControllerLogger } from '../../src/logging.js';
import { CONTROLLER_KEYS, TEAM_A, condition, eventually, startPlatform, type Platform } from './harness.js';

/** The process environment of a pod: only what `env` gives, no shared config files, no instance metadata. */
function podEnvironment(env: Record<string, string>): () => void {
  const saved = process.env;
  process.env = {
    ...Object.fromEntries(Object.entries(saved).filter(([name]) => !name.startsWith('AWS_'))),
    AWS_EC2_METADATA_DISABLED: 'true',
    AWS_SHARED_CREDENTIALS_FILE: '/nonexistent/keymaster-test/credentials',
    AWS_CONFIG_FILE: '/nonexistent/keymaster-test/config',
    ...env,
  };
  return () => (process.env = saved);
}

const OBJECTS = [
  ...TEAM_A,
  {
    apiVersion: API_VERSION,
    kind: 'AWSCluster',
    metadata: { name: 'prod', namespace: 'team-a' },
    spec: { region: 'us-west-2' },
  },
];

interface IdentityStatus {
  status?: { conditions?: { type: string; status: string; reason: string; message: string }[] };
}

describe("the start-up check of the controller's own credentials (the SDK's default chain)", function () {
  this.timeout(60_000);
  let platform: Platform | undefined;
  let restore: (() => void) | undefined;
  let log: string;
  afterEach(async () => {
    await platform?.stop();
    restore?.();
  });

  async function start(env: Record<string, string>): Promise<Platform> {
    restore = podEnvironment(env);
    const stream = new PassThrough();
    log = '';
    stream.on('data', (chunk: Buffer) => (log += chunk.toString()));
    platform = await startPlatform(OBJECTS, [], {
      defaultCredentialChain: true,
      logger: createControllerLogger('info', 'json', stream),
    });
    return platform;
  }

  const credentialsAvailable = async (p: Platform) =>
    (await p.get<IdentityStatus>('awsclustercontrolleridentities', 'default')).status?.conditions?.find(
      ({ type }) => type === 'CredentialsAvailable',
    );

  it('none found: logged with the fix, exported as source="none", CredentialsAvailable False, and clusters told it is the controller', async () => {
    const p = await start({});
    const available = await eventually(async () => {
      const found = await credentialsAvailable(p);
      expect(found?.status).to.equal('False');
      return found!;
    });
    expect(available.reason).to.equal('NoCredentials');
    expect(available.message).to.include('Could not load credentials from any providers').and.include('IRSA');
    expect(await p.controller.metrics.registry.getSingleMetricAsString('keymaster_controller_credentials')).to.include(
      'keymaster_controller_credentials{source="none"} 1',
    );
    const line = log.split('\n').find((text) => text.includes('controller credentials: none found'));
    expect(JSON.parse(line!)).to.include({ level: 'warn', source: 'none' });
    const cluster: AWSCluster = await eventually(async () => {
      const found = await p.cluster('team-a', 'prod');
      expect(condition(found, 'PrincipalCredentialRetrieved')?.reason).to.equal('ControllerCredentialsUnavailable');
      return found;
    });
    expect(condition(cluster, 'Ready')?.message).to.include("the controller's own AWS credentials could not be loaded");
  });

  it('keys in the environment: source="environment", CredentialsAvailable True, and the cluster Ready', async () => {
    const p = await start({
      AWS_ACCESS_KEY_ID: CONTROLLER_KEYS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: CONTROLLER_KEYS.secretAccessKey,
    });
    const available = await eventually(async () => {
      const found = await credentialsAvailable(p);
      expect(found?.status).to.equal('True');
      return found!;
    });
    expect(available).to.include({ reason: 'CredentialsFound' });
    expect(available.message).to.include('source environment').and.not.include(CONTROLLER_KEYS.secretAccessKey);
    expect(await p.controller.metrics.registry.getSingleMetricAsString('keymaster_controller_credentials')).to.include(
      'keymaster_controller_credentials{source="environment"} 1',
    );
    expect(log).to.include('"message":"controller credentials"').and.not.include(CONTROLLER_KEYS.secretAccessKey);
    await eventually(async () =>
      expect(condition(await p.cluster('team-a', 'prod'), 'Ready')?.status).to.equal('True'),
    );
  });
});
