// ESLint flat config: the recommended rule sets of ESLint and typescript-eslint over the sources,
// the tests and the benchmarks. Exceptions are few, each with its reason here or next to the code.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'reports/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      // A leading underscore marks a binding that is there for its place, not its value: a parameter
      // an interface requires (`decide(_nowMs)`), or a field left out of a copy by destructuring
      // (`const { preset: _preset, ...policy } = input`).
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true },
      ],
    },
  },
  {
    files: ['test/**/*.ts'],
    rules: {
      // Tests build deliberately malformed documents by poking at parsed JSON (`e.scenario.stack[0].policy = 5`),
      // which has no type to give.
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },
  {
    files: ['**/*.mjs'],
    languageOptions: {
      globals: { process: 'readonly', console: 'readonly', URL: 'readonly', performance: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly' },
    },
  },
);
