import { useMemo } from 'react';
import { useNavigate } from 'react-router';
import { createNavigation, type Navigation } from './navigation';

/** `push`/`replace` that only reach known routes (unknown targets go to /web). */
export function useAppNavigation(): Navigation {
  const navigate = useNavigate();
  return useMemo(
    () => createNavigation({ navigate: (to, options) => void navigate(to, options) }),
    [navigate],
  );
}
