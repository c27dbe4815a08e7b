import * as dgram from 'node:dgram';
import * as net from 'node:net';
import type { AddressInfo } from 'node:net';
import ipaddr from 'ipaddr.js';

const TYPE_A = 1;
const TYPE_AAAA = 28;
const NXDOMAIN = 3;

export interface DnsQuery {
  name: string;
  type: 'A' | 'AAAA' | number;
  at: number;
  answered: boolean;
}

export interface DnsServerOptions {
  /** Names (lower case, no trailing dot) and their addresses, IPv4 and IPv6 mixed. */
  records?: Record<string, string[]>;
  /** Queries for these names are read and never answered. */
  silent?: (name: string) => boolean;
}

/**
 * A small DNS server on a local UDP port, for pointing a resolver at (DNS_SERVERS): answers A
 * and AAAA queries from its table, NXDOMAIN for other names, and nothing at all for the names
 * `silent` picks (a hanging server). Records every query.
 */
export class TestDnsServer {
  readonly queries: DnsQuery[] = [];

  private constructor(
    private readonly socket: dgram.Socket,
    private readonly options: DnsServerOptions,
  ) {}

  static async start(options: DnsServerOptions = {}): Promise<TestDnsServer> {
    const socket = dgram.createSocket('udp4');
    const server = new TestDnsServer(socket, options);
    socket.on('message', (message, peer) => server.handle(message, peer));
    await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
    return server;
  }

  /** `127.0.0.1:<port>`, as DNS_SERVERS takes it. */
  get address(): string {
    return `127.0.0.1:${(this.socket.address() as AddressInfo).port}`;
  }

  queriesFor(name: string): DnsQuery[] {
    return this.queries.filter((q) => q.name === name);
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.socket.close(() => resolve()));
  }

  private handle(message: Buffer, peer: dgram.RemoteInfo): void {
    if (message.length < 12) return;
    const labels: string[] = [];
    let at = 12;
    while (at < message.length && message[at] !== 0) {
      const length = message[at];
      labels.push(message.subarray(at + 1, at + 1 + length).toString('latin1'));
      at += 1 + length;
    }
    const questionEnd = at + 5; // the zero label, QTYPE, QCLASS
    if (questionEnd > message.length) return;
    const name = labels.join('.').toLowerCase();
    const qtype = message.readUInt16BE(at + 1);
    const query: DnsQuery = { name, type: qtype === TYPE_A ? 'A' : qtype === TYPE_AAAA ? 'AAAA' : qtype, at: Date.now(), answered: false };
    this.queries.push(query);
    if (this.options.silent?.(name)) return;

    const addresses = this.options.records?.[name];
    const family = qtype === TYPE_A ? 4 : qtype === TYPE_AAAA ? 6 : 0;
    const matching = (addresses ?? []).filter((a) => net.isIP(a) === family);
    const header = Buffer.alloc(12);
    header.writeUInt16BE(message.readUInt16BE(0), 0); // id
    // QR, the query's RD, RA; NXDOMAIN for a name we do not know.
    header.writeUInt16BE(0x8080 | (message.readUInt16BE(2) & 0x0100) | (addresses ? 0 : NXDOMAIN), 2);
    header.writeUInt16BE(1, 4);
    header.writeUInt16BE(matching.length, 6);
    const answers = matching.map((address) => {
      const rdata = Buffer.from(ipaddr.parse(address).toByteArray());
      const record = Buffer.alloc(12);
      record.writeUInt16BE(0xc00c, 0); // the name: a pointer to the question's
      record.writeUInt16BE(qtype, 2);
      record.writeUInt16BE(1, 4); // IN
      record.writeUInt32BE(1, 6); // TTL 1 s: tests change nothing, but nothing should outlive them
      record.writeUInt16BE(rdata.length, 10);
      return Buffer.concat([record, rdata]);
    });
    const answer = Buffer.concat([header, message.subarray(12, questionEnd), ...answers]);
    this.socket.send(answer, peer.port, peer.address);
    query.answered = true;
  }
}

/** A UDP port that reads DNS queries and never answers any. */
export const silentDnsServer = () => TestDnsServer.start({ silent: () => true });
