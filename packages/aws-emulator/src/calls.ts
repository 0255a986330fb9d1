/** One API call as the emulator saw it. Never holds secrets: no secret keys, session tokens or signatures. */
export interface CallRecord {
  /** The emulator's clock when the call arrived (ISO 8601). */
  readonly time: string;
  /** The SigV4 signing name: `sts`, `ec2`, `tagging`. */
  readonly service: string;
  /** The action as IAM names it: `sts:AssumeRole`, `tag:TagResources`, `ec2:CreateTags`. */
  readonly action: string;
  readonly region?: string;
  readonly account?: string;
  /** The caller's ARN; for a refused signature, the ARN of the access key's owner when the key exists. */
  readonly callerArn?: string;
  readonly accessKeyId?: string;
  readonly outcome: 'success' | 'error';
  readonly errorCode?: string;
  readonly status: number;
  readonly requestId: string;
  /** Facts of the call: the role and ExternalId of an AssumeRole, the ARNs a tagging call touched, ... */
  readonly detail?: Readonly<Record<string, unknown>>;
}

/** `GET /_emulator/calls`: counts of every call since the last reset, and the most recent calls. */
export interface CallSummary {
  readonly total: number;
  readonly byAction: Record<string, number>;
  /** Per caller ARN (`anonymous` when the caller is unknown), the count of each action. */
  readonly byCaller: Record<string, Record<string, number>>;
  /** Per action, the count of each error code. */
  readonly errors: Record<string, Record<string, number>>;
  /** The latest calls, oldest first. */
  readonly recent: readonly CallRecord[];
}

export const ANONYMOUS = 'anonymous';

/** Counts every call, failed ones too, and keeps the most recent `keep` of them. */
export class CallLog {
  #total = 0;
  #byAction: Record<string, number> = {};
  #byCaller: Record<string, Record<string, number>> = {};
  #errors: Record<string, Record<string, number>> = {};
  #recent: CallRecord[] = [];

  constructor(private readonly keep = 1000) {}

  record(call: CallRecord): void {
    this.#total++;
    increment(this.#byAction, call.action);
    increment((this.#byCaller[call.callerArn ?? ANONYMOUS] ??= {}), call.action);
    if (call.errorCode !== undefined) increment((this.#errors[call.action] ??= {}), call.errorCode);
    this.#recent.push(call);
    if (this.#recent.length > this.keep * 2) this.#recent = this.#recent.slice(-this.keep);
  }

  /** The counts and the latest `recent` calls (at most the `keep` latest; 0: counts only, cheap to poll). */
  summary(recent = this.keep): CallSummary {
    const latest = Math.min(recent, this.keep);
    return structuredClone({
      total: this.#total,
      byAction: this.#byAction,
      byCaller: this.#byCaller,
      errors: this.#errors,
      recent: latest > 0 ? this.#recent.slice(-latest) : [],
    });
  }

  reset(): void {
    this.#total = 0;
    this.#byAction = {};
    this.#byCaller = {};
    this.#errors = {};
    this.#recent = [];
  }
}

function increment(counts: Record<string, number>, key: string): void {
  counts[key] = (counts[key] ?? 0) + 1;
}
