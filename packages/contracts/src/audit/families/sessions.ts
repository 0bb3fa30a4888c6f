import type { AuditEntryDraft } from '../entry.js';

/** SSH and desktop sessions and what happens inside them. */
export const sessionEvents = {
  T1006W: {
    type: 'session.rejected',
    desc: 'Session Rejected',
    message: 'User [{user}] was denied access to [{login}@{server_id}]: {reason}',
  },
  T2000I: {
    type: 'session.start',
    desc: 'Session Started',
    message: 'User [{user}] has started a session [{sid}]',
  },
  T2001I: {
    type: 'session.join',
    desc: 'User Joined',
    message: 'User [{user}] has joined the session [{sid}]',
  },
  T2002I: {
    type: 'resize',
    desc: 'Terminal Resize',
    message: 'User [{user}] resized the session [{sid}] terminal to [{size}]',
  },
  T2003I: {
    type: 'session.leave',
    desc: 'User Disconnected',
    message: 'User [{user}] has left the session [{sid}]',
  },
  T2007I: {
    type: 'app.session.start',
    desc: 'App Session Started',
    message: 'User [{user}] has connected to application [{app_name}]',
  },
  T2008I: {
    type: 'app.session.chunk',
    desc: 'App Session Data',
    message: 'User [{user}] made {count} requests to application [{app_name}]',
  },
  T2011I: {
    type: 'app.session.end',
    desc: 'App Session Ended',
    message: 'User [{user}] has disconnected from application [{app_name}]',
  },
  T2004I: {
    type: 'session.end',
    desc: 'Session Ended',
    message: 'User [{user}] has ended the session [{sid}]',
  },
  T2005I: {
    type: 'session.upload',
    desc: 'Session Uploaded',
    message: 'Recording for session [{sid}] uploaded',
  },
  T2006I: {
    type: 'session.data',
    desc: 'Session Data',
    message: 'Session [{sid}] transmitted {tx} bytes and received {rx} bytes',
  },
  T2012I: {
    type: 'session.recording.access',
    desc: 'Session Recording Accessed',
    message: 'User [{user}] accessed a session recording [{sid}]',
  },
  TPOS050I: {
    type: 'session.moderation',
    desc: 'Session Moderation',
    message: 'Moderated session [{sid}] of [{user}] {state} ({moderators})',
  },
  TPOS051W: {
    type: 'session.connection_lost',
    desc: 'Session Connection Lost',
    message: "User [{user}]'s connection to the session [{sid}] was lost; it is kept {grace}",
  },
  TPOS052I: {
    type: 'session.resumed',
    desc: 'Session Resumed',
    message: 'User [{user}] resumed the session [{sid}] over a new connection',
  },
  TPOS053I: {
    type: 'session.file_transfer_request',
    desc: 'File Transfer Requested',
    message: 'User [{requester}] asked to {action} [{location}] in the moderated session [{sid}]',
  },
  TPOS054I: {
    type: 'session.file_transfer_request_approve',
    desc: 'File Transfer Approved',
    message: "User [{user}] approved [{requester}]'s request to {action} [{location}] in [{sid}]",
  },
  TPOS055I: {
    type: 'session.file_transfer_request_deny',
    desc: 'File Transfer Denied',
    message: "User [{user}] denied [{requester}]'s request to {action} [{location}] in [{sid}]",
  },
  TPOS056I: {
    type: 'session.file_transfer_request_withdraw',
    desc: 'File Transfer Request Withdrawn',
    message: 'User [{requester}] withdrew the request to {action} [{location}] in [{sid}]',
  },
  TPOS060I: {
    type: 'trusted_cluster.ssh.start',
    desc: 'SSH to a Leaf Cluster Started',
    message: 'User [{user}] connected to [{server}] on leaf cluster [{cluster}] through this proxy',
  },
  TPOS061I: {
    type: 'trusted_cluster.ssh.end',
    desc: 'SSH to a Leaf Cluster Ended',
    message: "User [{user}]'s connection to [{server}] on leaf cluster [{cluster}] ended: {reason}",
  },
  TPOS062I: {
    type: 'trusted_cluster.tunnel.start',
    desc: 'Tunnel to a Leaf Cluster Started',
    message:
      'User [{user}] opened a tunnel to {kind} [{name}] on leaf cluster [{cluster}] through this proxy',
  },
  TPOS063I: {
    type: 'trusted_cluster.tunnel.end',
    desc: 'Tunnel to a Leaf Cluster Ended',
    message:
      "User [{user}]'s tunnel to {kind} [{name}] on leaf cluster [{cluster}] ended: {reason}",
  },
  TPOS030E: {
    type: 'session.recording.failed',
    desc: 'Session Recording Failed',
    message: 'Recording of session [{sid}] failed: {reason}',
  },
  T3001I: {
    type: 'subsystem',
    desc: 'Subsystem Requested',
    message: 'User [{user}] requested subsystem [{name}]',
  },
  T3001E: {
    type: 'subsystem',
    desc: 'Subsystem Request Failed',
    message: 'User [{user}] subsystem [{name}] request failed [{exitError}]',
  },
  T3002I: {
    type: 'exec',
    desc: 'Command Execution',
    message: 'User [{user}] executed a command on node [{server_hostname}]',
  },
  T3002E: {
    type: 'exec',
    desc: 'Command Execution Failed',
    message: 'User [{user}] command execution on node [{server_hostname}] failed [{exitError}]',
  },
  T3003I: {
    type: 'port',
    desc: 'Port Forwarding Started',
    message: 'User [{user}] started port forwarding to [{addr.local}]',
  },
  T3003E: {
    type: 'port',
    desc: 'Port Forwarding Failed',
    message: 'User [{user}] port forwarding request failed',
  },
  T3004I: {
    type: 'scp',
    desc: 'SCP Download',
    message: 'User [{user}] downloaded a file [{path}] from node [{server_hostname}]',
  },
  T3004E: {
    type: 'scp',
    desc: 'SCP Download Failed',
    message: 'File download from node [{server_hostname}] failed [{exitError}]',
  },
  T3005I: {
    type: 'scp',
    desc: 'SCP Upload',
    message: 'User [{user}] uploaded a file [{path}] to node [{server_hostname}]',
  },
  T3005E: {
    type: 'scp',
    desc: 'SCP Upload Failed',
    message: 'File upload to node [{server_hostname}] failed [{exitError}]',
  },
  T3006I: {
    type: 'client.disconnect',
    desc: 'Client Disconnected',
    message: 'User [{user}] has been disconnected: {reason}',
  },
  T3008I: {
    type: 'x11-forward',
    desc: 'X11 Forwarding Requested',
    message: 'User [{user}] has requested x11 forwarding for a session',
  },
  T3008W: {
    type: 'x11-forward',
    desc: 'X11 Forwarding Failed',
    message: 'User [{user}] was denied x11 forwarding for a session',
  },
  T3009I: {
    type: 'kube.request',
    desc: 'Kubernetes Request',
    message: 'User [{user}] received a [{response_code}] from a [{verb} {request_path}] request',
  },
  T4000I: {
    type: 'session.command',
    desc: 'Session Command',
    message: 'Program [{program}] has been executed within a session [{sid}]',
  },
  T4001I: {
    type: 'session.disk',
    desc: 'Session File Access',
    message: 'Program [{program}] accessed a file [{path}] within a session [{sid}]',
  },
  T4002I: {
    type: 'session.network',
    desc: 'Session Network Connection',
    message:
      'Program [{program}] opened a connection [{src_addr} <-> {dst_addr}:{dst_port}] within a session [{sid}]',
  },
  T4002W: {
    type: 'session.network',
    desc: 'Session Network Connection Denied',
    message:
      'Program [{program}] was denied a connection to [{dst_addr}:{dst_port}] within a session [{sid}]',
  },
  T4003I: {
    type: 'session.process_exit',
    desc: 'Session Process Exit',
    message: 'Program [{program}] has exited with status {exit_status} within a session [{sid}]',
  },
  TDP00I: {
    type: 'windows.desktop.session.start',
    desc: 'Windows Desktop Session Started',
    message: 'User [{user}] started a session on [{desktop_addr}] as [{windows_user}]',
  },
  TDP00W: {
    type: 'windows.desktop.session.start',
    desc: 'Windows Desktop Session Denied',
    message: 'User [{user}] was denied access to [{desktop_addr}] as [{windows_user}]',
  },
  TDP01I: {
    type: 'windows.desktop.session.end',
    desc: 'Windows Desktop Session Ended',
    message: 'Session for [{desktop_addr}] as [{windows_user}] has ended',
  },
  TDP02I: {
    type: 'desktop.clipboard.send',
    desc: 'Clipboard Data Sent',
    message: 'User [{user}] sent {length} bytes of clipboard data to desktop [{desktop_addr}]',
  },
  TDP03I: {
    type: 'desktop.clipboard.receive',
    desc: 'Clipboard Data Received',
    message:
      'User [{user}] received {length} bytes of clipboard data from desktop [{desktop_addr}]',
  },
  TDP04I: {
    type: 'desktop.directory.share',
    desc: 'Directory Sharing Started',
    message:
      'User [{user}] started sharing directory [{directory_name}] with desktop [{desktop_addr}]',
  },
  TDP04W: {
    type: 'desktop.directory.share',
    desc: 'Directory Sharing Start Failed',
    message:
      'User [{user}] failed to share directory [{directory_name}] with desktop [{desktop_addr}]',
  },
  TDP05I: {
    type: 'desktop.directory.read',
    desc: 'Directory Sharing Read',
    message:
      'User [{user}] read [{length}] bytes from file [{file_path}] in shared directory [{directory_name}]',
  },
  TDP05W: {
    type: 'desktop.directory.read',
    desc: 'Directory Sharing Read Failed',
    message:
      'User [{user}] failed to read [{length}] bytes from file [{file_path}] in shared directory [{directory_name}]',
  },
  TDP06I: {
    type: 'desktop.directory.write',
    desc: 'Directory Sharing Write',
    message:
      'User [{user}] wrote [{length}] bytes to file [{file_path}] in shared directory [{directory_name}]',
  },
  TDP06W: {
    type: 'desktop.directory.write',
    desc: 'Directory Sharing Write Failed',
    message:
      'User [{user}] failed to write [{length}] bytes to file [{file_path}] in shared directory [{directory_name}]',
  },
} as const satisfies Record<string, AuditEntryDraft>;
