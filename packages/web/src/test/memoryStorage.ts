/** A Storage in memory that logs every write, to check what a tab broadcast. */
export class MemoryStorage implements Storage {
  private items = new Map<string, string>();
  readonly writes: [op: 'set' | 'remove', key: string, value?: string][] = [];

  get length() {
    return this.items.size;
  }
  key(index: number): string | null {
    return [...this.items.keys()][index] ?? null;
  }
  getItem(key: string): string | null {
    return this.items.get(key) ?? null;
  }
  setItem(key: string, value: string): void {
    this.writes.push(['set', key, value]);
    this.items.set(key, String(value));
  }
  removeItem(key: string): void {
    this.writes.push(['remove', key]);
    this.items.delete(key);
  }
  clear(): void {
    this.items.clear();
  }
  keys(): string[] {
    return [...this.items.keys()];
  }
  [name: string]: unknown;
}
