import { setTimeout as sleep } from 'node:timers/promises';
import { pinnedVersions } from '../../../src/kube/binaries.js';
import { differences, type Difference } from './compare.js';
import { EXPLAINED, type Explanation } from './explained.js';
import { send, type HttpAnswer, type Target } from './http.js';
import { Issued, observe, warningsOf, type Observed } from './normalize.js';
import { CONTENT_TYPES, fill, type Sequence, type Step } from './sequence.js';
import type { Servers } from './servers.js';

export interface Found extends Difference {
  /** The explanation that accepts it, when one does. */
  explanation?: Explanation;
}

export interface SequenceResult {
  sequence: Sequence;
  /** What each server answered, normalized, step by step (for failure messages). */
  answers: { emulator: Observed[]; real: Observed[] };
  differences: Found[];
}

const UNTIL_MS = 30_000;

/** One server's run of a sequence: its own namespace-filled requests and its own earlier answers. */
class Session {
  readonly bodies: unknown[] = [];
  readonly issued = new Issued();

  constructor(
    readonly target: Target,
    private readonly servers: Servers,
    private readonly namespace: string,
  ) {}

  async run(step: Step): Promise<Observed> {
    const [method, path] = step.request.split(' ') as [string, string];
    const body = step.body === undefined ? undefined : fill(step.body, this.namespace, this.bodies);
    const type = step.type === undefined ? undefined : (CONTENT_TYPES[step.type] ?? step.type);
    const request = {
      method,
      path: fill(path, this.namespace, this.bodies),
      token: this.servers.tokens[step.as ?? 'admin'],
      headers: {
        ...(body === undefined ? {} : { 'content-type': type ?? 'application/json' }),
        ...(step.accept === undefined ? {} : { accept: step.accept }),
        ...fill(step.headers, this.namespace, this.bodies),
      },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
      ...(step.watch === undefined ? {} : { maxEvents: step.watch }),
    };
    let answer: HttpAnswer = await send(this.target, request);
    const deadline = Date.now() + UNTIL_MS;
    while (step.until !== undefined && !arrived(step.until, answer) && Date.now() < deadline) {
      await sleep(200);
      answer = await send(this.target, request);
    }
    this.bodies.push(answer.events ?? parseOrText(answer.text));
    return observe(answer, this.issued, step.pick);
  }
}

function arrived(until: NonNullable<Step['until']>, answer: HttpAnswer): boolean {
  if (typeof until === 'number') return answer.status === until;
  const warnings = warningsOf(answer.headers.warning) ?? [];
  return until({ status: answer.status, body: answer.events ?? parseOrText(answer.text), warnings });
}

function parseOrText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** The explanations of the Kubernetes version the real server runs (KEYMASTER_KUBE_VERSION's). */
export function applicableExplanations(): Explanation[] {
  const { kube } = pinnedVersions();
  return EXPLAINED.filter((entry) => entry.kube?.test(kube) ?? true);
}

function explain(sequence: Sequence, difference: Difference): Found {
  const explanation = applicableExplanations().find(
    (entry) => entry.sequences.test(sequence.name) && entry.paths.test(difference.path),
  );
  return explanation ? { ...difference, explanation } : difference;
}

/** The namespace of the sequence at `index`: each sequence works in its own. */
export const namespaceOf = (index: number): string => `fid-${index}`;

/** Sends a sequence to both servers, step by step (both at once), and compares the normalized answers. */
export async function runSequence(servers: Servers, sequence: Sequence, index: number): Promise<SequenceResult> {
  const namespace = namespaceOf(index);
  const sessions = [servers.emulator, servers.real].map((target) => new Session(target, servers, namespace)) as [
    Session,
    Session,
  ];
  const setup: Step = { request: 'POST /api/v1/namespaces', body: { metadata: { name: namespace } } };
  await Promise.all(sessions.map((session) => session.run(setup)));
  sessions.forEach((session) => session.bodies.pop());
  const answers = { emulator: [] as Observed[], real: [] as Observed[] };
  const found: Found[] = [];
  try {
    for (const [number, step] of sequence.steps.entries()) {
      const [emulator, real] = await Promise.all(sessions.map((session) => session.run(step)));
      answers.emulator.push(emulator!);
      answers.real.push(real!);
      for (const difference of differences(emulator, real, `steps[${number}]`))
        found.push(explain(sequence, difference));
    }
  } finally {
    for (const path of sequence.cleanup ?? []) {
      await Promise.all(sessions.map((session) => session.run({ request: `DELETE ${path}` })));
    }
  }
  return { sequence, answers, differences: found };
}
