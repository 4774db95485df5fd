import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';

/** The code style enforced in product code (docs/ARCHITECTURE.md, "Machines in one style"). */
const STYLE_RULES = [
  {
    selector: "CallExpression[callee.name='assertEvent']",
    message:
      "Pass the event's data as typed params: { type: 'action', params: ({ event }) => event.x }.",
  },
  {
    selector:
      "TSAsExpression:not([typeAnnotation.typeName.name='const']):not([expression.type='ObjectExpression'][expression.properties.length=0])",
    message:
      'No type assertions: narrow with a check or a typed param (`as const` and `{} as T` in setup types are fine).',
  },
  {
    selector: 'TSTypeAssertion',
    message: 'No type assertions.',
  },
  {
    selector: 'TSNonNullExpression',
    message: 'No non-null assertions: handle the null.',
  },
];

export default tseslint.config(
  {
    ignores: [
      'dist',
      'node_modules',
      'public/mockServiceWorker.js',
      'tests/fixtures',
      '**/*.js',
      '**/*.mjs',
      '**/*.cjs',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
      globals: { ...globals.browser, ...globals.node },
    },
    plugins: { 'react-hooks': reactHooks },
    rules: {
      ...reactHooks.configs.recommended.rules,
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      'no-restricted-imports': 'off',
    },
  },
  {
    files: ['**/*.test.{ts,tsx}', 'tests/**/*.ts'],
    rules: {
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/unbound-method': 'off',
    },
  },
  {
    // transformers.js (and with it ONNX Runtime) stays on the worker thread. src/ui's own block
    // below replaces this rule there and repeats both restrictions.
    files: ['src/**/*.{ts,tsx}'],
    ignores: ['src/worker/**'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: '@huggingface/transformers',
              message: 'Only src/worker imports transformers.js (it runs on the worker thread).',
            },
          ],
          patterns: [
            {
              group: ['**/worker/**'],
              message: 'The worker is reached by new Worker(new URL(...)), never imported.',
            },
          ],
        },
      ],
    },
  },
  {
    // Dependency rules of docs/ARCHITECTURE.md, enforced (scripts/deps-graph.ts checks the graph
    // drawn there). src/main.tsx and src/composition.ts (the composition root) may import anything.
    files: ['src/machines/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/ui/**', '**/ui', '**/actors/**', '**/composition'],
              message: 'Machines are pure: no UI, no actors.',
            },
            {
              group: ['**/hub/**', '**/inspection/**'],
              message: 'Machines import only xstate and src/shared.',
            },
            {
              group: ['react', 'react-dom', '@tanstack/*', '@huggingface/*', '@xstate/react'],
              message: 'Machines are pure.',
            },
          ],
        },
      ],
      'no-restricted-globals': ['error', 'fetch', 'Worker', 'window', 'document', 'navigator'],
    },
  },
  {
    // The machines' style (docs/ARCHITECTURE.md, "Machines"): events reach actions and guards as
    // typed `params`, never narrowed with assertEvent; no type assertions in product code (the app,
    // the service, the mocks): unknown data is narrowed with a check or a parser. `{} as T` stays
    // allowed: it is how setup({ types }) declares types.
    files: ['src/**/*.{ts,tsx}', 'service/src/**/*.ts', 'mocks/**/*.ts'],
    ignores: ['**/*.test.{ts,tsx}', 'src/machines/test-helpers.ts', '**/*.bench.ts'],
    rules: {
      'no-restricted-syntax': ['error', ...STYLE_RULES],
    },
  },
  {
    // Components read machine state through the named selectors of src/machines/*Selectors.ts
    // (docs/ARCHITECTURE.md, "UI"), so each question about a state is answered in one place.
    files: ['src/ui/**/*.tsx'],
    ignores: ['**/*.test.tsx'],
    rules: {
      'no-restricted-syntax': [
        'error',
        ...STYLE_RULES,
        {
          selector:
            "CallExpression[callee.name='useSelector'] > .arguments:nth-child(2):matches(ArrowFunctionExpression, FunctionExpression)",
          message: 'Read state through a named selector from src/machines/*Selectors.ts.',
        },
        {
          selector:
            "CallExpression[callee.property.name='useSelector'] > .arguments:nth-child(1):matches(ArrowFunctionExpression, FunctionExpression)",
          message: 'Read state through a named selector from src/machines/*Selectors.ts.',
        },
      ],
    },
  },
  {
    // Machines tell other actors through XState (sendTo / enqueue.sendTo), never by calling
    // `.send()` in a custom action: the send then goes through the actor system (the inspector
    // logs it) and the target is an ActorRef. `self.send` from a callback handed to an invoked
    // actor stays allowed.
    files: ['src/machines/**/*.ts'],
    ignores: ['**/*.test.ts', 'src/machines/test-helpers.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        ...STYLE_RULES,
        {
          selector: "CallExpression[callee.property.name='send']:not([callee.object.name='self'])",
          message: 'Send with sendTo / enqueue.sendTo (through the actor system), not .send().',
        },
      ],
    },
  },
  {
    files: ['src/actors/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/ui/**', '**/ui', '**/composition', 'react', 'react-dom', '@xstate/react'],
              message: 'Actors never import UI.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['src/shared/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: [
                '**/ui/**',
                '**/actors/**',
                '**/machines/**',
                '**/hub/**',
                '**/inspection/**',
                '**/composition',
              ],
              message: 'src/shared holds pure modules that import nothing of the app.',
            },
          ],
        },
      ],
      'no-restricted-globals': ['error', 'Worker', 'window', 'document'],
    },
  },
  {
    files: ['src/ui/**/*.{ts,tsx}'],
    ignores: ['src/ui/**/*.test.{ts,tsx}'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/actors/**'],
              allowTypeImports: true,
              message:
                'The UI imports only types from src/actors; real implementations come from the composition root (src/composition.ts) through ServicesContext.',
            },
            {
              group: ['**/composition'],
              message: 'Only src/main.tsx and tests call the composition root.',
            },
            {
              group: ['@huggingface/transformers', 'onnxruntime-web', '**/worker/**'],
              message:
                'transformers.js runs only in the worker, reached by new Worker(new URL(...)).',
            },
          ],
        },
      ],
      'no-restricted-globals': ['error', 'fetch', 'Worker'],
    },
  },
  {
    files: ['src/ui/**/*.test.{ts,tsx}'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/actors/**'],
              allowTypeImports: true,
              message:
                'Tests wire real implementations through src/composition.ts, fakes through machine.provide.',
            },
          ],
        },
      ],
    },
  },
  {
    // The Web Worker's code (docs/ARCHITECTURE.md): it runs on the worker thread and imports only
    // libraries and src/shared; nothing on the main thread imports it (it is reached by `new URL`).
    files: ['src/worker/**/*.ts'],
    ignores: ['src/worker/**/*.test.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: [
                '**/ui/**',
                '**/ui',
                '**/machines/**',
                '**/actors/**',
                '**/hub/**',
                '**/inspection/**',
                '**/composition',
                'react',
                'react-dom',
                'xstate',
                '@xstate/*',
              ],
              message: 'The worker imports only libraries and src/shared.',
            },
          ],
        },
      ],
      'no-restricted-globals': ['error', 'window', 'document'],
    },
  },
  {
    files: ['src/hub/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/ui/**', '**/ui', '**/machines/**', '**/actors/**', '**/composition'],
              message: 'The hub never imports machines, actors or UI.',
            },
          ],
        },
      ],
    },
  },
);
