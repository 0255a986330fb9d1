/**
 * The benchmark's emulators, in a process of their own so that the controller's process holds only
 * the controller: argv is the world file, the kubeconfig path and the API server (`emulator`, or
 * `real`: kube-apiserver + etcd, as `keymaster emulate --backend real`); it answers with the
 * endpoints and the controller's keys over IPC and stops when the benchmark disconnects.
 */
import { startEmulators, startRealBackend } from '@keymaster/testenv';

export type KubeBackend = 'emulator' | 'real';

export interface BenchEmulators {
  kube: KubeBackend;
  kubeUrl: string;
  awsUrl: string;
  accessKeyId: string;
  secretAccessKey: string;
}

const [world = '', kubeconfig = '', kube = 'emulator'] = process.argv.slice(2);
const options = { world, kubeconfig, namespace: 'keymaster-system' };
const emulators =
  kube === 'real'
    ? await startRealBackend(options)
    : await startEmulators(options).then((started) => ({ ...started, kubeUrl: started.kube.url }));
const ready: BenchEmulators = {
  kube: kube === 'real' ? 'real' : 'emulator',
  kubeUrl: emulators.kubeUrl,
  awsUrl: emulators.aws.url,
  accessKeyId: emulators.controller.accessKeyId,
  secretAccessKey: emulators.controller.secretAccessKey,
};
process.send!(ready);
process.once('disconnect', () => {
  void emulators.stop().then(() => process.exit(0));
});
