/**
 * The benchmark's emulators, in a process of their own so that the controller's process holds only
 * the controller: argv is the world file and the kubeconfig path; it answers with the endpoints and
 * the controller's keys over IPC and stops when the benchmark disconnects.
 */
import { startEmulators } from '@keymaster/testenv';

export interface BenchEmulators {
  kubeUrl: string;
  awsUrl: string;
  accessKeyId: string;
  secretAccessKey: string;
}

const [world = '', kubeconfig = ''] = process.argv.slice(2);
const emulators = await startEmulators({ world, kubeconfig, namespace: 'keymaster-system' });
const ready: BenchEmulators = {
  kubeUrl: emulators.kube.url,
  awsUrl: emulators.aws.url,
  accessKeyId: emulators.controller.accessKeyId,
  secretAccessKey: emulators.controller.secretAccessKey,
};
process.send!(ready);
process.once('disconnect', () => {
  void emulators.stop().then(() => process.exit(0));
});
