import type { KubeEmulator } from '../../src/index.js';

export interface WatchEvent {
  type: string;
  object: {
    kind?: string;
    apiVersion?: string;
    metadata?: { name?: string; resourceVersion?: string; annotations?: Record<string, string> };
    code?: number;
    reason?: string;
    rows?: { cells: unknown[] }[];
  };
}

export interface OpenWatch {
  events: WatchEvent[];
  /** Resolves when the server ends the stream. */
  ended: Promise<void>;
  close(): void;
}

/** Opens a raw watch stream and collects its events as they arrive. */
export async function openWatch(
  emulator: KubeEmulator,
  path: string,
  headers: Record<string, string> = {},
): Promise<OpenWatch> {
  const controller = new AbortController();
  const response = await fetch(`${emulator.url}${path}`, { headers, signal: controller.signal });
  const events: WatchEvent[] = [];
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  const ended = (async () => {
    let buffer = '';
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        buffer += decoder.decode(value, { stream: true });
        let newline: number;
        while ((newline = buffer.indexOf('\n')) >= 0) {
          events.push(JSON.parse(buffer.slice(0, newline)) as WatchEvent);
          buffer = buffer.slice(newline + 1);
        }
      }
    } catch {
      // aborted by close()
    }
  })();
  return { events, ended, close: () => controller.abort() };
}

export async function until(check: () => boolean, what: string): Promise<void> {
  for (let attempt = 0; attempt < 300; attempt++) {
    if (check()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`timed out waiting for ${what}`);
}
