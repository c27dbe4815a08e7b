import { MAX_WIDGET_ORIGINS, parseWidgetOrigins } from '../src/workspaces/widget-origins';
import { WIDGET_SCRIPT } from '../src/web/widget/widget';
import { EMBED_SCRIPT } from '../src/web/widget/embed-frame';

describe('the widget\'s allowed origins, as typed in the dashboard', () => {
  it('takes https origins and http://localhost, one a line, in the form browsers send', () => {
    expect(parseWidgetOrigins('https://App.Example.com\r\n\n  https://app.example.com:443  \nhttps://b.example:8443\nhttp://localhost:3000\nhttp://localhost')).toEqual({
      origins: ['https://app.example.com', 'https://b.example:8443', 'http://localhost:3000', 'http://localhost'],
    });
    expect(parseWidgetOrigins('')).toEqual({ origins: [] });
  });

  it.each([
    'http://example.com',
    'http://127.0.0.1:3000',
    'https://example.com/',
    'https://example.com/app',
    'https://example.com?x=1',
    'https://*.example.com',
    '*',
    "'self'",
    'https://a.example https://b.example',
    'https://user@example.com',
    'https://example.com:99999',
    'javascript:alert(1)',
    'example.com',
  ])('refuses %p, saying which line', (line) => {
    const parsed = parseWidgetOrigins(`https://ok.example\n${line}`);
    expect(parsed).toEqual({ error: expect.stringMatching(/^Line 2 /) });
  });

  it(`takes at most ${MAX_WIDGET_ORIGINS}`, () => {
    const many = Array.from({ length: MAX_WIDGET_ORIGINS + 1 }, (_, i) => `https://s${i}.example`).join('\n');
    expect(parseWidgetOrigins(many)).toEqual({ error: `At most ${MAX_WIDGET_ORIGINS} origins.` });
  });
});

describe('the widget\'s scripts', () => {
  it('are self-contained JavaScript, well under 30 KB', () => {
    for (const script of [WIDGET_SCRIPT, EMBED_SCRIPT]) {
      expect(() => new Function(script)).not.toThrow();
      expect(script).not.toMatch(/\brequire\(|\bexports\b|\bimport\b/);
    }
    expect(Buffer.byteLength(WIDGET_SCRIPT)).toBeLessThan(30 * 1024);
  });
});
