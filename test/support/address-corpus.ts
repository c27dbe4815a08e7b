/**
 * Addresses that look like another, for the tests of "an email address is one address" (the
 * neighbour of the hostile-text corpus in site-browser.e2e.spec.ts). Each lookalike is typed by
 * someone who wants the real address's account; `normal` is where Chorus sends its code, and
 * `same` says whether that is the real person's mailbox (IDNA maps a few domain spellings to
 * the same domain, as every mail server does; nothing maps in a local part but ASCII case).
 */
export interface Lookalike {
  what: string;
  real: string;
  typed: string;
  normal: string;
  same: boolean;
}

export const LOOKALIKES: Lookalike[] = [
  { what: 'mixed-case ASCII', real: 'dana@vendir.com', typed: 'Dana@VENDIR.Com', normal: 'dana@vendir.com', same: true },
  { what: 'capital I with dot (U+0130) in the domain', real: 'dana@vendir.com', typed: 'dana@vend\u0130r.com', normal: 'dana@xn--vendir-tyd.com', same: false },
  { what: 'capital I with dot (U+0130) in the local part', real: 'dani@vendir.com', typed: 'dan\u0130@vendir.com', normal: 'dan\u0130@vendir.com', same: false },
  { what: 'dotless i (U+0131) in the domain', real: 'dana@vendir.com', typed: 'dana@vend\u0131r.com', normal: 'dana@xn--vendr-q4a.com', same: false },
  { what: 'dotless i (U+0131) in the local part', real: 'dani@vendir.com', typed: 'dan\u0131@vendir.com', normal: 'dan\u0131@vendir.com', same: false },
  { what: 'Kelvin sign (U+212A) in the local part', real: 'kim@example.com', typed: '\u212Aim@example.com', normal: '\u212Aim@example.com', same: false },
  { what: 'Kelvin sign (U+212A) in the domain, which IDNA maps to k', real: 'kim@kestrel.example', typed: 'kim@\u212Aestrel.example', normal: 'kim@kestrel.example', same: true },
  { what: 'sharp s in the local part', real: 'strasse@example.com', typed: 'stra\u00DFe@example.com', normal: 'stra\u00DFe@example.com', same: false },
  { what: 'sharp s in the domain', real: 'dana@strasse.example', typed: 'dana@stra\u00DFe.example', normal: 'dana@xn--strae-oqa.example', same: false },
  { what: 'fullwidth letters in the local part', real: 'dana@vendir.com', typed: '\uFF44\uFF41\uFF4E\uFF41@vendir.com', normal: '\uFF44\uFF41\uFF4E\uFF41@vendir.com', same: false },
  { what: 'fullwidth letters in the domain, which IDNA maps to ASCII', real: 'dana@vendir.com', typed: 'dana@\uFF56\uFF45\uFF4E\uFF44\uFF49\uFF52.com', normal: 'dana@vendir.com', same: true },
  { what: 'a combining dot (U+0307) in the local part', real: 'dani@vendir.com', typed: 'dani\u0307@vendir.com', normal: 'dani\u0307@vendir.com', same: false },
  { what: 'a combining dot (U+0307) in the domain', real: 'dana@vendir.com', typed: 'dana@vendi\u0307r.com', normal: 'dana@xn--vendir-tyd.com', same: false },
];

/** What has no normal form, and is refused wherever an address is taken. */
export const NOT_ADDRESSES: { what: string; typed: string }[] = [
  { what: 'no @', typed: 'dana.vendir.com' },
  { what: 'an empty local part', typed: '@vendir.com' },
  { what: 'an empty domain', typed: 'dana@' },
  { what: 'an empty label', typed: 'dana@vendir..com' },
  { what: 'a trailing dot', typed: 'dana@vendir.com.' },
  { what: 'a label starting with a dash', typed: 'dana@-vendir.com' },
  { what: 'an underscore in the domain', typed: 'dana@vendir_x.com' },
  { what: 'a punycode label that decodes to nothing valid', typed: 'dana@xn--zz.com' },
  { what: 'an IP address', typed: 'dana@127.0.0.1' },
  { what: 'an address literal', typed: 'dana@[127.0.0.1]' },
  { what: 'a space in the local part', typed: 'da na@vendir.com' },
  { what: 'a right-to-left override in the local part', typed: 'dana\u202E@vendir.com' },
  { what: 'a zero-width space in the local part', typed: 'da\u200Bna@vendir.com' },
  { what: 'a 65-octet local part', typed: `${'d'.repeat(65)}@vendir.com` },
  { what: 'a domain longer than 253 characters', typed: `dana@${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(63)}.example` },
];
