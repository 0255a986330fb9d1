import { expect } from 'chai';
import { duplicateFields } from '../../src/util/json-duplicates.js';

describe('duplicateFields: the fields a JSON text names twice, as the strict decoder names them', () => {
  it('names a repeated top-level field, and a nested one by its path of keys', () => {
    expect(duplicateFields('{"a": 1, "a": 2}')).to.deep.equal(['a']);
    expect(duplicateFields('{"data": {"a": "1"}, "data": {"b": "2"}}')).to.deep.equal(['data']);
    expect(duplicateFields('{"data": {"a": "1", "a": "2"}}')).to.deep.equal(['data.a']);
  });

  it('adds nothing for array items, and reads strings with escapes and brackets', () => {
    expect(duplicateFields('{"x": [{"n": 1, "n": "a\\"}"}, 2, true, null], "y": "}"}')).to.deep.equal(['x.n']);
    expect(duplicateFields('{"a": {"b": 1}, "c": {"b": 2}}')).to.deep.equal([]);
    expect(duplicateFields('[]')).to.deep.equal([]);
    expect(duplicateFields(' { } ')).to.deep.equal([]);
  });
});
