import { expect } from 'chai';
import { controllerKeys } from '../../src/emulated/emulators.js';

describe('emulated: emulators', () => {
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
