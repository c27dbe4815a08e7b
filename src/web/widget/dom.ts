/**
 * The few browser interfaces the widget's scripts use, declared here because the project
 * compiles for Node (no "dom" lib, whose globals would clash with Node's). Types only: the
 * scripts are served as the text of their functions, which reach nothing outside themselves.
 */
export interface El {
  tagName: string;
  id: string;
  className: string;
  textContent: string | null;
  hidden: boolean;
  tabIndex: number;
  style: Record<string, string>;
  dataset: Record<string, string | undefined>;
  src: string;
  title: string;
  type: string;
  contentWindow: Win | null;
  isConnected: boolean;
  shadowRoot: Root | null;
  setAttribute(name: string, value: string): void;
  getAttribute(name: string): string | null;
  removeAttribute(name: string): void;
  appendChild<T extends El>(child: T): T;
  addEventListener(type: string, listener: (event: Evt) => void): void;
  focus(): void;
  contains(other: El | null): boolean;
  attachShadow(init: { mode: 'open' }): Root;
  querySelector(selector: string): El | null;
}

export interface Root {
  appendChild<T extends El>(child: T): T;
  activeElement: El | null;
  querySelector(selector: string): El | null;
}

export interface Evt {
  key?: string;
  data?: unknown;
  origin?: string;
  source?: unknown;
  shiftKey?: boolean;
  target?: unknown;
  preventDefault(): void;
}

interface Doc {
  body: El;
  head: El;
  currentScript: El | null;
  activeElement: El | null;
  createElement(tag: string): El;
  querySelector(selector: string): El | null;
  addEventListener(type: string, listener: (event: Evt) => void): void;
}

export interface Win {
  document: Doc;
  parent: Win;
  location: { pathname: string; search: string; replace(url: string): void };
  postMessage(message: unknown, targetOrigin: string): void;
  addEventListener(type: string, listener: (event: Evt) => void): void;
  Chorus?: { identify(token: string): void; open(): void; close(): void };
}
