import { describe, expect, it } from 'vitest';
import { checkEnrollInput, emptyEnrollInput, parseLabels } from './enrollInput';

const input = (fields: Partial<typeof emptyEnrollInput>) => ({ ...emptyEnrollInput, ...fields });

describe('parseLabels', () => {
  it('reads name=value pairs, spaces and empty pairs aside', () => {
    expect(parseLabels(' env=prod, team = web ,')).toEqual({ env: 'prod', team: 'web' });
    expect(parseLabels('')).toEqual({});
  });

  it('says which pair is not a label', () => {
    expect(parseLabels('env=prod, team')).toBe('"team": write labels as name=value');
    expect(parseLabels('env=')).toBe('"env=": write labels as name=value');
    expect(parseLabels('bad name=x')).toBe('"bad name" is not a label name');
  });
});

describe('checkEnrollInput', () => {
  it('asks nothing of a server but well-formed labels', () => {
    expect(checkEnrollInput('server', input({}))).toEqual({});
    expect(checkEnrollInput('openssh', input({ labels: 'env' }))).toEqual({
      labels: '"env": write labels as name=value',
    });
  });

  it("checks an app's name and address with the install link's rules", () => {
    expect(
      checkEnrollInput('app', input({ name: 'grafana', uri: 'http://localhost:3000' })),
    ).toEqual({});
    const errors = checkEnrollInput('app', input({ name: 'Grafana!', uri: 'ftp://x' }));
    expect(errors.name).toMatch(/DNS labels/);
    expect(errors.uri).toBe('uri must be http://, https:// or tcp://host:port');
  });

  it('refuses a database address that carries a password, as the link would', () => {
    expect(
      checkEnrollInput('database', input({ name: 'orders', uri: 'postgres://u:p@db:5432' })).uri,
    ).toBe('no user or password in the uri: Postern signs in to the database with certificates');
    expect(
      checkEnrollInput('database', input({ name: 'orders', uri: 'postgres://localhost:5432' })),
    ).toEqual({});
  });

  it('wants a VNC address for a desktop, and a name and kubeconfig for Kubernetes', () => {
    expect(checkEnrollInput('desktop', input({ name: 'build', uri: 'rdp://h:3389' })).uri).toBe(
      'expected vnc://host:port',
    );
    expect(checkEnrollInput('kubernetes', input({ name: 'prod' }))).toEqual({
      kubeconfig: 'name the kubeconfig on the agent host',
    });
    expect(checkEnrollInput('kubernetes', input({ name: '', kubeconfig: '/k' })).name).toMatch(
      /DNS labels/,
    );
  });
});
