import {
  apiPaths,
  lastActiveHeader,
  sessionResponseSchema,
  type SessionResponse,
} from '@postern/contracts';
import { api, decode } from '../../api';
import { readLastActive } from './storage';

/** The server calls the session lifecycle makes (spec §7 "Session"). */
export interface SessionApi {
  /** `POST sessions/web/renew`: a new bearer (and cookie) for the same sign-in. */
  renew(): Promise<SessionResponse>;
  /** `GET user/status`: the liveness poll; rejects with an ApiError when the session is gone. */
  status(): Promise<void>;
  /** `DELETE sessions/web`: logout. */
  deleteSession(): Promise<void>;
}

// A 401 to these is the lifecycle's own business, not a reason to ask the lifecycle.
const own = { skipSessionCheck: true } as const;

/** Timer calls report the user's last activity, so the server's idle timeout counts it. */
const ownWithActivity = () => {
  const lastActive = readLastActive(window.localStorage);
  return lastActive ? { ...own, headers: { [lastActiveHeader]: String(lastActive) } } : own;
};

export const webSessionApi: SessionApi = {
  renew: async () =>
    decode(
      sessionResponseSchema,
      await api.post(apiPaths.renewSession, {}, ownWithActivity()),
      apiPaths.renewSession,
    ),
  status: async () => {
    await api.get(apiPaths.userStatus, ownWithActivity());
  },
  deleteSession: async () => {
    await api.delete(apiPaths.webSession, undefined, own);
  },
};
