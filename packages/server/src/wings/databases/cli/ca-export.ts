import { requireSubjectFor } from '../mysql/require-subject.js';

/**
 * What `postern db ca export` prints: the CA certificate on stdout (so `> ca.crt` saves just
 * that), and on stderr how PostgreSQL and MySQL/MariaDB are told to trust it.
 */
export function caExportText(certPem: string): { pem: string; hints: string } {
  const hints = [
    'Save the certificate above on the database host (for example as postern-db-client-ca.crt).',
    '',
    'PostgreSQL, postgresql.conf:',
    '  ssl = on',
    "  ssl_ca_file = 'postern-db-client-ca.crt'",
    'pg_hba.conf, before any password line (the certificate CN is the database user):',
    '  hostssl all all 0.0.0.0/0 cert',
    '',
    'MySQL/MariaDB, my.cnf [mysqld]:',
    '  ssl_ca = postern-db-client-ca.crt',
    'and for each user Postern connects as:',
    `  ALTER USER 'alice'@'%' ${requireSubjectFor('alice')};`,
    '(the subject is /CN= and the user name, with / and + escaped as OpenSSL writes them)',
  ].join('\n');
  return { pem: certPem.trimEnd(), hints };
}
