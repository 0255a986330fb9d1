import { fileURLToPath } from 'node:url';

// src/emulated/ (or dist/emulated/ once built) is four levels below the repository root.
const root = new URL('../../../../', import.meta.url);

/** The CRDs the emulated management cluster is given. */
export const CRDS_DIR = fileURLToPath(new URL('deploy/crds/', root));
/** The controller's Deployment and namespace, as `kubectl apply -k deploy` installs them. */
export const MANAGER_DIR = fileURLToPath(new URL('deploy/manager/', root));
/** The multi-tenant example set the demo applies. */
export const EXAMPLES_DIR = fileURLToPath(new URL('deploy/examples/', root));
/** The AWS world that matches the examples (the demo's, and the tests' that run the examples). */
export const DEMO_WORLD = fileURLToPath(new URL('packages/testenv/emulated/world.yaml', root));
/** `keymaster demo --cluster-api`: Cluster API's and CAPA's objects of a fleet Keymaster adopts. */
export const CLUSTER_API_EXAMPLES_DIR = fileURLToPath(new URL('deploy/examples/cluster-api/', root));
/** The AWS world of those examples: what CAPA, EKS and the load balancer controller tagged. */
export const CLUSTER_API_DEMO_WORLD = fileURLToPath(new URL('packages/testenv/emulated/world-cluster-api.yaml', root));
