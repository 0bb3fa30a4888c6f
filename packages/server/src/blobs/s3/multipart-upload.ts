import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  PutObjectCommand,
  UploadPartCommand,
  type S3Client,
} from '@aws-sdk/client-s3';

/** Parts are at least 5 MiB but the last (S3's rule); 8 MiB keeps part counts low for big casts. */
export const partBytes = 8 * 1024 * 1024;

/**
 * One object written in order, piece by piece: held in memory up to a part, then sent as a
 * multipart upload; an object smaller than one part is sent with a single PutObject at the end.
 * A failure aborts the upload, so no parts are left behind (a process that dies mid-upload
 * leaves one; `abortStaleUploads` removes it).
 */
export class MultipartUpload {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private uploadId: string | undefined;
  private readonly parts: { ETag?: string; PartNumber: number }[] = [];

  constructor(
    private readonly client: S3Client,
    private readonly bucket: string,
    private readonly key: string,
  ) {}

  async add(data: Buffer): Promise<void> {
    this.pending.push(data);
    this.pendingBytes += data.length;
    if (this.pendingBytes >= partBytes) await this.sendPart();
  }

  async finish(): Promise<void> {
    try {
      if (this.uploadId === undefined) {
        const body = Buffer.concat(this.pending);
        this.pending = [];
        await this.client.send(
          new PutObjectCommand({ Bucket: this.bucket, Key: this.key, Body: body }),
        );
        return;
      }
      if (this.pendingBytes > 0 || this.parts.length === 0) await this.sendPart();
      await this.client.send(
        new CompleteMultipartUploadCommand({
          Bucket: this.bucket,
          Key: this.key,
          UploadId: this.uploadId,
          MultipartUpload: { Parts: this.parts },
        }),
      );
    } catch (error) {
      await this.abort();
      throw error;
    }
  }

  async abort(): Promise<void> {
    this.pending = [];
    if (this.uploadId === undefined) return;
    const uploadId = this.uploadId;
    this.uploadId = undefined;
    await this.client
      .send(
        new AbortMultipartUploadCommand({ Bucket: this.bucket, Key: this.key, UploadId: uploadId }),
      )
      .catch(() => undefined);
  }

  private async sendPart(): Promise<void> {
    const body = Buffer.concat(this.pending);
    this.pending = [];
    this.pendingBytes = 0;
    try {
      this.uploadId ??= (
        await this.client.send(
          new CreateMultipartUploadCommand({ Bucket: this.bucket, Key: this.key }),
        )
      ).UploadId;
      const PartNumber = this.parts.length + 1;
      const { ETag } = await this.client.send(
        new UploadPartCommand({
          Bucket: this.bucket,
          Key: this.key,
          UploadId: this.uploadId,
          PartNumber,
          Body: body,
        }),
      );
      this.parts.push({ ETag, PartNumber });
    } catch (error) {
      await this.abort();
      throw error;
    }
  }
}
