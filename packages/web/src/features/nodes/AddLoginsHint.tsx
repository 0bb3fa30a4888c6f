import { Anchor } from '@mantine/core';
import { Link } from 'react-router';

/** Where a user without logins is sent to get some. */
export interface LoginsHelp {
  /** The Users page with this user's edit dialog open, when the viewer may edit users. */
  editHref?: string;
  /** Open it in a new browser tab (from the full-page console, whose tabs would be lost). */
  newTab?: boolean;
}

interface Props {
  help: LoginsHelp;
  /** One server (its Connect menu), or every server listed. */
  scope: 'server' | 'list';
}

/** One sentence: the user has no logins here, and how to get some. */
export function AddLoginsHint({ help, scope }: Props) {
  const missing =
    scope === 'server'
      ? 'You have no logins for this server.'
      : 'You have no logins for the servers listed here.';
  if (!help.editHref) return <>{missing} Ask an admin to add logins to your user.</>;
  const link = help.newTab ? (
    <Anchor href={help.editHref} target="_blank" rel="noopener noreferrer" inherit>
      Manage Users
    </Anchor>
  ) : (
    <Anchor component={Link} to={help.editHref} inherit>
      Manage Users
    </Anchor>
  );
  return (
    <>
      {missing} Add logins to your user in {link}.
    </>
  );
}
