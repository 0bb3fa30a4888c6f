import { describe, expect, it } from 'vitest';
import { commandTag } from './pg-console-client.js';
import { formatResult } from './result-table.js';

describe('SQL console results', () => {
  it('aligns like psql: centred headers, numbers right, text left, a row count', () => {
    const text = formatResult({
      tag: 'SELECT 2',
      fields: [
        { name: 'id', numeric: true },
        { name: 'name', numeric: false },
      ],
      rows: [
        ['1', 'Rex'],
        ['22', null],
      ],
      omitted: 0,
    });
    expect(text).toBe(
      [' id | name', '----+------', '  1 | Rex', ' 22 |', '(2 rows)', '', ''].join('\r\n'),
    );
  });

  it('says how many rows it left out, and prints the tag of a statement without rows', () => {
    const many = formatResult({
      tag: '',
      fields: [{ name: 'n', numeric: true }],
      rows: [['1']],
      omitted: 4,
    });
    expect(many).toContain('(5 rows, 1 shown)');
    expect(formatResult({ tag: 'CREATE TABLE', fields: [], rows: [], omitted: 0 })).toBe(
      'CREATE TABLE\r\n',
    );
  });

  it('makes psql’s command tags when the server’s own was not seen', () => {
    expect(commandTag('INSERT', 3)).toBe('INSERT 0 3');
    expect(commandTag('UPDATE', 0)).toBe('UPDATE 0');
    expect(commandTag('CREATE', null)).toBe('CREATE');
    expect(commandTag(null, null)).toBe('OK');
  });
});
