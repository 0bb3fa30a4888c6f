import {
  databaseHostKind,
  databaseServerCertMaxTtl,
  type SignDatabaseCertResponse,
  type signDatabaseCertRequestSchema,
} from '@postern/contracts';
import type { z } from 'zod';
import type { Actor } from '../../access-control/access/actor.js';
import { parseDuration } from '../../access-control/rbac/index.js';
import { badParameter } from '../../errors.js';
import { emitAudit, remoteAddr } from '../../modules/audit/emit.js';
import type { AuditStore } from '../../modules/audit/index.js';
import type { DatabaseClientCa } from './db-client-ca.js';

export type SignDatabaseCertInput = z.output<typeof signDatabaseCertRequestSchema>;

const maxTtlMs = parseDuration(databaseServerCertMaxTtl)!;
const minTtlMs = 60_000;

/**
 * `POST /sites/{clusterId}/sign/db`: server certificates for databases, signed by the database
 * client CA, so a database runs TLS that the proxy trusts (its resource's `ca_cert` is that CA)
 * and trusts the same CA for the client certificates the proxy signs in with. The key is made
 * here, handed over once and kept nowhere; each one issued is audited (TC000I, type db_server).
 */
export class DatabaseServerCerts {
  constructor(private readonly deps: { ca: () => Promise<DatabaseClientCa>; audit: AuditStore }) {}

  async sign(
    input: SignDatabaseCertInput,
    actor: Actor,
    addr?: string,
  ): Promise<SignDatabaseCertResponse> {
    const ttlMs = parseDuration(input.ttl);
    if (ttlMs === undefined) {
      throw badParameter(`ttl: expected a duration like '2160h' or '720h30m', got '${input.ttl}'`);
    }
    if (ttlMs < minTtlMs || ttlMs > maxTtlMs) {
      throw badParameter(
        `ttl: from 1m to ${databaseServerCertMaxTtl} (a year), got '${input.ttl}'`,
      );
    }
    const hostname = input.hostname.toLowerCase();
    if (!databaseHostKind(hostname)) {
      throw badParameter('hostname: a DNS name (db1.example.com) or an IP address');
    }
    const ca = await this.deps.ca();
    const issued = await ca.serverCertificate(hostname, ttlMs);
    const expires = issued.notAfter.toISOString();
    await emitAudit(this.deps.audit, 'TC000I', {
      user: actor.name,
      cert_type: 'db_server',
      hostname,
      ttl_ms: ttlMs,
      expires,
      ...remoteAddr(addr),
    });
    return { cert: issued.certPem, key: issued.keyPem, ca: ca.certPem, expires };
  }
}
