import { readdirSync } from 'node:fs';
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
  group: [
    '**/modules/**',
    '**/identity/**',
    '**/access-control/**',
    '**/sso/**',
    '**/wings/**',
    '**/plugins/**',
    'fastify',
    '@fastify/*',
  ],
  message:
    'The backend is the lowest layer: it never imports features, plugins or the HTTP framework.',
};
const featuresNeverPlugins = {
  group: ['**/plugins/**'],
  message:
    'Features never import plugins (the HTTP shell above them): read the caller with http/request-identity.ts and parse input with http/parse-input.ts.',
};
// Each wing (an access protocol, packages/server/src/wings/<name>/) keeps its files to itself:
// another wing reaches it only through the registry, and shared code belongs in the platform.
const wingsDir = 'packages/server/src/wings';
const wingNames = readdirSync(wingsDir, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name);
const wingNeverOtherWings = (name) => ({
  // Inside wings/, a sibling is reached as ../<other>/…, so the folder name alone is the pattern.
  group: wingNames.filter((other) => other !== name).map((other) => `**/${other}/**`),
  message:
    "A wing never imports another wing's files: move what both need into the platform (modules/).",
});
const fileKindRules = {
  routes: [routesNeverStorage],
  service: [servicesNeverRoutes],
  store: [storesNeverAbove],
};
const platformNeverWings = {
  group: ['**/wings/**'],
  message:
    'The platform and the core parts never import a wing: wings build on them (app.ts wires both).',
};
// Server folders and the groups their files obey on top of serverNeverWeb. The first entry covers
// routes, services and stores anywhere else in the server (cli/, ssh/, tls/…).
const serverFolders = [
  { glob: 'packages/server', groups: [] },
  ...['identity', 'access-control', 'sso', 'modules'].map((dir) => ({
    glob: `packages/server/src/${dir}`,
    groups: [featuresNeverPlugins, platformNeverWings],
  })),
  ...wingNames.map((name) => ({
    glob: `${wingsDir}/${name}`,
    groups: [featuresNeverPlugins, wingNeverOtherWings(name)],
  })),
];
const layerRule = (files, groups) => ({
  files,
  rules: {
    'no-restricted-imports': [
      'error',
      { patterns: groups.filter((pattern) => pattern.group.length > 0) },
    ],
  },
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
      'bench/.cache/**',
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
  {
    // Node 20 can deadlock writing a JWK of a key whose generating job the collector frees
    // meanwhile (packages/server/src/ssh/ed25519-der.ts): read keys from DER instead.
    files: ['packages/server/**/*.ts', 'e2e/**/*.ts', 'bench/**/*.mjs'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector:
            "CallExpression[callee.property.name='export'] > ObjectExpression > Property[key.name='format'][value.value='jwk']",
          message:
            "No KeyObject.export({ format: 'jwk' }): Node 20 can deadlock there (ssh/ed25519-der.ts); read the key from DER.",
        },
      ],
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
  // Folder rules, then the same folders' routes, services and stores, which add their file rules.
  ...serverFolders.flatMap(({ glob, groups }) => [
    layerRule([`${glob}/**/*.ts`], [serverNeverWeb, ...groups]),
    ...Object.entries(fileKindRules).map(([kind, rules]) =>
      layerRule([`${glob}/**/*.${kind}.ts`], [serverNeverWeb, ...rules, ...groups]),
    ),
  ]),
  layerRule(['packages/server/src/backend/**/*.ts'], [serverNeverWeb, backendNeverAbove]),
);
