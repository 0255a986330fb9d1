import { awsClients, type AwsClients, type Keys } from '../../moto/support/clients.js';
import { ACCOUNT, REGION, type Kind, type Side } from './sides.js';

/** What one request of a sequence answered, normalized so that the two sides can be compared. */
export type Observation =
  | { step: string; status: number | undefined; output: unknown }
  | { step: string; status: number | undefined; error: string; message: string };

/** Fields whose values are made afresh on every answer: compared by their shape only. */
const SECRET = new Set(['SecretAccessKey', 'SessionToken']);
const TOKEN = new Set(['PaginationToken', 'NextToken']);

/**
 * One sequence's run on one side: the requests it made, each answer normalized as it is recorded. IDs
 * the side made up (resources) become names in the order they were made (`instance#1`), secrets and
 * tokens their shape, times their distance from now in minutes, lists AWS promises no order of sorted.
 */
export class Run {
  readonly observations: Observation[] = [];
  readonly #names = new Map<string, string>();
  readonly #counts = new Map<string, number>();

  constructor(readonly side: Side) {}

  /** The SDK's clients signed with `keys` (default: the controller's), in `region`. */
  clients(keys: Keys = this.side.controller, region = REGION): AwsClients {
    return awsClients(this.side.url, keys, region);
  }

  /** Makes a resource on the side, named `<kind>#<n>` in what is recorded; returns its ID. */
  async create(kind: Kind, tags: Record<string, string> = {}, account = ACCOUNT): Promise<string> {
    const id = await this.side.create(kind, tags, account);
    const count = (this.#counts.get(kind) ?? 0) + 1;
    this.#counts.set(kind, count);
    this.#names.set(id, `${kind}#${count}`);
    return id;
  }

  /** `create` for several resources of one kind; their IDs. */
  async createMany(count: number, kind: Kind, tags: (index: number) => Record<string, string>): Promise<string[]> {
    const ids: string[] = [];
    for (let index = 0; index < count; index++) ids.push(await this.create(kind, tags(index)));
    return ids;
  }

  /**
   * Sends one request and records its answer, without the `omit` fields (those another sequence is
   * about); returns the output, or undefined when it failed.
   */
  async call<T>(step: string, send: () => Promise<T>, omit: readonly string[] = []): Promise<T | undefined> {
    const output = await this.attempt(step, send);
    if (output !== undefined) {
      const { $metadata, ...rest } = output as Record<string, unknown> & { $metadata?: { httpStatusCode?: number } };
      const kept = Object.fromEntries(Object.entries(rest).filter(([field]) => !omit.includes(field)));
      this.observations.push({ step, status: $metadata?.httpStatusCode, output: this.normalize(kept) });
    }
    return output;
  }

  /** Sends one request, recording only a failure; returns the output, or undefined when it failed. */
  async attempt<T>(step: string, send: () => Promise<T>): Promise<T | undefined> {
    try {
      return await send();
    } catch (error) {
      const { name, message, $metadata } = error as Error & { $metadata?: { httpStatusCode?: number } };
      this.observations.push({ step, status: $metadata?.httpStatusCode, error: name, message: this.text(message) });
      return undefined;
    }
  }

  /** Records a fact the sequence worked out itself (page sizes, the ARNs found), normalized. */
  note(step: string, value: unknown): void {
    this.observations.push({ step, status: undefined, output: this.normalize(value) });
  }

  /** Resource IDs replaced by their names. */
  text(value: string): string {
    let text = value;
    for (const [id, name] of this.#names) text = text.split(id).join(name);
    return text;
  }

  normalize(value: unknown, key = ''): unknown {
    if (value instanceof Date) return `now${signed(Math.round((value.getTime() - Date.now()) / 60_000))}m`;
    if (typeof value === 'string') return this.#string(key, value);
    // A percentage of limits AWS does not publish: only whether it is there can be compared.
    if (key === 'PackedPolicySize' && typeof value === 'number') return '<percent>';
    if (Array.isArray(value))
      return sortUnordered(
        key,
        value.map((item) => this.normalize(item, key)),
      );
    if (value !== null && typeof value === 'object') {
      const entries = Object.entries(value).filter(([, item]) => item !== undefined);
      return Object.fromEntries(
        entries
          .map(([field, item]) => [this.text(field), this.normalize(item, field)] as const)
          .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
      );
    }
    return value;
  }

  #string(key: string, value: string): string {
    if (SECRET.has(key) && value !== '') return '<secret>';
    if (TOKEN.has(key) && value !== '') return '<token>';
    // Access key and principal IDs: AKIA/ASIA/AIDA/AROA and a random part; a session's ID ends in its name.
    const id = /^(AKIA|ASIA|AIDA|AROA)[A-Z0-9]{12,}(:.*)?$/.exec(value);
    if (id) return `${id[1]}…${id[2] ?? ''}`;
    return this.text(value);
  }
}

const signed = (n: number) => (n < 0 ? `${n}` : `+${n}`);

/** Lists whose order AWS does not specify, sorted by what identifies an item. */
function sortUnordered(key: string, items: unknown[]): unknown[] {
  const by = (item: unknown) => {
    const record = item as Record<string, unknown>;
    return JSON.stringify([record.ResourceARN ?? record.ResourceId ?? record.arn ?? '', record.Key ?? '', record]);
  };
  if (['ResourceTagMappingList', 'Tags', 'TagKeys', 'TagValues', 'resources'].includes(key)) {
    return [...items].sort((a, b) => (by(a) < by(b) ? -1 : by(a) > by(b) ? 1 : 0));
  }
  return items;
}
