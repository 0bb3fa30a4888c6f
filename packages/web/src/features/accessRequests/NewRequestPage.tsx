import { routePath } from '../../app/routes';
import { useAppNavigation } from '../../app/useAppNavigation';
import { useUserContext } from '../../app/userContext';
import { NewRequestView } from './NewRequestView';
import { useResourceCart } from './resourceCart';
import { useAccessRequestActions } from './useAccessRequests';

/** `/web/requests/new`: what the user context says may be asked for, and the resource cart. */
export function NewRequestPage() {
  const context = useUserContext();
  const { cart, items } = useResourceCart();
  const actions = useAccessRequestActions();
  const navigation = useAppNavigation();
  return (
    <NewRequestView
      requestableRoles={context.accessCapabilities.requestableRoles}
      suggestedReviewers={context.accessCapabilities.suggestedReviewers}
      strategy={context.accessStrategy}
      resources={items}
      onRemoveResource={(item) => cart.remove(item)}
      onSubmit={async (body) => {
        const created = await actions.create(body);
        cart.clear();
        navigation.push(routePath('accessRequest', { requestId: created.id }));
      }}
    />
  );
}
