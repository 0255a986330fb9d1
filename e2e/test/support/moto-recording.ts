import { readFile } from 'node:fs/promises';
import { TAG_WRITES } from './aws-facts.js';

/** A request moto answered, as its recorder wrote it (`startMoto({ recordTo })`). */
interface RecordedRequest {
  headers: Record<string, string>;
  body: string | null;
  body_encoded: boolean;
}

/** Who called which action: the caller by its access key ID, from the request's signature. */
export interface RecordedCall {
  accessKeyId: string;
  action: string;
}

/** Calls that change tags: the aws-emulator's list (`TAG_WRITES`) and ELB's, which CAPA tags with. */
export const TAG_WRITE_ACTIONS = [...TAG_WRITES.map((action) => action.split(':')[1]!), 'AddTags', 'RemoveTags'];

const header = (headers: Record<string, string>, name: string): string =>
  Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1] ?? '';

/**
 * The calls in moto's recording, oldest first. The action is the query protocol's `Action=` (EC2, ELB,
 * STS) or the JSON protocol's `X-Amz-Target` (the tagging API); the caller, the access key ID of the
 * SigV4 `Authorization` header (an ID, never a secret).
 */
export async function recordedCalls(file: string): Promise<RecordedCall[]> {
  // No file yet: moto has answered nothing.
  const text = await readFile(file, 'utf8').catch((error: unknown) => {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return '';
    throw error;
  });
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const { headers, body, body_encoded } = JSON.parse(line) as RecordedRequest;
      const text = body_encoded ? Buffer.from(body ?? '', 'base64').toString('utf8') : (body ?? '');
      const action = /(?:^|&)Action=(\w+)/.exec(text)?.[1] ?? header(headers, 'x-amz-target').split('.').pop() ?? '';
      const accessKeyId = /Credential=(\w+)\//.exec(header(headers, 'authorization'))?.[1] ?? '';
      return { accessKeyId, action };
    });
}
