/**
 * The zlib dictionary that primes every SPDY/3 header compression context, in both directions
 * (SPDY Protocol Draft 3, section 2.6.10.1, "Compression"). The draft prints it as a C byte array;
 * read as text it is a run of header words, each behind a 32-bit big-endian length, then one
 * unprefixed string of status lines, dates and content types. It is written here in that shape
 * so a reader can check it against the draft; the tests pin its length and Adler-32, the number
 * the zlib stream names the dictionary by (a wrong byte and Go's framer refuses every header).
 */
const prefixedWords = [
  'options',
  'head',
  'post',
  'put',
  'delete',
  'trace',
  'accept',
  'accept-charset',
  'accept-encoding',
  'accept-language',
  'accept-ranges',
  'age',
  'allow',
  'authorization',
  'cache-control',
  'connection',
  'content-base',
  'content-encoding',
  'content-language',
  'content-length',
  'content-location',
  'content-md5',
  'content-range',
  'content-type',
  'date',
  'etag',
  'expect',
  'expires',
  'from',
  'host',
  'if-match',
  'if-modified-since',
  'if-none-match',
  'if-range',
  'if-unmodified-since',
  'last-modified',
  'location',
  'max-forwards',
  'pragma',
  'proxy-authenticate',
  'proxy-authorization',
  'range',
  'referer',
  'retry-after',
  'server',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'user-agent',
  'vary',
  'via',
  'warning',
  'www-authenticate',
  'method',
  'get',
  'status',
  '200 OK',
  'version',
  'HTTP/1.1',
  'url',
  'public',
  'set-cookie',
  'keep-alive',
  'origin',
];

const tail = [
  // Status codes, three digits each, back to back.
  '100101201202205206300302303304305306307',
  '402405406407408409410411412413414415416417',
  '502504505',
  // Reason phrases.
  '203 Non-Authoritative Information',
  '204 No Content',
  '301 Moved Permanently',
  '400 Bad Request',
  '401 Unauthorized',
  '403 Forbidden',
  '404 Not Found',
  '500 Internal Server Error',
  '501 Not Implemented',
  '503 Service Unavailable',
  // Dates.
  'Jan Feb Mar Apr May Jun Jul Aug Sept Oct Nov Dec ',
  '00:00:00 Mon, Tue, Wed, Thu, Fri, Sat, Sun, GMT',
  // Content types and codings.
  'chunked,text/html,image/png,image/jpg,image/gif,',
  'application/xml,application/xhtml+xml,text/plain,text/javascript,',
  'publicprivatemax-age=gzip,deflate,sdch',
  'charset=utf-8charset=iso-8859-1,utf-,*,enq=0.',
].join('');

function lengthPrefixed(word: string): Buffer {
  const bytes = Buffer.from(word, 'latin1');
  const length = Buffer.alloc(4);
  length.writeUInt32BE(bytes.length);
  return Buffer.concat([length, bytes]);
}

export const spdy3Dictionary: Buffer = Buffer.concat([
  ...prefixedWords.map(lengthPrefixed),
  Buffer.from(tail, 'latin1'),
]);
