import { useState } from 'react';
import { useSearchParams } from 'react-router';
import { routePath } from '../../app/routes';
import { useAppNavigation } from '../../app/useAppNavigation';
import { useUserAcl } from '../../app/userContext';
import { useClientConfig } from '../../app/clientConfig';
import { useAccessRequests } from '../accessRequests/useAccessRequests';
import type { RunningCopy } from '../bots/botsApi';
import { useBotInstances } from '../bots/useBots';
import { formatDateTime } from '../../lib/format';
import type { AccessRequest } from '../accessRequests/makeRequest';
import { useDesktopNames } from '../desktops/useDesktops';
import { useRoleNames } from '../roles/useRoles';
import { useUserNames } from '../users/useUsers';
import { NewLockView } from './NewLockView';
import { newLockFormFrom } from './newLockForm';
import { useDeviceOwner } from './useDeviceOwner';
import { useLockActions } from './useLocks';

/** A request worth locking (approved, or pending and so perhaps approved soon), as offered. */
const lockableRequests = (requests: AccessRequest[] = []) =>
  requests
    .filter((r) => r.state === 'APPROVED' || r.state === 'PENDING')
    .map((r) => ({ id: r.id, label: `${r.user}: ${r.requestedText} (${r.state.toLowerCase()})` }));

/** A bot's running copy, as offered: which bot, and when it joined and last renewed. */
const lockableInstances = (copies: RunningCopy[] = []) =>
  copies.map(({ bot, instance }) => {
    const joined = formatDateTime(new Date(instance.joinedAt));
    const renewed = formatDateTime(new Date(instance.renewedAt));
    return { id: instance.id, label: `${bot}: joined ${joined}, renewed ${renewed}` };
  });

export function NewLockPage() {
  const acl = useUserAcl();
  const [search] = useSearchParams();
  const [initial] = useState(() => newLockFormFrom(search));
  const requests = useAccessRequests('all', acl.accessRequests.list);
  // Suggestions only where the user may list them; the name is free text either way.
  const users = useUserNames(acl.users.list);
  const roles = useRoleNames(acl.roles.list);
  const desktops = useDesktopNames(useClientConfig().proxyCluster, acl.desktops.list);
  const deviceOwner = useDeviceOwner(acl.users.read, users.data);
  const instances = useBotInstances(acl.bots.list);
  const actions = useLockActions();
  const navigation = useAppNavigation();
  return (
    <NewLockView
      suggestions={{ user: users.data, role: roles.data, windows_desktop: desktops.data }}
      deviceOwner={deviceOwner}
      choices={{
        access_request: lockableRequests(requests.data),
        bot_instance: lockableInstances(instances.data),
      }}
      initial={initial}
      onSubmit={async (request) => {
        await actions.create(request);
        navigation.push(routePath('locks'));
      }}
    />
  );
}
