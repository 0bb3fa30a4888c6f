import js from '@eslint/js';
import globals from 'globals';
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';

// Dependencies point one way: web -> contracts <- server, and inside each package from the upper
// layers to the lower ones. Each group names what a set of files never imports, and why.
const webNeverServer = {
  group: ['@postern/server', '**/server/src/**'],
  message: 'The console never imports the server: share shapes through @postern/contracts.',
};
const serverNeverWeb = {
  group: ['@postern/web', '**/web/src/**'],
  message: 'The server never imports the console: share shapes through @postern/contracts.',
};
const contractsNeverOurs = {
  group: ['@postern/server', '@postern/web', 'react', 'fastify'],
  message: 'Contracts import nothing of ours and no framework, so both sides can use them.',
};
const componentsNeverFeatures = {
  group: ['**/features', '**/features/**'],
  message: 'Components are generic UI: they never import features (pass data in as props).',
};
const basicsNeverUi = {
  group: [
    '**/features',
    '**/features/**',
    '**/components',
    '**/components/**',
    '**/app',
    '**/app/**',
  ],
  message:
    'The API client, lib and theme sit below the UI: they never import features, components or app.',
};
const routesNeverStorage = {
  group: ['**/*.store.js', '**/backend', '**/backend/**'],
  message:
    'Routes are thin: they call a service, never a store or the backend (put the rule in a service).',
};
const servicesNeverRoutes = {
  group: ['**/*.routes.js'],
  message: 'Services never import routes: the HTTP layer sits above them.',
};
const storesNeverAbove = {
  group: ['**/*.service.js', '**/*.routes.js', 'fastify', '@fastify/*'],
  message: 'Stores are storage only: they never import services, routes or the HTTP framework.',
};
const backendNeverAbove = {
  group: ['**/modules/**', '**/plugins/**', 'fastify', '@fastify/*'],
  message:
    'The backend is the lowest layer: it never imports modules, plugins or the HTTP framework.',
};
const layerRule = (files, groups) => ({
  files,
  rules: { 'no-restricted-imports': ['error', { patterns: groups }] },
});

export default tseslint.config(
  {
    ignores: [
      '**/dist/**',
      '**/node_modules/**',
      'postern-data/**',
      'test-results/**',
      'playwright-report/**',
      '.test-output/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-console': 'off',
    },
  },
  {
    files: ['packages/web/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
    plugins: { 'react-hooks': reactHooks },
    rules: {
      'react-hooks/rules-of-hooks': 'error',
      'react-hooks/exhaustive-deps': 'warn',
    },
  },
  // Layer rules: which folders may import which (docs/ARCHITECTURE.md, "Layers and dependencies").
  // A file gets one no-restricted-imports setting (a later match replaces an earlier one), so each
  // block below lists every group that applies to its files.
  layerRule(['packages/web/**/*.{ts,tsx}'], [webNeverServer]),
  layerRule(
    ['packages/web/src/components/**/*.{ts,tsx}'],
    [webNeverServer, componentsNeverFeatures],
  ),
  layerRule(['packages/web/src/{api,lib,theme}/**/*.{ts,tsx}'], [webNeverServer, basicsNeverUi]),
  layerRule(['packages/contracts/**/*.ts'], [contractsNeverOurs]),
  layerRule(['packages/server/**/*.ts'], [serverNeverWeb]),
  layerRule(['packages/server/**/*.routes.ts'], [serverNeverWeb, routesNeverStorage]),
  layerRule(['packages/server/**/*.service.ts'], [serverNeverWeb, servicesNeverRoutes]),
  layerRule(['packages/server/**/*.store.ts'], [serverNeverWeb, storesNeverAbove]),
  layerRule(['packages/server/src/backend/**/*.ts'], [serverNeverWeb, backendNeverAbove]),
);
