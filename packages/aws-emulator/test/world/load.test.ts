import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetResourcesCommand } from '@aws-sdk/client-resource-groups-tagging-api';
import { GetCallerIdentityCommand } from '@aws-sdk/client-sts';
import { expect } from 'chai';
import { InvalidWorldError, loadWorldFile, startAwsEmulator } from '../../src/index.js';
import { stsClient, taggingClient } from '../support/clients.js';

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

  it("holds EKS clusters' names and tags as written, and GetResources matches them exactly, in case too", async () => {
    // CAPA's default EKS name is <namespace>_<name>; two names differing in case are two EKS clusters.
    const instance = (id: string) => `arn:aws:ec2:us-west-2:111111111111:instance/i-${id.padStart(17, '0')}`;
    const loadBalancer =
      'arn:aws:elasticloadbalancing:us-west-2:111111111111:loadbalancer/net/k8s-web/0123456789abcdef';
    const world = `
accounts:
  - id: "111111111111"
    users:
      - name: keymaster-controller
        accessKeys: [{accessKeyId: AKIAEXAMPLECONTROLLER, secretAccessKey: "s3cr3t"}]
        allow: ["tag:GetResources"]
    resources:
      - arn: "${instance('1')}"
        tags: {"kubernetes.io/cluster/tenant-a_prod-EKS": owned}
      - arn: "${loadBalancer}"
        tags: {"elbv2.k8s.aws/cluster": tenant-a_prod-EKS, "elbv2.k8s.aws/resource": LoadBalancer}
      - arn: "${instance('2')}"
        tags: {"kubernetes.io/cluster/tenant-a_prod-eks": owned, "elbv2.k8s.aws/cluster": tenant-a_prod-eks}
`;
    await writeFile(join(dir, 'world.yaml'), world);
    expect((await loadWorldFile(join(dir, 'world.yaml'))).accounts[0]!.resources![1]!.tags).to.deep.equal({
      'elbv2.k8s.aws/cluster': 'tenant-a_prod-EKS',
      'elbv2.k8s.aws/resource': 'LoadBalancer',
    });
    const emulator = await startAwsEmulator({ world: join(dir, 'world.yaml') });
    try {
      const tagging = taggingClient(emulator.url, {
        accessKeyId: 'AKIAEXAMPLECONTROLLER',
        secretAccessKey: 's3cr3t',
      });
      const arns = async (Key: string, Values: string[]) =>
        (await tagging.send(new GetResourcesCommand({ TagFilters: [{ Key, Values }] }))).ResourceTagMappingList!.map(
          (mapping) => mapping.ResourceARN,
        );
      expect(await arns('kubernetes.io/cluster/tenant-a_prod-EKS', ['owned'])).to.deep.equal([instance('1')]);
      expect(await arns('kubernetes.io/cluster/tenant-a_prod-eks', ['owned'])).to.deep.equal([instance('2')]);
      expect(await arns('elbv2.k8s.aws/cluster', ['tenant-a_prod-EKS'])).to.deep.equal([loadBalancer]);
      expect(await arns('elbv2.k8s.aws/cluster', ['tenant-a_prod-eks'])).to.deep.equal([instance('2')]);
      expect(await arns('elbv2.k8s.aws/cluster', ['tenant-a_prod'])).to.deep.equal([]);
      expect(await arns('Elbv2.k8s.aws/cluster', ['tenant-a_prod-EKS'])).to.deep.equal([]);
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
