import { displayText } from '@keymaster/api';
import { createLogger, format, transports, type Logger } from 'winston';

export type { Logger };

export type LogLevel = 'error' | 'warn' | 'info' | 'debug';
export type LogFormat = 'json' | 'text';

// Keys whose values are secret wherever they appear in a log line's fields.
const SECRET_KEYS =
  /^(secretAccessKey|SecretAccessKey|sessionToken|SessionToken|aws_secret_access_key|aws_session_token|authorization|token|password|data|stringData)$/i;
// AWS secret access keys and session tokens inside free text.
const SECRET_TEXT = /(?:(?<=secret[^=:]{0,20}[=:]\s*)[A-Za-z0-9/+=]{30,})|(?:IQoJ[A-Za-z0-9/+=]{40,})/g;

/** A field's value with secrets redacted and unsafe characters escaped (user input reaches logs). */
function redact(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return displayText(value.replace(SECRET_TEXT, '[REDACTED]'));
  if (value === null || typeof value !== 'object' || depth > 6) return value;
  if (value instanceof Error)
    return { name: value.name, message: redact(value.message, depth + 1), code: (value as { code?: unknown }).code };
  if (Array.isArray(value)) return value.map((item) => redact(item, depth + 1));
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [
      displayText(key),
      SECRET_KEYS.test(key) ? '[REDACTED]' : redact(item, depth + 1),
    ]),
  );
}

/**
 * Redacts secrets from every field of every line, whatever a caller passes in, and escapes control and
 * bidirectional characters, so that a tenant's input cannot forge lines or reorder what is shown.
 */
const redaction = format((info) => {
  for (const key of Object.keys(info)) {
    if (key === 'level') continue;
    info[key] = SECRET_KEYS.test(key) ? '[REDACTED]' : redact(info[key]);
  }
  return info;
});

/** winston, JSON by default (one object per line), with secrets redacted and unsafe characters escaped. */
export function createControllerLogger(
  level: LogLevel,
  style: LogFormat,
  stream: NodeJS.WritableStream = process.stderr,
): Logger {
  const text = format.printf(({ level: lineLevel, message, timestamp, ...fields }) => {
    const rest = Object.entries(fields)
      .map(([key, value]) => `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`)
      .join(' ');
    return `${String(timestamp)} ${lineLevel.toUpperCase()} ${String(message)}${rest ? ` ${rest}` : ''}`;
  });
  return createLogger({
    level,
    format: format.combine(redaction(), format.timestamp(), style === 'json' ? format.json() : text),
    transports: [new transports.Stream({ stream })],
  });
}
