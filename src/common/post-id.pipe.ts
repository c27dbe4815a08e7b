import { Injectable, PipeTransform } from '@nestjs/common';
import { AppError } from './app-error';

/** A path id that is not a positive integer names no post: 404, as for an unknown id. */
@Injectable()
export class PostIdPipe implements PipeTransform<string, number> {
  transform(value: string): number {
    const id = /^[1-9]\d{0,15}$/.test(value) ? Number(value) : NaN;
    if (!Number.isSafeInteger(id)) throw AppError.notFound('post');
    return id;
  }
}
