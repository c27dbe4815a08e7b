import { dropCitusDatabase } from './citus';

export default async function citusGlobalTeardown(): Promise<void> {
  const name = (globalThis as { __chorusCitusDatabase?: string }).__chorusCitusDatabase;
  if (name) dropCitusDatabase(name);
}
