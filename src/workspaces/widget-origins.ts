/** At most this many origins a workspace allows to frame its widget. */
export const MAX_WIDGET_ORIGINS = 50;

const HTTPS = /^https:\/\/[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*(:\d{1,5})?$/i;
const LOCALHOST = /^http:\/\/localhost(:\d{1,5})?$/i;

/**
 * The allowed origins typed in the dashboard, one a line (blank lines ignored): each `https://host[:port]`,
 * or `http://localhost[:port]` for development, in the form a browser sends as `Origin` (lower
 * case, no default port). Any other line refuses them all: the error says which.
 */
export function parseWidgetOrigins(text: string): { origins: string[] } | { error: string } {
  const origins: string[] = [];
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].trim();
    if (line === '') continue;
    if (!(HTTPS.test(line) || LOCALHOST.test(line)) || line.length > 260) {
      return { error: `Line ${i + 1} ("${line.slice(0, 80)}") is not an origin: use https://host or https://host:port, or http://localhost:port for development (no path, no trailing slash).` };
    }
    const port = Number(/:(\d+)$/.exec(line.slice(8))?.[1] ?? 0);
    if (port > 65535) return { error: `Line ${i + 1} ("${line}") has a port above 65535.` };
    const url = new URL(line);
    if (!origins.includes(url.origin)) origins.push(url.origin);
  }
  if (origins.length > MAX_WIDGET_ORIGINS) return { error: `At most ${MAX_WIDGET_ORIGINS} origins.` };
  return { origins };
}
