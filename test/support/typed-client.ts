/**
 * The head of the typed client the OpenAPI tools test compiles: a small `fetch` client typed
 * by nothing but openapi-typescript's output (`chorus-api.d.ts`); the documented calls follow.
 */
export const TYPED_CLIENT_HEAD = `
import type { components, paths } from './chorus-api';

type Method = 'get' | 'post' | 'patch' | 'delete';
type MethodsOf<P extends keyof paths> = { [M in Method]: paths[P][M] extends undefined ? never : M }[Method];
type Op<P extends keyof paths, M extends Method> = NonNullable<paths[P][M]>;
type Json<R> = R extends { content: { 'application/json': infer J } } ? J : undefined;
type Success<O> = O extends { responses: infer R } ? Json<R[Extract<keyof R, 200 | 201 | 204>]> : never;
type Params<O> = O extends { parameters: infer P } ? P : never;
type Input<O> = (Params<O> extends { path: infer A } ? { path: A } : { path?: never }) &
  (Params<O> extends { query?: infer Q } ? { query?: Q } : { query?: never }) &
  (O extends { requestBody: { content: { 'application/json': infer B } } } ? { body: B } : { body?: never });

const BASE = process.env.CHORUS_URL ?? 'http://localhost:3000';
const KEY = process.env.KEY ?? '';

/** One call: \`call('post', '/api/v1/posts/{id}/merge', { path: { id }, body: { into } })\`. */
async function call<P extends keyof paths, M extends MethodsOf<P>>(
  method: M,
  template: P,
  input: Input<Op<P, M>>,
): Promise<Success<Op<P, M>>> {
  const { path, query, body } = input as {
    path?: Record<string, string | number>;
    query?: Record<string, string | number>;
    body?: unknown;
  };
  const url = new URL(template.replace(/\\{(\\w+)\\}/g, (_, name: string) => encodeURIComponent(String(path![name]))), BASE);
  for (const [name, value] of Object.entries(query ?? {})) url.searchParams.set(name, String(value));
  const res = await fetch(url, {
    method: method.toUpperCase(),
    headers: { authorization: \`Bearer \${KEY}\`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) {
    const { error } = (await res.json()) as components['schemas']['ErrorBody'];
    throw new Error(\`\${res.status} \${error.code}: \${error.message}\`);
  }
  return (res.status === 204 ? undefined : await res.json()) as Success<Op<P, M>>;
}

export async function documentedCalls(): Promise<void> {
`;
