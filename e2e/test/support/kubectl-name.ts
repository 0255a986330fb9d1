/** `kind.group/name` as kubectl prints objects (`customresourcedefinition.apiextensions.k8s.io/NAME`). */
export const kubectlName = ({
  apiVersion = '',
  kind = '',
  metadata = {},
}: {
  apiVersion?: string;
  kind?: string;
  metadata?: { name?: string };
}) => {
  const group = apiVersion.includes('/') ? `.${apiVersion.split('/')[0]!}` : '';
  return `${kind.toLowerCase()}${group}/${metadata.name ?? ''}`;
};
