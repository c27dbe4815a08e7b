import { ValueTransformer } from 'typeorm';

/** int8 columns arrive from pg as strings; our ids stay far below 2^53. */
export const bigintToNumber: ValueTransformer = {
  to: (value: number | null | undefined) => value,
  from: (value: string | null) => (value === null ? null : Number(value)),
};
