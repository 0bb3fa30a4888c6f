import {
  CreateBucketCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  AbortMultipartUploadCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { Readable, Writable } from 'node:stream';
import {
  assertBlobName,
  isBlobName,
  readWhole,
  type BlobRange,
  type BlobStat,
  type BlobStore,
} from '../blob-store.js';
import { MultipartUpload } from './multipart-upload.js';
import { createS3Client, isInvalidRange, isNotFound, type S3Location } from './s3-client.js';

/**
 * Blobs as objects in an S3-compatible bucket, each under `<prefix><name>`. Reads take byte
 * ranges, so a player seeking in a sealed recording fetches only what it shows. An append is a
 * multipart upload: nothing of it is visible until it ends (recordings get their "every few
 * seconds" durability from the spool in front of this store, spooled-blob-store.ts).
 */
export class S3BlobStore implements BlobStore {
  readonly client: S3Client;
  private readonly bucket: string;
  private readonly prefix: string;

  constructor(location: S3Location, client?: S3Client) {
    this.client = client ?? createS3Client(location);
    this.bucket = location.bucket;
    this.prefix = location.prefix ?? '';
  }

  /** Creates the bucket when it does not exist (a server that refuses that fails here, at start). */
  async init(): Promise<void> {
    try {
      await this.client.send(new HeadBucketCommand({ Bucket: this.bucket }));
    } catch (error) {
      if (!isNotFound(error)) throw error;
      await this.client.send(new CreateBucketCommand({ Bucket: this.bucket }));
    }
  }

  async put(name: string, data: Buffer | string): Promise<void> {
    const body = typeof data === 'string' ? Buffer.from(data) : data;
    await this.client.send(
      new PutObjectCommand({ Bucket: this.bucket, Key: this.key(name), Body: body }),
    );
  }

  append(name: string): Writable {
    const key = this.key(name);
    const upload = new MultipartUpload(this.client, this.bucket, key);
    // Checked before the first byte is sent; S3 has no "create only" that every server honours.
    const free = this.stat(name).then((found) => {
      if (found) throw new Error(`blob ${name} exists already`);
    });
    // Surfaced by the first write or the end; never an unhandled rejection when there is neither.
    free.catch(() => undefined);
    return new Writable({
      write: (chunk: Buffer, _encoding, callback) => {
        free.then(() => upload.add(chunk)).then(() => callback(), callback);
      },
      final: (callback) => {
        free.then(() => upload.finish()).then(() => callback(), callback);
      },
      destroy: (error, callback) => {
        if (error) void upload.abort();
        callback(error);
      },
    });
  }

  async get(name: string, range: BlobRange = {}): Promise<Buffer | undefined> {
    return readWhole(await this.read(name, range));
  }

  async read(name: string, range: BlobRange = {}): Promise<Readable | undefined> {
    const key = this.key(name);
    const start = range.start ?? 0;
    const end = range.end;
    // An empty range has no HTTP form ("bytes=5-4" is invalid): answer it after an existence check.
    if (end !== undefined && end <= start) {
      return (await this.stat(name)) ? Readable.from([]) : undefined;
    }
    const Range =
      start === 0 && end === undefined
        ? undefined
        : `bytes=${start}-${end === undefined ? '' : end - 1}`;
    try {
      const { Body } = await this.client.send(
        new GetObjectCommand({ Bucket: this.bucket, Key: key, Range }),
      );
      return Body as Readable;
    } catch (error) {
      if (isNotFound(error)) return undefined;
      // Starting at or past the end: the object exists, the range holds nothing.
      if (isInvalidRange(error)) return Readable.from([]);
      throw error;
    }
  }

  async stat(name: string): Promise<BlobStat | undefined> {
    try {
      const head = await this.client.send(
        new HeadObjectCommand({ Bucket: this.bucket, Key: this.key(name) }),
      );
      return { size: head.ContentLength ?? 0 };
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  async list(prefix = ''): Promise<string[]> {
    const names: string[] = [];
    let ContinuationToken: string | undefined;
    do {
      const page = await this.client
        .send(
          new ListObjectsV2Command({
            Bucket: this.bucket,
            Prefix: this.prefix + prefix,
            ContinuationToken,
          }),
        )
        .catch((error: unknown) => {
          if (isNotFound(error)) return undefined;
          throw error;
        });
      if (!page) return [];
      for (const object of page.Contents ?? []) {
        const name = object.Key?.slice(this.prefix.length) ?? '';
        if (isBlobName(name)) names.push(name);
      }
      ContinuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (ContinuationToken);
    return names.sort();
  }

  async delete(name: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: this.key(name) }));
  }

  /** Writes a whole blob from pieces that may not fit in memory together (a spooled recording). */
  async upload(name: string, pieces: AsyncIterable<Buffer>): Promise<void> {
    const upload = new MultipartUpload(this.client, this.bucket, this.key(name));
    try {
      for await (const piece of pieces) await upload.add(piece);
    } catch (error) {
      await upload.abort();
      throw error;
    }
    await upload.finish();
  }

  /**
   * Aborts multipart uploads started before `before` under this store's prefix: what a process
   * that died mid-upload left (their parts take space until then). Returns how many.
   */
  async abortStaleUploads(before: Date): Promise<number> {
    const { Uploads = [] } = await this.client.send(
      new ListMultipartUploadsCommand({ Bucket: this.bucket, Prefix: this.prefix }),
    );
    let aborted = 0;
    for (const upload of Uploads) {
      if (!upload.Key || !upload.UploadId || !upload.Initiated || upload.Initiated >= before)
        continue;
      await this.client.send(
        new AbortMultipartUploadCommand({
          Bucket: this.bucket,
          Key: upload.Key,
          UploadId: upload.UploadId,
        }),
      );
      aborted += 1;
    }
    return aborted;
  }

  /** Why blobs cannot be written now, or undefined: the bucket answers. */
  async writableProblem(): Promise<string | undefined> {
    try {
      await this.client.send(new HeadBucketCommand({ Bucket: this.bucket }));
      return undefined;
    } catch {
      return 'the recordings bucket cannot be reached';
    }
  }

  close(): void {
    this.client.destroy();
  }

  private key(name: string): string {
    assertBlobName(name);
    return this.prefix + name;
  }
}
