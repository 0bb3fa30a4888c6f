import type { AuditEntryDraft } from '../entry.js';

/** Database sessions and the queries run in them; `{query}` is cut at 80 characters. */
export const databaseEvents = {
  TDB00I: {
    type: 'db.session.start',
    desc: 'Database Session Started',
    message: 'User [{user}] has connected to database [{db_name}] on [{db_service}]',
  },
  TDB00W: {
    type: 'db.session.start',
    desc: 'Database Session Denied',
    message: 'User [{user}] was denied access to database [{db_name}] on [{db_service}]',
  },
  TDB01I: {
    type: 'db.session.end',
    desc: 'Database Session Ended',
    message: 'User [{user}] has disconnected from database [{db_name}] on [{db_service}]',
  },
  TDB02I: {
    type: 'db.session.query',
    desc: 'Database Query',
    message: 'User [{user}] has executed query [{query}] in database [{db_name}] on [{db_service}]',
  },
  TDB02W: {
    type: 'db.session.query.failed',
    desc: 'Database Query Failed',
    message: 'User [{user}] query [{query}] in database [{db_name}] on [{db_service}] failed',
  },
  TPG00I: {
    type: 'db.session.postgres.statements.parse',
    desc: 'PostgreSQL Statement Parse',
    message:
      'User [{user}] has prepared [{query}] as statement [{statement_name}] on [{db_service}]',
  },
  TPG01I: {
    type: 'db.session.postgres.statements.bind',
    desc: 'PostgreSQL Statement Bind',
    message:
      'User [{user}] has readied statement [{statement_name}] for execution on [{db_service}]',
  },
  TPG02I: {
    type: 'db.session.postgres.statements.execute',
    desc: 'PostgreSQL Statement Execute',
    message: 'User [{user}] has executed statement [{statement_name}] on [{db_service}]',
  },
  TPG04I: {
    type: 'db.session.postgres.function',
    desc: 'PostgreSQL Function Call',
    message: 'User [{user}] has executed function with OID [{function_oid}] on [{db_service}]',
  },
  TMY00I: {
    type: 'db.session.mysql.statements.prepare',
    desc: 'MySQL Statement Prepare',
    message: 'User [{user}] has prepared [{query}] in database [{db_name}] on [{db_service}]',
  },
  TMY01I: {
    type: 'db.session.mysql.statements.execute',
    desc: 'MySQL Statement Execute',
    message:
      'User [{user}] has executed statement [{statement_id}] in database [{db_name}] on [{db_service}]',
  },
  TMY02I: {
    type: 'db.session.mysql.statements.send_long_data',
    desc: 'MySQL Statement Send Long Data',
    message:
      'User [{user}] has sent {data_size} bytes of data to parameter [{parameter_id}] of statement [{statement_id}] on [{db_service}]',
  },
  TMY03I: {
    type: 'db.session.mysql.statements.close',
    desc: 'MySQL Statement Close',
    message: 'User [{user}] has closed statement [{statement_id}] on [{db_service}]',
  },
  TMY04I: {
    type: 'db.session.mysql.statements.reset',
    desc: 'MySQL Statement Reset',
    message: 'User [{user}] has reset statement [{statement_id}] on [{db_service}]',
  },
  TMY05I: {
    type: 'db.session.mysql.statements.fetch',
    desc: 'MySQL Statement Fetch',
    message:
      'User [{user}] has fetched {rows_count} rows of statement [{statement_id}] on [{db_service}]',
  },
  TMY06I: {
    type: 'db.session.mysql.init_db',
    desc: 'MySQL Change Database',
    message: 'User [{user}] has changed default database to [{schema_name}] on [{db_service}]',
  },
  TMY07I: {
    type: 'db.session.mysql.create_db',
    desc: 'MySQL Create Database',
    message: 'User [{user}] has created database [{schema_name}] on [{db_service}]',
  },
  TMY08I: {
    type: 'db.session.mysql.drop_db',
    desc: 'MySQL Drop Database',
    message: 'User [{user}] has dropped database [{schema_name}] on [{db_service}]',
  },
  TMY09I: {
    type: 'db.session.mysql.shut_down',
    desc: 'MySQL Shut Down',
    message: 'User [{user}] has attempted to shut down [{db_service}]',
  },
  TMY10I: {
    type: 'db.session.mysql.process_kill',
    desc: 'MySQL Kill Process',
    message: 'User [{user}] has attempted to kill process [{process_id}] on [{db_service}]',
  },
  TMY11I: {
    type: 'db.session.mysql.debug',
    desc: 'MySQL Debug',
    message: 'User [{user}] has asked [{db_service}] to write debug information to its log',
  },
  TMY12I: {
    type: 'db.session.mysql.refresh',
    desc: 'MySQL Refresh',
    message: 'User [{user}] has sent command [{subcommand}] to [{db_service}]',
  },
  TMS00I: {
    type: 'db.session.sqlserver.rpc_request',
    desc: 'SQL Server RPC Request',
    message:
      'User [{user}] has sent RPC Request [{proc_name}] in database [{db_name}] on [{db_service}]',
  },
  TCA01I: {
    type: 'db.session.cassandra.batch',
    desc: 'Cassandra Batch',
    message: 'User [{user}] has sent Cassandra Batch to [{db_service}]',
  },
  TCA02I: {
    type: 'db.session.cassandra.prepare',
    desc: 'Cassandra Prepare',
    message: 'User [{user}] has sent Cassandra Prepare [{query}] to [{db_service}]',
  },
  TCA03I: {
    type: 'db.session.cassandra.execute',
    desc: 'Cassandra Execute',
    message: 'User [{user}] has sent Cassandra Execute [{query_id}] to [{db_service}]',
  },
  TCA04I: {
    type: 'db.session.cassandra.register',
    desc: 'Cassandra Register',
    message: 'User [{user}] has sent Cassandra Register to [{db_service}]',
  },
  TES00I: {
    type: 'db.session.elasticsearch.request',
    desc: 'Elasticsearch Request',
    message:
      'User [{user}] has sent Elasticsearch request [{method} {path}] [{query}] to [{db_service}]',
  },
  TOS00I: {
    type: 'db.session.opensearch.request',
    desc: 'OpenSearch Request',
    message:
      'User [{user}] has sent OpenSearch request [{method} {path}] [{query}] to [{db_service}]',
  },
  TDY01I: {
    type: 'db.session.dynamodb.request',
    desc: 'DynamoDB Request',
    message: 'User [{user}] has sent DynamoDB request [{target}] to [{db_service}]',
  },
} as const satisfies Record<string, AuditEntryDraft>;
