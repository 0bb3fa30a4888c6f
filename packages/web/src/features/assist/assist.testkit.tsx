import type { AssistConversation, AssistMessage } from '@postern/contracts';
import { act } from '@testing-library/react';
import { vi } from 'vitest';
import { jsonResponse } from '../../test/authConfig';
import { renderPage } from '../../test/renderPage';
import { aclWith, userContextFixture } from '../../test/userContexts';
import { fakeSockets, type FakeSocket } from '../console/tty/fakeSocket';
import { AssistPage } from './AssistPage';
import type { AssistDeps } from './assistSocket';

// The assistant's tests share this: the server's REST answers by URL, and fake sockets in
// place of the browser's, which a test answers as the server would.

export const firstId = '3f0c1d2e-4b5a-4c6d-8e7f-90a1b2c3d4e5';
export const secondId = '7a8b9c0d-1e2f-4a3b-9c4d-5e6f7a8b9c0d';
export const newId = 'c1d2e3f4-a5b6-4c7d-8e9f-0a1b2c3d4e5f';
export const executionId = '0e1f2a3b-4c5d-4e6f-a7b8-c9d0e1f2a3b4';

/** The test page's proxy cluster (configWithAuth's default), which the sockets go to. */
export const clusterId = 'localhost';

export const conversations: AssistConversation[] = [
  { id: firstId, title: 'Disk space on web servers', created_time: '2026-11-29T09:00:00Z' },
  { id: secondId, title: 'Failed logins', created_time: '2026-11-28T08:00:00Z' },
];

export const message = (type: AssistMessage['type'], payload: unknown): AssistMessage => ({
  type,
  payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
  created_time: '2026-11-29T09:01:00Z',
});

export interface Call {
  url: string;
  method: string;
  body?: unknown;
}

/** The server's REST side: the list, each conversation's messages, and the answers to writes. */
export function stubServer(stored: Record<string, AssistMessage[]> = {}) {
  const calls: Call[] = [];
  const list = [...conversations];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string, init: RequestInit = {}) => {
      const method = init.method ?? 'GET';
      const body = init.body ? JSON.parse(String(init.body)) : undefined;
      calls.push({ url, method, body });
      const base = '/v1/webapi/assistant/conversations';
      if (url === base && method === 'GET') return jsonResponse({ conversations: list });
      if (url === base && method === 'POST') {
        list.unshift({
          id: newId,
          title: 'New conversation',
          created_time: '2026-11-30T10:00:00Z',
        });
        return jsonResponse({ id: newId });
      }
      const id = url.slice(base.length + 1).split('/')[0] ?? '';
      if (method === 'GET') return jsonResponse({ messages: stored[id] ?? [] });
      if (method === 'DELETE') {
        const gone = list.findIndex((c) => c.id === id);
        if (gone >= 0) list.splice(gone, 1);
      }
      return jsonResponse({ message: 'ok' });
    }),
  );
  return calls;
}

/** Fake sockets, and the deps that make them. */
export function socketDeps() {
  const made = fakeSockets();
  const deps: AssistDeps = {
    createSocket: made.create,
    token: () => 'bearer-tok',
    origin: { protocol: 'https:', host: 'proxy.example.com' },
    newExecutionId: () => executionId,
  };
  return { deps, sockets: made };
}

/** The page at a URL, for a user who may use the assistant. */
export function renderAssist(url: string, deps: AssistDeps) {
  return renderPage(<AssistPage deps={deps} />, {
    path: '/web/assist/:conversationId?',
    url,
    context: userContextFixture(aclWith({ assist: ['list', 'read', 'create', 'edit'] })),
  });
}

/** The server's frames, as text on the socket. */
export function serverSends(socket: FakeSocket, ...frames: object[]) {
  act(() => {
    for (const frame of frames) socket.receiveText(JSON.stringify(frame));
  });
}

/** The socket opens, and the server accepts the bearer. */
export function accept(socket: FakeSocket) {
  act(() => socket.open());
  serverSends(socket, { type: 'ready' });
}

/** What the client sent, text frames read as JSON. */
export const sentFrames = (socket: FakeSocket) =>
  socket.sent.map((frame) => (typeof frame === 'string' ? JSON.parse(frame) : frame));
