import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The documents whose `sh` blocks call the API, in the order a reader runs them in one shell. */
export const API_DOCUMENTS = ['docs/api.md', 'docs/webhooks.md'];

/** The `sh` blocks of the API's documents, in order. */
export function apiDocumentBlocks(): string[] {
  return API_DOCUMENTS.flatMap((document) => {
    const text = readFileSync(join(__dirname, '..', '..', document), 'utf8');
    return [...text.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1]);
  });
}

/** A shell word; `$NAME` references are kept as `\u0000NAME\u0000`. */
const VAR = /\u0000([A-Z_]+)\u0000/g;

/** Splits a command line into words as a shell would, up to an unquoted `|` or `)`. */
function words(line: string): { words: string[]; rest: string } {
  const out: string[] = [];
  let word: string | null = null;
  let i = 0;
  const variable = () => {
    const name = /^\$([A-Z_]+)/.exec(line.slice(i))![1];
    i += name.length + 1;
    return `\u0000${name}\u0000`;
  };
  for (; i < line.length; ) {
    const c = line[i];
    if (c === "'") {
      const end = line.indexOf("'", i + 1);
      word = (word ?? '') + line.slice(i + 1, end);
      i = end + 1;
    } else if (c === '"') {
      word ??= '';
      for (i++; line[i] !== '"'; ) {
        if (line[i] === '$') word += variable();
        else if (line[i] === '\\') (word += line[i + 1]), (i += 2);
        else word += line[i++];
      }
      i++;
    } else if (c === '$' && /[A-Z_]/.test(line[i + 1] ?? '')) {
      word = (word ?? '') + variable();
    } else if (c === ' ' || c === '|' || c === ')') {
      if (word !== null) out.push(word);
      word = null;
      if (c !== ' ') return { words: out, rest: line.slice(i) };
      i++;
    } else {
      word = (word ?? '') + c;
      i++;
    }
  }
  if (word !== null) out.push(word);
  return { words: out, rest: '' };
}

export interface DocumentedCall {
  /** A value the shell makes without the API (`SINCE=$(date …)`): a string the client has from elsewhere. */
  shell?: string;
  /** The shell variable the answer is read into, and the jq path read. */
  assign?: { name: string; path: string };
  method: string;
  /** Path as written, `$VAR` kept as markers; query string apart. */
  path: string;
  query: Record<string, string>;
  /** The JSON body text, `$VAR` kept as markers. */
  body?: string;
}

/** Every curl command of the blocks, in order. */
export function documentedCalls(blocks: string[]): DocumentedCall[] {
  const calls: DocumentedCall[] = [];
  for (const block of blocks) {
    for (const line of block.replace(/\\\n\s*/g, '').split('\n')) {
      const assigned = /^([A-Z_]+)=\$\((.*)\)$/.exec(line.trim());
      const command = assigned ? assigned[2] : line.trim();
      if (assigned && !command.startsWith('curl ')) {
        calls.push({ shell: assigned[1], method: '', path: '', query: {} });
        continue;
      }
      if (!command.startsWith('curl ')) continue;
      const { words: args, rest } = words(command);
      const jq = /^\|\s*jq (?:-r )?'?([^' ]+)'?/.exec(rest.trim());
      const url = args.find((arg) => arg.startsWith('http'))!;
      const body = args.includes('-d') ? args[args.indexOf('-d') + 1] : undefined;
      const method = args.includes('-X') ? args[args.indexOf('-X') + 1] : body !== undefined ? 'POST' : 'GET';
      const { pathname, searchParams } = new URL(url.replace(VAR, (_, name) => `__${name}__`));
      calls.push({
        ...(assigned ? { assign: { name: assigned[1], path: jq![1] } } : {}),
        method,
        path: pathname.replace(/__([A-Z_]+)__/g, '\u0000$1\u0000'),
        query: Object.fromEntries(searchParams),
        body,
      });
    }
  }
  return calls;
}

/** A JSON text with `$VAR` markers as a TypeScript expression, the variables as identifiers. */
function jsonToTs(text: string): string {
  const placeholders = text.replace(/"\u0000([A-Z_]+)\u0000"/g, '"@@$1@@"').replace(VAR, '"@@$1@@"');
  return JSON.stringify(JSON.parse(placeholders)).replace(/"@@([A-Z_]+)@@"/g, '$1');
}

/** jq's `.data[0].slug`, `.data[-1].id` as TypeScript. */
const jqToTs = (path: string) => path.replace(/\[(-\d+)\]/g, '.at($1)!');

/**
 * The documented calls as TypeScript statements of a typed client:
 * `const POST_ID = (await call('post', '/api/v1/posts', { body: … })).data.id;`.
 */
export function callsAsTypeScript(calls: DocumentedCall[], templates: string[]): string[] {
  return calls.map((call) => {
    if (call.shell) return `const ${call.shell}: string = new Date().toISOString();`;
    const segments = call.path.split('/');
    const template = templates.find((candidate) => {
      const parts = candidate.split('/');
      return (
        parts.length === segments.length &&
        parts.every((part, i) => part === segments[i] || (/^\{\w+\}$/.test(part) && /^\u0000\w+\u0000$/.test(segments[i])))
      );
    });
    if (!template) throw new Error(`${call.method} ${call.path.replace(VAR, '$$$1')} is not in the document`);
    const path = template
      .split('/')
      .flatMap((part, i) => (part.startsWith('{') ? [`${part.slice(1, -1)}: ${segments[i].replace(VAR, '$1')}`] : []));
    const query = Object.entries(call.query).map(([k, v]) => `${k}: ${/^\d+$/.test(v) ? v : JSON.stringify(v)}`);
    const input = [
      ...(path.length ? [`path: { ${path.join(', ')} }`] : []),
      ...(query.length ? [`query: { ${query.join(', ')} }`] : []),
      ...(call.body !== undefined ? [`body: ${jsonToTs(call.body)}`] : []),
    ];
    const expression = `await call('${call.method.toLowerCase()}', '${template}', { ${input.join(', ')} })`;
    return call.assign ? `const ${call.assign.name} = (${expression})${jqToTs(call.assign.path)};` : `${expression};`;
  });
}
