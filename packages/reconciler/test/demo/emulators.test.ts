import { expect } from 'chai';
import { controllerKeys, importDevelopmentPackage } from '../../src/demo/emulators.js';

describe('demo: emulators', () => {
  it('says the emulators are development dependencies when one is not installed', async () => {
    const name = '@keymaster/not-installed-emulator';
    const refusal = (await importDevelopmentPackage(name, () => import(name) as Promise<unknown>).then(
      () => expect.fail(`${name} was imported`),
      (error: unknown) => error,
    )) as Error & { code: string; hint: string };
    expect(refusal).to.include({ code: 'ERR_KEYMASTER_EMULATORS_MISSING', message: `${name} is not installed` });
    expect(refusal.hint).to.include('development dependencies').and.include('pnpm install');
  });

  it('passes other failures of an import through', async () => {
    const failure = new Error('the module threw while loading');
    const thrown = await importDevelopmentPackage('@keymaster/kube-emulator', () => Promise.reject(failure)).catch(
      (error: unknown) => error,
    );
    expect(thrown).to.equal(failure);
  });

  it("takes the controller's keys from the first user of the first account, and says so when there is none", () => {
    const keys = { accessKeyId: 'AKIAEXAMPLECONTROLLER1', secretAccessKey: 'secret' };
    expect(
      controllerKeys({
        accounts: [
          { id: '111111111111', users: [{ name: 'controller', accessKeys: [keys] }, { name: 'other' }] },
          { id: '222222222222' },
        ],
      }),
    ).to.deep.equal({ ...keys, arn: 'arn:aws:iam::111111111111:user/controller' });
    const refusal = (() => {
      try {
        return controllerKeys({ accounts: [{ id: '111111111111', users: [{ name: 'keyless' }] }] });
      } catch (error) {
        return error as Error & { code: string; hint: string };
      }
    })();
    expect(refusal).to.include({ code: 'ERR_KEYMASTER_DEMO_WORLD' });
  });
});
