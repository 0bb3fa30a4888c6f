import { useParams } from 'react-router';
import { routePath } from '../../app/routes';
import { useAppNavigation } from '../../app/useAppNavigation';
import { useUserAcl } from '../../app/userContext';
import { EnrollIntegrationView } from './EnrollIntegrationView';
import { useIntegrationActions } from './useIntegrations';

/** `/web/integrations/new/:type?`: saving goes back to Manage Integrations. */
export function EnrollIntegrationPage() {
  const { type } = useParams();
  const acl = useUserAcl();
  const actions = useIntegrationActions();
  const navigation = useAppNavigation();
  return (
    <EnrollIntegrationView
      type={type}
      canCreate={acl.integrations.create}
      onSubmit={async (input) => {
        await actions.create(input);
        navigation.push(routePath('integrations'));
      }}
    />
  );
}
