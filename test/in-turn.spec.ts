import type { NextFunction, Response } from 'express';
import { inTurn } from '../src/common/http-middleware';
import { loggedUrl } from '../src/common/logged-url';
import type { ChorusRequest } from '../src/common/request-context';

type Handler = (req: ChorusRequest, res: Response, next: NextFunction) => void;

/** Runs `inTurn(...handlers)` on a bare request; answers the order handlers ran in and what its `next` got. */
function run(...handlers: Handler[]): Promise<{ ran: string[]; passed: unknown[] }> {
  const ran: string[] = [];
  const req = { ran } as unknown as ChorusRequest;
  return new Promise((resolve) => {
    inTurn(...handlers)(req, {} as Response, (...args: unknown[]) => resolve({ ran, passed: args }));
  });
}

const step = (name: string): Handler => (req, _res, next) => {
  (req as unknown as { ran: string[] }).ran.push(name);
  next();
};

// The middleware every request passes run as one layer of Express's router (src/app.ts), as they would as layers of their own.
describe('inTurn', () => {
  it('runs each handler when the one before calls next, then hands on with nothing', async () => {
    const later: Handler = (req, res, next) => void setImmediate(() => step('b')(req, res, next));
    expect(await run(step('a'), later, step('c'))).toEqual({ ran: ['a', 'b', 'c'], passed: [] });
  });

  it('hands on the error a handler passes to next, skipping the rest', async () => {
    const failing: Handler = (_req, _res, next) => next(new Error('bad body'));
    const { ran, passed } = await run(step('a'), failing, step('c'));
    expect(ran).toEqual(['a']);
    expect((passed[0] as Error).message).toBe('bad body');
  });

  it('hands on what a handler throws, also when the one before called next later', async () => {
    const later: Handler = (req, res, next) => void setImmediate(() => step('a')(req, res, next));
    const throwing: Handler = () => {
      throw new Error('thrown');
    };
    const { ran, passed } = await run(later, throwing, step('c'));
    expect(ran).toEqual(['a']);
    expect((passed[0] as Error).message).toBe('thrown');
  });
});

// loggedUrl remembers the addresses it found nothing to hide in (src/common/logged-url.ts): asked again, it answers the same.
describe('loggedUrl, asked again', () => {
  it('logs an address with nothing to hide as it came, and one with a credential redacted, every time', () => {
    for (let i = 0; i < 3; i++) {
      expect(loggedUrl('/api/v1/posts?limit=25')).toBe('/api/v1/posts?limit=25');
      expect(loggedUrl('/admin/sign-in/link/abcdef?next=%2Fadmin')).toBe('/admin/sign-in/link/[redacted]?next=%2Fadmin');
      expect(loggedUrl('/api/v1/posts?token=chorus_key_abcdefgh')).toBe('/api/v1/posts?token=[redacted]');
    }
  });
});
