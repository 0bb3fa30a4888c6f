import { Center, Loader } from '@mantine/core';
import { useEffect, useState } from 'react';
import { motion, space } from '../theme/constants';

export type SpinnerDelay = keyof typeof motion.spinnerDelayMs;

/**
 * Shown while a lazy page chunk or a page's data loads. The spinner itself appears only after
 * the spec's delay (§9: none, 400 ms or 600 ms; short by default), so a load that is quick does
 * not flash one; the status it announces is there from the start.
 */
export function PageLoader({
  label = 'Loading',
  delay = 'short',
}: {
  label?: string;
  delay?: SpinnerDelay;
}) {
  const ms = motion.spinnerDelayMs[delay];
  const [shown, setShown] = useState(ms === 0);
  useEffect(() => {
    if (ms === 0) return;
    const timer = setTimeout(() => setShown(true), ms);
    return () => clearTimeout(timer);
  }, [ms]);
  return (
    <Center py={space[6]} role="status" aria-label={label} mih={36}>
      {shown && <Loader />}
    </Center>
  );
}
