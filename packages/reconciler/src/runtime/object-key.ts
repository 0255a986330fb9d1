/**
 * The key of an object in caches, queues and indexes: `namespace/name`, `/name` when it has no
 * namespace. One spelling, so that keys made in different places meet.
 */
export const objectKey = ({ namespace, name }: { namespace?: string | undefined; name?: string | undefined }): string =>
  `${namespace ?? ''}/${name ?? ''}`;
