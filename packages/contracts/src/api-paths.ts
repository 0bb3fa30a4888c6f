/**
 * Every web API path, in one place, used by the server to register routes and by the console to
 * call them. Builders encode parameters so a name can never break out of its path segment.
 */
import type { ConnectorKind } from './connectors.js';

export const apiPrefix = '/v1/webapi';

const seg = (value: string) => encodeURIComponent(value);

export const apiPaths = {
  ping: `${apiPrefix}/ping`,
  sites: `${apiPrefix}/sites`,
  capture: `${apiPrefix}/capture`,
  precapture: `${apiPrefix}/precapture`,
  // Identity.
  webSession: `${apiPrefix}/sessions/web`,
  renewSession: `${apiPrefix}/sessions/web/renew`,
  userStatus: `${apiPrefix}/user/status`,
  mfaLoginBegin: `${apiPrefix}/mfa/login/begin`,
  mfaLoginFinishSession: `${apiPrefix}/mfa/login/finishsession`,
  mfaAuthenticateChallenge: `${apiPrefix}/mfa/authenticatechallenge`,
  mfaAuthenticateChallengePassword: `${apiPrefix}/mfa/authenticatechallenge/password`,
  mfaDevices: `${apiPrefix}/mfa/devices`,
  userTokens: `${apiPrefix}/users/password/token`,
  userToken: (tokenId: string) => `${apiPrefix}/users/password/token/${seg(tokenId)}`,
  changePassword: `${apiPrefix}/users/password`,
  privilegeToken: `${apiPrefix}/users/privilege/token`,
  mfaTokenRegisterChallenge: (tokenId: string) =>
    `${apiPrefix}/mfa/token/${seg(tokenId)}/registerchallenge`,
  mfaTokenDevice: (tokenId: string, deviceName: string) =>
    `${apiPrefix}/mfa/token/${seg(tokenId)}/devices/${seg(deviceName)}`,
  mfaTokenDevices: (tokenId: string) => `${apiPrefix}/mfa/token/${seg(tokenId)}/devices`,
  mfaTokenAuthenticateChallenge: (tokenId: string) =>
    `${apiPrefix}/mfa/token/${seg(tokenId)}/authenticatechallenge`,
  // Access control.
  roles: `${apiPrefix}/roles`,
  role: (name: string) => `${apiPrefix}/roles/${seg(name)}`,
  trustedClusters: `${apiPrefix}/trustedcluster`,
  trustedCluster: (name: string) => `${apiPrefix}/trustedcluster/${seg(name)}`,
  users: `${apiPrefix}/users`,
  user: (name: string) => `${apiPrefix}/users/${seg(name)}`,
  /** A user's MFA devices, for an admin locking one (`mfa_device`): ids and names, no secret. */
  userMfaDevices: (name: string) => `${apiPrefix}/users/${seg(name)}/mfa/devices`,
  context: (clusterId: string) => `${apiPrefix}/sites/${seg(clusterId)}/context`,
  locks: (clusterId: string) => `${apiPrefix}/sites/${seg(clusterId)}/locks`,
  lock: (clusterId: string, uuid: string) =>
    `${apiPrefix}/sites/${seg(clusterId)}/locks/${seg(uuid)}`,
  /** Manage Bots (docs/bots.md), at the reference's paths. */
  bots: (clusterId: string) => `${apiPrefix}/sites/${seg(clusterId)}/machine-id/bot`,
  bot: (clusterId: string, name: string) =>
    `${apiPrefix}/sites/${seg(clusterId)}/machine-id/bot/${seg(name)}`,
  botToken: (clusterId: string, name: string) =>
    `${apiPrefix}/sites/${seg(clusterId)}/machine-id/bot/${seg(name)}/token`,
  /** The assistant (docs/assist.md): the caller's own conversations. */
  assistConversations: `${apiPrefix}/assistant/conversations`,
  assistConversation: (id: string) => `${apiPrefix}/assistant/conversations/${seg(id)}`,
  /** POST `{title}`: renames a conversation. */
  assistConversationTitle: (id: string) => `${apiPrefix}/assistant/conversations/${seg(id)}/title`,
  /** POST `{message}` → `{title}`: a short title for a conversation that starts so. */
  assistTitleSummary: `${apiPrefix}/assistant/title/summary`,
  /** The chat socket, `?conversation_id=`. */
  assistChat: (clusterId: string) => `${apiPrefix}/sites/${seg(clusterId)}/assistant`,
  /** The socket that runs a proposed command, `?params=` (AssistExecuteParams as JSON). */
  assistExecute: (clusterId: string) => `${apiPrefix}/command/${seg(clusterId)}/execute`,
  // Access requests and the integrations that notify reviewers (docs/access-requests.md).
  accessRequests: (clusterId: string) => `${apiPrefix}/sites/${seg(clusterId)}/accessrequests`,
  accessRequest: (clusterId: string, id: string) =>
    `${apiPrefix}/sites/${seg(clusterId)}/accessrequests/${seg(id)}`,
  accessRequestReviews: (clusterId: string, id: string) =>
    `${apiPrefix}/sites/${seg(clusterId)}/accessrequests/${seg(id)}/reviews`,
  /** The same, signed with a user certificate, for `postern request …` (docs/access-requests.md). */
  cliAccessRequests: `${apiPrefix}/accessrequests`,
  cliAccessRequest: (id: string) => `${apiPrefix}/accessrequests/${seg(id)}`,
  cliAccessRequestReviews: (id: string) => `${apiPrefix}/accessrequests/${seg(id)}/reviews`,
  /**
   * Signed with a user certificate, for `postern recordings ls` and `postern play`
   * (docs/recordings.md): the recordings list (as events/search/sessions), and a recording's
   * info and chunks of events (as the player's calls).
   */
  cliRecordings: `${apiPrefix}/recordings`,
  /** GET, signed with the user's certificate: the audit log for `postern audit` (docs/recordings.md). */
  cliEvents: `${apiPrefix}/events`,
  /** GET, signed: the log in the order it was stored, for `postern audit export` (docs/audit.md). */
  cliEventsExport: `${apiPrefix}/events/export`,
  /** GET: the live sessions the user may see, for `postern sessions ls` (signed, like `sshNodes`). */
  cliActiveSessions: `${apiPrefix}/activesessions`,
  /** GET: this cluster and its trusted leaves, as `sites` lists them, for `postern clusters` (signed). */
  cliClusters: `${apiPrefix}/clusters`,
  cliRecordingInfo: (sid: string) => `${apiPrefix}/recordings/${seg(sid)}/info`,
  cliRecordingEvents: (sid: string) => `${apiPrefix}/recordings/${seg(sid)}/events`,
  /** POST, signed: a certificate for the same key that assumes these approved requests (or none). */
  sshCertsAssume: `${apiPrefix}/ssh/certs/assume`,
  integrations: (clusterId: string) => `${apiPrefix}/sites/${seg(clusterId)}/integrations`,
  integration: (clusterId: string, name: string) =>
    `${apiPrefix}/sites/${seg(clusterId)}/integrations/${seg(name)}`,
  /** POST: sends a test message through the integration now. */
  integrationTest: (clusterId: string, name: string) =>
    `${apiPrefix}/sites/${seg(clusterId)}/integrations/${seg(name)}/test`,
  // Servers and the web terminal.
  nodes: (clusterId: string) => `${apiPrefix}/sites/${seg(clusterId)}/nodes`,
  // Applications (docs/apps.md).
  apps: (clusterId: string) => `${apiPrefix}/sites/${seg(clusterId)}/apps`,
  /** WebSocket: a TCP app's connection, for `postern proxy app` (signed with a user certificate). */
  /** Not under `apps/`: a path there would shadow `apps/{fqdn}/{clusterId}` for a cluster named tcp. */
  appTcp: (name: string) => `${apiPrefix}/tcpapps/${seg(name)}`,
  /** `appTcp` of a named cluster: a trusted leaf's through its root (`postern proxy app --cluster`). */
  appTcpIn: (clusterId: string, name: string) =>
    `${apiPrefix}/sites/${seg(clusterId)}/tcpapps/${seg(name)}`,
  // Databases (docs/databases.md).
  databases: (clusterId: string) => `${apiPrefix}/sites/${seg(clusterId)}/databases`,
  database: (clusterId: string, name: string) =>
    `${apiPrefix}/sites/${seg(clusterId)}/databases/${seg(name)}`,
  /** GET: the IAM policy a database needs (none: Postern's databases are self-hosted). */
  databaseIamPolicy: (clusterId: string, name: string) =>
    `${apiPrefix}/sites/${seg(clusterId)}/databases/${seg(name)}/iam/policy`,
  /** GET: what serves databases: the proxy and the agents (spec §3 Database service). */
  databaseServices: (clusterId: string) => `${apiPrefix}/sites/${seg(clusterId)}/databaseservices`,
  /** POST: a server certificate for a database, signed by the database client CA. */
  signDatabaseCert: (clusterId: string) => `${apiPrefix}/sites/${seg(clusterId)}/sign/db`,
  /** POST: Discover's connection test of one resource (spec §7). */
  /** GET: the cluster's alerts, for the console's banners. */
  clusterAlerts: (clusterId: string) => `${apiPrefix}/sites/${seg(clusterId)}/alerts`,
  /** GET: whether the user may reach any resource yet (`{hasResource}`). */
  resourcesCheck: (clusterId: string) => `${apiPrefix}/sites/${seg(clusterId)}/resources/check`,
  /** Unified resources: every kind the user may reach, in one list. */
  unifiedResources: (clusterId: string) => `${apiPrefix}/sites/${seg(clusterId)}/resources`,
  /** GET/PUT: the caller's own console preferences (docs/resources.md). */
  userPreferences: `${apiPrefix}/user/preferences`,
  /** GET/PUT: the caller's preferences for one cluster: the resources they pinned there. */
  userClusterPreferences: (clusterId: string) => `${apiPrefix}/user/preferences/${seg(clusterId)}`,
  connectionDiagnostics: (clusterId: string) =>
    `${apiPrefix}/sites/${seg(clusterId)}/diagnostics/connections`,
  /** WebSocket: the browser's SQL console on a database (the terminal protocol, in-band auth). */
  databaseConsole: (clusterId: string, name: string) =>
    `${apiPrefix}/sites/${seg(clusterId)}/databases/${seg(name)}/console/ws`,
  /** GET: the databases the user may reach, for `postern db ls` (signed, like `sshNodes`). */
  databaseCatalog: `${apiPrefix}/dbconnect`,
  /** GET: the apps the user may reach, for `postern apps ls` (signed, like `sshNodes`). */
  appCatalog: `${apiPrefix}/appconnect`,
  /** POST: a certificate for the native database listener, for `postern db login` (signed). */
  databaseLogin: (name: string) => `${apiPrefix}/dbconnect/${seg(name)}/login`,
  /** WebSocket: one client connection to a database, for `postern proxy db` (user certificate). */
  databaseConnect: (name: string) => `${apiPrefix}/dbconnect/${seg(name)}`,
  /** `databaseConnect` of a named cluster: a trusted leaf's through its root (`--cluster`). */
  databaseConnectIn: (clusterId: string, name: string) =>
    `${apiPrefix}/sites/${seg(clusterId)}/dbconnect/${seg(name)}`,
  // Kubernetes (docs/kubernetes.md).
  kubernetes: (clusterId: string) => `${apiPrefix}/sites/${seg(clusterId)}/kubernetes`,
  /** GET: namespaces, or the pods of one, that the user may see (Exec in browser's picker). */
  kubeResources: (clusterId: string, name: string) =>
    `${apiPrefix}/sites/${seg(clusterId)}/kubernetes/${seg(name)}/resources`,
  /** WebSocket: exec in a pod from the browser (the terminal protocol, in-band auth). */
  kubeExec: (clusterId: string, name: string) =>
    `${apiPrefix}/sites/${seg(clusterId)}/kubernetes/${seg(name)}/exec/ws`,
  /** GET: the clusters the user may reach, for `postern kube ls` (signed, like `sshNodes`). */
  kubeCatalog: `${apiPrefix}/kubeconnect`,
  /** POST: a client certificate for one cluster, for `postern kube login` (signed). */
  kubeLogin: (name: string) => `${apiPrefix}/kubeconnect/${seg(name)}/login`,
  // Desktops (docs/desktops.md).
  desktops: (clusterId: string) => `${apiPrefix}/sites/${seg(clusterId)}/desktops`,
  desktop: (clusterId: string, name: string) =>
    `${apiPrefix}/sites/${seg(clusterId)}/desktops/${seg(name)}`,
  desktopActive: (clusterId: string, name: string) =>
    `${apiPrefix}/sites/${seg(clusterId)}/desktops/${seg(name)}/active`,
  desktopServices: (clusterId: string) => `${apiPrefix}/sites/${seg(clusterId)}/desktopservices`,
  /** WebSocket: a desktop session (in-band bearer, then the desktop protocol: RFB for VNC). */
  desktopConnect: (clusterId: string, name: string) =>
    `${apiPrefix}/sites/${seg(clusterId)}/desktops/${seg(name)}/connect/ws`,
  /** WebSocket: a desktop recording's events, played at the pace the player asks. */
  desktopPlayback: (clusterId: string, sid: string) =>
    `${apiPrefix}/sites/${seg(clusterId)}/desktopplayback/${seg(sid)}/ws`,
  /** GET: a desktop recording's info (duration, screen size, keyframe times). */
  desktopRecordingInfo: (clusterId: string, sid: string) =>
    `${apiPrefix}/sites/${seg(clusterId)}/desktopplayback/${seg(sid)}`,
  /** POST: a launcher's session on one app (spec §7). */
  appSession: `${apiPrefix}/sessions/app`,
  /** GET: where an app lives, for the launcher (spec §7 `apps/{fqdn}/{clusterId?}/{publicAddr?}`). */
  resolveApp: (fqdn: string, clusterId?: string, publicAddr?: string) =>
    `${apiPrefix}/apps/${[fqdn, clusterId, publicAddr]
      .filter((s): s is string => !!s)
      .map(seg)
      .join('/')}`,
  activeSessions: (clusterId: string) => `${apiPrefix}/sites/${seg(clusterId)}/sessions`,
  /** A sealed recording's `.cast.gz` (docs/recordings.md). */
  sessionRecording: (clusterId: string, sid: string) =>
    `${apiPrefix}/sites/${seg(clusterId)}/sessions/${seg(sid)}/recording`,
  /** What the player needs first: duration, size, keyframe times (docs/recordings.md). */
  sessionRecordingInfo: (clusterId: string, sid: string) =>
    `${apiPrefix}/sites/${seg(clusterId)}/sessions/${seg(sid)}/recording/info`,
  /** One chunk of cast events: `?at=<seconds>` seeks, `?offset=<n>` continues. */
  sessionRecordingEvents: (clusterId: string, sid: string) =>
    `${apiPrefix}/sites/${seg(clusterId)}/sessions/${seg(sid)}/recording/events`,
  /** The terminal WebSocket; `params` (JSON) and `traceparent` go in the query, the bearer in-band. */
  terminalConnect: (clusterId: string) => `${apiPrefix}/sites/${seg(clusterId)}/connect/ws`,
  /**
   * POST `{key}`: the owner gives up a session it was resuming (the tab closed), which then ends
   * at once instead of after the grace (docs/protocol.md §6.1). Not per cluster: it is the proxy
   * the browser talks to that holds the party, whichever cluster the session is in.
   */
  terminalLeave: (sid: string) => `${apiPrefix}/terminal/sessions/${seg(sid)}/leave`,
  /** GET downloads `?location`, POST uploads a multipart body to it (docs/file-transfer.md). */
  fileTransfer: (clusterId: string, serverId: string, login: string) =>
    `${apiPrefix}/sites/${seg(clusterId)}/nodes/${seg(serverId)}/${seg(login)}/scp`,
  joinToken: `${apiPrefix}/token`,
  /** GET: the live join tokens (Join Tokens). */
  joinTokens: `${apiPrefix}/tokens`,
  /** DELETE: a join token by its id (the start of its hash). */
  joinTokenById: (id: string) => `${apiPrefix}/tokens/${seg(id)}`,
  // Command-line sign-in (docs/cli-login.md).
  /** POST: password and second factor buy a user certificate. */
  sshCerts: `${apiPrefix}/ssh/certs`,
  /** POST: a bot's single-use join token buys its first certificate (docs/bots.md). */
  botJoin: `${apiPrefix}/bots/join`,
  /** POST, signed with the bot's certificate: the next one, for a new key. */
  botRenew: `${apiPrefix}/bots/renew`,
  sessionMfaCerts: `${apiPrefix}/mfa/session/certs`,
  sessionMfaChallenge: `${apiPrefix}/mfa/session/challenge`,
  sessionMfaVerify: `${apiPrefix}/mfa/session/verify`,
  mfaRequired: (clusterId: string) => `${apiPrefix}/sites/${seg(clusterId)}/mfa/required`,
  /** GET: the nodes list for a request signed with a user certificate (the CLI's `ls`). */
  sshNodes: `${apiPrefix}/ssh/nodes`,
  /** POST: a CLI asks a signed-in browser to approve its key. */
  headlessLogin: `${apiPrefix}/headless/login`,
  headless: (requestId: string) => `${apiPrefix}/headless/${seg(requestId)}`,
  /** POST: the WebAuthn challenge that approving this one request answers. */
  headlessChallenge: (requestId: string) => `${apiPrefix}/headless/${seg(requestId)}/challenge`,
  /** GET: the CLI's poll; the certificate once approved. */
  headlessWait: (requestId: string) => `${apiPrefix}/headless/${seg(requestId)}/wait`,
  // Single sign-on: auth connectors of kind oidc, saml and github (spec §7).
  /** GET lists the kind's connectors; POST creates one from `{content}`. */
  connectors: (kind: ConnectorKind) => `${apiPrefix}/${kind}`,
  /** PUT saves `{content}` over the named connector; DELETE removes it. */
  connector: (kind: ConnectorKind, name: string) => `${apiPrefix}/${kind}/${seg(name)}`,
  /** Route patterns (Fastify syntax) for the server. */
  patterns: {
    joinTokenById: `${apiPrefix}/tokens/:id`,
    userClusterPreferences: `${apiPrefix}/user/preferences/:clusterId`,
    assistConversation: `${apiPrefix}/assistant/conversations/:conversationId`,
    assistConversationTitle: `${apiPrefix}/assistant/conversations/:conversationId/title`,
    assistChat: `${apiPrefix}/sites/:clusterId/assistant`,
    assistExecute: `${apiPrefix}/command/:clusterId/execute`,
    nodes: `${apiPrefix}/sites/:clusterId/nodes`,
    apps: `${apiPrefix}/sites/:clusterId/apps`,
    resolveApp: `${apiPrefix}/apps/:fqdn`,
    resolveAppInCluster: `${apiPrefix}/apps/:fqdn/:clusterId`,
    resolveAppAt: `${apiPrefix}/apps/:fqdn/:clusterId/:publicAddr`,
    appTcp: `${apiPrefix}/tcpapps/:name`,
    appTcpIn: `${apiPrefix}/sites/:clusterId/tcpapps/:name`,
    databases: `${apiPrefix}/sites/:clusterId/databases`,
    database: `${apiPrefix}/sites/:clusterId/databases/:database`,
    databaseIamPolicy: `${apiPrefix}/sites/:clusterId/databases/:database/iam/policy`,
    databaseServices: `${apiPrefix}/sites/:clusterId/databaseservices`,
    signDatabaseCert: `${apiPrefix}/sites/:clusterId/sign/db`,
    clusterAlerts: `${apiPrefix}/sites/:clusterId/alerts`,
    connectionDiagnostics: `${apiPrefix}/sites/:clusterId/diagnostics/connections`,
    resourcesCheck: `${apiPrefix}/sites/:clusterId/resources/check`,
    unifiedResources: `${apiPrefix}/sites/:clusterId/resources`,
    databaseConnect: `${apiPrefix}/dbconnect/:name`,
    databaseConnectIn: `${apiPrefix}/sites/:clusterId/dbconnect/:name`,
    databaseLogin: `${apiPrefix}/dbconnect/:name/login`,
    databaseConsole: `${apiPrefix}/sites/:clusterId/databases/:database/console/ws`,
    desktops: `${apiPrefix}/sites/:clusterId/desktops`,
    desktop: `${apiPrefix}/sites/:clusterId/desktops/:desktopName`,
    desktopActive: `${apiPrefix}/sites/:clusterId/desktops/:desktopName/active`,
    desktopServices: `${apiPrefix}/sites/:clusterId/desktopservices`,
    desktopConnect: `${apiPrefix}/sites/:clusterId/desktops/:desktopName/connect/ws`,
    desktopPlayback: `${apiPrefix}/sites/:clusterId/desktopplayback/:sid/ws`,
    desktopRecordingInfo: `${apiPrefix}/sites/:clusterId/desktopplayback/:sid`,
    kubernetes: `${apiPrefix}/sites/:clusterId/kubernetes`,
    mfaRequired: `${apiPrefix}/sites/:clusterId/mfa/required`,
    kubeResources: `${apiPrefix}/sites/:clusterId/kubernetes/:name/resources`,
    kubeExec: `${apiPrefix}/sites/:clusterId/kubernetes/:name/exec/ws`,
    kubeLogin: `${apiPrefix}/kubeconnect/:name/login`,
    activeSessions: `${apiPrefix}/sites/:clusterId/sessions`,
    terminalLeave: `${apiPrefix}/terminal/sessions/:sid/leave`,
    sessionRecording: `${apiPrefix}/sites/:clusterId/sessions/:sid/recording`,
    sessionRecordingInfo: `${apiPrefix}/sites/:clusterId/sessions/:sid/recording/info`,
    sessionRecordingEvents: `${apiPrefix}/sites/:clusterId/sessions/:sid/recording/events`,
    terminalConnect: `${apiPrefix}/sites/:clusterId/connect/ws`,
    fileTransfer: `${apiPrefix}/sites/:clusterId/nodes/:serverId/:login/scp`,
    userToken: `${apiPrefix}/users/password/token/:tokenId`,
    mfaTokenRegisterChallenge: `${apiPrefix}/mfa/token/:tokenId/registerchallenge`,
    mfaTokenDevice: `${apiPrefix}/mfa/token/:tokenId/devices/:deviceName`,
    mfaTokenDevices: `${apiPrefix}/mfa/token/:tokenId/devices`,
    mfaTokenAuthenticateChallenge: `${apiPrefix}/mfa/token/:tokenId/authenticatechallenge`,
    eventsSearch: `${apiPrefix}/sites/:clusterId/events/search`,
    eventsSearchSessions: `${apiPrefix}/sites/:clusterId/events/search/sessions`,
    role: `${apiPrefix}/roles/:name`,
    trustedCluster: `${apiPrefix}/trustedcluster/:name`,
    connector: (kind: ConnectorKind) => `${apiPrefix}/${kind}/:name`,
    /** Beside `users/password/...`: static segments win, so the two never clash. */
    user: `${apiPrefix}/users/:username`,
    userMfaDevices: `${apiPrefix}/users/:username/mfa/devices`,
    context: `${apiPrefix}/sites/:clusterId/context`,
    locks: `${apiPrefix}/sites/:clusterId/locks`,
    accessRequests: `${apiPrefix}/sites/:clusterId/accessrequests`,
    accessRequest: `${apiPrefix}/sites/:clusterId/accessrequests/:requestId`,
    accessRequestReviews: `${apiPrefix}/sites/:clusterId/accessrequests/:requestId/reviews`,
    cliAccessRequest: `${apiPrefix}/accessrequests/:requestId`,
    cliAccessRequestReviews: `${apiPrefix}/accessrequests/:requestId/reviews`,
    cliRecordingInfo: `${apiPrefix}/recordings/:sid/info`,
    cliRecordingEvents: `${apiPrefix}/recordings/:sid/events`,
    integrations: `${apiPrefix}/sites/:clusterId/integrations`,
    integration: `${apiPrefix}/sites/:clusterId/integrations/:name`,
    integrationTest: `${apiPrefix}/sites/:clusterId/integrations/:name/test`,
    lock: `${apiPrefix}/sites/:clusterId/locks/:uuid`,
    bots: `${apiPrefix}/sites/:clusterId/machine-id/bot`,
    bot: `${apiPrefix}/sites/:clusterId/machine-id/bot/:name`,
    botToken: `${apiPrefix}/sites/:clusterId/machine-id/bot/:name/token`,
    headless: `${apiPrefix}/headless/:requestId`,
    headlessChallenge: `${apiPrefix}/headless/:requestId/challenge`,
    headlessWait: `${apiPrefix}/headless/:requestId/wait`,
  },
  eventsSearch: (clusterId: string) => `${apiPrefix}/sites/${seg(clusterId)}/events/search`,
  eventsSearchSessions: (clusterId: string) =>
    `${apiPrefix}/sites/${seg(clusterId)}/events/search/sessions`,
} as const;

/**
 * Install scripts (spec §7: no /v1 prefix) and the agents' own endpoints. Agents are not web
 * users: they prove a join token or their host certificate, never a web session.
 */
export const scriptPaths = {
  installNode: (token: string) => `/scripts/${seg(token)}/install-node.sh`,
  /** An agent serving the app `name` at `uri` (spec §7). */
  installApp: (token: string, app: { name: string; uri: string }) =>
    `/scripts/${seg(token)}/install-app.sh?${new URLSearchParams(app).toString()}`,
  /** An agent serving the VNC desktop `name` at `uri` (`vnc://host:port?password_file=…`). */
  installDesktop: (token: string, desktop: { name: string; uri: string }) =>
    `/scripts/${seg(token)}/install-desktop.sh?${new URLSearchParams(desktop).toString()}`,
  /** An agent serving the database `name` at `uri` (`postgres://host:port?sslmode=…`). */
  installDatabase: (token: string, db: { name: string; uri: string }) =>
    `/scripts/${seg(token)}/install-database.sh?${new URLSearchParams(db).toString()}`,
  /** Active Directory for desktop access: PowerShell for a domain controller (spec §7). */
  installAdDs: (token: string) => `/scripts/${seg(token)}/install-ad-ds.ps1`,
  installAdCs: (token: string) => `/scripts/${seg(token)}/install-ad-cs.ps1`,
  configureAd: (token: string) => `/scripts/${seg(token)}/configure-ad.ps1`,
  patterns: {
    installAdDs: '/scripts/:token/install-ad-ds.ps1',
    installAdCs: '/scripts/:token/install-ad-cs.ps1',
    configureAd: '/scripts/:token/configure-ad.ps1',
    installNode: '/scripts/:token/install-node.sh',
    installApp: '/scripts/:token/install-app.sh',
    installDatabase: '/scripts/:token/install-database.sh',
    installDesktop: '/scripts/:token/install-desktop.sh',
  },
} as const;

export const agentPaths = {
  /** POST: a join token and a host public key buy a host certificate and a node identity. */
  join: '/v1/agent/join',
  /** WebSocket: an agent's control channel (the reverse tunnel). */
  tunnel: '/v1/agent/tunnel',
  /** WebSocket: one proxied connection, opened by the agent when the proxy asks for it. */
  dial: (connectionId: string) => `/v1/agent/tunnel/dial/${seg(connectionId)}`,
  patterns: { dial: '/v1/agent/tunnel/dial/:connectionId' },
  /** POST, leaf → root: a trusted cluster's join token buys the root's trust (trusted-clusters.ts). */
  trustedClusterValidate: '/v1/agent/trusted-clusters/validate',
  /** WebSocket, leaf → root: a leaf cluster's tunnel, proven with the key it registered. */
  trustedClusterTunnel: '/v1/agent/trusted-clusters/tunnel',
  /**
   * POST, root → leaf, only through the leaf's own tunnel: a root user's signed identity buys a
   * web session of the leaf that the root uses on the user's behalf.
   */
  leafSession: '/v1/agent/trusted-clusters/session',
  /**
   * HTTP upgrade to `postern-ssh`, root → leaf, only through the leaf's own tunnel: a root user's
   * SSH connection to one of the leaf's servers (`ssh -J` through the root).
   */
  leafSsh: '/v1/agent/trusted-clusters/ssh',
  /**
   * `<leafKube>/<cluster>/<API path>`, root → leaf, only through the leaf's own tunnel: a root
   * user's kubectl request to one of the leaf's Kubernetes clusters, with the leaf session the
   * leaf granted them (upgrades for exec, attach and port forwarding too).
   */
  leafKube: '/v1/agent/trusted-clusters/kube',
} as const;

/** Paths outside the API: the console and its configuration script. */
export const webPaths = {
  root: '/web',
  configScript: '/web/config.js',
  assets: '/web/assets/',
} as const;

/** Postern's own documentation (the repository's docs/ folder): `${docsPath}/<file>.md`. */
export const docsPath = '/docs';

/** `:clusterId` may be this literal, meaning the cluster that serves the request. */
export const currentClusterAlias = '-current-';
