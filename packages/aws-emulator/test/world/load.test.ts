import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetCallerIdentityCommand } from '@aws-sdk/client-sts';
import { expect } from 'chai';
import { InvalidWorldError, loadWorldFile, startAwsEmulator } from '../../src/index.js';
import { stsClient } from '../support/clients.js';

const YAML_WORLD = `
accounts:
  - id: "111111111111"
    users:
      - name: keymaster-controller
        accessKeys: [{accessKeyId: AKIAEXAMPLECONTROLLER, secretAccessKey: "s3cr3t"}]
        allow: ["sts:AssumeRole"]
    resources:
      - arn: "arn:aws:ec2:us-west-2:111111111111:instance/i-0123456789abcdef0"
        tags: {"sigs.k8s.io/cluster-api-provider-aws/cluster/prod-1": owned}
`;

describe('world files', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'aws-world-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('reads YAML and JSON alike', async () => {
    await writeFile(join(dir, 'world.yaml'), YAML_WORLD);
    const fromYaml = await loadWorldFile(join(dir, 'world.yaml'));
    await writeFile(join(dir, 'world.json'), JSON.stringify(fromYaml));
    expect(await loadWorldFile(join(dir, 'world.json'))).to.deep.equal(fromYaml);
    expect(fromYaml.accounts[0]!.resources![0]!.tags).to.deep.equal({
      'sigs.k8s.io/cluster-api-provider-aws/cluster/prod-1': 'owned',
    });
  });

  it('starts an emulator from a file path', async () => {
    await writeFile(join(dir, 'world.yaml'), YAML_WORLD);
    const emulator = await startAwsEmulator({ world: join(dir, 'world.yaml') });
    try {
      const keys = { accessKeyId: 'AKIAEXAMPLECONTROLLER', secretAccessKey: 's3cr3t' };
      const identity = await stsClient(emulator.url, keys).send(new GetCallerIdentityCommand({}));
      expect(identity.Arn).to.equal('arn:aws:iam::111111111111:user/keymaster-controller');
    } finally {
      await emulator.stop();
    }
  });

  it('says which file cannot be read or parsed', async () => {
    const missing = join(dir, 'missing.yaml');
    await expectRefusal(loadWorldFile(missing), `cannot read the world file ${missing}`);
    await writeFile(join(dir, 'broken.yaml'), 'accounts: [');
    await expectRefusal(loadWorldFile(join(dir, 'broken.yaml')), 'is not valid YAML or JSON');
  });
});

async function expectRefusal(promise: Promise<unknown>, text: string): Promise<void> {
  try {
    await promise;
  } catch (error) {
    expect(error).to.be.instanceOf(InvalidWorldError);
    expect((error as Error).message).to.contain(text);
    return;
  }
  expect.fail('the world file was accepted');
}
