import { expect } from 'chai';
import { ApiError } from '../../src/api/status.js';
import { parseFieldSelector } from '../../src/selectors/fields.js';
import { parseLabelSelector } from '../../src/selectors/labels.js';

describe('selectors', () => {
  const labels = { app: 'web', tier: 'front', version: '3' };

  it('matches =, ==, !=, in, notin, exists, !, gt and lt', () => {
    const cases: [string, boolean][] = [
      ['app=web', true],
      ['app==db', false],
      ['app!=db', true],
      ['missing!=x', true],
      ['tier in (front, back)', true],
      ['tier notin (front)', false],
      ['app,tier', true],
      ['!missing', true],
      ['!app', false],
      ['version>2', true],
      ['version<3', false],
      ['app=web,tier in (back)', false],
      ['', true],
    ];
    for (const [selector, expected] of cases) expect(parseLabelSelector(selector)(labels), selector).to.equal(expected);
    expect(parseLabelSelector('app')(undefined)).to.equal(false);
  });

  it('rejects selectors it cannot parse with 400', () => {
    expect(() => parseLabelSelector('app in web'))
      .to.throw(ApiError, 'unable to parse requirement')
      .with.property('code', 400);
  });

  it('selects by metadata.name and metadata.namespace, and the extra fields of some kinds', () => {
    const object = { metadata: { name: 'a', namespace: 'ns' }, type: 'Opaque' };
    expect(parseFieldSelector('metadata.name=a,metadata.namespace==ns', 'ConfigMap')(object)).to.equal(true);
    expect(parseFieldSelector('metadata.name!=a', 'ConfigMap')(object)).to.equal(false);
    expect(parseFieldSelector('type=Opaque', 'Secret')(object)).to.equal(true);
    expect(() => parseFieldSelector('type=Opaque', 'ConfigMap')).to.throw(ApiError, 'field label not supported: type');
  });
});
