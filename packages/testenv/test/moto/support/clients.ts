import { EC2Client } from '@aws-sdk/client-ec2';
import { ElasticLoadBalancingV2Client } from '@aws-sdk/client-elastic-load-balancing-v2';
import { IAMClient } from '@aws-sdk/client-iam';
import { ResourceGroupsTaggingAPIClient } from '@aws-sdk/client-resource-groups-tagging-api';
import { STSClient } from '@aws-sdk/client-sts';

// The SDK warns once per process that its releases after January 2027 need Node 22; this project runs Node 20.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

export const REGION = 'us-west-2';
/** The account moto acts in for keys it did not issue through AssumeRole. */
export const MOTO_ACCOUNT = '123456789012';

export interface Keys {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken?: string;
}

/** Keys moto never issued: it accepts any, in its default account. */
export const ANY_KEYS: Keys = { accessKeyId: 'AKIAEXAMPLEANYKEYS01', secretAccessKey: 'any-secret' };

/** The real AWS SDK's clients for one endpoint, region and credentials; one attempt, so no retry hides an error. */
export function awsClients(endpoint: string, keys: Keys = ANY_KEYS, region = REGION) {
  // A copy: the SDK writes its own bookkeeping into the credentials object it is given.
  const options = { endpoint, region, credentials: { ...keys }, maxAttempts: 1 };
  return {
    sts: new STSClient(options),
    ec2: new EC2Client(options),
    tagging: new ResourceGroupsTaggingAPIClient(options),
    elb: new ElasticLoadBalancingV2Client(options),
    iam: new IAMClient(options),
  };
}

export type AwsClients = ReturnType<typeof awsClients>;
