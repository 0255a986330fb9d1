import { AwsEmulatorError, ControlRequestError } from '../errors.js';
import type { Emulation } from '../dispatch.js';
import { isRecord } from '../iam/policy.js';

export interface AdminResponse {
  readonly status: number;
  readonly body: unknown;
}

type Route = (emulation: Emulation, body: unknown, query: URLSearchParams, id: string) => unknown;

/**
 * The emulator's controls under /_emulator: clock, call log, resources, faults and throttles, AWS's
 * quotas, access keys and sessions. Documented in docs/emulators/aws-emulator.md.
 */
const ROUTES: Record<string, Partial<Record<string, Route>>> = {
  health: { GET: () => ({ status: 'ok' }) },
  clock: {
    GET: ({ clock }) => clockView(clock),
    POST: ({ clock }, body) => {
      const seconds = isRecord(body) ? body.advanceSeconds : undefined;
      if (typeof seconds !== 'number' || !Number.isFinite(seconds) || seconds < 0) {
        throw new ControlRequestError(400, 'advanceSeconds must be a number >= 0', 'Send {"advanceSeconds": 3600}.');
      }
      clock.advance(seconds);
      return clockView(clock);
    },
  },
  calls: {
    GET: ({ calls }, _body, query) => calls.summary(recentOf(query)),
    DELETE: ({ calls }) => {
      calls.reset();
      return calls.summary();
    },
  },
  resources: {
    GET: ({ world }) => world.listResources(),
    POST: ({ world }, body) => world.putResources(body),
    DELETE: ({ world }, _body, query) => {
      world.deleteResource(query.get('arn') ?? '');
      return { deleted: query.get('arn') };
    },
  },
  faults: {
    GET: ({ faults }) => faults.list(),
    POST: ({ faults }, body) => faults.add(body),
    DELETE: ({ faults }, _body, _query, id) => {
      if (id === '') faults.clear();
      else if (!faults.remove(id))
        throw new ControlRequestError(404, `no fault or throttle rule ${id}`, 'GET /_emulator/faults lists them.');
      return faults.list();
    },
  },
  throttles: { POST: ({ faults }, body) => faults.throttle(body) },
  quotas: {
    GET: ({ quotas }) => quotas.list(),
    PUT: ({ quotas }, body) => {
      quotas.set(body);
      return quotas.list();
    },
  },
  'access-keys': {
    POST: ({ world }, body) => {
      const fields = isRecord(body) ? body : {};
      const { userArn, accessKeyId, secretAccessKey } = fields;
      if (typeof userArn !== 'string' || typeof accessKeyId !== 'string' || typeof secretAccessKey !== 'string') {
        throw new ControlRequestError(
          400,
          'userArn, accessKeyId and secretAccessKey must be strings',
          'Send all three.',
        );
      }
      world.addAccessKey(userArn, { accessKeyId, secretAccessKey });
      return { userArn, accessKeyId };
    },
    DELETE: ({ world }, _body, _query, id) => {
      world.deleteAccessKey(id);
      return { deleted: id };
    },
  },
  sessions: { GET: ({ world }) => world.sessions() },
};

/** Answers one admin request; `path` is what follows `/_emulator/`. */
export function handleAdmin(
  emulation: Emulation,
  method: string,
  path: string,
  query: URLSearchParams,
  body: unknown,
): AdminResponse {
  const [name = '', ...rest] = path.split('/');
  const route = ROUTES[name]?.[method];
  if (route === undefined) {
    const methods = Object.keys(ROUTES[name] ?? {});
    return errorResponse(
      new ControlRequestError(
        methods.length === 0 ? 404 : 405,
        methods.length === 0 ? `no admin path /_emulator/${path}` : `/_emulator/${name} does not take ${method}`,
        methods.length === 0
          ? `Admin paths: ${Object.keys(ROUTES)
              .map((n) => `/_emulator/${n}`)
              .join(', ')}.`
          : `Use ${methods.join(' or ')}.`,
      ),
    );
  }
  try {
    return { status: 200, body: route(emulation, body, query, decodeURIComponent(rest.join('/'))) };
  } catch (error) {
    if (error instanceof AwsEmulatorError) return errorResponse(error);
    throw error;
  }
}

function errorResponse(error: AwsEmulatorError): AdminResponse {
  const status = error instanceof ControlRequestError ? error.status : 400;
  return { status, body: { error: { code: error.code, message: error.message, hint: error.hint } } };
}

function clockView(clock: Emulation['clock']) {
  return { now: clock.now().toISOString(), offsetSeconds: clock.offsetSeconds() };
}

/** `?recent=N`: how many of the latest calls to include (default all kept); anything but a whole number is refused. */
function recentOf(query: URLSearchParams): number | undefined {
  const text = query.get('recent');
  if (text === null) return undefined;
  const recent = Number(text);
  if (!Number.isInteger(recent) || recent < 0)
    throw new ControlRequestError(
      400,
      `recent is ${JSON.stringify(text)}, not a whole number`,
      'Send ?recent=0 for the counts alone.',
    );
  return recent;
}
