import { StringDecoder } from 'node:string_decoder';

/** The lines of a stream of UTF-8 text, without their ends, as they arrive (memory: one chunk). */
export async function* linesOf(stream: AsyncIterable<unknown>): AsyncGenerator<string> {
  const decoder = new StringDecoder('utf8');
  let rest = '';
  for await (const chunk of stream) {
    const text = rest + decoder.write(chunk as Buffer);
    const lines = text.split('\n');
    rest = lines.pop()!;
    for (const line of lines) yield line.endsWith('\r') ? line.slice(0, -1) : line;
  }
  rest += decoder.end();
  if (rest !== '') yield rest;
}
