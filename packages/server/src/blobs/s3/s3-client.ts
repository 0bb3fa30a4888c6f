import { S3Client, S3ServiceException } from '@aws-sdk/client-s3';

/** Where an S3-compatible bucket is and how to sign in to it (`recordings: {type: s3}`). */
export interface S3Location {
  bucket: string;
  /** Absent: AWS's own endpoint for the region. */
  endpoint?: string;
  region: string;
  /** `http://host/bucket/key` rather than `http://bucket.host/key`: most non-AWS servers want it. */
  pathStyle: boolean;
  /** Keys start with it (`recordings/`); empty: the bucket's root. */
  prefix?: string;
  /** Absent: the SDK's own chain (AWS_ACCESS_KEY_ID and the rest of the environment, profiles). */
  credentials?: { accessKeyId: string; secretAccessKey: string };
}

/**
 * A client for an S3-compatible server. Checksums only "when required": by default the SDK sends
 * uploads `aws-chunked` with a CRC trailer, which non-AWS servers (Swift's s3api, older MinIO)
 * corrupt or refuse (DESIGN.md). Timeouts keep a server that is away from holding sessions.
 */
export function createS3Client(location: S3Location): S3Client {
  return new S3Client({
    region: location.region,
    endpoint: location.endpoint,
    forcePathStyle: location.pathStyle,
    credentials: location.credentials,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    maxAttempts: 2,
    requestHandler: { connectionTimeout: 3000, requestTimeout: 60_000 },
  });
}

/** Whether S3 said "no such key" (GetObject) or "not found" (HeadObject, which has no body). */
export function isNotFound(error: unknown): boolean {
  return (
    error instanceof S3ServiceException &&
    (error.name === 'NoSuchKey' ||
      error.name === 'NotFound' ||
      error.$metadata.httpStatusCode === 404)
  );
}

/** A range past the object's end: S3 answers 416 rather than an empty body. */
export function isInvalidRange(error: unknown): boolean {
  return (
    error instanceof S3ServiceException &&
    (error.name === 'InvalidRange' || error.$metadata.httpStatusCode === 416)
  );
}
