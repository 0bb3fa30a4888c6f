import { Center, Loader } from '@mantine/core';
import { space } from '../theme/constants';

/** Shown while a lazy page chunk or a page's data loads. */
export function PageLoader({ label = 'Loading' }: { label?: string }) {
  return (
    <Center py={space[6]} role="status" aria-label={label}>
      <Loader />
    </Center>
  );
}
