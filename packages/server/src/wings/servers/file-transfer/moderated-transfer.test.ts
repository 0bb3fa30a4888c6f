import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  apiPaths,
  fileTransferRequestEventSchema,
  terminalMessageTypes as T,
  type FileTransferRequestEvent,
} from '@postern/contracts';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { hostActor } from '../../../access-control/access/actor.js';
import type { TestApp } from '../../../testing/app-harness.testkit.js';
import { startSshNodeApp, type SshNodeApp } from '../../../testing/ssh-node-app.testkit.js';
import { openTerminal, type TerminalClient } from '../../../testing/terminal-client.testkit.js';

// Moderated file transfers against a real sshd: a user whose sessions need a moderator moves a
// file only as one asked for in their moderated session (`f` on the terminal socket) and approved
// there by its moderators (`t`); every participant hears each step as an `a` event, the approval
// allows that one transfer once, and a denial, a mismatch or the session's end allow nothing.
let started: SshNodeApp;
let app: TestApp;
let baseUrl: string;
let nodeId: string;
let dir: string;
const admin = hostActor('test');

const moderators = (count: number) => ({
  name: 'oversight',
  filter: 'contains(user.roles, "overseer")',
  kinds: ['ssh'],
  count,
  modes: ['moderator'],
  on_leave: 'terminate',
});

beforeAll(async () => {
  started = await startSshNodeApp();
  ({ app, baseUrl, nodeId } = started);
  const role = (name: string, allow: object) =>
    app.services.roles.create(
      JSON.stringify({ kind: 'role', version: 'v7', metadata: { name }, spec: { allow } }),
      admin,
    );
  const rootOnTest = { node_labels: { env: 'test' }, logins: ['root'] };
  await role('supervised', { ...rootOnTest, require_session_join: [moderators(1)] });
  await role('supervised-by-two', { ...rootOnTest, require_session_join: [moderators(2)] });
  await role('free', rootOnTest);
  await role('overseer', {
    join_sessions: [
      {
        name: 'moderate',
        roles: ['supervised', 'supervised-by-two'],
        kinds: ['ssh'],
        modes: ['moderator', 'observer'],
      },
    ],
  });
  dir = await mkdtemp(path.join(tmpdir(), 'postern-moderated-'));
  await writeFile(path.join(dir, 'report.txt'), 'approved bytes\n');
  await writeFile(path.join(dir, 'secret.txt'), 'never approved\n');
}, 60_000);

afterAll(async () => {
  await started?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const signIn = (user: string, roles: string[]) => app.signIn(roles, user);

async function open(headers: Record<string, string>, params: object): Promise<TerminalClient> {
  return openTerminal({ baseUrl, headers, params: { term: { w: 80, h: 24 }, ...params } as never });
}

const sidOf = (client: TerminalClient) => {
  const frame = client.frames.find((f) => f.type === T.sessionData);
  return (JSON.parse(frame!.payload) as { session: { id: string } }).session.id;
};

/** The file transfer events a party has heard, in order. */
const transferEvents = (client: TerminalClient): FileTransferRequestEvent[] =>
  client.frames
    .filter((f) => f.type === T.audit)
    .map((f) => fileTransferRequestEventSchema.safeParse(JSON.parse(f.payload)))
    .flatMap((parsed) => (parsed.success ? [parsed.data] : []));

async function heard(
  client: TerminalClient,
  event: FileTransferRequestEvent['event'],
  requestId?: string,
  clientRequestId?: string,
): Promise<FileTransferRequestEvent> {
  const find = () =>
    transferEvents(client).findLast(
      (e) =>
        e.event === event &&
        (requestId === undefined || e.requestId === requestId) &&
        (clientRequestId === undefined || e.clientRequestId === clientRequestId),
    );
  await client.waitFor(() => find() !== undefined, `${event} event`);
  return find()!;
}

const errors = (client: TerminalClient) =>
  client.frames.filter((f) => f.type === T.error).map((f) => f.payload);

const ask = (client: TerminalClient, frame: object) =>
  client.send(T.fileTransferRequest, JSON.stringify({ event: 'file_transfer_request', ...frame }));
const decide = (client: TerminalClient, requestId: string, approved: boolean) =>
  client.send(
    T.fileTransferDecision,
    JSON.stringify({ event: 'file_transfer_decision', requestId, approved }),
  );

const transferUrl = (query: Record<string, string>) =>
  `${apiPaths.fileTransfer('-current-', nodeId, 'root')}?${new URLSearchParams(query)}`;

/** A moderated session of `owner` with `moderatorNames` joined and the shell running. */
async function moderatedSession(owner: string, ownerRole: string, moderatorNames: string[]) {
  const ownerHeaders = await signIn(owner, [ownerRole]);
  const ownerClient = await open(ownerHeaders, { server_id: nodeId, login: 'root' });
  await ownerClient.waitForOutput('Waiting');
  const sid = sidOf(ownerClient);
  const joined: TerminalClient[] = [];
  for (const name of moderatorNames) {
    joined.push(await open(await signIn(name, ['overseer']), { sid, mode: 'moderator' }));
  }
  await ownerClient.waitForOutput(/[#$] $/m);
  return { ownerHeaders, owner: ownerClient, sid, moderators: joined };
}

describe('file transfers in a moderated session', () => {
  it('are refused without an approval, and made once with one', async () => {
    const { ownerHeaders, owner, sid, moderators } = await moderatedSession('alice', 'supervised', [
      'bob',
    ]);
    const [bob] = moderators as [TerminalClient];
    const location = path.join(dir, 'report.txt');
    const unasked = await app.server.inject({
      url: transferUrl({ location }),
      headers: ownerHeaders,
    });
    expect(unasked.statusCode).toBe(403);
    expect(unasked.json().error.message).toBe(
      'file transfer is not allowed: your sessions need 1 moderator matching contains(user.roles, "overseer"); ask for it in your moderated session’s terminal, for its moderators to approve',
    );

    ask(owner, { download: true, location });
    const request = await heard(bob, 'file_transfer_request');
    expect(request).toEqual({
      event: 'file_transfer_request',
      requestId: expect.any(String),
      requester: 'alice',
      location,
      download: true,
      approvers: [],
    });
    expect((await heard(owner, 'file_transfer_request')).requestId).toBe(request.requestId);
    await bob.waitForOutput(`alice asks to download ${location}`);

    // The owner does not approve their own request.
    decide(owner, request.requestId, true);
    await owner.waitFor(() => errors(owner).length > 0, 'an error frame');
    expect(errors(owner)).toContain(
      'file transfer decision refused: only the session’s moderators and other peers decide on file transfers',
    );

    decide(bob, request.requestId, true);
    const approval = await heard(owner, 'file_transfer_request_approve', request.requestId);
    expect(approval).toMatchObject({ approved: true, approvers: ['bob'] });
    expect(errors(bob)).toEqual([]);

    const ids = { moderatedSessionId: sid, fileTransferRequestId: request.requestId };
    // Another file with the same ids: refused, and the approval stays for its own file.
    const other = await app.server.inject({
      url: transferUrl({ location: path.join(dir, 'secret.txt'), ...ids }),
      headers: ownerHeaders,
    });
    expect(other.statusCode).toBe(403);
    expect(other.json().error.message).toContain('no approval of its moderators matches');
    // Nor for someone else with the very same ids.
    const carol = await app.server.inject({
      url: transferUrl({ location, ...ids }),
      headers: await signIn('carol', ['supervised']),
    });
    expect(carol.statusCode).toBe(403);

    const made = await app.server.inject({
      url: transferUrl({ location, ...ids }),
      headers: ownerHeaders,
    });
    expect(made.statusCode, made.body).toBe(200);
    expect(made.body).toBe('approved bytes\n');
    const again = await app.server.inject({
      url: transferUrl({ location, ...ids }),
      headers: ownerHeaders,
    });
    expect(again.statusCode).toBe(403);

    const { events } = await app.audit.search({
      from: new Date(0),
      to: new Date(Date.now() + 60_000),
      limit: 1000,
    });
    const ofSession = events.filter((e) => e.sid === sid);
    expect(ofSession.find((e) => e.code === 'TPOS053I')).toMatchObject({
      user: 'alice',
      request_id: request.requestId,
      action: 'download',
      location,
    });
    expect(ofSession.find((e) => e.code === 'TPOS054I')).toMatchObject({
      user: 'bob',
      requester: 'alice',
      approved: true,
    });
    owner.close();
    bob.close();
  });

  it('a denial drops the request: its upload is refused and the others hear who denied it', async () => {
    const { ownerHeaders, owner, sid, moderators } = await moderatedSession('alice', 'supervised', [
      'bob',
    ]);
    const [bob] = moderators as [TerminalClient];
    ask(owner, { download: false, location: dir, filename: 'upload.txt' });
    const request = await heard(bob, 'file_transfer_request');
    decide(bob, request.requestId, false);
    expect(await heard(owner, 'file_transfer_request_deny', request.requestId)).toMatchObject({
      deniedBy: 'bob',
      filename: 'upload.txt',
    });
    await owner.waitForOutput(`bob denied alice’s request to upload upload.txt to ${dir}`);
    const upload = await uploadAs(ownerHeaders, {
      location: dir,
      filename: 'upload.txt',
      moderatedSessionId: sid,
      fileTransferRequestId: request.requestId,
    });
    expect(upload.statusCode).toBe(403);
    await expect(readFile(path.join(dir, 'upload.txt'))).rejects.toThrow();
    // Deciding on it again finds nothing waiting.
    decide(bob, request.requestId, true);
    await bob.waitFor(() => errors(bob).length > 0, 'an error frame');
    expect(errors(bob)).toContain(
      'file transfer decision refused: no such file transfer request is waiting',
    );
    owner.close();
    bob.close();
  });

  it('an approved upload lands, under the approved name only', async () => {
    const { ownerHeaders, owner, sid, moderators } = await moderatedSession('alice', 'supervised', [
      'bob',
    ]);
    const [bob] = moderators as [TerminalClient];
    ask(owner, { download: false, location: dir, filename: 'approved.txt' });
    const request = await heard(bob, 'file_transfer_request');
    decide(bob, request.requestId, true);
    await heard(owner, 'file_transfer_request_approve', request.requestId);
    const ids = { moderatedSessionId: sid, fileTransferRequestId: request.requestId };
    const renamed = await uploadAs(ownerHeaders, { location: dir, filename: 'other.txt', ...ids });
    expect(renamed.statusCode).toBe(403);
    const landed = await uploadAs(ownerHeaders, {
      location: dir,
      filename: 'approved.txt',
      ...ids,
    });
    expect(landed.statusCode, landed.body).toBe(200);
    expect(await readFile(path.join(dir, 'approved.txt'), 'utf8')).toBe('uploaded with approval\n');
    owner.close();
    bob.close();
  });

  it('needs every moderator the policy counts: one approval of two is not enough', async () => {
    const { ownerHeaders, owner, sid, moderators } = await moderatedSession(
      'dave',
      'supervised-by-two',
      ['bob', 'erin'],
    );
    const [bob, erin] = moderators as [TerminalClient, TerminalClient];
    const location = path.join(dir, 'report.txt');
    ask(owner, { download: true, location });
    const request = await heard(erin, 'file_transfer_request');
    decide(bob, request.requestId, true);
    const first = await heard(owner, 'file_transfer_request_approve', request.requestId);
    expect(first).toMatchObject({ approved: false, approvers: ['bob'] });
    const ids = { moderatedSessionId: sid, fileTransferRequestId: request.requestId };
    const early = await app.server.inject({
      url: transferUrl({ location, ...ids }),
      headers: ownerHeaders,
    });
    expect(early.statusCode).toBe(403);

    decide(erin, request.requestId, true);
    await owner.waitFor(
      () => transferEvents(owner).some((e) => e.approved === true),
      'the final approval',
    );
    const made = await app.server.inject({
      url: transferUrl({ location, ...ids }),
      headers: ownerHeaders,
    });
    expect(made.statusCode, made.body).toBe(200);
    for (const client of [owner, bob, erin]) client.close();
  });

  it('an approval counts only while its giver stays: one who leaves is dropped from the prompts', async () => {
    const { owner, moderators } = await moderatedSession('dave', 'supervised-by-two', [
      'bob',
      'erin',
      'finn',
    ]);
    const [bob, erin, finn] = moderators as [TerminalClient, TerminalClient, TerminalClient];
    ask(owner, { download: true, location: path.join(dir, 'report.txt') });
    const request = await heard(erin, 'file_transfer_request');
    decide(bob, request.requestId, true);
    expect(await heard(erin, 'file_transfer_request_approve', request.requestId)).toMatchObject({
      approvers: ['bob'],
    });
    const before = transferEvents(erin).length;
    bob.close();
    // The request is announced again, with nobody's approval left to count.
    await erin.waitFor(
      () =>
        transferEvents(erin)
          .slice(before)
          .some((e) => e.event === 'file_transfer_request'),
      'the request announced again',
    );
    const again = transferEvents(erin)
      .slice(before)
      .find((e) => e.requestId === request.requestId);
    expect(again).toMatchObject({ event: 'file_transfer_request', approvers: [] });
    // So the two still here must approve it: erin's alone is not enough.
    decide(erin, request.requestId, true);
    await owner.waitFor(
      () => transferEvents(owner).some((e) => e.approvers.includes('erin')),
      "erin's approval",
    );
    expect(transferEvents(owner).find((e) => e.approvers.includes('erin'))).toMatchObject({
      event: 'file_transfer_request_approve',
      approved: false,
      approvers: ['erin'],
    });
    decide(finn, request.requestId, true);
    await owner.waitFor(
      () => transferEvents(owner).some((e) => e.approved === true),
      'the final approval',
    );
    for (const client of [owner, erin, finn]) client.close();
  });

  it('an approval goes with the session that gave it', async () => {
    const { ownerHeaders, owner, sid, moderators } = await moderatedSession('alice', 'supervised', [
      'bob',
    ]);
    const [bob] = moderators as [TerminalClient];
    const location = path.join(dir, 'report.txt');
    ask(owner, { download: true, location });
    const request = await heard(bob, 'file_transfer_request');
    decide(bob, request.requestId, true);
    await heard(owner, 'file_transfer_request_approve', request.requestId);
    bob.type('t');
    await owner.closed;
    const ids = { moderatedSessionId: sid, fileTransferRequestId: request.requestId };
    const late = await app.server.inject({
      url: transferUrl({ location, ...ids }),
      headers: ownerHeaders,
    });
    expect(late.statusCode).toBe(403);
    expect(late.json().error.message).toContain('the session it was approved in has ended');
  });
});

describe('file transfer requests over a session’s life', () => {
  it('the owner withdraws a request: the prompts go and nobody can approve it', async () => {
    const { owner, sid, moderators } = await moderatedSession('alice', 'supervised', ['bob']);
    const [bob] = moderators as [TerminalClient];
    const location = path.join(dir, 'report.txt');
    ask(owner, { download: true, location, clientRequestId: 'tab-1#1' });
    const request = await heard(bob, 'file_transfer_request');
    // The asker's own id comes back in every event about the request.
    expect(request.clientRequestId).toBe('tab-1#1');
    decide(owner, request.requestId, false);
    const withdrawn = await heard(bob, 'file_transfer_request_deny', request.requestId);
    expect(withdrawn).toMatchObject({
      deniedBy: 'alice',
      withdrawn: true,
      clientRequestId: 'tab-1#1',
    });
    await bob.waitForOutput(`alice withdrew the request to download ${location}`);
    decide(bob, request.requestId, true);
    await bob.waitFor(() => errors(bob).length > 0, 'an error frame');
    expect(errors(bob)).toEqual([
      'file transfer decision refused: no such file transfer request is waiting',
    ]);
    expect(transferEvents(owner).some((e) => e.approved === true)).toBe(false);
    // Cancelled again (a second tab, or just as it was decided): nothing to say about it.
    decide(owner, request.requestId, false);
    decide(owner, request.requestId, true);
    await owner.waitFor(() => errors(owner).length > 0, 'an error frame');
    expect(errors(owner)).toEqual([
      'file transfer decision refused: no such file transfer request is waiting',
    ]);
    const { events } = await app.audit.search({
      from: new Date(0),
      to: new Date(Date.now() + 60_000),
      limit: 1000,
    });
    expect(events.find((e) => e.sid === sid && e.code === 'TPOS056I')).toMatchObject({
      event: 'session.file_transfer_request_withdraw',
      requester: 'alice',
      request_id: request.requestId,
    });
    owner.close();
    bob.close();
  });

  it('an owner who withdraws a request approved meanwhile drops the approval: nothing can use it', async () => {
    const { ownerHeaders, owner, sid, moderators } = await moderatedSession('alice', 'supervised', [
      'bob',
    ]);
    const [bob] = moderators as [TerminalClient];
    const location = path.join(dir, 'report.txt');
    ask(owner, { download: true, location });
    const request = await heard(bob, 'file_transfer_request');
    decide(bob, request.requestId, true);
    await heard(owner, 'file_transfer_request_approve', request.requestId);
    // The owner's transfer was cancelled as the approval came: it withdraws, silently.
    decide(owner, request.requestId, false);
    // Once it is gone from storage (one try only: a transfer that found it would use it up).
    const stored = `/approved_file_transfers/${encodeURIComponent(sid)}/${encodeURIComponent(request.requestId)}`;
    await vi.waitFor(async () => expect(await app.backend.get(stored)).toBeNull());
    const ids = { moderatedSessionId: sid, fileTransferRequestId: request.requestId };
    const made = await app.server.inject({
      url: transferUrl({ location, ...ids }),
      headers: ownerHeaders,
    });
    expect(made.statusCode).toBe(403);
    expect(errors(owner)).toEqual([]);
    for (const client of [owner, bob]) client.close();
  });

  it('a moderator who joins later is shown the requests still waiting, and may approve them', async () => {
    const { owner, sid, moderators } = await moderatedSession('alice', 'supervised', ['bob']);
    const [bob] = moderators as [TerminalClient];
    const location = path.join(dir, 'report.txt');
    ask(owner, { download: true, location, clientRequestId: 'c1' });
    const answered = await heard(bob, 'file_transfer_request');
    decide(bob, answered.requestId, false);
    await heard(owner, 'file_transfer_request_deny', answered.requestId);
    ask(owner, { download: false, location: dir, filename: 'late.txt', clientRequestId: 'c2' });
    const waiting = await heard(bob, 'file_transfer_request', undefined, 'c2');

    const erin = await open(await signIn('erin', ['overseer']), { sid, mode: 'moderator' });
    const shown = await heard(erin, 'file_transfer_request');
    expect(shown).toMatchObject({ requestId: waiting.requestId, filename: 'late.txt' });
    // The answered one is not shown: only what still waits for a decision.
    expect(transferEvents(erin).map((e) => e.requestId)).toEqual([waiting.requestId]);
    decide(erin, waiting.requestId, true);
    expect(await heard(owner, 'file_transfer_request_approve', waiting.requestId)).toMatchObject({
      approved: true,
      approvers: ['erin'],
    });
    for (const client of [owner, bob, erin]) client.close();
  });

  it('an owner who resumes a dropped connection hears what was decided meanwhile', async () => {
    const { ownerHeaders, owner, sid, moderators } = await moderatedSession('alice', 'supervised', [
      'bob',
    ]);
    const [bob] = moderators as [TerminalClient];
    const location = path.join(dir, 'report.txt');
    ask(owner, { download: true, location, clientRequestId: 'before-drop' });
    const request = await heard(bob, 'file_transfer_request');
    const key = owner.resumeKey();
    expect(key?.sid).toBe(sid);
    owner.socket.terminate(); // the network drops: no close frame
    await owner.closed;
    decide(bob, request.requestId, true);
    await heard(bob, 'file_transfer_request_approve', request.requestId);

    const resumed = await openTerminal({
      baseUrl,
      headers: ownerHeaders,
      params: { server_id: nodeId, login: 'root', term: { w: 80, h: 24 } },
      resume: { sid, key: key!.key, received: owner.received() },
    });
    expect(resumed.response.status).toBe('ok');
    const missed = await heard(resumed, 'file_transfer_request_approve', request.requestId);
    expect(missed).toMatchObject({ approved: true, clientRequestId: 'before-drop' });
    const made = await app.server.inject({
      url: transferUrl({
        location,
        moderatedSessionId: sid,
        fileTransferRequestId: request.requestId,
      }),
      headers: ownerHeaders,
    });
    expect(made.statusCode, made.body).toBe(200);
    resumed.close();
    bob.close();
  });
});

describe('file transfer requests that are refused', () => {
  it('in a session that is not moderated, and when malformed', async () => {
    const client = await open(await signIn('fred', ['free']), { server_id: nodeId, login: 'root' });
    await client.waitForOutput(/[#$] $/m);
    ask(client, { download: true, location: '/etc/hostname' });
    ask(client, { download: 'yes', location: '' });
    await client.waitFor(() => errors(client).length >= 2, 'two error frames');
    expect(errors(client)).toEqual([
      'file transfer request refused: this session is not moderated: move files without asking',
      'file transfer request refused: download: Invalid input: expected boolean, received string',
    ]);
    client.close();
  });

  it('from a moderator, who does not ask', async () => {
    const { owner, moderators } = await moderatedSession('alice', 'supervised', ['bob']);
    const [bob] = moderators as [TerminalClient];
    ask(bob, { download: true, location: '/etc/hostname' });
    await bob.waitFor(() => errors(bob).length > 0, 'an error frame');
    expect(errors(bob)).toContain(
      'file transfer request refused: only the session owner asks for file transfers',
    );
    expect(transferEvents(owner)).toEqual([]);
    owner.close();
    bob.close();
  });
});

/** A multipart upload of a small file, as the console sends one. */
async function uploadAs(headers: Record<string, string>, query: Record<string, string>) {
  const boundary = '----postern-moderated';
  const body =
    `--${boundary}\r\ncontent-disposition: form-data; name="file"; filename="${query.filename}"\r\n` +
    'content-type: application/octet-stream\r\n\r\nuploaded with approval\n\r\n' +
    `--${boundary}--\r\n`;
  return app.server.inject({
    method: 'POST',
    url: transferUrl(query),
    headers: { ...headers, 'content-type': `multipart/form-data; boundary=${boundary}` },
    payload: body,
  });
}
