import { applyDecorators, Type } from '@nestjs/common';
import { ApiProperty, ApiResponse } from '@nestjs/swagger';
import { ERROR_STATUS, ErrorCode } from './app-error';

class ErrorDetail {
  @ApiProperty({ enum: Object.keys(ERROR_STATUS), example: 'invalid_request' })
  code!: ErrorCode;

  @ApiProperty({ example: 'title: must be 4 to 120 characters' })
  message!: string;
}

/** Every error answer: `{ error: { code, message } }`. */
export class ErrorBody {
  @ApiProperty({ type: ErrorDetail })
  error!: ErrorDetail;
}

const named = <T extends Type>(cls: T, name: string): T => Object.defineProperty(cls, 'name', { value: name });
const wrappers = new Map<string, Type>();

/** `{ data: T }` (or `{ data: T[] }`), as a schema of its own. */
export function DataOf(type: Type, options: { list?: boolean } = {}): Type {
  const name = `${type.name.replace(/Response$/, '')}${options.list ? 'List' : ''}Answer`;
  if (!wrappers.has(name)) {
    class Wrapper {
      @ApiProperty({ type, isArray: !!options.list })
      data!: unknown;
    }
    wrappers.set(name, named(Wrapper, name));
  }
  return wrappers.get(name)!;
}

/** `{ data: T[], has_more, next_offset }`, as a schema of its own. */
export function PageOf(type: Type): Type {
  const name = `${type.name.replace(/Response$/, '')}Page`;
  if (!wrappers.has(name)) {
    class Page {
      @ApiProperty({ type, isArray: true })
      data!: unknown[];

      @ApiProperty({ description: 'Whether another page follows.' })
      has_more!: boolean;

      @ApiProperty({ type: 'integer', nullable: true, description: '`offset + data.length` while `has_more`, else null.' })
      next_offset!: number | null;
    }
    wrappers.set(name, named(Page, name));
  }
  return wrappers.get(name)!;
}

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: '`invalid_request` (`<field>: <problem>`) or `invalid_json`',
  404: '`not_found`: no such resource in this workspace',
  409: '`conflict`',
  413: '`payload_too_large`: a body over 256 KiB',
};

/** The error answers of a route beyond those every API route has (401, 403, 429, 500). */
export const ApiErrors = (...statuses: number[]) =>
  applyDecorators(
    ...statuses.map((status) =>
      ApiResponse({ status, description: ERROR_DESCRIPTIONS[status] ?? 'error', type: ErrorBody }),
    ),
  );
