import type { Middleware, ResponseContext } from '@kubernetes/client-node';
import type { Logger } from '../logging.js';

/** The message of the line logged for a warning an API server sent: stable, for ops' alerts and the e2e. */
export const API_WARNING_MESSAGE = 'the API server sent a warning';

// One warning value: code, agent and the quoted text (RFC 9111 5.5; kube-apiserver sends `299 - "text"`).
const WARNING_VALUE = /(\d{3}) +\S+ +"((?:[^"\\]|\\.)*)"/g;

/**
 * The texts of a Warning header. fetch joins the values of several headers with ", ", which the
 * quoted texts may contain too, so values are read one by one rather than split.
 */
export function warningTexts(header: string | undefined): string[] {
  if (!header) return [];
  return [...header.matchAll(WARNING_VALUE)].map(([, , text]) => text!.replace(/\\(.)/g, '$1'));
}

/**
 * A client-node middleware that hands the text of every Warning header of an answer to `report`
 * (kube-apiserver warns of deprecated APIs, finalizer names, unknown fields...: each is a bug of ours).
 */
export function warningMiddleware(report: (text: string) => void): Middleware {
  return {
    pre: (context) => Promise.resolve(context),
    post: (response: ResponseContext) => {
      for (const text of warningTexts(response.headers['warning'])) report(text);
      return Promise.resolve(response);
    },
  };
}

/** Logs each distinct warning once at warn level, as controller-runtime's warning logger does by default. */
export function logApiWarnings(logger: Logger): (text: string) => void {
  const seen = new Set<string>();
  return (text) => {
    if (seen.has(text)) return;
    seen.add(text);
    logger.warn(API_WARNING_MESSAGE, { warning: text });
  };
}
