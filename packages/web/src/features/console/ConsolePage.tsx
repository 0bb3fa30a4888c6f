import { useEffect, useMemo, useReducer } from 'react';
import { useLocation, useNavigate, useParams, useSearchParams } from 'react-router';
import { useClientConfig } from '../../app/clientConfig';
import { AccessDenied } from '../../app/fallbacks/AccessDenied';
import { useFeatureFlags } from '../../app/featureFlagsContext';
import { routePath } from '../../app/routes';
import { ConsoleContext, type ConsoleContextValue, type ConsoleDeps } from './ConsoleContext';
import {
  activeTab,
  consoleReducer,
  initConsole,
  tabUrl,
  targetOf,
  type ConsoleTab,
} from './consoleStore';
import { ConsoleView } from './ConsoleView';
import { useTerminalFontSize } from './fontSize';
import { ServersTab } from './ServersTab';
import { browserTerminalDeps } from './terminalDeps';
import { TerminalSession } from './TerminalSession';

/**
 * The terminal console, full page, for every console route (`console`, `console/nodes`,
 * `console/node/:serverId/:login`, `console/session/:sid?mode=`). The same component serves all
 * four, so moving between them keeps the page, its tabs and their sockets. The URL opens a tab
 * when the page loads and then follows the active tab.
 */
export function ConsolePage({ deps: overrides }: { deps?: Partial<ConsoleDeps> } = {}) {
  const { proxyCluster } = useClientConfig();
  const flags = useFeatureFlags();
  const params = useParams();
  const clusterId = params.clusterId ?? proxyCluster;
  const [search] = useSearchParams();
  const location = useLocation();
  const navigate = useNavigate();
  const target = targetOf({ ...params, clusterId }, search);

  const [state, dispatch] = useReducer(consoleReducer, target, initConsole);
  const [fontSize, setFontSize] = useTerminalFontSize();
  const deps = useMemo<ConsoleDeps>(
    () => ({ ...browserTerminalDeps(), ...overrides }),
    [overrides],
  );

  const here = `${location.pathname}${location.search}`;
  const activeUrl = tabUrl(activeTab(state), clusterId);

  // The URL changed under us (back, forward, an edited address): show what it names.
  useEffect(() => {
    if (here !== activeUrl) dispatch({ type: 'route', target });
    // Only a new URL is news here; the active tab's changes are the next effect's.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [here]);

  // The URL follows the active tab.
  useEffect(() => {
    if (here !== activeUrl) void navigate(activeUrl, { replace: true });
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [activeUrl]);

  const context = useMemo<ConsoleContextValue>(
    () => ({ state, dispatch, clusterId, fontSize, setFontSize, deps }),
    [state, clusterId, fontSize, setFontSize, deps],
  );

  // The console serves two features: starting sessions (servers) and joining them.
  if (!flags.nodes && !flags.activeSessions) return <AccessDenied />;

  const renderTab = (tab: ConsoleTab, active: boolean) =>
    tab.kind === 'servers' ? <ServersTab /> : <TerminalSession tab={tab} active={active} />;

  return (
    <ConsoleContext.Provider value={context}>
      <ConsoleView
        tabs={state.tabs}
        activeId={state.activeId}
        onActivate={(id) => dispatch({ type: 'activate', id })}
        onClose={(id) => dispatch({ type: 'close', id })}
        onDuplicate={(id) => dispatch({ type: 'duplicate', id })}
        renderTab={renderTab}
        homeHref={routePath('clusterNodes', { clusterId })}
      />
    </ConsoleContext.Provider>
  );
}
