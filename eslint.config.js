// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', '.bench/**'] },
  js.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        // Each package's test config covers its src/, test/ and scripts/.
        project: ['./packages/*/tsconfig.test.json', './e2e/tsconfig*.json'],
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true, allowBoolean: true }],
      '@typescript-eslint/no-non-null-assertion': 'off',
      // client-node's models are classes, but its API takes and returns plain objects.
      '@typescript-eslint/no-unsafe-class-instance-assignment': 'off',
      '@typescript-eslint/no-confusing-void-expression': ['error', { ignoreArrowShorthand: true }],
      '@typescript-eslint/consistent-type-imports': 'error',
      // Rest siblings are how an object is copied without some keys.
      '@typescript-eslint/no-unused-vars': ['error', { ignoreRestSiblings: true }],
      // A switch over a union (identity kinds above all) that misses a member fails, default case or not.
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
    },
  },
  {
    // The emulators and testenv switch over values of parsed JSON (any kind, true, null...): there a
    // default case is the exhaustive answer.
    files: ['packages/kube-emulator/**', 'packages/aws-emulator/**', 'packages/testenv/**'],
    rules: {
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
    },
  },
  {
    files: ['test/**', '**/test/**'],
    rules: {
      // chai's property assertions (`expect(x).to.be.empty`) are expressions.
      '@typescript-eslint/no-unused-expressions': 'off',
    },
  },
  { files: ['**/*.js', '**/*.mjs'], ...tseslint.configs.disableTypeChecked },
);
