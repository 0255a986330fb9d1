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

  it("refuses bad selectors in the words of apimachinery's parser (kube-apiserver 1.37's answers)", () => {
    const refused: [string, string][] = [
      ['a===b', "unable to parse requirement: found '=', expected: identifier"],
      ['in (', "unable to parse requirement: found '(', expected: in, notin, =, ==, !=, gt, lt"],
      [
        'n>abc',
        `unable to parse requirement: values[0]: Invalid value: "abc": for 'Gt', 'Lt' operators, the value must be an integer`,
      ],
      ['a=b,', "found '', expected: identifier after ','"],
      ['a=b c', "found 'c', expected: ',' or 'end of string'"],
      ['a in (b', "unable to parse requirement: found '', expected: ',' or ')'"],
      ['=a', "found '=', expected: !, identifier, or 'end of string'"],
    ];
    for (const [selector, message] of refused) {
      expect(() => parseLabelSelector(selector), selector)
        .to.throw(ApiError)
        .with.property('message', message);
    }
    expect(parseLabelSelector('notin in (in, notin)')({ notin: 'in' })).to.equal(true);
    expect(parseLabelSelector('a in (,b)')({ a: '' })).to.equal(true);
  });

  it('names the fields a kind can be selected by, in the words of its field conversion', () => {
    expect(() => parseFieldSelector('data.n=1', 'ConfigMap'))
      .to.throw(ApiError)
      .with.property('message', '"data.n" is not a known field selector: only "metadata.name", "metadata.namespace"');
    expect(() => parseFieldSelector('data.n=1', 'Secret'))
      .to.throw(ApiError)
      .with.property('message', 'field label not supported: data.n');
    expect(() => parseFieldSelector('spec.region=x', 'AWSCluster', true))
      .to.throw(ApiError)
      .with.property('message', 'field label not supported: spec.region');
  });

  it('selects by metadata.name and metadata.namespace, and the extra fields of some kinds', () => {
    const object = { metadata: { name: 'a', namespace: 'ns' }, type: 'Opaque' };
    expect(parseFieldSelector('metadata.name=a,metadata.namespace==ns', 'ConfigMap')(object)).to.equal(true);
    expect(parseFieldSelector('metadata.name!=a', 'ConfigMap')(object)).to.equal(false);
    expect(parseFieldSelector('type=Opaque', 'Secret')(object)).to.equal(true);
    expect(() => parseFieldSelector('type=Opaque', 'ConfigMap')).to.throw(
      ApiError,
      '"type" is not a known field selector',
    );
  });
});
