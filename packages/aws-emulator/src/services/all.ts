import { ec2 } from './ec2/index.js';
import type { Service } from './service.js';
import { sts } from './sts/index.js';
import { tagging } from './tagging/index.js';

/** The services the emulator serves; the first of each protocol is the fallback when a request names none. */
export const SERVICES: readonly Service[] = [sts, tagging, ec2];
