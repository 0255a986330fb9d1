import type { Sequence } from '../sequence.js';
import { admission } from './admission.js';
import { applies } from './apply.js';
import { conflict } from './conflict.js';
import { crud } from './crud.js';
import { deletion } from './deletion.js';
import { discovery } from './discovery.js';
import { list } from './list.js';
import { namespace } from './namespace.js';
import { patch } from './patch.js';
import { quota } from './quota.js';
import { rbac } from './rbac.js';
import { status } from './status.js';
import { validation } from './validation.js';
import { watch } from './watch.js';

/** Every sequence of the corpus; names are unique. */
export const CORPUS: Sequence[] = [
  ...crud,
  ...patch,
  ...applies,
  ...status,
  ...conflict,
  ...list,
  ...watch,
  ...deletion,
  ...namespace,
  ...validation,
  ...admission,
  ...quota,
  ...rbac,
  ...discovery,
];
