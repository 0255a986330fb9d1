import http from 'node:http';
import https from 'node:https';
import {
  createConfiguration,
  KubeConfig,
  ServerConfiguration,
  type ApiConstructor,
  type ApiType,
} from '@kubernetes/client-node';
import { warningMiddleware } from './api-warnings.js';

type RequestContext = Parameters<KubeConfig['applySecurityAuthentication']>[0];
type Agent = http.Agent | https.Agent;

/** The agent options client-node sets from a kubeconfig: agents with the same ones are interchangeable. */
const POOL_KEYS = ['ca', 'cert', 'key', 'pfx', 'passphrase', 'rejectUnauthorized', 'servername'] as const;

/**
 * A KubeConfig whose API clients keep their connections. client-node makes a new agent for every
 * request, so every call to the API server opened a connection (and, over TLS, made a handshake) and
 * closed it: a quarter of the controller's CPU on a cold start. Here API calls share one keep-alive
 * agent per set of TLS options (a kubeconfig whose certificates change gets a new one). Watches keep
 * client-node's own agents: a watch that ends destroys its agent's sockets.
 *
 * Its API clients also hand the API server's warnings (Warning headers) to `onWarning`: client-node
 * drops them, where client-go logs them.
 */
export class PooledKubeConfig extends KubeConfig {
  readonly #agents = new Map<string, Agent>();

  constructor(private readonly onWarning?: (text: string) => void) {
    super();
  }

  /** client-node's makeApiClient, with the warning middleware when there is somewhere to report to. */
  override makeApiClient<T extends ApiType>(apiClientType: ApiConstructor<T>): T {
    const cluster = this.getCurrentCluster();
    if (!cluster || !this.onWarning) return super.makeApiClient(apiClientType);
    return new apiClientType(
      createConfiguration({
        baseServer: new ServerConfiguration(cluster.server, {}),
        authMethods: { default: this },
        promiseMiddleware: [warningMiddleware(this.onWarning)],
      }),
    );
  }

  override async applySecurityAuthentication(context: RequestContext): Promise<void> {
    await super.applySecurityAuthentication(context);
    const agent = context.getAgent();
    if (agent !== undefined) context.setAgent(this.#pooled(agent));
  }

  #pooled(agent: Agent): Agent {
    // Proxy agents are left alone: only plain HTTP(S) agents are known to be shareable.
    const kind = agent.constructor === https.Agent ? 'https' : agent.constructor === http.Agent ? 'http' : undefined;
    if (kind === undefined) return agent;
    const options = (agent as https.Agent).options;
    const key = [kind, ...POOL_KEYS.map((name) => keyPart(options[name]))].join('\0');
    let pooled = this.#agents.get(key);
    if (pooled === undefined) {
      const shared = { ...options, keepAlive: true };
      pooled = kind === 'https' ? new https.Agent(shared) : new http.Agent(shared);
      this.#agents.set(key, pooled);
    }
    return pooled;
  }
}

/** A TLS option as text: strings, Buffers, arrays of them, or { pem, passphrase } objects. */
function keyPart(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (Array.isArray(value)) return value.map(keyPart).join(',');
  if (typeof value === 'string' || typeof value === 'boolean' || Buffer.isBuffer(value)) return value.toString();
  return JSON.stringify(value);
}
