import { routePath } from '../../app/routes';
import { useAppNavigation } from '../../app/useAppNavigation';
import { useUserAcl } from '../../app/userContext';
import { useClientConfig } from '../../app/clientConfig';
import { useDesktopNames } from '../desktops/useDesktops';
import { useRoleNames } from '../roles/useRoles';
import { useUserNames } from '../users/useUsers';
import { NewLockView } from './NewLockView';
import { useDeviceOwner } from './useDeviceOwner';
import { useLockActions } from './useLocks';

export function NewLockPage() {
  const acl = useUserAcl();
  // Suggestions only where the user may list them; the name is free text either way.
  const users = useUserNames(acl.users.list);
  const roles = useRoleNames(acl.roles.list);
  const desktops = useDesktopNames(useClientConfig().proxyCluster, acl.desktops.list);
  const deviceOwner = useDeviceOwner(acl.users.read, users.data);
  const actions = useLockActions();
  const navigation = useAppNavigation();
  return (
    <NewLockView
      suggestions={{ user: users.data, role: roles.data, windows_desktop: desktops.data }}
      deviceOwner={deviceOwner}
      onSubmit={async (request) => {
        await actions.create(request);
        navigation.push(routePath('locks'));
      }}
    />
  );
}
