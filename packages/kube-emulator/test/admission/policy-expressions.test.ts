import { expect } from 'chai';
import { compileExpression } from '../../src/admission/policies/environment.js';

const declarations = { params: false, authorizer: true };
const errorOf = (
  expression: string,
  returns: readonly string[] = ['bool'],
  variables?: Map<string, string>,
): string => {
  const compiled = compileExpression(expression, returns, { ...declarations, ...(variables ? { variables } : {}) });
  return 'error' in compiled ? compiled.error : '';
};

describe('admission expressions: compiled and worded as kube-apiserver compiles them', () => {
  const cases: [string, readonly string[], string][] = [
    ['object.spec.replicas > 1', ['bool'], ''],
    ['has(object.metadata.labels) && namespaceObject == null', ['bool'], ''],
    ['request.userInfo.groups.exists(g, g == "system:masters")', ['bool'], ''],
    [
      'self.x',
      ['bool'],
      "compilation failed: ERROR: <input>:1:1: undeclared reference to 'self' (in container '')\n | self.x\n | ^",
    ],
    [
      'true &&\n  request.nickname == "x"',
      ['bool'],
      'compilation failed: ERROR: <input>:2:10: undefined field \'nickname\'\n |   request.nickname == "x"\n | .........^',
    ],
    [
      'namespaceObject.metadata.owner == "x"',
      ['bool'],
      'compilation failed: ERROR: <input>:1:25: undefined field \'owner\'\n | namespaceObject.metadata.owner == "x"\n | ........................^',
    ],
    ['object.metadata.name', ['bool'], 'must evaluate to bool but got dyn'],
    ['request.userInfo.groups', ['string'], 'must evaluate to string but got list(string)'],
    ['1', ['string', 'null'], 'must evaluate to one of [string null_type] but got int'],
  ];
  for (const [expression, returns, expected] of cases) {
    it(`${JSON.stringify(expression)}: ${expected.split('\n')[0] || 'compiles'}`, () => {
      expect(errorOf(expression, returns)).to.equal(expected);
    });
  }

  it('types variables by their own expression, and refuses them where none are declared', () => {
    const variables = new Map([['count', 'int']]);
    expect(errorOf('variables.count > 1', ['bool'], variables)).to.equal('');
    expect(errorOf('variables.count', ['bool'], variables)).to.equal('must evaluate to bool but got int');
    expect(errorOf('variables.count > 1')).to.match(/undeclared reference to 'variables'/);
  });
});
