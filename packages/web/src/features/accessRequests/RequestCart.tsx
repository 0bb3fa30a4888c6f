import { Button, Switch } from '@mantine/core';
import { IconShoppingCart } from '@tabler/icons-react';
import { Link } from 'react-router';
import { routePath } from '../../app/routes';
import type { CartItem, ResourceCart } from './resourceCart';

/** A row's "Add to request" (or, once added, "Remove from request"). */
export function AddToRequestButton({ item, cart }: { item: CartItem; cart: ResourceCart }) {
  const added = cart.has(item);
  return (
    <Button
      size="compact-sm"
      variant={added ? 'light' : 'subtle'}
      aria-label={`${added ? 'Remove' : 'Add'} ${item.title} ${added ? 'from' : 'to'} request`}
      onClick={() => (added ? cart.remove(item) : cart.add(item))}
    >
      {added ? 'Remove from request' : 'Add to request'}
    </Button>
  );
}

/** How many resources wait in the cart, leading to the New Access Request form. */
export function CartButton({ count }: { count: number }) {
  return (
    <Button
      component={Link}
      to={routePath('newAccessRequest')}
      variant={count > 0 ? 'filled' : 'default'}
      leftSection={<IconShoppingCart size={16} aria-hidden="true" />}
    >
      Request access ({count})
    </Button>
  );
}

/** Lists resources as the user's requestable (search-as) roles would see them. */
export function SearchAsRolesSwitch(props: { checked: boolean; onChange: (on: boolean) => void }) {
  return (
    <Switch
      label="Search resources as requestable roles"
      checked={props.checked}
      onChange={(e) => props.onChange(e.currentTarget.checked)}
    />
  );
}
