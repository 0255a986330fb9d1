import {
  GetResourcesCommand,
  type GetResourcesCommandInput,
  type ResourceGroupsTaggingAPIClient,
} from '@aws-sdk/client-resource-groups-tagging-api';
import type { Run } from '../run.js';

/** One request sequence of the corpus: sent to both sides, its observations compared. */
export interface Sequence {
  /** `service/what-it-does`: unique, and the key of its explanation when the sides differ. */
  readonly name: string;
  run(run: Run): Promise<void>;
}

/**
 * Every page of a GetResources query, recorded as one observation: the size of each page and what
 * was found, sorted (pages split resources in an order AWS does not specify). A failing page is
 * recorded as its error.
 */
export async function getAllResources(
  run: Run,
  step: string,
  input: GetResourcesCommandInput,
  tagging: ResourceGroupsTaggingAPIClient = run.clients().tagging,
): Promise<void> {
  const pages: number[] = [];
  const resources: { arn: string; tags: Record<string, string> }[] = [];
  let token: string | undefined;
  do {
    // A page itself is not compared: what it holds depends on the order of the IDs each side made up.
    const page = await run.attempt(step, () =>
      tagging.send(new GetResourcesCommand({ ...input, ...(token ? { PaginationToken: token } : {}) })),
    );
    if (page === undefined) return;
    pages.push(page.ResourceTagMappingList?.length ?? 0);
    for (const { ResourceARN, Tags } of page.ResourceTagMappingList ?? []) {
      const tags = Object.fromEntries((Tags ?? []).map(({ Key, Value }) => [Key!, Value ?? '']));
      resources.push({ arn: ResourceARN!, tags });
    }
    token = page.PaginationToken;
  } while (token);
  run.note(step, { pages, resources });
}
