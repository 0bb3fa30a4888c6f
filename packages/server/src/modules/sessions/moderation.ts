import type { ParticipantMode } from '@postern/contracts';
import type { ModerationPolicy } from '../../access-control/rbac/index.js';
import { evaluateWhere } from '../../access-control/rbac/where.js';

/** Someone in a session, as a moderation policy judges them. */
export interface Participant {
  user: string;
  roles: readonly string[];
  mode: ParticipantMode;
  /** Their traits (the user record's, as their access is worked out): `user.spec.traits`. */
  traits?: Readonly<Record<string, readonly string[]>>;
}

/** What a session's moderation says now: it may run, or it waits (and for whom). */
export type ModerationState = 'waiting' | 'running' | 'paused';

/**
 * A moderated session's rules (reference `require_session_join`), from its owner's roles: every
 * role that has policies for the session's kind must be met by one of its policies, a policy
 * being met when `count` participants other than the owner match its filter and joined in one of
 * its modes. Pure: the live session asks it at each join and leave.
 */
export class Moderation {
  /** The moderation a session of `kind` started by `owner` needs, from the owner's roles. */
  static of(
    owner: { user: string; roleSet: { moderationPolicySets(kind: string): ModerationPolicy[][] } },
    kind: 'ssh' | 'k8s',
  ): Moderation {
    return new Moderation(owner.roleSet.moderationPolicySets(kind), owner.user);
  }

  constructor(
    private readonly policySets: readonly (readonly ModerationPolicy[])[],
    private readonly owner: string,
  ) {}

  /** Whether the session needs moderators at all. */
  get required(): boolean {
    return this.policySets.length > 0;
  }

  fulfilledBy(participants: readonly Participant[]): boolean {
    return this.policySets.every((set) => set.some((policy) => this.met(policy, participants)));
  }

  /** Those who count towards some policy: the moderators the waiting user sees as joined. */
  counted(participants: readonly Participant[]): Participant[] {
    return participants.filter((p) =>
      this.policySets.some((set) => set.some((policy) => this.matches(policy, p))),
    );
  }

  /**
   * What happens when the session stops being met: pause when every policy that could have met
   * it says so; otherwise terminate (the reference's default).
   */
  onLeave(): 'terminate' | 'pause' {
    const policies = this.policySets.flat();
    return policies.length > 0 && policies.every((p) => p.onLeave === 'pause')
      ? 'pause'
      : 'terminate';
  }

  /** Who is needed, in words: "1 moderator matching contains(user.roles, "auditor")". */
  describe(): string {
    return this.policySets
      .map((set) =>
        set
          .map((p) => {
            const who = `${p.count} ${p.modes.join(' or ')}${p.count === 1 ? '' : 's'}`;
            return p.filterText ? `${who} matching ${p.filterText}` : who;
          })
          .join(', or '),
      )
      .join('; and ');
  }

  private met(policy: ModerationPolicy, participants: readonly Participant[]): boolean {
    return participants.filter((p) => this.matches(policy, p)).length >= policy.count;
  }

  /** The owner never counts: nobody moderates their own session. */
  private matches(policy: ModerationPolicy, p: Participant): boolean {
    if (p.user === this.owner || !policy.modes.includes(p.mode)) return false;
    if (policy.filter === undefined) return true;
    if (policy.filter === 'invalid') return false;
    // `user.roles` and `user.name` (the reference's spelling) as well as `user.spec.roles`.
    const traits = Object.fromEntries(
      Object.entries(p.traits ?? {}).map(([name, values]) => [name, [...values]]),
    );
    const user = {
      name: p.user,
      roles: [...p.roles],
      traits,
      metadata: { name: p.user },
      spec: { roles: [...p.roles], traits },
    };
    // Unknown (an unsupported function) does not count: it never starts a session.
    return evaluateWhere(policy.filter, { user }) === true;
  }
}
