import type { ActiveSessionJson } from '@postern/contracts';
import type { EndKind, Party } from './party.js';
import type { TrackedParty } from './session-tracker.store.js';

export interface Member {
  party: Party;
  /** Output bytes sent and not yet acknowledged. */
  unacked: number;
  /** Output held while the joiner's first screen is being prepared. */
  pending?: Uint8Array[];
  lastActive: number;
  /** When its connection dropped, while the session waits for its client to resume it. */
  lostAt?: number;
}

/**
 * The parties of one live session and what each has been sent: output fans out to all of them,
 * counted until acknowledged (the output gate reads the counts), and held for a joiner until its
 * first screen is out. Also remembers everyone who ever joined, for the end event and recording.
 */
export class SessionParties {
  private readonly members = new Map<string, Member>();
  private readonly everyone = new Set<string>();

  get size(): number {
    return this.members.size;
  }

  get(partyId: string): Member | undefined {
    return this.members.get(partyId);
  }

  list(): Party[] {
    return [...this.members.values()].map((m) => m.party);
  }

  /** Adds a party; `holdOutput` keeps live output for it until `release`. */
  add(party: Party, now: number, holdOutput: boolean): Member {
    const member: Member = { party, unacked: 0, lastActive: now };
    if (holdOutput) member.pending = [];
    this.everyone.add(party.user);
    this.members.set(party.id, member);
    return member;
  }

  remove(partyId: string): Member | undefined {
    const member = this.members.get(partyId);
    this.members.delete(partyId);
    return member;
  }

  /** Sends the joiner its first screen, then the output held meanwhile, in order. */
  release(member: Member, screen: string | undefined): void {
    const pending = member.pending ?? [];
    member.pending = undefined;
    if (screen) this.send(member, Buffer.from(screen, 'utf8'));
    for (const chunk of pending) this.send(member, chunk);
  }

  /** Live output for every party (held for joiners whose screen is not out yet). */
  deliver(data: Uint8Array): void {
    for (const member of this.members.values()) {
      if (member.pending) member.pending.push(Buffer.from(data));
      else this.send(member, data);
    }
  }

  /** The last output of an ending session: handed over as is, no longer counted. */
  deliverLast(data: Uint8Array): void {
    for (const member of this.members.values()) member.party.output(data);
  }

  ack(partyId: string, bytes: number): boolean {
    const member = this.members.get(partyId);
    if (!member) return false;
    member.unacked = Math.max(0, member.unacked - bytes);
    return true;
  }

  event(event: Record<string, unknown>, except?: Member): void {
    for (const member of this.members.values()) if (member !== except) member.party.event(event);
  }

  sessionData(json: ActiveSessionJson): void {
    for (const member of this.members.values()) member.party.sessionData(json);
  }

  /** Whether anyone may still type: a session without peers has nobody left to drive it. */
  hasPeer(): boolean {
    return [...this.members.values()].some((m) => m.party.mode === 'peer');
  }

  /** Bytes each party is behind: unacknowledged, plus held while its screen is prepared. */
  backlog(): number[] {
    return [...this.members.values()].map((m) => m.unacked + pendingBytes(m));
  }

  /** Output written to the parties' transports and still queued in this process. */
  queuedBytes(): number {
    return [...this.members.values()].reduce((n, m) => n + (m.party.queuedBytes?.() ?? 0), 0);
  }

  /** Parties other than the owner more than `limit` bytes behind. */
  behindExceptOwner(owner: string, limit: number): string[] {
    return [...this.members.entries()]
      .filter(([, m]) => m.unacked > limit && m.party.user !== owner)
      .map(([id]) => id);
  }

  /** The owner and everyone who ever joined, once each. */
  participants(owner: string): string[] {
    return [...new Set([owner, ...this.everyone])];
  }

  /** Ends every party with the session's reason and forgets them. */
  endAll(reason: string, kind: EndKind): void {
    for (const member of this.members.values()) member.party.end(reason, kind);
    this.members.clear();
  }

  tracked(iso: (ms: number) => string): TrackedParty[] {
    return [...this.members.values()].map((m) => ({
      id: m.party.id,
      user: m.party.user,
      mode: m.party.mode,
      lastActive: iso(m.lastActive),
      ...(m.lostAt === undefined ? {} : { connectionLostAt: iso(m.lostAt) }),
    }));
  }

  private send(member: Member, data: Uint8Array): void {
    member.unacked += data.length;
    member.party.output(data);
  }
}

const pendingBytes = (m: Member) => (m.pending ?? []).reduce((n, c) => n + c.length, 0);
