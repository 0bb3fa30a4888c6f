import { describe, expect, it } from 'vitest';
import { databaseFixtures } from './fixtures';
import { makeDatabase } from './makeDatabase';

describe('makeDatabase hosting label (spec §9)', () => {
  const [orders] = databaseFixtures;

  it('titles the hosting from the type', () => {
    expect(makeDatabase({ ...orders!, type: 'self-hosted' }).hosting).toBe('Self-hosted');
    expect(makeDatabase({ ...orders!, type: 'rds' }).hosting).toBe('Amazon RDS');
  });

  it('titles a snowflake database Snowflake, whatever its type says', () => {
    expect(makeDatabase({ ...orders!, protocol: 'snowflake', type: 'self-hosted' }).hosting).toBe(
      'Snowflake',
    );
  });
});
