import { expect } from 'chai';
import { withEmulator } from './support/emulator.js';
import { signer } from './support/signer.js';
import { CONTROLLER } from './support/world.js';

describe('dispatching calls', () => {
  const context = withEmulator();

  /** Sends a request signed by smithy's signer, as the SDK would, with a body the SDK would not send. */
  async function signedCall(service: string, headers: Record<string, string>, body: string) {
    const { hostname, port } = new URL(context.emulator.url);
    const request = await signer(CONTROLLER, service).sign({
      method: 'POST',
      protocol: 'http:',
      hostname,
      port: Number(port),
      path: '/',
      headers: { host: `${hostname}:${port}`, ...headers },
      body,
    });
    const response = await fetch(`${context.emulator.url}/`, { method: 'POST', headers: request.headers, body });
    return { status: response.status, text: await response.text() };
  }
  const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
  const JSON_11 = { 'content-type': 'application/x-amz-json-1.1' };

  it('answers an unknown STS action with InvalidAction', async () => {
    const { status, text } = await signedCall('sts', FORM, 'Action=GetSessionToken&Version=2011-06-15');
    expect(status).to.equal(400);
    expect(text).to.contain(
      '<Code>InvalidAction</Code><Message>Could not find operation GetSessionToken for version 2011-06-15</Message>',
    );
  });

  it('answers an unknown EC2 action with InvalidAction in EC2’s error shape', async () => {
    const { text } = await signedCall('ec2', FORM, 'Action=RunInstances&Version=2016-11-15');
    expect(text).to.match(/<Response><Errors><Error><Code>InvalidAction<\/Code>/);
  });

  it('answers an unknown tagging target with UnknownOperationException', async () => {
    const { status, text } = await signedCall(
      'tagging',
      { ...JSON_11, 'x-amz-target': 'ResourceGroupsTaggingAPI_20170126.StartReportCreation' },
      '{}',
    );
    expect(status).to.equal(400);
    expect(JSON.parse(text)).to.have.property('__type', 'UnknownOperationException');
  });

  it('answers a tagging body that is not JSON with SerializationException', async () => {
    const { text } = await signedCall(
      'tagging',
      { ...JSON_11, 'x-amz-target': 'ResourceGroupsTaggingAPI_20170126.GetResources' },
      '{',
    );
    expect(JSON.parse(text)).to.deep.equal({
      __type: 'SerializationException',
      message: 'The request body is not valid JSON.',
    });
  });

  it('answers a malformed Authorization header with IncompleteSignature', async () => {
    const response = await fetch(`${context.emulator.url}/`, {
      method: 'POST',
      headers: {
        ...FORM,
        authorization: 'AWS4-HMAC-SHA256 Credential=AKIAEXAMPLECONTROLLER/20240101/us-west-2/sts/aws4_request',
      },
      body: 'Action=GetCallerIdentity&Version=2011-06-15',
    });
    expect(response.status).to.equal(400);
    const text = await response.text();
    expect(text).to.contain('<Code>IncompleteSignature</Code>');
    expect(text).to.contain("Authorization header requires 'SignedHeaders' parameter.");
  });

  it('records refused and unknown calls under the IAM name of what they asked for', async () => {
    await signedCall('sts', FORM, 'Action=GetSessionToken&Version=2011-06-15');
    expect(context.emulator.calls.summary().errors).to.deep.equal({ 'sts:GetSessionToken': { InvalidAction: 1 } });
  });
});
