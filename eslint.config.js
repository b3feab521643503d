import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const ENVIRONMENT =
  'read settings through the settings table (src/cli/settings.ts) and pass the values down; the environment itself only in src/util/environment.ts';

export default tseslint.config(
  { ignores: ['node_modules/**', 'data/**', '.services/**', '.cache/**', 'dist/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        Buffer: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        URL: 'readonly',
        TextEncoder: 'readonly',
        TextDecoder: 'readonly',
        AbortController: 'readonly',
        AbortSignal: 'readonly',
        performance: 'readonly',
        structuredClone: 'readonly',
        fetch: 'readonly',
        queueMicrotask: 'readonly',
        setImmediate: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_' },
      ],
      '@typescript-eslint/no-explicit-any': 'warn',
    },
  },
  // The environment is read once, by the settings table (src/cli/settings.ts), through
  // src/util/environment.ts: parts receive values (docs/layout.md, "The environment"). Tests and
  // benches are left out: they stand where the operator stands, building the environment of the
  // processes they start and reading the addresses of the services they run against.
  {
    files: ['src/**/*.ts', 'workflows/**/*.ts', 'bin/**/*.js'],
    ignores: ['src/util/environment.ts'],
    rules: {
      'no-restricted-properties': ['error', { object: 'process', property: 'env', message: ENVIRONMENT }],
      'no-restricted-syntax': [
        'error',
        { selector: "MemberExpression[object.property.name='process'][property.name='env']", message: ENVIRONMENT },
      ],
      'no-restricted-imports': [
        'error',
        { paths: ['process', 'node:process'].map((name) => ({ name, importNames: ['env'], message: ENVIRONMENT })) },
      ],
    },
  },
  // dependency-cruiser reads its configuration as CommonJS.
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { module: 'writable', require: 'readonly' } },
  },
);
