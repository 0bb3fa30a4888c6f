import { ClusterAlertBanners } from './ClusterAlertBanners';
import { useClusterAlerts } from './useClusterAlerts';

/** The main layout's alerts, fetched and closed here so the layout stays a frame. */
export function ClusterAlertsBar() {
  const { alerts, dismiss } = useClusterAlerts();
  return <ClusterAlertBanners alerts={alerts} onDismiss={dismiss} />;
}
