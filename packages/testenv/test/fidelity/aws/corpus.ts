import type { Moto } from '../../../src/moto/server.js';
import { Run, type Observation } from './run.js';
import { ec2Sequences } from './sequences/ec2.js';
import type { Sequence } from './sequences/sequence.js';
import { stsSequences } from './sequences/sts.js';
import { taggingSequences } from './sequences/tagging.js';
import { awsEmulatorSide, motoSide, type Side } from './sides.js';

export const CORPUS: readonly Sequence[] = [...stsSequences, ...taggingSequences, ...ec2Sequences];

/** One step whose observations differ between the sides (either may be missing: a sequence cut short). */
export interface Difference {
  step: string;
  awsEmulator?: Observation;
  moto?: Observation;
}

/** A sequence's observations on both sides, and every step where they differ. */
export interface Comparison {
  name: string;
  awsEmulator: Observation[];
  moto: Observation[];
  differences: Difference[];
}

async function observe(sequence: Sequence, side: Side): Promise<Observation[]> {
  const run = new Run(side);
  try {
    await sequence.run(run);
  } finally {
    await side.close();
  }
  return run.observations;
}

function differences(awsEmulator: Observation[], moto: Observation[]): Difference[] {
  const found: Difference[] = [];
  for (let index = 0; index < Math.max(awsEmulator.length, moto.length); index++) {
    const [ours, theirs] = [awsEmulator[index], moto[index]];
    if (JSON.stringify(ours) === JSON.stringify(theirs)) continue;
    found.push({
      step: (ours ?? theirs)!.step,
      ...(ours ? { awsEmulator: ours } : {}),
      ...(theirs ? { moto: theirs } : {}),
    });
  }
  return found;
}

/** Sends every sequence of the corpus to a fresh aws-emulator and to a freshly reset moto, and compares. */
export async function compareCorpus(
  moto: Moto,
  progress: (comparison: Comparison) => void = () => undefined,
): Promise<Comparison[]> {
  const comparisons: Comparison[] = [];
  for (const sequence of CORPUS) {
    const awsEmulator = await observe(sequence, await awsEmulatorSide());
    const onMoto = await observe(sequence, await motoSide(moto));
    const comparison = {
      name: sequence.name,
      awsEmulator,
      moto: onMoto,
      differences: differences(awsEmulator, onMoto),
    };
    comparisons.push(comparison);
    progress(comparison);
  }
  return comparisons;
}
