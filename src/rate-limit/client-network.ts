import ipaddr from 'ipaddr.js';

/** The client's address; for IPv6 its /64, since one host can use a whole /64. */
export function clientNetwork(ip: string | undefined): string {
  if (!ip || !ipaddr.isValid(ip)) return 'unknown';
  const address = ipaddr.process(ip);
  if (address.kind() === 'ipv4') return address.toString();
  return `${(address as ipaddr.IPv6).toNormalizedString().split(':').slice(0, 4).join(':')}::/64`;
}

