import type { MfaRequiredRequest } from '@postern/contracts';
import type { Duplex } from 'node:stream';
import type { LeafCaller } from './leaf-grants.js';

/**
 * `ssh -J` through a root to a leaf's server (docs/trusted-clusters.md). Both halves meet the
 * servers wing here, since the platform never imports a wing: the trusted-clusters part fills in
 * the root's half (which names lead to a leaf, and a stream to it through the leaf's tunnel) and
 * runs the leaf's admission; the SSH proxy asks the first and serves what the second admits.
 */

/**
 * The name a root's user reaches a leaf's SSH proxy itself by, through the root (`postern join
 * --cluster lab`): under the leaf's names, so ssh_config routes it through the root and the
 * leaf's host CA vouches for it, and with an underscore, which no host name has.
 */
export const leafProxyHost = (leaf: string) => `_proxy.${leaf}`;

/** Who the root forwards: the user its SSH proxy signed in, for the leaf to map. */
export interface RootSshUser {
  user: string;
  /** Their roles and traits on the root. */
  roles: string[];
  traits: Record<string, string[]>;
  /** Their certificate's end: the leaf lets them in no longer. */
  expires: Date;
  /** Their roles on the root ask for a per-session MFA check (the leaf then asks too). */
  sessionMfa: boolean;
}

/** What the client asked the root's jump host for, passed on to the leaf. */
export interface SshTarget {
  /** The name as the client gave it (`web-1.lab`): the leaf's host certificate must list it. */
  host: string;
  port: number;
  /** `ip:port` of the client, for the leaf's audit and pin_source_ip. */
  clientAddr: string;
}

/** A root user's SSH connection arriving at this (leaf) cluster through a root's tunnel. */
export interface RootSshConnection extends SshTarget {
  root: string;
  /** The user and the roles the role map gives them, or why the leaf refuses them. */
  admitted: { user: string; roles: string[]; rootSessionMfa: boolean } | { refused: string };
  /** The root's user CA keys: the client's certificate must be signed by one of them. */
  userCaKeys: string[];
}

/** The SSH proxy's answer: how to serve the stream, or undefined for a server it does not know. */
export type RootSshHandler = (
  connection: RootSshConnection,
) => ((stream: Duplex) => void) | undefined;

export interface RootSide {
  /** The leaf a name points into (`web-1.lab` → lab) when it is a leaf this cluster trusts. */
  leafOf(host: string): string | undefined;
  /** known_hosts lines trusting each leaf's host CA for the names under it. */
  hostSigners(): string[];
  /** A stream to the leaf's SSH for `target`; undefined when the leaf knows no such server. */
  dial(leaf: string, user: RootSshUser, target: SshTarget): Promise<Duplex | undefined>;
  /** Whether the leaf's roles for this user ask for a per-session MFA check on `resource`. */
  sessionMfaRequired(
    leaf: string,
    user: LeafCaller,
    resource: MfaRequiredRequest,
  ): Promise<boolean>;
}

export class ClusterSsh {
  private root: RootSide | undefined;
  private handler: RootSshHandler | undefined;

  /** The trusted-clusters part, once built. */
  attachRoot(side: RootSide): void {
    this.root = side;
  }

  leafOf(host: string): string | undefined {
    return this.root?.leafOf(host);
  }

  hostSigners(): string[] {
    return this.root?.hostSigners() ?? [];
  }

  dial(leaf: string, user: RootSshUser, target: SshTarget): Promise<Duplex | undefined> {
    if (!this.root) return Promise.resolve(undefined);
    return this.root.dial(leaf, user, target);
  }

  /** False when this cluster is no root: then no name leads to a leaf. */
  sessionMfaRequired(
    leaf: string,
    user: LeafCaller,
    resource: MfaRequiredRequest,
  ): Promise<boolean> {
    if (!this.root) return Promise.resolve(false);
    return this.root.sessionMfaRequired(leaf, user, resource);
  }

  /** The SSH proxy, while it listens: it serves the root users a leaf admits. */
  serveRootUsers(handler: RootSshHandler): () => void {
    this.handler = handler;
    return () => {
      if (this.handler === handler) this.handler = undefined;
    };
  }

  /** The leaf's half: undefined when no SSH proxy runs here or it knows no such server. */
  serve(connection: RootSshConnection): ((stream: Duplex) => void) | undefined {
    return this.handler?.(connection);
  }
}
