import { expect } from 'chai';
import { arnRegion, arnService } from '../src/arn.js';

describe('arnRegion', () => {
  const cases: [arn: string, region: string | undefined][] = [
    ['arn:aws:ec2:eu-west-1:111122223333:instance/i-1', 'eu-west-1'],
    ['arn:aws:elasticloadbalancing:us-east-1:111122223333:loadbalancer/app/a/1', 'us-east-1'],
    ['arn:aws:s3:::bucket', ''],
    ['arn:aws:iam::111122223333:role/a:b', ''],
    ['arn:aws:ec2:eu-west-1:111122223333:', 'eu-west-1'],
    ['arn:aws:ec2:eu-west-1:111122223333', undefined],
    ['arn::ec2:eu-west-1:111122223333:x', undefined],
    ['arn:aws::eu-west-1:111122223333:x', undefined],
    ['arnx:aws:ec2:eu-west-1:111122223333:x', undefined],
    ['urn:aws:ec2:eu-west-1:111122223333:x', undefined],
    ['i-0abc', undefined],
    ['', undefined],
  ];
  for (const [arn, region] of cases)
    it(`${JSON.stringify(arn)} -> ${String(region === undefined ? region : JSON.stringify(region))}`, () =>
      expect(arnRegion(arn)).to.equal(region));
});

describe('arnService', () => {
  const cases: [arn: string, service: string][] = [
    ['arn:aws:ec2:eu-west-1:111122223333:instance/i-1', 'ec2'],
    ['arn:aws:s3:::bucket', 's3'],
    ['arn:aws:ec2', 'ec2'],
    ['arn:aws', ''],
    ['arn:aws:', ''],
    ['', ''],
  ];
  for (const [arn, service] of cases)
    it(`${JSON.stringify(arn)} -> ${JSON.stringify(service)}`, () => expect(arnService(arn)).to.equal(service));
});
