/**
 * Kubernetes' port-forward protocol (k8s.io/apimachinery/pkg/util/portforward and the kubelet's
 * streaming server). Over SPDY/3.1, negotiated as `portforward.k8s.io` in
 * X-Stream-Protocol-Version, each forwarded connection is two streams the client opens: `error`
 * (the server writes a message there if forwarding fails) and `data` (the bytes), both naming
 * the remote `port` and a `requestID` that pairs them. kubectl 1.31 and later first try the same
 * SPDY inside a WebSocket whose subprotocol is the version behind `SPDY/3.1+`, every binary
 * message carrying SPDY bytes.
 */
export const portForwardProtocolV1 = 'portforward.k8s.io';
export const tunnelPrefix = 'SPDY/3.1+';
export const tunnelProtocolV1 = `${tunnelPrefix}${portForwardProtocolV1}`;

/** The stream headers, in the case client-go writes them (SPDY lowercases them on the wire). */
export const portHeader = 'port';
export const requestIdHeader = 'requestID';
export const streamTypeHeader = 'streamType';
export const portStreamType = { error: 'error', data: 'data' } as const;
