import { expect } from 'chai';
import { ApiError } from '../../src/api/status.js';
import { mergeApplied } from '../../src/patch/apply.js';
import { applyJsonPatch } from '../../src/patch/json-patch.js';
import { applyMergePatch } from '../../src/patch/merge-patch.js';
import { strategicMergePatch } from '../../src/patch/strategic.js';
import { keyedList, kindSchema, setList, string } from '../../src/schema/builders.js';
import type { Schema } from '../../src/schema/types.js';

const schema: Schema = kindSchema('test', {
  containers: keyedList('merged by name', 'name', {
    type: 'object',
    properties: { name: string('n'), image: string('i') },
  }),
  tags: setList('a set', { type: 'string' }),
  plain: { type: 'array', items: { type: 'string' } },
});

describe('patches', () => {
  it('applies JSON patches, and fails on missing paths and failed tests', () => {
    const document = { a: { b: [1, 2] }, c: 'x' };
    const patched = applyJsonPatch(document, [
      { op: 'add', path: '/a/b/-', value: 3 },
      { op: 'replace', path: '/c', value: 'y' },
      { op: 'copy', from: '/c', path: '/d' },
      { op: 'move', from: '/d', path: '/e' },
      { op: 'remove', path: '/a/b/0' },
      { op: 'test', path: '/e', value: 'y' },
    ]);
    expect(patched).to.deep.equal({ a: { b: [2, 3] }, c: 'y', e: 'y' });
    expect(document).to.deep.equal({ a: { b: [1, 2] }, c: 'x' });
    expect(() => applyJsonPatch(document, [{ op: 'remove', path: '/nope/x' }])).to.throw(
      ApiError,
      'the server rejected our request',
    );
    expect(() => applyJsonPatch(document, [{ op: 'test', path: '/c', value: 'z' }])).to.throw(
      ApiError,
      'the server rejected our request',
    );
  });

  it('applies JSON merge patches', () => {
    expect(applyMergePatch({ a: 1, b: { c: 2, d: 3 }, e: [1] }, { a: null, b: { c: 5 }, e: [2] })).to.deep.equal({
      b: { c: 5, d: 3 },
      e: [2],
    });
  });

  it('applies strategic merge patches with merge keys and directives', () => {
    const live = {
      metadata: { name: 'x', finalizers: ['a'] },
      containers: [
        { name: 'one', image: 'v1' },
        { name: 'two', image: 'v1' },
      ],
      tags: ['x'],
      plain: ['p'],
    };
    expect(
      strategicMergePatch(
        live,
        {
          containers: [{ name: 'two', image: 'v2' }, { name: 'three' }],
          tags: ['y'],
          plain: ['q'],
          metadata: { finalizers: ['b'] },
        },
        schema,
      ),
    ).to.deep.equal({
      // As kube-apiserver orders merged lists: the patch's items in its order, with the live list's
      // others slotted back before the patch items they preceded (a new one comes first).
      metadata: { name: 'x', finalizers: ['b', 'a'] },
      containers: [{ name: 'one', image: 'v1' }, { name: 'two', image: 'v2' }, { name: 'three' }],
      tags: ['y', 'x'],
      plain: ['q'],
    });
    expect(
      strategicMergePatch(live, { containers: [{ name: 'zero' }, { name: 'two', image: 'v2' }] }, schema),
    ).to.have.deep.property('containers', [
      { name: 'zero' },
      { name: 'one', image: 'v1' },
      { name: 'two', image: 'v2' },
    ]);
    expect(
      strategicMergePatch(live, { containers: [{ name: 'only' }, { $patch: 'replace' }] }, schema),
    ).to.have.deep.property('containers', [{ name: 'only' }]);
    expect(
      strategicMergePatch(live, { containers: [{ name: 'one', $patch: 'delete' }] }, schema),
    ).to.have.deep.property('containers', [{ name: 'two', image: 'v1' }]);
    expect(
      strategicMergePatch(
        live,
        { '$deleteFromPrimitiveList/tags': ['x'], '$setElementOrder/containers': [{ name: 'two' }, { name: 'one' }] },
        schema,
      ),
    ).to.deep.include({
      tags: [],
      containers: [
        { name: 'two', image: 'v1' },
        { name: 'one', image: 'v1' },
      ],
    });
    expect(strategicMergePatch(live, { metadata: { $patch: 'replace', name: 'y' } }, schema)).to.have.deep.property(
      'metadata',
      { name: 'y' },
    );
  });

  it('merges server-side apply configurations and drops fields no longer applied', () => {
    const live = { metadata: { name: 'x', uid: 'u' }, containers: [{ name: 'one', image: 'v1' }], tags: ['a'] };
    const merged = mergeApplied(
      live,
      { metadata: { name: 'x' }, containers: [{ name: 'two', image: 'v2' }], tags: ['b'] },
      schema,
      new Set(['f:containers\nk:{"name":"one"}\nf:image', 'f:containers\nk:{"name":"one"}\nf:name']),
    );
    expect(merged).to.deep.equal({
      metadata: { name: 'x', uid: 'u' },
      containers: [{ name: 'two', image: 'v2' }],
      tags: ['a', 'b'],
    });
  });
});
