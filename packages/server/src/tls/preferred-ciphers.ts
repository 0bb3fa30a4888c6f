/**
 * The TLS cipher order of the listeners that relay bulk data (Kubernetes, the native PostgreSQL
 * listener) and of the proxy's connections to what they relay to (API servers, databases):
 * AES-128-GCM first, as Go's TLS orders it. As safe as AES-256-GCM (OpenSSL's first choice), and
 * a third less work per byte of an exec's output or a COPY, which the proxy decrypts and encrypts
 * again.
 */
export const preferredCiphers = [
  'TLS_AES_128_GCM_SHA256',
  'TLS_CHACHA20_POLY1305_SHA256',
  'TLS_AES_256_GCM_SHA384',
  'ECDHE-ECDSA-AES128-GCM-SHA256',
  'ECDHE-RSA-AES128-GCM-SHA256',
  'ECDHE-ECDSA-CHACHA20-POLY1305',
  'ECDHE-RSA-CHACHA20-POLY1305',
  'ECDHE-ECDSA-AES256-GCM-SHA384',
  'ECDHE-RSA-AES256-GCM-SHA384',
].join(':');
