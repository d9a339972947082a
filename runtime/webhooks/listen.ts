/**
 * PostgreSQL only: a dedicated connection that LISTENs on the queue's channel, so a worker hears of
 * deliveries committed by other processes at once. A lost connection is reopened after two seconds;
 * on every (re)connection the worker is told to look, since commits made meanwhile woke nobody.
 */
import { createRequire } from 'node:module';
import { channelName } from './channel.js';

interface PgClient {
  connect(): Promise<void>;
  query(sql: string): Promise<unknown>;
  end(): Promise<void>;
  on(event: string, listener: (...args: any[]) => void): void;
  removeAllListeners(): void;
}
const { Client } = createRequire(import.meta.url)('pg') as { Client: new (config: { connectionString: string }) => PgClient };

const RECONNECT_MS = 2000;

export class QueueListener {
  private client: PgClient | null = null;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly url: string,
    private readonly schema: string | null,
    private readonly onWake: () => void,
    private readonly onError: (error: unknown) => void,
  ) {}

  async connect(): Promise<void> {
    if (this.closed) return;
    const client = new Client({ connectionString: this.url });
    const lost = (error?: unknown) => {
      if (error && !this.closed) this.onError(error);
      if (this.client === client) this.client = null;
      client.removeAllListeners();
      client.on('error', () => {});
      void client.end().catch(() => {});
      if (!this.closed && !this.reconnectTimer) {
        this.reconnectTimer = setTimeout(() => { this.reconnectTimer = undefined; void this.connect(); }, RECONNECT_MS);
      }
    };
    client.on('notification', () => this.onWake());
    client.on('error', lost);
    client.on('end', () => lost());
    try {
      await client.connect();
      await client.query(`LISTEN "${channelName(this.schema)}"`);
      if (this.closed) return lost();
      this.client = client;
      this.onWake();
    } catch (error) {
      lost(error);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.reconnectTimer);
    const client = this.client;
    this.client = null;
    if (client) {
      client.removeAllListeners();
      client.on('error', () => {});
      await client.end().catch(() => {});
    }
  }
}
