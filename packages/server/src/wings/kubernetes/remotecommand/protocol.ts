/**
 * The names and numbers of Kubernetes' remote command protocol (exec and attach), as in
 * k8s.io/apimachinery/pkg/util/remotecommand and the kubelet's streaming server.
 *
 * Over WebSocket each binary message is one channel byte and a payload. Over SPDY each channel
 * is a stream, named by its `streamType` header; the version is negotiated in
 * `X-Stream-Protocol-Version`. Version 4 carries a metav1.Status on the error channel (exit
 * codes); version 5 adds, for WebSocket, a message that closes one channel (stdin's EOF). Over
 * SPDY v5 is v4: a stream half-closes on its own.
 */
export const streamProtocolV5 = 'v5.channel.k8s.io';
export const streamProtocolV4 = 'v4.channel.k8s.io';

/** What this kit speaks, best first. The older plain-text versions (v1 to v3) are refused. */
export const remoteCommandProtocols = [streamProtocolV5, streamProtocolV4] as const;
export type RemoteCommandProtocol = (typeof remoteCommandProtocols)[number];

export function isRemoteCommandProtocol(value: string): value is RemoteCommandProtocol {
  return (remoteCommandProtocols as readonly string[]).includes(value);
}

/** The WebSocket channel bytes. */
export const channel = {
  stdin: 0,
  stdout: 1,
  stderr: 2,
  error: 3,
  resize: 4,
  /** v5 only: the payload is the number of the channel that will carry no more data. */
  close: 255,
} as const;

/** The SPDY `streamType` header values (k8s.io/api/core/v1 StreamType*). */
export const streamType = {
  error: 'error',
  stdin: 'stdin',
  stdout: 'stdout',
  stderr: 'stderr',
  resize: 'resize',
} as const;

/** A terminal's size, as the resize channel carries it ({"Width":80,"Height":24}). */
export interface TerminalSize {
  width: number;
  height: number;
}
