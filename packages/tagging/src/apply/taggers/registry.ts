import { arnService } from '../../arn.js';
import { groupBy } from '../group-by.js';
import type { WriteAction } from '../types.js';
import { EC2_TAGGER } from './ec2-tagger.js';
import { TAGGING_API_TAGGER } from './tagging-api-tagger.js';
import type { TaggerKind } from './tagger.js';

/**
 * The tagger of each resource, by its ARN's service: the services with a tagger of their own, the
 * Resource Groups Tagging API for every other.
 */
export class Taggers {
  readonly #byService: ReadonlyMap<string, TaggerKind>;

  constructor(readonly own: readonly TaggerKind[]) {
    this.#byService = new Map(own.map((kind) => [kind.name, kind]));
  }

  /** The tagger of the resource `arn` names. */
  of(arn: string): TaggerKind {
    return this.#byService.get(arnService(arn)) ?? TAGGING_API_TAGGER;
  }

  /** `arns` by their tagger, taggers in the order they first appear. */
  group(arns: readonly string[]): [TaggerKind, string[]][] {
    return groupBy(
      arns,
      (arn) => this.of(arn),
      ({ name }) => name,
    );
  }

  /** The tagger that makes writes of `action`. */
  ofAction(action: WriteAction): TaggerKind {
    return this.own.find(({ actions }) => action === actions.set || action === actions.remove) ?? TAGGING_API_TAGGER;
  }
}

/** Keymaster's taggers. A new service is its tagger's file and one entry here. */
export const TAGGERS = new Taggers([EC2_TAGGER]);
