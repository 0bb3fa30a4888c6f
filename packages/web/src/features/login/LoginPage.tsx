import { useSearchParams } from 'react-router';
import { useClientConfig } from '../../app/clientConfig';
import { safeRedirect } from '../../app/navigation';
import { LoginView } from './LoginView';
import { useLogin } from './useLogin';

/**
 * `/web/login`. This chunk (with its static imports) is what bench/bundle-size.mjs holds to the
 * login route's budget: keep heavy dependencies out of it.
 */
export function LoginPage() {
  const { auth } = useClientConfig();
  const [search] = useSearchParams();
  // Only a same-origin path survives; anything else signs in to the default page.
  const target = safeRedirect(search.get('redirect_uri'));
  const { attempt, login, loginWithPasskey, loginWithProvider } = useLogin(target);
  return (
    <LoginView
      auth={auth}
      attempt={attempt}
      onLogin={(values) => void login(values)}
      onPasskey={() => void loginWithPasskey()}
      onProvider={loginWithProvider}
    />
  );
}
