import { execFile } from 'node:child_process';
import { createServer, Server } from 'node:http';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createWorkspace } from './support/factories';
import { cancelPending, holdProcessorLock } from './support/processor-lock';
import { apiDocumentBlocks, callsAsTypeScript, documentedCalls } from './support/documented-calls';
import { startTestApp, TestApp } from './support/test-app';
import { TYPED_CLIENT_HEAD } from './support/typed-client';

const run = promisify(execFile);
const root = join(__dirname, '..');
const bin = (name: string) => join(root, 'node_modules', '.bin', name);
/** A deployment's address: Redocly rightly warns about a document whose server is localhost. */
const BASE_URL = 'https://feedback.acme.test';
/** The linters and tsc are whole programs of their own: on a busy 2-core machine each takes a while. */
const TOOL_TIMEOUT = 180_000;

/** A document's snippet under a heading, as written. */
function documentedSnippet(document: string, heading: string, language: string): string {
  const text = readFileSync(join(root, document), 'utf8');
  const section = text.slice(text.indexOf(`\n${heading}\n`));
  return new RegExp('```' + language + '\\n([\\s\\S]*?)```').exec(section)![1];
}

/**
 * The served document taken as integrators take it: two linters with their stock rulesets,
 * openapi-typescript with its defaults, and `tsc --strict` over a client that makes the
 * documented calls (docs/api.md, then docs/webhooks.md) with their bodies and over the documented
 * delivery verification. The documented calls also run as written (curl and jq) against a fresh
 * workspace.
 */
describe('the OpenAPI document, through public tools', () => {
  let t: TestApp;
  let release: () => Promise<void>;
  let dir: string;
  let document: any;
  const workspaces: string[] = [];

  beforeAll(async () => {
    // Its processor sends the documented calls' deliveries; no other file's may take them meanwhile.
    release = await holdProcessorLock();
    t = await startTestApp({ BASE_URL, RUN_WORKER: 'true', WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' });
    const res = await fetch(`${t.baseUrl}/api/v1/openapi.json`);
    expect(res.status).toBe(200);
    document = await res.json();
    dir = mkdtempSync(join(tmpdir(), 'chorus-openapi-'));
    writeFileSync(join(dir, 'openapi.json'), JSON.stringify(document, null, 2));
  }, 180_000);
  afterAll(async () => {
    await cancelPending(t.db, workspaces);
    await t.close();
    await release();
    rmSync(dir, { recursive: true, force: true });
  });

  it('names every operation and schema as a person would', () => {
    const operations = Object.values(document.paths).flatMap((item: any) => Object.values(item)) as any[];
    for (const operation of operations) {
      expect(operation.operationId).toMatch(/^[a-z]+[A-Z][A-Za-z]+$/);
      expect(operation.summary).toBeTruthy();
      expect(operation.description).toBeTruthy();
    }
    expect(operations.map((operation) => operation.operationId)).toEqual(
      expect.arrayContaining(['listPosts', 'createPost', 'mergePost', 'rotateEndpointSecret', 'retryDelivery']),
    );
    expect(Object.keys(document.components.schemas).filter((name) => /Dto|Response$/.test(name))).toEqual([]);
    expect(document.servers).toEqual([expect.objectContaining({ url: BASE_URL })]);
    expect(document.components.securitySchemes.bearer.bearerFormat).not.toMatch(/jwt/i);
  });

  it('passes Spectral (spectral:oas) with no error and no warning', async () => {
    writeFileSync(join(dir, '.spectral.yaml'), 'extends: ["spectral:oas"]\n');
    const { stdout } = await run(
      bin('spectral'),
      ['lint', join(dir, 'openapi.json'), '--ruleset', join(dir, '.spectral.yaml'), '--format', 'json', '--quiet'],
      { cwd: dir },
    ).catch((error) => error);
    const results = JSON.parse(stdout) as { code: string; message: string; path: string[] }[];
    expect(results.map((r) => `${r.code}: ${r.message} at ${r.path.join('.')}`)).toEqual([]);
  }, TOOL_TIMEOUT);

  it('passes Redocly (recommended) with no error and no warning', async () => {
    writeFileSync(join(dir, 'redocly.yaml'), 'extends:\n  - recommended\n');
    const { stdout } = await run(
      bin('redocly'),
      ['lint', join(dir, 'openapi.json'), '--config', join(dir, 'redocly.yaml'), '--format', 'json'],
      { cwd: dir, env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' } },
    ).catch((error) => error);
    const report = JSON.parse(stdout.slice(stdout.indexOf('{')));
    const problems = report.problems.map((p: any) => `${p.severity} ${p.ruleId}: ${p.message}`);
    expect(problems).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
  }, TOOL_TIMEOUT);

  it('gives openapi-typescript types that the documented calls and delivery check compile against', async () => {
    await run(bin('openapi-typescript'), [join(dir, 'openapi.json'), '-o', join(dir, 'chorus-api.d.ts')]);
    const calls = callsAsTypeScript(documentedCalls(apiDocumentBlocks()), Object.keys(document.paths));
    expect(calls.length).toBeGreaterThanOrEqual(15);
    const documented = Object.entries(document.paths).flatMap(([path, item]: [string, any]) =>
      Object.keys(item).map((method) => `'${method}', '${path}'`),
    );
    // Every operation is shown in docs/api.md or docs/webhooks.md.
    expect(documented.filter((operation) => !calls.some((call) => call.includes(operation)))).toEqual([]);
    writeFileSync(join(dir, 'client.ts'), `${TYPED_CLIENT_HEAD}${calls.map((c) => `  ${c}`).join('\n')}\n}\n`);
    writeFileSync(join(dir, 'verify.ts'), documentedSnippet('docs/webhooks.md', '## Verify deliveries', 'ts'));
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          noEmit: true,
          target: 'es2022',
          module: 'nodenext',
          moduleResolution: 'nodenext',
          lib: ['es2023'],
          types: ['node'],
          typeRoots: [join(root, 'node_modules', '@types')],
          skipLibCheck: false,
        },
        files: ['client.ts', 'verify.ts', 'chorus-api.d.ts'],
      }),
    );
    const { stdout } = await run(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', dir]).catch(
      (error) => error,
    );
    expect(stdout).toBe('');
  }, TOOL_TIMEOUT);

  it('the documented calls run as written on a fresh workspace, each id taken from an earlier answer', async () => {
    // Business: the export (docs/api.md) is a Business plan's.
    const ws = await createWorkspace(t.app, { plan: 'business' });
    workspaces.push(ws.id);
    const receiver: Server = createServer((req, res) => req.resume().on('end', () => res.writeHead(204).end()));
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    try {
      const script = apiDocumentBlocks()
        .filter((block) => block.includes('curl '))
        .join('\n')
        .replace(/^KEY=.*$/m, '')
        .replaceAll('http://localhost:3000', t.baseUrl)
        .replaceAll('https://example.com/chorus', hook)
        .replace(/https:\/\/hooks\.slack\.com\/services\/[^"]+/, hook);
      const { stdout } = await run(
        'bash',
        ['-c', `set -euo pipefail\ncurl() { command curl -sS --fail-with-body "$@"; echo; }\n${script}\necho "POST_ID=$POST_ID DUPLICATE_ID=$DUPLICATE_ID DELIVERY_ID=$DELIVERY_ID"`],
        { env: { ...process.env, KEY: ws.key }, timeout: 60_000 },
      );
      expect(stdout).toMatch(/POST_ID=\d+ DUPLICATE_ID=\d+ DELIVERY_ID=[0-9a-f-]{36}$/m);
      const merged = /"merged_into":\{"id":(\d+)/.exec(stdout);
      expect(merged?.[1]).toBe(/POST_ID=(\d+)/.exec(stdout)![1]);
    } finally {
      await new Promise((resolve) => receiver.close(resolve));
    }
  });
});
