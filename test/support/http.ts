export interface Answer<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface RequestOptions {
  key?: string | null;
  body?: unknown;
  /** Sent as is, instead of JSON-encoding `body`. */
  raw?: string | Buffer;
  headers?: Record<string, string>;
}

/** A small client for the API, over real HTTP. */
export class Client {
  constructor(
    readonly baseUrl: string,
    readonly key: string | null = null,
  ) {}

  as(key: string | null): Client {
    return new Client(this.baseUrl, key);
  }

  async request<T = any>(method: string, path: string, options: RequestOptions = {}): Promise<Answer<T>> {
    const headers: Record<string, string> = { ...options.headers };
    const key = options.key === undefined ? this.key : options.key;
    if (key) headers.authorization = `Bearer ${key}`;
    let body: string | Buffer | undefined = options.raw;
    if (body === undefined && options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    const res = await fetch(this.baseUrl + path, { method, headers, body });
    const text = await res.text();
    let parsed: unknown = undefined;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: res.status, headers: res.headers, body: parsed as T, text };
  }

  get<T = any>(path: string, options?: RequestOptions) {
    return this.request<T>('GET', path, options);
  }
  post<T = any>(path: string, body?: unknown, options?: RequestOptions) {
    return this.request<T>('POST', path, { ...options, body });
  }
  patch<T = any>(path: string, body?: unknown, options?: RequestOptions) {
    return this.request<T>('PATCH', path, { ...options, body });
  }
}

/** A GET sent from a chosen loopback address (127.0.0.2, …), to test per-address limits; a JSON body is parsed. */
export function getFrom(
  localAddress: string,
  url: string,
  headers: Record<string, string>,
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: any }> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const http = require('node:http') as typeof import('node:http');
  return new Promise((resolve, reject) => {
    const req = http.get(url, { localAddress, headers, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => {
        let body: unknown = text || undefined;
        try {
          body = text ? JSON.parse(text) : undefined;
        } catch {
          // a page, not JSON: its text
        }
        resolve({ status: res.statusCode!, headers: res.headers, body });
      });
    });
    req.on('error', reject);
  });
}

/**
 * An error answer: this status, exactly the envelope `{ error: { code, message } }` with this
 * code, the message when given (equal to a string, or matching a pattern), and a Request-Id.
 */
export function expectError(answer: Answer, status: number, code: string, message?: string | RegExp): void {
  expect({ status: answer.status, body: answer.body }).toEqual({
    status,
    body: { error: { code, message: expect.any(String) } },
  });
  if (typeof message === 'string') expect(answer.body.error.message).toBe(message);
  if (message instanceof RegExp) expect(answer.body.error.message).toMatch(message);
  expect(answer.headers.get('request-id')).toMatch(/^req_/);
}
