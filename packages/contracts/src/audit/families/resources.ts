import type { AuditEntryDraft } from '../entry.js';

/** Changes to cluster resources, joins, access requests and automation. */
export const resourceEvents = {
  T5000I: {
    type: 'access_request.create',
    desc: 'Access Request Created',
    message: 'Access request [{id}] has been created and is {state}',
  },
  T5001I: {
    type: 'access_request.update',
    desc: 'Access Request Updated',
    message: 'Access request [{id}] has been updated to {state}',
  },
  T5002I: {
    type: 'access_request.review',
    desc: 'Access Request Reviewed',
    message: 'User [{reviewer}] reviewed access request [{id}]',
  },
  T5003I: {
    type: 'access_request.delete',
    desc: 'Access Request Deleted',
    message: 'Access request [{id}] has been deleted',
  },
  T5004I: {
    type: 'access_request.search',
    desc: 'Resource Access Search',
    message: 'User [{user}] searched for resource kind [{resource_type}]',
  },
  TIG01I: {
    type: 'integration.create',
    desc: 'Integration Created',
    message: 'User [{user}] created a [{integration_type}] integration [{name}]',
  },
  TIG02I: {
    type: 'integration.update',
    desc: 'Integration Updated',
    message: 'User [{user}] updated the integration [{name}]',
  },
  TIG03I: {
    type: 'integration.delete',
    desc: 'Integration Deleted',
    message: 'User [{user}] deleted the integration [{name}]',
  },
  TIG10W: {
    type: 'integration.delivery.failed',
    desc: 'Notification Failed',
    message: 'Integration [{name}] could not deliver [{subject}]: {error}',
  },
  T7000I: {
    type: 'trusted_cluster.create',
    desc: 'Trusted Cluster Created',
    message: 'User [{user}] has created a trusted relationship with cluster [{name}]',
  },
  T7001I: {
    type: 'trusted_cluster.delete',
    desc: 'Trusted Cluster Deleted',
    message: 'User [{user}] has deleted the trusted relationship with cluster [{name}]',
  },
  T7002I: {
    type: 'trusted_cluster_token.create',
    desc: 'Trusted Cluster Token Created',
    message: 'User [{user}] has created a trusted cluster token',
  },
  T9000I: {
    type: 'role.created',
    desc: 'User Role Created',
    message: 'User [{user}] created a role [{name}]',
  },
  T9001I: {
    type: 'role.deleted',
    desc: 'User Role Deleted',
    message: 'User [{user}] deleted a role [{name}]',
  },
  T9002I: {
    type: 'role.updated',
    desc: 'User Role Updated',
    message: 'User [{user}] updated a role [{name}]',
  },
  TAL00I: {
    type: 'cluster_alert.create',
    desc: 'Cluster Alert Created',
    message: 'User [{user}] posted the alert [{message}]',
  },
  TAL01I: {
    type: 'cluster_alert.delete',
    desc: 'Cluster Alert Deleted',
    message: 'User [{user}] removed the alert [{name}]',
  },
  TLK00I: {
    type: 'lock.created',
    desc: 'Lock Created',
    message: 'Lock [{name}] was created by [{user}]',
  },
  TLK01I: {
    type: 'lock.deleted',
    desc: 'Lock Deleted',
    message: 'Lock [{name}] was deleted by [{user}]',
  },
  T3010I: {
    type: 'kube.create',
    desc: 'Kubernetes Created',
    message: 'User [{user}] created Kubernetes cluster [{name}]',
  },
  T3011I: {
    type: 'kube.update',
    desc: 'Kubernetes Updated',
    message: 'User [{user}] updated Kubernetes cluster [{name}]',
  },
  T3012I: {
    type: 'kube.delete',
    desc: 'Kubernetes Deleted',
    message: 'User [{user}] deleted Kubernetes cluster [{name}]',
  },
  TDP20I: {
    type: 'windows.desktop.create',
    desc: 'Desktop Created',
    message: 'User [{user}] registered desktop [{name}]',
  },
  TDP21I: {
    type: 'windows.desktop.update',
    desc: 'Desktop Updated',
    message: 'User [{user}] updated desktop [{name}]',
  },
  TDP22I: {
    type: 'windows.desktop.delete',
    desc: 'Desktop Deleted',
    message: 'User [{user}] deleted desktop [{name}]',
  },
  TDB03I: {
    type: 'db.create',
    desc: 'Database Created',
    message: 'User [{user}] registered database [{name}]',
  },
  TDB04I: {
    type: 'db.update',
    desc: 'Database Updated',
    message: 'User [{user}] updated database [{name}]',
  },
  TDB05I: {
    type: 'db.delete',
    desc: 'Database Deleted',
    message: 'User [{user}] deleted database [{name}]',
  },
  TAP03I: {
    type: 'app.create',
    desc: 'Application Created',
    message: 'User [{user}] registered application [{name}]',
  },
  TAP04I: {
    type: 'app.update',
    desc: 'Application Updated',
    message: 'User [{user}] updated application [{name}]',
  },
  TAP05I: {
    type: 'app.delete',
    desc: 'Application Deleted',
    message: 'User [{user}] deleted application [{name}]',
  },
  TLR00I: {
    type: 'login_rule.create',
    desc: 'Login Rule Created',
    message: 'User [{user}] created a login rule [{name}]',
  },
  TLR01I: {
    type: 'login_rule.delete',
    desc: 'Login Rule Deleted',
    message: 'User [{user}] deleted a login rule [{name}]',
  },
  TSI000I: {
    type: 'saml.idp.service.provider.create',
    desc: 'SAML IdP Service Provider Created',
    message: 'User [{user}] added service provider [{name}]',
  },
  TSI001I: {
    type: 'saml.idp.service.provider.update',
    desc: 'SAML IdP Service Provider Updated',
    message: 'User [{user}] updated service provider [{name}]',
  },
  TSI002I: {
    type: 'saml.idp.service.provider.delete',
    desc: 'SAML IdP Service Provider Deleted',
    message: 'User [{user}] deleted service provider [{name}]',
  },
  TSI003I: {
    type: 'saml.idp.service.provider.delete_all',
    desc: 'All SAML IdP Service Providers Deleted',
    message: 'User [{user}] deleted all service providers',
  },
  TUW01I: {
    type: 'upgradewindowstart.update',
    desc: 'Upgrade Window Start Updated',
    message: 'User [{user}] updated the upgrade window start time to [{upgrade_window_start}]',
  },
  TDS00I: {
    type: 'ssm.run',
    desc: 'SSM Command Executed',
    message:
      'SSM command [{command_id}] on instance [{instance_id}] exited with status {exit_code}',
  },
  TDS00W: {
    type: 'ssm.run',
    desc: 'SSM Command Failed',
    message:
      'SSM command [{command_id}] on instance [{instance_id}] failed with status {exit_code}',
  },
  TJ001I: {
    type: 'bot.join',
    desc: 'Bot Joined',
    message: 'Bot [{bot_name}] joined the cluster using the [{method}] join method',
  },
  TJ001E: {
    type: 'bot.join',
    desc: 'Bot Join Failed',
    message: 'Bot [{bot_name}] failed to join the cluster using the [{method}] join method',
  },
  TB001I: {
    type: 'bot.create',
    desc: 'Bot Created',
    message: 'User [{user}] created bot [{bot_name}] with roles [{roles}]',
  },
  TB002I: {
    type: 'bot.update',
    desc: 'Bot Updated',
    message: 'User [{user}] updated bot [{bot_name}]',
  },
  TB003I: {
    type: 'bot.delete',
    desc: 'Bot Deleted',
    message: 'User [{user}] deleted bot [{bot_name}]',
  },
  TB004I: {
    type: 'bot.token.create',
    desc: 'Bot Join Token Created',
    message: 'User [{user}] created a join token for bot [{bot_name}]',
  },
  TCB001W: {
    type: 'renewable_certificate.generation_mismatch',
    desc: 'Renewable Certificate Generation Mismatch',
    message:
      'Bot [{bot_name}] renewed with a certificate of an old generation: the bot is locked (a copy of its identity may be in use)',
  },
  T68000I: {
    type: 'assist.completion',
    desc: 'Assist Completion',
    message:
      'User [{user}] asked the assistant ({completion_kind}): {total_tokens} tokens of model [{model}]',
  },
  TJ002I: {
    type: 'instance.join',
    desc: 'Instance Joined',
    message:
      'Instance [{hostname}] joined the cluster with the [{role}] role using the [{method}] join method',
  },
  TJ002E: {
    type: 'instance.join',
    desc: 'Instance Join Failed',
    message:
      'Instance [{hostname}] failed to join the cluster using the [{method}] join method: {reason}',
  },
  TJT00I: {
    type: 'join_token.create',
    desc: 'Join Token Created',
    message: 'User [{user}] created a join token with roles [{roles}]',
  },
  TJT02I: {
    type: 'join_token.delete',
    desc: 'Join Token Deleted',
    message: 'User [{user}] deleted a join token',
  },
  TOK001I: {
    type: 'okta.groups.update',
    desc: 'Okta Groups Updated',
    message: '[{added}] added, [{updated}] updated, [{deleted}] deleted Okta user groups',
  },
  TOK002I: {
    type: 'okta.applications.update',
    desc: 'Okta Applications Updated',
    message: '[{added}] added, [{updated}] updated, [{deleted}] deleted Okta applications',
  },
  TOK003E: {
    type: 'okta.sync.failure',
    desc: 'Okta Sync Failed',
    message: 'Okta synchronization failed',
  },
  TPOS001I: {
    type: 'postern.start',
    desc: 'Postern Started',
    message: 'Postern {version} started',
  },
  TPOS017W: {
    type: 'role.created',
    desc: 'User Role Creation Refused',
    message: 'User [{user}] was refused creating a role [{name}]: {error}',
  },
  TPOS018W: {
    type: 'role.updated',
    desc: 'User Role Update Refused',
    message: 'User [{user}] was refused updating a role [{name}]: {error}',
  },
  TPOS020I: {
    type: 'node.create',
    desc: 'Server Registered',
    message: 'Server [{hostname}] ({addr}) was registered',
  },
  TPOS021I: {
    type: 'node.delete',
    desc: 'Server Removed',
    message: 'User [{user}] removed server [{hostname}] ({addr})',
  },
  TPOS022I: {
    type: 'node.host_key_pinned',
    desc: 'Server Host Key Pinned',
    message: 'Host key {fingerprint} of server [{hostname}] was pinned',
  },
  TPOS023E: {
    type: 'node.host_key_mismatch',
    desc: 'Server Host Key Mismatch',
    message:
      'Server [{hostname}] presented host key {presented_fingerprint}, expected {expected_fingerprint}',
  },
  TPOS070W: {
    type: 'audit.degraded',
    desc: 'Audit Log Degraded',
    message:
      'Audit events could not be stored from {degraded_since} to {degraded_until}: {spooled} were kept on disk and stored late, {lost} were lost',
  },
  TPOS071W: {
    type: 'storage.disk_usage_high',
    desc: 'Recordings Volume Nearly Full',
    message:
      'The recordings volume ({path}) is {used_percent}% full (warning at {threshold_percent}%)',
  },
} as const satisfies Record<string, AuditEntryDraft>;
