import { afterEach, describe, expect, it } from 'vitest';
import { MemoryStorage } from '../test/memoryStorage';
import {
  readDateFormat,
  readScrollback,
  readTerminalSettings,
  terminalFonts,
  writeDateFormat,
  writeScrollback,
  writeTerminalFont,
} from './consoleSettings';
import { formatDate, formatDateTime, setClusterDateFormats } from './format';

describe('console settings', () => {
  it('default to the spec: system monospace at 14 px, the cluster scrollback and date format', () => {
    const storage = new MemoryStorage();
    expect(readTerminalSettings(1000, storage)).toEqual({
      fontSize: 14,
      fontFamily: terminalFonts.system.css,
      scrollback: 1000,
    });
    expect(readDateFormat(storage)).toBeUndefined();
  });

  it('keep what the user chose, each under its grv_teleport_ key', () => {
    const storage = new MemoryStorage();
    writeTerminalFont('dejavu', storage);
    writeScrollback(50, storage);
    writeDateFormat('DD.MM.YYYY', storage);
    expect(readTerminalSettings(1000, storage)).toMatchObject({
      fontFamily: '"DejaVu Sans Mono", monospace',
      scrollback: 50,
    });
    expect(storage.keys().every((key) => key.startsWith('grv_teleport_'))).toBe(true);
    writeScrollback(undefined, storage);
    expect(readScrollback(storage)).toBeUndefined();
    writeDateFormat(undefined, storage);
    expect(readDateFormat(storage)).toBeUndefined();
  });

  it('ignore stored values they do not know (another version, a hand edit)', () => {
    const storage = new MemoryStorage();
    storage.setItem('grv_teleport_terminal_font_family', 'Comic Sans');
    storage.setItem('grv_teleport_terminal_scrollback', '-5');
    storage.setItem('grv_teleport_date_format', 'YY/M/D');
    expect(readTerminalSettings(1000, storage)).toMatchObject({
      fontFamily: terminalFonts.system.css,
      scrollback: 1000,
    });
    storage.setItem('grv_teleport_terminal_scrollback', '2.5');
    expect(readScrollback(storage)).toBeUndefined();
    expect(readDateFormat(storage)).toBeUndefined();
  });
});

describe('dates in the chosen format, times in 24-hour', () => {
  const evening = new Date(2024, 0, 9, 18, 5, 7);

  it.each([
    ['YYYY-MM-DD', '2024-01-09'],
    ['DD/MM/YYYY', '09/01/2024'],
    ['MM/DD/YYYY', '01/09/2024'],
    ['DD.MM.YYYY', '09.01.2024'],
  ] as const)('%s', (format, date) => {
    expect(formatDate(evening, format)).toBe(date);
    expect(formatDateTime(evening, format)).toBe(`${date} 18:05:07`);
  });

  it('follow the stored setting by default', () => {
    expect(formatDateTime(evening)).toBe('2024-01-09 18:05:07');
    writeDateFormat('DD/MM/YYYY');
    expect(formatDateTime(evening)).toBe('09/01/2024 18:05:07');
  });
});

describe("dates in the cluster's loc formats (GRV_CONFIG) until the user picks one", () => {
  const evening = new Date(2024, 0, 9, 18, 5, 7);
  // The formats live in a module other test files in this worker share.
  afterEach(() => setClusterDateFormats());

  it("use the cluster's date and date-time formats when the user picked none", () => {
    setClusterDateFormats({ dateFormat: 'MMM dd, yyyy', dateTimeFormat: 'DD.MM.YYYY HH:mm' });
    expect(formatDate(evening)).toBe('Jan 09, 2024');
    expect(formatDateTime(evening)).toBe('09.01.2024 18:05');
  });

  it("let the user's pick win over the cluster's", () => {
    setClusterDateFormats({ dateFormat: 'MMM dd, yyyy', dateTimeFormat: 'DD.MM.YYYY HH:mm' });
    writeDateFormat('MM/DD/YYYY');
    expect(formatDate(evening)).toBe('01/09/2024');
    expect(formatDateTime(evening)).toBe('01/09/2024 18:05:07');
  });
});
