import { Navigate, useParams } from 'react-router';
import { routePath } from './routes';

/** `/web/cluster/{clusterId}` (with or without a trailing slash) opens that cluster's Servers. */
export function ClusterRedirect() {
  const { clusterId = '' } = useParams();
  return <Navigate to={routePath('clusterNodes', { clusterId })} replace />;
}
