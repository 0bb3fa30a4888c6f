import type { ConnectionDiagnostic, JoinTokenJson } from '@postern/contracts';
import { useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { useClientConfig } from '../../app/clientConfig';
import { useUserAcl } from '../../app/userContext';
import type { ProxyAddress } from '../nodes/NodesView';
import {
  createJoinToken,
  findEnrolled,
  testDatabaseConnection,
  type EnrolledMatch,
} from './discoverApi';
import { enrollCommand } from './enrollCommand';
import {
  checkEnrollInput,
  emptyEnrollInput,
  hasErrors,
  parseLabels,
  type EnrollInput,
  type EnrollInputErrors,
} from './enrollInput';
import { enrollKinds, mayWatch, type EnrollKind } from './enrollKinds';

/** How often the page looks for the resource while it waits for it to join. */
export const joinPollMs = 3_000;

/** The join token issued for the form, and how its resource will be recognised. */
interface Issued {
  token: JoinTokenJson;
  match: EnrolledMatch;
}

/** Everything Enroll New Resource shows and does, for its pure view. */
export interface Enrollment {
  /** Whether the user may create join tokens, which adding anything needs. */
  mayAdd: boolean;
  /** Every kind, and whether the user could see one join (read its list). */
  kinds: readonly { kind: EnrollKind; watchable: boolean }[];
  kind: EnrollKind | undefined;
  choose(kind: EnrollKind): void;
  /** Back to the choice of kind, forgetting the form and any token. */
  restart(): void;
  input: EnrollInput;
  setInput(input: EnrollInput): void;
  errors: EnrollInputErrors;
  /** Checks the form, then asks for a join token. */
  submit(): Promise<void>;
  submitting: boolean;
  /** Why the token could not be made (the server's words). */
  submitError: string | undefined;
  selfSigned: boolean;
  setSelfSigned(selfSigned: boolean): void;
  /** Once a token is issued: the command to run and when the token stops working. */
  issued: { command: string; expiry: Date } | undefined;
  /** The chosen kind's list is one the user may read: the page can watch it join. */
  watchable: boolean;
  /** The joined resource's name (a server's hostname), once it shows in its list. */
  joined: string | undefined;
  /** The token expired before anything joined with it. */
  expired: boolean;
  /** The last look for the resource failed. */
  watchError: string | undefined;
  /**
   * A joined database's connection test, as the user (when their roles may run it: spec §6
   * connectionDiagnostic create).
   */
  testConnection:
    ((login: { dbUser: string; dbName: string }) => Promise<ConnectionDiagnostic>) | undefined;
}

const nameTakenMessage = (kind: EnrollKind, name: string) =>
  `${/^[aeiou]/i.test(kind.noun) ? 'an' : 'a'} ${kind.noun} named ${name} is already enrolled: choose another name`;

export function useEnroll(proxy: ProxyAddress, now: () => number = Date.now): Enrollment {
  const acl = useUserAcl();
  const { proxyCluster } = useClientConfig();
  const [kind, setKind] = useState<EnrollKind>();
  const [input, setInputState] = useState(emptyEnrollInput);
  const [errors, setErrors] = useState<EnrollInputErrors>({});
  const [submitting, setSubmitting] = useState(false);
  const [submitError, setSubmitError] = useState<string>();
  const [selfSigned, setSelfSigned] = useState(false);
  const [issued, setIssued] = useState<Issued>();
  const watchable = kind !== undefined && mayWatch(acl, kind.list);

  const expiry = issued ? new Date(issued.token.expiry) : undefined;
  const expired = useExpired(expiry, now);
  const watch = useQuery({
    queryKey: ['enrolled', proxyCluster, kind?.list, issued?.token.internalResourceId],
    queryFn: ({ signal }) => findEnrolled(proxyCluster, kind!.list, issued!.match, signal),
    enabled: watchable && issued !== undefined,
    // Until it joins, or the token has expired (nothing can join with it any more).
    refetchInterval: (query) => (query.state.data || expired ? false : joinPollMs),
    refetchIntervalInBackground: true,
  });
  const joined = watch.data ?? undefined;

  const restart = () => {
    setKind(undefined);
    setInputState(emptyEnrollInput);
    setErrors({});
    setSubmitError(undefined);
    setIssued(undefined);
  };

  const submit = async () => {
    if (!kind) return;
    const problems = checkEnrollInput(kind.id, input);
    setErrors(problems);
    if (hasErrors(problems)) return;
    setSubmitting(true);
    setSubmitError(undefined);
    try {
      const name = input.name.trim();
      // Spec §6: adding agents first checks for a resource already registered as this one
      // (where the user may look).
      if (kind.form.type !== 'labels' && watchable) {
        if (await findEnrolled(proxyCluster, kind.list, { name })) {
          setErrors({ name: nameTakenMessage(kind, name) });
          return;
        }
      }
      const labels = kind.form.type === 'labels' ? parseLabels(input.labels) : {};
      const token = await createJoinToken(kind.tokenRole, typeof labels === 'string' ? {} : labels);
      setIssued({
        token,
        match: kind.form.type === 'labels' ? { resourceId: token.internalResourceId } : { name },
      });
    } catch (error) {
      setSubmitError((error as Error).message);
    } finally {
      setSubmitting(false);
    }
  };

  return {
    mayAdd: acl.tokens.create,
    kinds: enrollKinds.map((each) => ({ kind: each, watchable: mayWatch(acl, each.list) })),
    kind,
    choose: (chosen) => {
      restart();
      setKind(chosen);
    },
    restart,
    input,
    setInput: (next) => {
      setInputState(next);
      // A changed form is a new resource: the token and command shown were for the old one.
      setIssued(undefined);
    },
    errors,
    submit,
    submitting,
    submitError,
    selfSigned,
    setSelfSigned,
    issued:
      kind && issued && expiry
        ? {
            command: enrollCommand({
              kind: kind.id,
              input,
              token: issued.token.id,
              proxy,
              selfSigned,
            }),
            expiry,
          }
        : undefined,
    watchable,
    joined,
    expired: !joined && expired,
    watchError: watch.error ? watch.error.message : undefined,
    testConnection:
      joined && kind?.id === 'database' && acl.connectionDiagnostic.create
        ? (login) => testDatabaseConnection(proxyCluster, { name: joined, ...login })
        : undefined,
  };
}

/** Whether `expiry` has passed; turns true when it does, so the page says so without a reload. */
function useExpired(expiry: Date | undefined, now: () => number): boolean {
  const at = expiry?.getTime();
  const [expiredAt, setExpiredAt] = useState<number>();
  useEffect(() => {
    if (at === undefined) return;
    const timer = setTimeout(() => setExpiredAt(at), Math.max(0, at - now()));
    return () => clearTimeout(timer);
  }, [at, now]);
  return at !== undefined && (expiredAt === at || at <= now());
}
