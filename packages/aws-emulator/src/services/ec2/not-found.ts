import { ApiError } from '../../protocols/api-error.js';

/** EC2's error for an ID it does not know, by the ID's prefix; unknown prefixes are `InvalidID`. */
const NOT_FOUND: Record<string, [code: string, describe: (id: string) => string]> = {
  i: ['InvalidInstanceID.NotFound', (id) => `The instance ID '${id}' does not exist`],
  vpc: ['InvalidVpcID.NotFound', (id) => `The vpc ID '${id}' does not exist`],
  subnet: ['InvalidSubnetID.NotFound', (id) => `The subnet ID '${id}' does not exist`],
  sg: ['InvalidGroup.NotFound', (id) => `The security group '${id}' does not exist`],
  vol: ['InvalidVolume.NotFound', (id) => `The volume '${id}' does not exist.`],
  igw: ['InvalidInternetGatewayID.NotFound', (id) => `The internetGateway ID '${id}' does not exist`],
  rtb: ['InvalidRouteTableID.NotFound', (id) => `The routeTable ID '${id}' does not exist`],
  nat: ['InvalidNatGatewayID.NotFound', (id) => `The natGateway ID '${id}' does not exist`],
  eipalloc: ['InvalidAllocationID.NotFound', (id) => `The allocation ID '${id}' does not exist`],
  eni: ['InvalidNetworkInterfaceID.NotFound', (id) => `The networkInterface ID '${id}' does not exist`],
  ami: ['InvalidAMIID.NotFound', (id) => `The image id '[${id}]' does not exist`],
  snap: ['InvalidSnapshot.NotFound', (id) => `The snapshot '${id}' does not exist.`],
  lt: [
    'InvalidLaunchTemplateId.NotFound',
    (id) => `The specified launch template, with template ID ${id}, does not exist.`,
  ],
};

export function ec2NotFound(id: string): ApiError {
  const prefix = /^([a-z]+)-[0-9a-f]+$/.exec(id)?.[1];
  const known = prefix === undefined ? undefined : NOT_FOUND[prefix];
  if (known === undefined) return new ApiError('InvalidID', `The ID '${id}' is not valid`);
  return new ApiError(known[0], known[1](id));
}
