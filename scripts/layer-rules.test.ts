import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

// The layer rules of eslint.config.js, run the way `npm run lint` (a stage of `npm test`) runs
// them: each case is a file that does not exist, linted as if it were at that place in the tree.
const root = fileURLToPath(new URL('..', import.meta.url));
const eslint = new ESLint({ cwd: root });

async function importErrors(filePath: string, source: string): Promise<string[]> {
  const text = `import { thing } from '${source}';\nexport const used = thing;\n`;
  const [result] = await eslint.lintText(text, { filePath });
  return result!.messages
    .filter((message) => message.ruleId === 'no-restricted-imports')
    .map((message) => message.message);
}

const probe = (folder: string, file: string) => `${folder}/layer-probe/${file}`;
const src = 'packages/server/src';
const server = `${src}/modules`;
const web = 'packages/web/src';

describe('the layer rules', () => {
  it.each([
    [probe(server, 'x.routes.ts'), './x.store.js', /Routes are thin: .*never a store/],
    [probe(server, 'x.routes.ts'), '../../backend/index.js', /Routes are thin: .*or the backend/],
    [probe(server, 'x.service.ts'), './x.routes.js', /Services never import routes/],
    [probe(server, 'x.store.ts'), './x.service.js', /Stores are storage only/],
    [probe(server, 'x.store.ts'), 'fastify', /Stores are storage only/],
    ['packages/server/src/backend/probe.ts', '../modules/audit/index.js', /lowest layer/],
    ['packages/server/src/backend/probe.ts', '../wings/servers/index.js', /lowest layer/],
    [probe(server, 'x.routes.ts'), '../../plugins/access-guard.js', /never import plugins/],
    [probe(`${src}/identity`, 'x.ts'), '../../plugins/csrf.js', /never import plugins/],
    [probe(server, 'x.ts'), '../../wings/servers/index.js', /never import a wing/],
    [probe(`${src}/sso`, 'x.service.ts'), '../../wings/servers/nodes/x.js', /never import a wing/],
    [`${src}/wings/example/probe.ts`, '../servers/nodes/nodes.store.js', /another wing's files/],
    [
      probe(`${src}/wings/servers`, 'x.service.ts'),
      '../../example/echo.service.js',
      /another wing's files/,
    ],
    [probe(server, 'x.ts'), '../../../../web/src/api', /server never imports the console/],
    [probe(`${web}/components`, 'X.tsx'), '../../features/users/useUsers', /never import features/],
    [`${web}/api/probe.ts`, '../components/PageLoader', /sit below the UI/],
    [`${web}/lib/probe.ts`, '../app/routes', /sit below the UI/],
    [`${web}/features/probe/X.tsx`, '@postern/server', /console never imports the server/],
    ['packages/contracts/src/probe.ts', 'fastify', /Contracts import nothing of ours/],
  ])('refuses %s importing %s', async (filePath, source, message) => {
    const errors = await importErrors(filePath, source);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(message);
  });

  // The same files may import their own layer and the ones below it.
  it.each([
    [probe(server, 'x.routes.ts'), './x.service.js'],
    [probe(server, 'x.service.ts'), './x.store.js'],
    [probe(server, 'x.store.ts'), '../../backend/index.js'],
    [probe(server, 'x.routes.ts'), '../../http/request-identity.js'],
    [`${src}/wings/example/probe.ts`, '../../modules/sessions/session-hub.js'],
    [`${src}/wings/example/probe.ts`, '../wing.js'],
    [`${src}/app.ts`, './plugins/access-guard.js'],
    [probe(`${web}/components`, 'X.tsx'), '../../api'],
    [`${web}/features/probe/X.tsx`, '../../components/PageLoader'],
  ])('lets %s import %s', async (filePath, source) => {
    expect(await importErrors(filePath, source)).toEqual([]);
  });
});
