/**
 * The items of `source`, read up to `max` ahead of the consumer: while the consumer waits (for
 * the database, say), the source goes on reading and parsing. Memory: at most `max` items. An
 * error of the source is thrown where the consumer reaches it; a consumer that stops early stops
 * the source too.
 */
export async function* readAhead<T>(source: AsyncIterable<T>, max: number): AsyncGenerator<T> {
  let items: T[] = [];
  let head = 0;
  let done = false;
  let stopped = false;
  let failure: unknown;
  let wake: (() => void) | undefined;
  let room: (() => void) | undefined;
  const signal = (which: 'wake' | 'room') => {
    const resolve = which === 'wake' ? wake : room;
    if (which === 'wake') wake = undefined;
    else room = undefined;
    resolve?.();
  };
  const producer = (async () => {
    try {
      for await (const item of source) {
        items.push(item);
        signal('wake');
        while (items.length - head >= max && !stopped) await new Promise<void>((resolve) => (room = resolve));
        if (stopped) break;
      }
    } catch (error) {
      failure = error;
    } finally {
      done = true;
      signal('wake');
    }
  })();
  try {
    for (;;) {
      if (head < items.length) {
        const item = items[head++];
        if (head > 1024 && head * 2 > items.length) {
          items = items.slice(head);
          head = 0;
        }
        signal('room');
        yield item;
        continue;
      }
      if (done) {
        if (failure !== undefined) throw failure;
        return;
      }
      await new Promise<void>((resolve) => (wake = resolve));
    }
  } finally {
    stopped = true;
    signal('room');
    await producer;
  }
}
