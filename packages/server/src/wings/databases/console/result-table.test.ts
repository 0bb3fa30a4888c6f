import { describe, expect, it } from 'vitest';
import { formatResult } from './result-table.js';

describe('SQL console results', () => {
  it('aligns like psql: centred headers, numbers right, text left, a row count', () => {
    const text = formatResult({
      command: 'SELECT',
      rowCount: 2,
      fields: [
        { name: 'id', dataTypeID: 23 },
        { name: 'name', dataTypeID: 25 },
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

  it('says how many rows it left out, and prints command tags', () => {
    const many = formatResult({
      command: 'SELECT',
      rowCount: null,
      fields: [{ name: 'n', dataTypeID: 23 }],
      rows: [['1']],
      omitted: 4,
    });
    expect(many).toContain('(5 rows, 1 shown)');
    expect(formatResult({ command: 'INSERT', rowCount: 3, fields: [], rows: [], omitted: 0 })).toBe(
      'INSERT 0 3\r\n',
    );
    expect(formatResult({ command: 'UPDATE', rowCount: 0, fields: [], rows: [], omitted: 0 })).toBe(
      'UPDATE 0\r\n',
    );
  });
});
