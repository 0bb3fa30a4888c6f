import { AlreadyExistsError, type Backend } from '../../backend/index.js';
import { sha256Hex } from '../../ssh/signed-request.js';

/**
 * Each signed request is taken once, on every proxy of the cluster: its signature is written to
 * the backend until its timestamp can no longer be accepted anyway, and a second request with
 * the same signature (a replay of one seen on the way) is refused.
 */
export class SignatureUses {
  constructor(private readonly backend: Backend) {}

  /** True when this signature had not been used; false for a replay. */
  async claim(signature: Buffer, acceptableUntil: number): Promise<boolean> {
    try {
      await this.backend.create({
        key: `/signed_request_uses/${sha256Hex(signature)}`,
        value: '',
        expires: new Date(acceptableUntil),
      });
      return true;
    } catch (error) {
      if (error instanceof AlreadyExistsError) return false;
      throw error;
    }
  }
}
