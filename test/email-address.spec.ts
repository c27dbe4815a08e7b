import { lowerAscii, normalEmail } from '../src/common/email-address';
import { LOOKALIKES, NOT_ADDRESSES } from './support/address-corpus';

// The one normal form of an address (src/common/email-address.ts), over the lookalike corpus:
// what is typed, where it would be sent, and whether that is the real address's mailbox.
describe('an email address in its normal form', () => {
  it.each(LOOKALIKES)('$what: $typed is sent to $normal', ({ real, typed, normal, same }) => {
    expect(normalEmail(typed)).toBe(normal);
    expect(normalEmail(real)).toBe(real);
    expect(normalEmail(typed) === normalEmail(real)).toBe(same);
  });

  it.each(NOT_ADDRESSES)('refuses $what', ({ typed }) => {
    expect(normalEmail(typed)).toBeNull();
  });

  it('lower-cases ASCII letters only: no locale, no Unicode case folding', () => {
    expect(lowerAscii('ABC-xyz-\u0130\u212A\u00DF\uFF21\u0049\u0307')).toBe('abc-xyz-\u0130\u212A\u00DF\uFF21i\u0307');
    // JavaScript's own lower-casing would make the Kelvin sign a k and İ an i with a dot.
    expect('\u212A'.toLowerCase()).toBe('k');
    expect(normalEmail('\u212Aim@example.com')).not.toBe('kim@example.com');
  });

  it('keeps what a local part may hold, trims surrounding white space, and keeps a one-label domain (a local mail host)', () => {
    expect(normalEmail('  First.Last+tag@Example.COM \n')).toBe('first.last+tag@example.com');
    expect(normalEmail('admin@localhost')).toBe('admin@localhost');
    expect(normalEmail('\u00E9lodie@\u00E9cole.example')).toBe('\u00E9lodie@xn--cole-9oa.example');
    expect(normalEmail('x@XN--VENDIR-TYD.COM')).toBe('x@xn--vendir-tyd.com');
    expect(normalEmail(`${'d'.repeat(64)}@vendir.com`)).toBe(`${'d'.repeat(64)}@vendir.com`);
  });
});
