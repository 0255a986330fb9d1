import { writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { createRequestListener } from './api/server.js';
import { FrontProxy } from './aggregation/front-proxy.js';
import { ApiServiceAvailability } from './controllers/apiservices.js';
import { AdmissionChain } from './admission/chain.js';
import { WebhookAdmission } from './admission/dispatch.js';
import { PolicyAdmission } from './admission/policies/dispatch.js';
import { selfSignedCertificate } from './auth/certificate.js';
import { Authenticator } from './auth/authenticator.js';
import { BOOTSTRAP_OBJECTS } from './auth/bootstrap-policy.js';
import { escalationCheck } from './auth/escalation.js';
import { RbacAuthorizer } from './auth/rbac.js';
import { ServiceAccountIssuer } from './auth/service-accounts/issuer.js';
import { checkIssuerOptions, issuerSettings, type IssuerOptions } from './auth/service-accounts/options.js';
import { readTokenFile } from './auth/tokens.js';
import { ControllerAdmission } from './controllers/admission.js';
import { CrdController } from './controllers/crds.js';
import { GarbageCollector } from './controllers/garbage-collector.js';
import { INITIAL_NAMESPACES, NamespaceController } from './controllers/namespaces.js';
import { ResourceQuotaController } from './controllers/resource-quota.js';
import { OpenApi } from './discovery/openapi.js';
import { KubeEmulatorError } from './errors.js';
import { kubeConfigYaml, type KubeConfigOptions } from './kubeconfig.js';
import { adminHandler } from './observe/admin.js';
import { Faults } from './observe/faults.js';
import { Stats } from './observe/stats.js';
import { configMaps, customResourceDefinitions, namespaces } from './resources/builtins/index.js';
import { readCrdFolder } from './resources/crd-files.js';
import { ResourceRegistry } from './resources/registry.js';
import { ApiError } from './api/status.js';
import { FieldManager } from './storage/field-manager.js';
import { Objects, type WriteOptions } from './storage/objects.js';
import { Store } from './storage/store.js';
import { objectAt } from './util/json.js';
import { WatchHub } from './watch/watch.js';

export interface KubeEmulatorOptions extends IssuerOptions {
  /** TCP port; 0 (the default) picks a free one. */
  port?: number;
  /** Address to listen on; loopback (127.0.0.1) by default. */
  host?: string;
  /** A folder of CRD YAML files to install at start. */
  crds?: string;
  /** kube-apiserver's `--token-auth-file` CSV: requests must then carry one of its bearer tokens. */
  tokenAuthFile?: string;
  /** How many changes are kept for watches resuming from a resourceVersion (default 100000). */
  watchHistory?: number;
  /** How often watches that allow bookmarks get one, in milliseconds (default 60000). */
  bookmarkIntervalMs?: number;
  /** Serve HTTPS with a self-signed certificate (kubectl sends bearer tokens over HTTPS only). */
  tls?: boolean;
  /**
   * kube-apiserver's `--authorization-mode`: `AlwaysAllow` (the default) lets every authenticated user
   * do everything; `RBAC` checks resource requests against the stored roles and bindings.
   */
  authorization?: 'AlwaysAllow' | 'RBAC';
  /**
   * kube-apiserver's `--anonymous-auth` (default true): with a token file, a request without a token
   * is the user `system:anonymous` in `system:unauthenticated`, which RBAC refuses almost everything;
   * false answers it 401.
   */
  anonymousAuth?: boolean;
}

export interface KubeEmulator {
  /** `http://HOST:PORT` (`https://` with `tls`). */
  readonly url: string;
  /** The `iss` of its service-account tokens (`serviceAccountIssuer`, else `url`). */
  readonly serviceAccountIssuer: string;
  /** With `tls`: the PEM of the self-signed certificate, to trust it. */
  readonly caCertificate: string | undefined;
  /** A kubeconfig (YAML text) for this emulator. */
  kubeConfig(options?: KubeConfigOptions): string;
  /** Writes that kubeconfig to a file. */
  writeKubeConfig(path: string, options?: KubeConfigOptions): Promise<void>;
  /** Injected faults: errors, latency, dropped watches. */
  readonly faults: Faults;
  /** Request counts per verb, resource and user. */
  readonly stats: Stats;
  /**
   * The PEM of the front-proxy CA (kube-apiserver's --requestheader-client-ca-file), which signed the
   * client certificate requests to aggregated servers come with; also in the ConfigMap
   * kube-system/extension-apiserver-authentication.
   */
  readonly frontProxyCaCertificate: string;
  /** Closes every connection and the listener. */
  stop(): Promise<void>;
}

const SYSTEM: WriteOptions = { fieldValidation: 'Strict', warnings: [], dryRun: false, fieldManager: 'kube-emulator' };

function install(objects: Objects, frontProxy: FrontProxy, options: KubeEmulatorOptions): void {
  for (const name of INITIAL_NAMESPACES) objects.create(namespaces, undefined, { metadata: { name } }, SYSTEM);
  for (const [resource, object] of BOOTSTRAP_OBJECTS) {
    objects.create(resource, objectAt(object, 'metadata')?.namespace as string | undefined, object, SYSTEM);
  }
  objects.create(configMaps, 'kube-system', frontProxy.configMap(), SYSTEM);
  if (options.crds === undefined) return;
  for (const { file, crd } of readCrdFolder(options.crds)) {
    try {
      objects.create(customResourceDefinitions, undefined, crd, SYSTEM);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      throw new KubeEmulatorError('ERR_KEYMASTER_KUBE_EMULATOR_CRDS', `${file}: ${error.message}`, {
        hint: 'fix the CustomResourceDefinition in that file (the emulator checks CRDs as the apiserver does)',
      });
    }
  }
}

function listen(server: Server, port: number, host: string): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    server.once('error', (error) => {
      reject(
        new KubeEmulatorError(
          'ERR_KEYMASTER_KUBE_EMULATOR_LISTEN',
          `cannot listen on ${host}:${port}: ${error.message}`,
          {
            hint: 'pick another port (or 0 for a free one) and a local address',
            cause: error,
          },
        ),
      );
    });
    server.listen(port, host, () => resolve(server.address() as AddressInfo));
  });
}

/** Starts an in-memory Kubernetes API server on loopback. */
export async function startKubeEmulator(options: KubeEmulatorOptions = {}): Promise<KubeEmulator> {
  const host = options.host ?? '127.0.0.1';
  if (![undefined, 'AlwaysAllow', 'RBAC'].includes(options.authorization)) {
    throw new KubeEmulatorError(
      'ERR_KEYMASTER_KUBE_EMULATOR_USAGE',
      `the authorization mode must be AlwaysAllow or RBAC, not ${JSON.stringify(options.authorization)}`,
      { hint: 'use --authorization-mode RBAC (with --token-auth-file, so that requests have users) or leave it out' },
    );
  }
  checkIssuerOptions(options);
  const users = options.tokenAuthFile === undefined ? undefined : readTokenFile(options.tokenAuthFile);
  const registry = new ResourceRegistry();
  const store = new Store(options.watchHistory ?? 100_000);
  const fieldManager = new FieldManager();
  const objects = new Objects(store, registry, fieldManager);
  const authorizer = options.authorization === 'RBAC' ? new RbacAuthorizer(store) : undefined;
  const policies = new PolicyAdmission(store, authorizer);
  const controllerAdmission = new ControllerAdmission(policies);
  const frontProxy = new FrontProxy();
  const availability = new ApiServiceAvailability(objects, frontProxy);
  const controllers = [
    new CrdController(registry, objects),
    new NamespaceController(registry, objects, controllerAdmission),
    new GarbageCollector(registry, objects, controllerAdmission),
    new ResourceQuotaController(registry, objects),
    controllerAdmission,
    availability,
  ];
  store.subscribe((event) => {
    for (const controller of controllers) controller.observe(event);
  });
  install(objects, frontProxy, options);
  const watches = new WatchHub(objects, options.bookmarkIntervalMs ?? 60_000);
  const stats = new Stats();
  const faults = new Faults((resource) => watches.drop(resource));
  const certificate = options.tls ? selfSignedCertificate(host) : undefined;
  const server = certificate ? createHttpsServer(certificate) : createServer();
  server.keepAliveTimeout = 60_000;
  const address = await listen(server, options.port ?? 0, host);
  const url = `${certificate ? 'https' : 'http'}://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`;
  // The issuer defaults to the emulator's own URL, known once it listens; no request is read before this.
  const issuer = new ServiceAccountIssuer(issuerSettings(options, url));
  const listener = createRequestListener({
    registry,
    objects,
    watches,
    fieldManager,
    openApi: new OpenApi(registry),
    stats,
    faults,
    issuer,
    authenticator: new Authenticator(users, issuer, store, options.anonymousAuth ?? true),
    authorizer,
    ...(authorizer ? { escalation: escalationCheck(authorizer, store) } : {}),
    admission: new AdmissionChain(new WebhookAdmission(store, authorizer), policies),
    admin: adminHandler(stats, faults),
    frontProxy,
    availability,
  });
  server.on('request', listener);
  return {
    url,
    serviceAccountIssuer: issuer.settings.issuer,
    caCertificate: certificate?.cert,
    kubeConfig: (config) => kubeConfigYaml(url, config, certificate?.cert),
    writeKubeConfig: (path, config) => writeFile(path, kubeConfigYaml(url, config, certificate?.cert), { mode: 0o600 }),
    faults,
    stats,
    frontProxyCaCertificate: frontProxy.ca.cert,
    stop: async () => {
      faults.clear();
      availability.stop();
      watches.closeAll();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
