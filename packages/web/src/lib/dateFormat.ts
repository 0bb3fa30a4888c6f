/**
 * Writes a date by a pattern, in the browser's time zone: the patterns of the client
 * configuration's loc formats (spec §3) and of spec §9 (`YYYY-MM-DD HH:mm:ss`, `MMM dd, yyyy`).
 * Tokens: YYYY or yyyy year, MMM short month name, MM month, DD or dd day, HH hour (24-hour),
 * mm minutes, ss seconds; anything else is written as it is.
 */
const monthNames = [
  'Jan',
  'Feb',
  'Mar',
  'Apr',
  'May',
  'Jun',
  'Jul',
  'Aug',
  'Sep',
  'Oct',
  'Nov',
  'Dec',
] as const;

// MMM before MM, so a month name is not read as a month number and a stray M.
const tokens = /YYYY|yyyy|MMM|MM|DD|dd|HH|mm|ss/g;

const pad = (n: number) => String(n).padStart(2, '0');

export function formatDatePattern(date: Date, pattern: string): string {
  return pattern.replace(tokens, (token) => {
    switch (token) {
      case 'YYYY':
      case 'yyyy':
        return String(date.getFullYear());
      case 'MMM':
        return monthNames[date.getMonth()] ?? '';
      case 'MM':
        return pad(date.getMonth() + 1);
      case 'DD':
      case 'dd':
        return pad(date.getDate());
      case 'HH':
        return pad(date.getHours());
      case 'mm':
        return pad(date.getMinutes());
      default: // 'ss'
        return pad(date.getSeconds());
    }
  });
}
