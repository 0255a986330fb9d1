import { expect } from 'chai';
import { join } from 'node:path';
import { capaManagerArgs, capaManagerBinary } from '../../src/capa/manager.js';
import { capaVersion } from '../../src/capa/installation.js';

describe("CAPA's manager", () => {
  it('is kept per CAPA release in the cache dir', () => {
    expect(capaManagerBinary('/cache')).to.equal(join('/cache', 'capa-manager', `v${capaVersion()}`, 'manager'));
  });

  describe('its command line', () => {
    const args = capaManagerArgs(
      { awsUrl: 'http://127.0.0.1:5000', region: 'eu-west-1' },
      { certDir: '/certs', port: 40123 },
    );
    const flag = (name: string) => args.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3);

    it("sends every service CAPA's AWSCluster controller calls to the one URL, signed for the region", () => {
      // CAPA's format: REGION:SERVICE=URL,SERVICE=URL...
      const value = flag('service-endpoints')!;
      const region = value.slice(0, value.indexOf(':'));
      expect(region).to.equal('eu-west-1');
      const pairs = value
        .slice(region.length + 1)
        .split(',')
        .map((pair) => pair.split('='));
      expect(pairs.map(([service]) => service)).to.include.members(['ec2', 'elasticloadbalancing', 'tagging', 'sts']);
      expect(new Set(pairs.map(([, url]) => url))).to.deep.equal(new Set(['http://127.0.0.1:5000']));
    });

    it('serves its webhooks on the port given (0 would be 9443, shared by every manager)', () => {
      expect(flag('webhook-port')).to.equal('40123');
      expect(flag('webhook-cert-dir')).to.equal('/certs');
    });

    it('listens only on free loopback ports, and runs no EKS or machine pool controller', () => {
      expect(flag('health-addr')).to.equal('127.0.0.1:0');
      expect(flag('diagnostics-address')).to.equal('127.0.0.1:0');
      expect(flag('feature-gates')).to.equal('EKS=false,MachinePool=false');
    });

    it('reconciles every cluster again within seconds, not the default 10 minutes', () => {
      expect(flag('sync-period')).to.equal('10s');
    });
  });
});
