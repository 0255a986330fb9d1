import { createLogger } from 'winston';
import type { Logger } from '../../src/logging.js';

/** A real logger that writes nowhere: reconciles log freely, tests assert on writes and events. */
export const quietLogger = (): Logger => createLogger({ silent: true });
