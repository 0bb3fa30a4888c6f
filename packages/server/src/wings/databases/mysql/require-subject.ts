/**
 * The clause that lets a client certificate whose subject is just CN=`user` (what
 * DatabaseClientCa issues) sign in as that account, e.g. `REQUIRE SUBJECT '/CN=alice'`. MariaDB
 * compares byte for byte with OpenSSL's X509_NAME_oneline: `/CN=` and the value, `/` and `+`
 * escaped by a backslash, each byte outside printable ASCII (so each byte of a non-ASCII UTF-8
 * character) as `\xHH`. The result is an SQL string literal, so backslashes are doubled.
 */
export function requireSubjectFor(user: string): string {
  let subject = '/CN=';
  for (const byte of Buffer.from(user, 'utf8')) {
    if (byte < 0x20 || byte > 0x7e) {
      subject += `\\x${byte.toString(16).toUpperCase().padStart(2, '0')}`;
    } else {
      const char = String.fromCharCode(byte);
      subject += char === '/' || char === '+' ? `\\${char}` : char;
    }
  }
  return `REQUIRE SUBJECT '${subject.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;
}
