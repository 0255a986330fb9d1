export { FRONT_PROXY_CLIENT } from './aggregation/front-proxy.js';
export { startKubeEmulator, type KubeEmulator, type KubeEmulatorOptions } from './emulator.js';
export { KubeEmulatorError } from './errors.js';
export { kubeConfigYaml, type KubeConfigOptions } from './kubeconfig.js';
export type { Fault, FaultRule, Faults } from './observe/faults.js';
export { Stats, type RequestCount, type StatsFilter } from './observe/stats.js';
export { readCrdFolder } from './resources/crd-files.js';
